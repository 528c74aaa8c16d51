"""Check types over a script's parsed output (``facts["runs"][label]["output"]``) against
its expected value (``facts["expected"][label]``): the ``output.*`` types but accuracy.

Runs are selected and pooled by ``runs.judge_runs``: by default every label that has an
expected value; a run with no parsed output earns nothing for that run.
"""

from __future__ import annotations

import dataclasses
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


PATH_PATTERN = "^(/([^~/]|~[01])*)*$"  # a JSON Pointer whose token may be * (any key or index)


@builtin_check("output.json_equal", method="behaviour", params={
    "runs": RUNS_PARAM, **COMPARE_PARAMS,
    "partial": {"type": "string", "enum": ["none", "runs", "top_level_items"], "default": "runs",
                "description": "none: all runs equal or nothing; runs: the share of equal runs; "
                               "top_level_items: per run, the share of equal top-level list "
                               "items or mapping keys (default runs)"},
    "ignore": {"type": "array", "items": {"type": "string", "pattern": PATH_PATTERN, "minLength": 1},
               "description": "JSON Pointers whose values are not compared (a token * stands for any "
                              "key or index), e.g. /generated_at or /rows/*/id"},
    "tolerances": {"type": "object", "propertyNames": {"pattern": PATH_PATTERN},
                   "additionalProperties": {"type": "number", "minimum": 0},
                   "description": "JSON Pointer (with *) -> absolute tolerance: numbers there are equal "
                                  "within it, int or float, e.g. {/summary/mean: 0.01}"},
})
def json_equal(ctx: CheckContext, runs: Sequence[str] | None = None, compare: str = "strict",
               float_tol: float = 1e-9, partial: str = "runs", ignore: Sequence[str] = (),
               tolerances: Mapping[str, float] | None = None) -> Outcome:
    """The parsed output equals the expected value on each selected run.

    Equality is type-strict (``1``, ``1.0`` and ``true`` differ) unless ``compare: numeric``
    (ints and floats equal within ``float_tol``). ``ignore`` lists JSON Pointers (a token
    ``*`` stands for any key or index) whose values are left out of the comparison on both
    sides (a run's timestamp, a generated id); ``tolerances`` gives paths whose numbers are
    equal within their own absolute tolerance. Parameters: ``runs``, ``compare``,
    ``float_tol``, ``partial``, ``ignore``, ``tolerances``. Partial credit per ``partial``;
    top-level items are matched by list position or mapping key, and an extra item counts
    against.
    """
    equal = comparer(compare, float_tol)
    ignored = [_tokens(path) for path in ignore]
    tolerant = [(_tokens(path), float(tol)) for path, tol in (tolerances or {}).items()]

    def judge(run: Mapping[str, Any], expected: Any) -> Score:
        got, why = _parsed(run)
        if why:
            return 0.0, why
        if ignored or tolerant:
            got, expected = _aligned(got, expected, (), ignored, tolerant)
        if equal(got, expected):
            return 1.0, "equal"
        score = item_share(got, expected, equal) if partial == "top_level_items" else 0.0
        return score, f"differs at {first_difference(got, expected, equal)}"

    outcome = judge_runs(ctx, runs, judge, with_expected=True)
    if partial == "none" and 0 < outcome.fraction < 1:
        return dataclasses.replace(outcome, fraction=0.0, rationale=outcome.rationale + "; partial: none, so nothing")
    return outcome


def _tokens(pointer: str) -> tuple[str, ...]:
    return tuple(part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:])


def _matches(path: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    return len(path) == len(pattern) and all(p == "*" or p == t for t, p in zip(path, pattern))


_IGNORED = object()  # what an ignored value becomes on both sides: equal to itself only


def _aligned(got: Any, expected: Any, path: tuple[str, ...], ignored, tolerant) -> tuple[Any, Any]:
    """``got`` and ``expected`` with every ignored path left out (a mapping's key dropped on
    both sides, a list's item made one marker on both) and, at a tolerance path, a number of
    ``got`` within its tolerance of ``expected``'s replaced by ``expected``'s."""
    if isinstance(expected, dict) and isinstance(got, dict):
        keys = [k for k in {**expected, **got} if not any(_matches((*path, str(k)), p) for p in ignored)]
        pairs = {k: _aligned(got.get(k, MISSING), expected.get(k, MISSING), (*path, str(k)), ignored, tolerant)
                 for k in keys}
        return ({k: g for k, (g, _) in pairs.items() if g is not MISSING},
                {k: e for k, (_, e) in pairs.items() if e is not MISSING})
    if isinstance(expected, list) and isinstance(got, list):
        pairs = [(_IGNORED, _IGNORED) if any(_matches((*path, str(i)), p) for p in ignored) else
                 _aligned(g, e, (*path, str(i)), ignored, tolerant) for i, (g, e) in enumerate(zip(got, expected))]
        return [g for g, _ in pairs] + got[len(pairs):], [e for _, e in pairs] + expected[len(pairs):]
    for pattern, tol in tolerant:
        if _matches(path, pattern) and _number(got) and _number(expected):
            try:
                if abs(got - expected) <= tol:
                    return expected, expected
            except OverflowError:
                pass
    return got, expected


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
