"""Check types over script runs (``facts["runs"]``): the ``exec.*`` types, and the per-run
judging loop the ``output.*`` types share.

A selected run that was not observed, failed to produce a record (``problem``) or was
skipped earns nothing; so does a run whose expected value is missing, except that a check
selecting a run the reference solution failed on is ``error`` (not judged: the pack's fault).
Credit is pooled as the mean over the selected runs. Nothing selected, or an observation
that failed as a whole (``facts["problem"]``), is a fail.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...prompts.base import SANDBOX_EVENTS, CheckContext, Outcome, sandbox_violations as sandbox_check
from ...types import Evidence
from ..registry import builtin_check
from .common import (exception_note, labels_param, mapping, observation_problem, pooled,
                     reference_failure, select_labels)

Score = tuple[float, str]
RUNS_PARAM = labels_param("run")


def entry_file(ctx: CheckContext) -> str:
    """The file named in evidence for a run: ``run.entry``, else the task's main file."""
    if ctx.task is None:
        return ""
    entry = ctx.task.run.get("entry") if isinstance(ctx.task.run, Mapping) else None
    return str(entry or ctx.task.main)


def run_problem(run: Any) -> str | None:
    """Why a run record cannot be judged, or None."""
    if not isinstance(run, Mapping):
        return "the run was not observed"
    if run.get("problem"):
        return f"the run produced no record: {run['problem']}"
    if run.get("skipped"):
        return "the run was skipped"
    return None


def failure_note(run: Mapping[str, Any]) -> str:
    """The exception a run reported, else the last line of its stderr."""
    if run.get("exception"):
        return exception_note(run["exception"])
    lines = str(run.get("stderr") or "").strip().splitlines()
    return lines[-1][:200] if lines else "nothing on stderr"


def judge_runs(ctx: CheckContext, runs: Sequence[str] | None,
               judge: Callable[..., Score], *, with_expected: bool) -> Outcome:
    """Pool ``judge(run)`` (or ``judge(run, expected)``) over the selected runs.

    Default selection: every label with an expected value (``with_expected``), else every
    observed run; either way not a named run expected to fail (``exit`` not 0), whose output
    and exit ``exec.exit_code`` judges."""
    blocked = observation_problem(ctx.facts)
    if blocked:
        return blocked
    records, expected = mapping(ctx.facts, "runs"), mapping(ctx.facts, "expected")
    missing = mapping(ctx.facts, "expected_problem")
    failing = {label for label, code in mapping(ctx.facts, "exits").items() if code != 0}
    if with_expected:
        labels = select_labels(runs, set(expected) | (set(missing) - failing if runs is None else set(missing))
                               | (set(records) if runs else set()))
    else:
        labels = select_labels(runs, set(records) - failing if runs is None else records)
    unjudged = reference_failure(ctx, labels, entry_file(ctx)) if with_expected else None
    if unjudged:
        return unjudged
    scores: list[tuple[str, float, str]] = []
    for label in labels:
        run = records.get(label)
        problem = run_problem(run)
        if problem:
            scores.append((label, 0.0, problem))
        elif not with_expected:
            scores.append((label, *judge(run)))
        elif label not in expected:
            why = missing.get(label) or "no answer key or reference output"
            scores.append((label, 0.0, f"no expected value ({why})"))
        else:
            scores.append((label, *judge(run, expected[label])))
    return pooled(entry_file(ctx), scores, "runs")


@builtin_check("exec.exit_code", method="exec", params={"runs": {
    **RUNS_PARAM, "description": "the run labels to judge; 'perturbed' stands for every perturbed_<n> label "
                                 "(default: every named run of run.runs)"}})
def exit_code(ctx: CheckContext, runs: Sequence[str] | None = None) -> Outcome:
    """Each selected run ends with the exit code its named run states (``exit``: a number, or
    ``nonzero`` for any failure exit), within its time limit.

    Parameters: ``runs`` (labels; default every named run of ``run.runs``; a run without a
    stated ``exit`` is expected to exit 0). Partial credit: the share of runs that exit as
    stated. "exit 1 on an unreadable file" is a named run with ``exit: nonzero``; a crash
    with a traceback also exits non-zero, so pair it with a check of what the run printed.
    """
    exits = mapping(ctx.facts, "exits")
    if runs is None and not exits:
        return Outcome.fail("the task names no run with an expected exit code (run.runs)")

    def judge(label: str, run: Mapping[str, Any]) -> Score:
        if run.get("timed_out"):
            return 0.0, "timed out"
        code, want = run.get("exit_code"), exits.get(label, 0)
        if not isinstance(code, int) or isinstance(code, bool):
            return 0.0, "no exit code"
        if (want == "nonzero" and code != 0) or code == want:
            return 1.0, f"exit {code}"
        stated = "a non-zero code" if want == "nonzero" else str(want)
        return 0.0, f"exited with {code}, not {stated} ({failure_note(run)})"

    labels = select_labels(runs, exits)
    records = mapping(ctx.facts, "runs")
    scores = [(label, 0.0, problem) if (problem := run_problem(records.get(label))) else
              (label, *judge(label, records[label])) for label in labels]
    return pooled(entry_file(ctx), scores, "runs")


