"""The grading engine: one prompt of one model, then one model across all prompts.

Submission code is never run here: behaviour runs go through ``SecureRunner`` in a child.
An exception raised by a check becomes data in exactly one place (``_run_check``); with
``debug`` it propagates instead. A grader failure while observing is recorded as an
``internal error`` on the prompt (the CLI turns any of these into exit code 1).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

from . import scoring, untrusted
from .cleanup import CleanupError
from .options import DEFAULT_SEED, INTERNAL_ERROR, GradeOptions, default_test_data, has_internal_error
from .prompts.base import SANDBOX_EVENTS, CheckContext, Outcome
from .rubric import CheckRow, by_id
from .submission import SourceFile, load_source
from .threads import PYTHON_WORK, released
from .types import Check, Evidence, ExecResult, ModelResult, PromptResult
from .untrusted import NAME_LIMIT, NOTE_LIMIT, text

# GradeOptions and the helpers beside it live in the light ``benchmark.options``; they stay
# importable from here, where library users have always found them.
__all__ = ["DEFAULT_SEED", "INTERNAL_ERROR", "GradeOptions", "blocking_problem", "default_test_data",
           "grade_model", "grade_prompt", "has_internal_error", "load_files"]


def load_files(module: ModuleType, model_dir: Path) -> dict[str, SourceFile]:
    return {name: load_source(model_dir / name, python=name in module.PYTHON_FILES)
            for name in module.FILES}


def blocking_problem(module: ModuleType, files: dict[str, SourceFile]) -> str | None:
    """Why this prompt cannot be graded at all (their fault), or None."""
    python = [f for f in files.values() if f.name in module.PYTHON_FILES]
    for source in python:
        if not source.usable:
            return f"{source.name}: {source.error}"
        if not source.parsed:
            return f"{source.name}: {source.syntax_error}"
    if not python and not any(f.usable for f in files.values()):
        return "; ".join(f"{f.name}: {f.error}" for f in files.values())
    return None


def _status(outcome: Outcome) -> str:
    if outcome.status in ("error", "skipped"):
        return outcome.status
    if outcome.fraction >= 1 - 1e-9:
        return "pass"
    return "fail" if outcome.fraction <= 1e-9 else "partial"


def _evidence(item: Evidence) -> Evidence:
    line = item.line if type(item.line) is int and item.line >= 0 else None
    return Evidence(text(item.file, NAME_LIMIT), line, text(item.note, NOTE_LIMIT))


def _to_check(row: CheckRow, outcome: Outcome) -> Check:
    """The one place an Outcome becomes a Check: its rationale and every evidence field pass
    the untrusted-text boundary here (they may quote a submission's output, names or data)."""
    fraction = 0.0 if outcome.status in ("error", "skipped") else max(0.0, min(1.0, outcome.fraction))
    return Check(row.id, row.category, row.points, round(row.points * fraction, 4),
                 _status(outcome), row.method, text(outcome.rationale),
                 tuple(_evidence(item) for item in outcome.evidence))


def _run_check(row: CheckRow, fn, ctx: CheckContext, debug: bool) -> Check:
    try:
        outcome = fn(ctx)
    except Exception as exc:  # the one place a check's exception becomes data
        if debug:
            raise
        outcome = Outcome.error(f"{INTERNAL_ERROR}: check raised {type(exc).__name__}: {exc}")
    return _to_check(row, outcome)


def _exec_summary(request: dict[str, Any], result: ExecResult) -> dict[str, Any]:
    """A child run as plain JSON for the results; its strings (``channel_error`` may quote
    what the child wrote) pass the untrusted-text boundary."""
    summary = {
        "mode": request.get("mode"), "label": request.get("label"),
        "returncode": result.returncode, "timed_out": result.timed_out,
        "killed_by": result.killed_by, "wall_s": result.wall_s, "cpu_s": result.cpu_s,
        "peak_rss_mb": result.peak_rss_mb, "channel_error": result.channel_error,
        "output_truncated": result.output_truncated,
        "blocked_events": len(result.blocked_events),
    }
    return untrusted.data(summary, NOTE_LIMIT)


SKIPPED_RUN = "skipped: an earlier run of this prompt hit the time-out"


def skipped_run() -> ExecResult:
    """What a prompt's run is after one of its runs timed out: not started, and seen by the
    prompt as a time-out (a hanging submission costs at most about one time-out a prompt)."""
    return ExecResult(returncode=None, stdout="", stderr="", timed_out=True,
                      killed_by="skipped", wall_s=0.0, cpu_s=0.0, peak_rss_mb=0.0,
                      channel_error=SKIPPED_RUN)


def _prompt_result(rubric, checks, files, executions, error) -> PromptResult:
    categories, score, passed = scoring.score_prompt(rubric, checks)
    return PromptResult(
        prompt_id=rubric.id, title=rubric.title, score=score, max_score=25.0,
        passed=passed and error is None, status="error" if error else "ok",
        categories=categories, execution=tuple(executions), error=None if error is None else text(error),
        files={name: f.sha256 for name, f in files.items()},
    )


def _observe_failure(exc: Exception) -> str:
    """The reason recorded when observing raised: always our fault (an internal error)."""
    if isinstance(exc, CleanupError):
        return f"{INTERNAL_ERROR}: sandbox clean-up failed: {exc.strerror}"
    return f"{INTERNAL_ERROR}: observing failed: {type(exc).__name__}: {exc}"


def grade_prompt(module: ModuleType, model_dir: Path, *, test_data: Path,
                 options: GradeOptions | None = None) -> PromptResult:
    """Grade one prompt; Python work holds ``threads.PYTHON_WORK``, released while a child runs."""
    with PYTHON_WORK:
        return _grade_prompt(module, model_dir, test_data=test_data, options=options)


def _grade_prompt(module: ModuleType, model_dir: Path, *, test_data: Path,
                  options: GradeOptions | None = None) -> PromptResult:
    options = options or GradeOptions()
    rubric = by_id(module.PROMPT_ID)
    files = load_files(module, Path(model_dir))
    problem = blocking_problem(module, files)
    if problem:
        checks = [_to_check(row, Outcome.error(problem)) for row in rubric.checks]
        return _prompt_result(rubric, checks, files, [], problem)
    runner = options.runner(Path(model_dir).name)
    executions: list[dict[str, Any]] = []
    blocked: list[dict[str, Any]] = []

    def run(request: dict[str, Any], stage) -> ExecResult:
        if any(e["timed_out"] for e in executions):  # the prompt's time budget is spent
            result = skipped_run()  # seen by the prompt as a time-out; recorded as skipped
            executions.append({**_exec_summary(request, result), "timed_out": False,
                               "skipped": True})
            return result
        staged = {name: f.data for name, f in files.items() if f.usable}  # the bytes graded
        staged.update(stage)
        with released(PYTHON_WORK):
            result = runner.run_harness(request, staged, timeout=options.timeout_s)
        executions.append(_exec_summary(request, result))
        blocked.extend({**event, "file": request.get("module", "")} for event in result.blocked_events)
        return result

    try:
        facts = module.observe(files, run, Path(test_data), options.seed)
    except Exception as exc:
        if options.debug:
            raise
        reason = _observe_failure(exc)
        checks = [_to_check(row, Outcome.error(reason)) for row in rubric.checks]
        return _prompt_result(rubric, checks, files, executions, reason)
    ctx = CheckContext(files=files, facts={**facts, SANDBOX_EVENTS: blocked})
    checks = [_run_check(row, module.CHECKS[row.id], ctx, options.debug) for row in rubric.checks]
    return _prompt_result(rubric, checks, files, executions, None)


def grade_model(model_dir: Path, tier: str, *, test_data: Path,
                options: GradeOptions | None = None) -> ModelResult:
    from .prompts import PROMPT_MODULES

    # The prompts of one model are graded side by side: while one waits for its sandboxed
    # children, another analyses source. Each prompt has its own files, runner and sandboxes;
    # the results are assembled in prompt order, so threads change timings only.
    with ThreadPoolExecutor(max_workers=len(PROMPT_MODULES), thread_name_prefix="prompt") as pool:
        prompts = list(pool.map(lambda module: grade_prompt(module, model_dir, test_data=test_data,
                                                            options=options), PROMPT_MODULES))
    return scoring.score_model(Path(model_dir).name, tier, prompts)
