"""The grading engine: one task of one model, then one model across a suite of tasks.

Submission code is never run here: behaviour runs go through ``SecureRunner`` in a child.
An exception raised by a check becomes data in exactly one place (``_run_check``); with
``debug`` it propagates instead. A grader failure while observing is recorded as an
``internal error`` on the prompt (the CLI turns any of these into exit code 1).
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

from .. import scoring, untrusted
from ..packs.local_plugins import resolve_check
from ..packs.model import Task, TaskCheck
from ..packs.suite import Suite, core_pack, default_suite
from ..prompts.base import SANDBOX_EVENTS, SANDBOX_UNLISTED, CheckContext, Outcome, split_where
from ..sandbox.cleanup import CleanupError
from ..submission import SourceFile, load_source
from ..threads import PYTHON_WORK, released
from ..types import CAUSE_INTERNAL, CAUSES, CaseGroup, Check, Evidence, ExecResult, ModelResult, PromptResult
from ..untrusted import NAME_LIMIT, NOTE_LIMIT, text
from .options import DEFAULT_SEED, INTERNAL_ERROR, GradeOptions, default_test_data, has_internal_error

# GradeOptions and the helpers beside it live in the light ``benchmark.engine.options``; they are
# importable from here and from ``benchmark.grading``, where library users have always found them.
__all__ = ["DEFAULT_SEED", "INTERNAL_ERROR", "NOT_ATTEMPTED", "GradeOptions", "blocking_problem",
           "default_test_data", "grade_model", "grade_prompt", "grade_task", "has_internal_error",
           "load_files", "not_attempted", "refused_prompt"]


def as_task(task: Task | ModuleType) -> Task:
    """A task; a core prompt module (the spec's way to name a prompt) becomes its core task."""
    return task if isinstance(task, Task) else core_pack().task(task.PROMPT_ID)


def load_files(task: Task | ModuleType, model_dir: Path) -> dict[str, SourceFile]:
    task = as_task(task)
    return {name: load_source(task.model_path(model_dir, name), python=name in task.python_files)
            for name in task.file_names}


def blocking_problem(task: Task | ModuleType, files: dict[str, SourceFile]) -> str | None:
    """Why this task cannot be graded at all (their fault), or None. A file the task marks
    ``required: false`` that is absent blocks nothing."""
    task = as_task(task)
    optional = {f.path for f in task.files if not f.required}
    present = {name: f for name, f in files.items()
               if not (name in optional and f.error == "file not found")}
    python = [f for name, f in present.items() if name in task.python_files]
    for source in python:
        if not source.usable:
            return f"{source.name}: {source.error}"
        if not source.parsed:
            return f"{source.name}: {source.syntax_error}"
    if not python and not any(f.usable for f in present.values()):
        return "; ".join(f"{f.name}: {f.error}" for f in present.values()) or "no file was submitted"
    return None


MISNAMED_SCAN = 200  # entries of a model folder looked at for a near name (a folder may hold many)


def misnamed_hint(task: Task, files: dict[str, SourceFile], model_dir: Path) -> str:
    """For a blocked task with a file not found: ``"; did you mean X?"`` naming a file of that
    folder whose name is close (``prompt1_solution.py`` for ``prompt_1_solution.py``), or ""."""
    from ..suggest import did_you_mean

    for name, source in files.items():
        if source.error != "file not found":
            continue
        folder = task.model_path(model_dir, name).parent
        try:
            with os.scandir(folder) as entries:
                present = [entry.name for _, entry in zip(range(MISNAMED_SCAN), entries)]
        except OSError:
            continue
        expected = {Path(other).name for other in files}  # (a file the task itself expects is no near miss)
        hint = did_you_mean(Path(name).name, [n for n in present if n not in expected], 1)
        if hint:
            return text(hint, NAME_LIMIT)
    return ""


def _status(outcome: Outcome) -> str:
    if outcome.status in ("error", "skipped"):
        return outcome.status
    if outcome.fraction >= 1 - 1e-9:
        return "pass"
    return "fail" if outcome.fraction <= 1e-9 else "partial"


def _evidence(item: Evidence) -> Evidence:
    line = item.line if type(item.line) is int and item.line >= 0 else None
    return Evidence(text(item.file, NAME_LIMIT), line, text(item.note, NOTE_LIMIT))


def _to_check(row: TaskCheck, outcome: Outcome) -> Check:
    """The one place an Outcome becomes a Check: its rationale and every evidence field pass
    the untrusted-text boundary here (they may quote a submission's output, names or data)."""
    fraction = 0.0 if outcome.status in ("error", "skipped") else max(0.0, min(1.0, outcome.fraction))
    cause = outcome.cause if outcome.status == "error" and outcome.cause in CAUSES else None
    return Check(row.id, row.category, row.points, round(row.points * fraction, 4),
                 _status(outcome), row.method, text(outcome.rationale),
                 tuple(_evidence(item) for item in outcome.evidence), cause, _groups(outcome.groups))


def _groups(groups: Any) -> tuple[CaseGroup, ...]:
    """A check type's case groups, kept only when well formed (a plugin's odd value is dropped:
    the groups explain a score, they never make one)."""
    if not isinstance(groups, tuple):
        return ()
    kept = tuple(CaseGroup(g.name, g.right, g.of) for g in groups
                 if isinstance(g, CaseGroup) and g.name in ("shown", "hidden")
                 and all(type(n) is int for n in (g.right, g.of)) and 0 <= g.right <= g.of)
    return kept if len(kept) == len(groups) else ()


def _malformed(outcome: Any) -> str | None:
    """Why what a check type returned is not an ``Outcome`` the engine can score (a plugin's
    bug, never a pass: ``min(1.0, nan)`` is 1.0), or None."""
    if not isinstance(outcome, Outcome):
        return f"check returned {type(outcome).__name__}, not an Outcome"
    fraction = outcome.fraction
    if not isinstance(fraction, (int, float)) or not math.isfinite(fraction):
        return f"check returned a fraction that is not a finite number ({fraction!r})"
    stray = next((item for item in outcome.evidence if not isinstance(item, Evidence)), None)
    if stray is not None:
        return f"check returned evidence that is {type(stray).__name__}, not Evidence"
    return None


def _run_check(row: TaskCheck, ctx: CheckContext, debug: bool) -> Check:
    try:
        outcome = resolve_check(ctx.task.pack, row.use).fn(ctx, **row.params)
        why = _malformed(outcome)
    except Exception as exc:  # the one place a check's exception becomes data
        if debug:
            raise
        why = f"check raised {type(exc).__name__}: {exc}"
    return _to_check(row, outcome if why is None else Outcome.error(f"{INTERNAL_ERROR}: {why}", CAUSE_INTERNAL))


def _exec_summary(request: dict[str, Any], result: ExecResult) -> dict[str, Any]:
    """A child run as plain JSON for the results; its strings (``channel_error`` may quote
    what the child wrote) pass the untrusted-text boundary."""
    summary = {
        "mode": request.get("mode"), "label": request.get("label"),
        "returncode": result.returncode, "timed_out": result.timed_out,
        "killed_by": result.killed_by, "wall_s": result.wall_s, "cpu_s": result.cpu_s,
        "peak_rss_mb": result.peak_rss_mb, "channel_error": result.channel_error,
        "output_truncated": result.output_truncated,
        "blocked_events": sum(e.get("count", 1) for e in result.blocked_events) + result.blocked_unlisted,
    }
    raised = _first_raised(result.observation)
    if raised is not None:
        summary["raised"] = raised
    summary = untrusted.data(summary, NOTE_LIMIT)
    tail = result.stderr[-STDERR_TAIL:].strip()
    if tail:  # (escaped onto one line; an escape is at most 6 characters, so nothing is cut)
        summary["stderr_tail"] = text(tail, 6 * STDERR_TAIL)
    return summary


STDERR_TAIL = 2000  # the characters of a child run's stderr its summary keeps (the last ones)


def _first_raised(record: dict[str, Any] | None) -> dict[str, Any] | None:
    """The exception a run reports first, preferring one the harness placed in the
    submission's own file (``where``): ``{type, message, file, line}``, else None."""
    if not isinstance(record, dict):
        return None
    found = [record.get("exception"), record.get("import_error")]
    found += [item.get("exception") for item in record.get("results") or () if isinstance(item, dict)]
    found = [e for e in found if isinstance(e, dict) and isinstance(e.get("type"), str)]
    if not found:
        return None
    first = next((e for e in found if e.get("where")), found[0])
    name, line = split_where(first.get("where"))
    return {"type": first["type"], "message": str(first.get("message", ""))[:NOTE_LIMIT],
            "file": name, "line": line}


SKIPPED_RUN = "skipped: an earlier run of this prompt hit the time-out"


def skipped_run() -> ExecResult:
    """What a prompt's run is after one of its runs timed out: not started, and seen by the
    prompt as a time-out (a hanging submission costs at most about one time-out a prompt)."""
    return ExecResult(returncode=None, stdout="", stderr="", timed_out=True,
                      killed_by="skipped", wall_s=0.0, cpu_s=0.0, peak_rss_mb=0.0,
                      channel_error=SKIPPED_RUN)


def _denial(event: dict[str, Any]) -> dict[str, Any]:
    """A denied attempt as a prompt's results list it (its strings through the text boundary:
    the guard quotes the submission's paths, hosts and file names)."""
    return untrusted.data({"kind": event.get("blocked"), "event": event.get("event"),
                           "target": event.get("detail", ""), "count": event.get("count", 1),
                           "where": event.get("where") or event.get("file") or ""}, NOTE_LIMIT)


def _prompt_result(task: Task, checks, files, executions, error, status: str | None = None,
                   denials=()) -> PromptResult:
    categories, score, passed = scoring.score_prompt(task, checks)
    categories, score, cap = scoring.apply_critical(task, checks, categories, score)
    if cap is not None:
        passed = scoring.is_pass(score, task.points, task.pass_fraction)
    return PromptResult(
        prompt_id=task.key, title=task.title, score=score, max_score=task.points,
        passed=passed and error is None, status=status or ("error" if error else "ok"),
        categories=categories, execution=tuple(executions), error=None if error is None else text(error),
        files={name: f.sha256 for name, f in files.items()},
        denials=tuple(_denial(event) for event in denials), cap=cap,
    )


def _observe_failure(exc: Exception) -> str:
    """The reason recorded when observing raised: always our fault (an internal error)."""
    if isinstance(exc, CleanupError):
        return f"{INTERNAL_ERROR}: sandbox clean-up failed: {exc.strerror}"
    return f"{INTERNAL_ERROR}: observing failed: {type(exc).__name__}: {exc}"


def refused_prompt(task: Task | ModuleType, problem: str,
                   files: dict[str, SourceFile] | None = None) -> PromptResult:
    """The result of a task that cannot be graded at all (their fault): status ``error``,
    every check ``error`` with ``problem`` as its rationale, score 0."""
    task = as_task(task)
    checks = [_to_check(row, Outcome.error(problem)) for row in task.checks]
    return _prompt_result(task, checks, files or {}, [], problem)


NOT_ATTEMPTED = "not attempted"


def not_attempted(task: Task | ModuleType, files: dict[str, SourceFile]) -> PromptResult | None:
    """The result of a task none of whose files was submitted (nor one under a near name):
    status ``not_attempted``, every check ``skipped`` saying so, score 0. Its points count
    against the model only when it answered another task of the same pack
    (``scoring.score_model``). None when any file of the task is there."""
    task = as_task(task)
    if not files or any(f.error != "file not found" for f in files.values()):
        return None
    reason = f"{NOT_ATTEMPTED}: no file of this task was submitted (expected {', '.join(sorted(files))})"
    checks = [_to_check(row, Outcome.skipped(reason)) for row in task.checks]
    return _prompt_result(task, checks, files, [], None, status="not_attempted")


def grade_prompt(task: Task | ModuleType, model_dir: Path, *, test_data: Path,
                 options: GradeOptions | None = None) -> PromptResult:
    """Grade one task (or core prompt module); Python work holds ``threads.PYTHON_WORK``,
    released while a child runs."""
    with PYTHON_WORK:
        return _grade_task(as_task(task), model_dir, test_data=test_data, options=options)


grade_task = grade_prompt


def _grade_task(task: Task, model_dir: Path, *, test_data: Path,
                options: GradeOptions | None = None) -> PromptResult:
    options = options or GradeOptions()
    files = load_files(task, Path(model_dir))
    problem = blocking_problem(task, files)
    if problem:
        hint = misnamed_hint(task, files, Path(model_dir))  # (a file under a near name is an attempt)
        return (None if hint else not_attempted(task, files)) or refused_prompt(task, problem + hint, files)
    runner = options.runner(Path(model_dir).name)
    executions: list[dict[str, Any]] = []
    blocked: dict[tuple[str, ...], dict[str, Any]] = {}  # (kind, event, detail, file) -> attempt
    unlisted = [0]  # attempts the records counted but did not list

    def run(request: dict[str, Any], stage, *, reference: bool = False) -> ExecResult:
        """A child run of the model's files plus ``stage``; with ``reference`` a run of the
        task's own reference solution (``stage`` only), which spends none of the model's time
        budget, whose blocked attempts are not the model's and which is not listed in the
        model's executions. A request with ``"repeat": true`` (a timing run of code the prompt
        already ran) adds only blocked attempts not already recorded for the prompt; one with
        ``"retime": true`` as well (a timing run made only when a first timing fell short) is
        not listed in the executions, which must not depend on how the timing fell."""
        if not reference and any(e["timed_out"] for e in executions):  # the budget is spent
            result = skipped_run()  # seen by the prompt as a time-out; recorded as skipped
            executions.append({**_exec_summary(request, result), "timed_out": False,
                               "skipped": True})
            return result
        staged = {} if reference else {name: f.data for name, f in files.items() if f.usable}
        staged.update(stage)  # the model's bytes, as graded, then what the task stages
        timeout = options.timeout_s  # a task's own time-out may shorten it, never lengthen it
        if isinstance(request.get("timeout_s"), (int, float)) and request["timeout_s"] > 0:
            timeout = min(timeout, float(request["timeout_s"]))
        with released(PYTHON_WORK):
            result = runner.run_harness(request, staged, timeout=timeout)
        if reference:  # the grader's own run, memoised per process: not in the model's results,
            return result  # which must not depend on which model met the memo first
        if request.get("retime") is not True:  # a timing repeat, run or not as the timing falls:
            executions.append(_exec_summary(request, result))  # unlisted, so results stay stable
        repeat = request.get("repeat") is True  # a timing run repeats code the prompt already ran:
        module = str(request.get("module", ""))  # only its new attempts count
        for event in result.blocked_events:
            count = event.get("count", 1)  # (validated: result_record._event_ok)
            key = (event.get("blocked"), event.get("event"), event.get("detail"), module)
            if key in blocked:
                if not repeat:
                    blocked[key]["count"] += count
            else:
                blocked[key] = {**event, "count": count, "file": module}
        if not repeat:
            unlisted[0] += result.blocked_unlisted
        return result

    try:
        facts = task.observe(files, run, Path(test_data), options.seed)
    except Exception as exc:
        if options.debug:
            raise
        reason = _observe_failure(exc)  # (always the grader's fault)
        checks = [_to_check(row, Outcome.error(reason, CAUSE_INTERNAL)) for row in task.checks]
        return _prompt_result(task, checks, files, executions, reason)
    ctx = CheckContext(files=files, facts={**facts, SANDBOX_EVENTS: list(blocked.values()),
                                           SANDBOX_UNLISTED: unlisted[0]}, task=task)
    checks = [_run_check(row, ctx, options.debug) for row in task.checks]
    return _prompt_result(task, checks, files, executions, None, denials=blocked.values())


MAX_TASK_THREADS = 4


def grade_model(model_dir: Path, tier: str, *, test_data: Path,
                options: GradeOptions | None = None, suite: Suite | None = None) -> ModelResult:
    """Grade a model on every task of ``suite`` (default: the core pack)."""
    suite = suite or default_suite()
    tasks = suite.tasks
    # The tasks of one model are graded side by side: while one waits for its sandboxed
    # children, another analyses source. Each task has its own files, runner and sandboxes;
    # the results are assembled in key order, so threads change timings only.
    with ThreadPoolExecutor(max_workers=min(len(tasks), MAX_TASK_THREADS),
                            thread_name_prefix="prompt") as pool:
        prompts = list(pool.map(lambda task: grade_prompt(task, model_dir, test_data=test_data,
                                                          options=options), tasks))
    prompts.sort(key=lambda p: scoring.prompt_sort_key(p.prompt_id))  # as a cached record reads back
    if suite.has_core_only:  # the spec's call, out of 100
        return scoring.score_model(Path(model_dir).name, tier, prompts)
    return scoring.score_model(Path(model_dir).name, tier, prompts, max_score=suite.max_score)