def _exit_zero(run: Mapping[str, Any]) -> Score:
    if run.get("timed_out"):
        return 0.0, "timed out"
    code = run.get("exit_code")
    if code == 0 and not isinstance(code, bool):
        return 1.0, "exit 0"
    return 0.0, f"exited with {code} ({failure_note(run)})"


@builtin_check("exec.exit_zero", method="exec", params={"runs": RUNS_PARAM})
def exit_zero(ctx: CheckContext, runs: Sequence[str] | None = None) -> Outcome:
    """The script exits with status 0, within its time limit, on each selected run.

    Parameters: ``runs`` (labels; ``perturbed`` selects every generated run; default every
    observed run). Partial credit: the share of runs that exit 0.
    """
    return judge_runs(ctx, runs, _exit_zero, with_expected=False)


@builtin_check("exec.sandbox_violations", method="exec", params={
    "answer_reads": {"enum": ["count", "fail"], "default": "count",
                     "description": "fail: an attempt the sandbox denied on a path naming the task's answer "
                                    "key or reference solution fails the check outright (with critical: true "
                                    "on the check, the task scores 0); count: it costs half, as any other"},
    "if_unobserved": {"enum": ["fail", "pass"], "default": "fail",
                      "description": "the verdict when the facts hold no run or call (facts['runs'], "
                                     "facts['cases']): fail (default: nothing was watched); pass, for "
                                     "a custom observe that keeps its runs' facts under other keys, "
                                     "so the sandbox's denials alone decide"},
})
def sandbox_violations(ctx: CheckContext, answer_reads: str = "count", if_unobserved: str = "fail") -> Outcome:
    """The sandbox denied nothing (network, processes, writes outside the sandbox...) during the runs.

    Each denied attempt costs half the points. Added to every task that runs code; with no run
    or call observed at all, nothing was watched, so it fails, unless ``if_unobserved: pass``
    (a custom observe keeps its runs' facts elsewhere: the engine still records every attempt
    the sandbox denied in its child runs, and a lost record still fails). ``answer_reads: fail``: an
    attempt on a path that names the task's answer key (an ``answers`` file, by its path in the
    task folder, such as ``answers/expected.json``) or its reference solution
    (``<reference>/<file>``) fails the
    check outright: an answer that went looking for the key is a cheat, whatever it printed. A
    string literal in the submitted Python that names one does too: a guess such as
    ``open("../answers/expected.json")`` may land inside the sandbox and fail to open there
    without any denial.
    """
    if not (mapping(ctx.facts, "runs") or mapping(ctx.facts, "cases")) and if_unobserved != "pass":
        why = ctx.facts.get("problem") or "no run or call was observed"
        return Outcome.fail(f"the sandbox watched nothing: {why}")
    if answer_reads == "fail" and ctx.task is not None:
        snooped = [e for e in ctx.facts.get(SANDBOX_EVENTS, ()) if _names_the_key(str(e.get("detail", "")), ctx.task)]
        if snooped:
            first = snooped[0]
            return Outcome.fail(
                f"the sandbox denied {len(snooped)} attempt(s) on the task's answer key or reference "
                f"(first: {first.get('event')} {str(first.get('detail', ''))[:120]})",
                tuple(Evidence(str(e.get("file", "")), e.get("line"), f"{e.get('event')} {e.get('detail', '')}"[:200])
                      for e in snooped[:10]))
        named = _literals_naming_the_key(ctx)
        if named:  # (a guess that lands inside the sandbox just fails to open: no denial to see)
            file, line, value = named[0]
            return Outcome.fail(
                f"the source names the task's answer key or reference in {len(named)} place(s) "
                f"(first: {value[:120]!r} at {file}:{line})",
                tuple(Evidence(f, n, f"names {v[:160]!r}") for f, n, v in named[:10]))
    return sandbox_check(ctx)


def _literals_naming_the_key(ctx: CheckContext) -> list[tuple[str, int, str]]:
    """(file, line, text) of each string literal of the submitted Python that names the task's
    answer key or reference files (as ``_names_the_key`` reads a path)."""
    import ast

    found = []
    for name in sorted(getattr(ctx.task, "python_files", ())):
        source = ctx.files.get(name)
        tree = getattr(source, "tree", None)
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 4096 \
                    and _names_the_key(node.value, ctx.task):
                found.append((name, node.lineno, node.value))
    return found


def _names_the_key(target: str, task: Any) -> bool:
    """Whether a path (a denied attempt's target, a string literal) names the task's answer key
    or reference files: ends with an answer key's path in the task folder (``answers/x.json``)
    or ``<reference>/<file>``. A bare file name never does: an honest program may write a file
    named as the key is."""
    path = target.replace("\\", "/").strip("'\"")
    if not path:
        return False
    manifest = getattr(task, "manifest", {}) or {}
    keys = [str(value) for value in (manifest.get("answers") or {}).values()]
    reference = manifest.get("reference")
    names = [key for key in keys if "/" in key]  # (by its path: a bare name may be an honest output's)
    if reference:
        names += [f"{reference}/{name}" for name in getattr(task, "file_names", ())]
    return any(path == name or path.endswith("/" + name) for name in names)
