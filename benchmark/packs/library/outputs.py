"""Check types over a script's parsed output (``facts["runs"][label]["output"]``) against
its expected value (``facts["expected"][label]``): the ``output.*`` types but accuracy.

Runs are selected and pooled by ``runs.judge_runs``: by default every label that has an
expected value; a run with no parsed output earns nothing for that run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...prompts.base import CheckContext, Outcome
from ..registry import builtin_check
from .common import (COMPARE_PARAMS, MISSING, POINTER_PATTERN, comparer, first_difference,
                     item_share, pointer)
from .runs import RUNS_PARAM, Score, judge_runs

_NUMBER = (int, float)


def _parsed(run: Mapping[str, Any]) -> tuple[Any, str | None]:
    """(the parsed output, None) or (None, why there is none)."""
    if run.get("output_error"):
        return None, f"no parsed output: {run['output_error']}"
    if run.get("output") is None:
        return None, "no parsed output"
    return run["output"], None


@builtin_check("output.json_equal", method="behaviour", params={
    "runs": RUNS_PARAM, **COMPARE_PARAMS,
    "partial": {"type": "string", "enum": ["none", "runs", "top_level_items"], "default": "runs",
                "description": "none: all runs equal or nothing; runs: the share of equal runs; "
                               "top_level_items: per run, the share of equal top-level list "
                               "items or mapping keys (default runs)"},
})
def json_equal(ctx: CheckContext, runs: Sequence[str] | None = None, compare: str = "strict",
               float_tol: float = 1e-9, partial: str = "runs") -> Outcome:
    """The parsed output equals the expected value on each selected run.

    Equality is type-strict (``1``, ``1.0`` and ``true`` differ) unless ``compare: numeric``
    (ints and floats equal within ``float_tol``). Parameters: ``runs``, ``compare``,
    ``float_tol``, ``partial``. Partial credit per ``partial``; top-level items are matched
    by list position or mapping key, and an extra item counts against.
    """
    equal = comparer(compare, float_tol)

    def judge(run: Mapping[str, Any], expected: Any) -> Score:
        got, why = _parsed(run)
        if why:
            return 0.0, why
        if equal(got, expected):
            return 1.0, "equal"
        score = item_share(got, expected, equal) if partial == "top_level_items" else 0.0
        return score, f"differs at {first_difference(got, expected, equal)}"

    outcome = judge_runs(ctx, runs, judge, with_expected=True)
    if partial == "none" and 0 < outcome.fraction < 1:
        return Outcome(0.0, outcome.rationale + "; partial: none, so nothing", outcome.evidence)
    return outcome


def _number(value: Any) -> bool:
    return isinstance(value, _NUMBER) and not isinstance(value, bool)


@builtin_check("output.number", method="behaviour", params={
    "runs": RUNS_PARAM,
    "path": {"type": "string", "pattern": POINTER_PATTERN, "default": "",
             "description": "a JSON Pointer into the parsed output, e.g. /summary/total "
                            "(default '': the whole output)"},
    "abs_tol": {"type": "number", "minimum": 0, "default": 0,
                "description": "absolute tolerance (default 0)"},
    "rel_tol": {"type": "number", "minimum": 0, "default": 1e-9,
                "description": "tolerance relative to the expected value (default 1e-9)"},
})
def number(ctx: CheckContext, runs: Sequence[str] | None = None, path: str = "",
           abs_tol: float = 0.0, rel_tol: float = 1e-9) -> Outcome:
    """The number at ``path`` in the parsed output matches the expected number within tolerance.

    The expected number is the expected value at the same path (or the expected value itself
    when it is a number). A match: ``|got - expected| <= max(abs_tol, rel_tol x
    |expected|)``; booleans and numeric strings are not numbers. Parameters: ``runs``,
    ``path``, ``abs_tol``, ``rel_tol``. Partial credit: the share of runs that match.
    """
    where = path or "the output"

    def judge(run: Mapping[str, Any], expected: Any) -> Score:
        got, why = _parsed(run)
        if why:
            return 0.0, why
        want = expected if _number(expected) else pointer(expected, path)
        value = pointer(got, path)
        if not _number(want):
            return 0.0, f"the expected value has no number at {where}"
        if value is MISSING:
            return 0.0, f"no value at {where}"
        if not _number(value):
            return 0.0, f"{where} holds a {type(value).__name__}, not a number"
        if abs(value - want) <= max(abs_tol, rel_tol * abs(want)):
            return 1.0, f"{value!r} matches {want!r}"
        return 0.0, f"{where} is {value!r}, expected {want!r}"

    return judge_runs(ctx, runs, judge, with_expected=True)


def _normal_text(text: str, strip: bool, ignore_case: bool) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if strip:
        text = "\n".join(line.rstrip() for line in text.split("\n")).strip()
    return text.casefold() if ignore_case else text


@builtin_check("output.text_equal", method="behaviour", params={
    "runs": RUNS_PARAM,
    "strip": {"type": "boolean", "default": True,
              "description": "ignore whitespace at line ends and at both ends of the text "
                             "(default true)"},
    "ignore_case": {"type": "boolean", "default": False,
                    "description": "compare case-insensitively (default false)"},
})
def text_equal(ctx: CheckContext, runs: Sequence[str] | None = None, strip: bool = True,
               ignore_case: bool = False) -> Outcome:
    """The output text equals the expected text on each selected run.

    The output text is the raw text that was parsed (stdout or the output file); line
    endings are normalized to ``\\n``. Parameters: ``runs``, ``strip``, ``ignore_case``.
    Partial credit: the share of runs whose text is equal.
    """
    def judge(run: Mapping[str, Any], expected: Any) -> Score:
        text = run.get("output_text")
        if not isinstance(text, str):
            return 0.0, f"no output text ({run.get('output_error') or 'none captured'})"
        if not isinstance(expected, str):
            return 0.0, "the expected value is not text"
        if _normal_text(text, strip, ignore_case) == _normal_text(expected, strip, ignore_case):
            return 1.0, "equal"
        return 0.0, "the text differs"

    return judge_runs(ctx, runs, judge, with_expected=True)


@builtin_check("output.only_parsed", method="behaviour", params={"runs": RUNS_PARAM})
def only_parsed(ctx: CheckContext, runs: Sequence[str] | None = None) -> Outcome:
    """Stdout held only the parsed output, nothing else (no progress lines, no debug prints).

    With ``output.from: stdout`` the whole stdout must be the text that was parsed (leading
    and trailing whitespace aside); with ``output.from: file`` stdout must be empty. The
    output must have parsed. Stderr is free. Parameters: ``runs`` (default every observed
    run). Partial credit: the share of clean runs.
    """
    output = ctx.task.run.get("output") if ctx.task is not None else None
    source = output.get("from", "stdout") if isinstance(output, Mapping) else "stdout"

    def judge(run: Mapping[str, Any]) -> Score:
        _, why = _parsed(run)
        if why:
            return 0.0, why
        stdout = str(run.get("stdout") or "").strip()
        allowed = str(run.get("output_text") or "").strip() if source == "stdout" else ""
        if stdout == allowed:
            return 1.0, "clean"
        extra = len(stdout.splitlines()) - len(allowed.splitlines())
        return 0.0, f"stdout held more than the parsed output ({max(extra, 1)} extra line(s))"

    return judge_runs(ctx, runs, judge, with_expected=False)
