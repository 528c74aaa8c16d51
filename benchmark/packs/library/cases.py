"""Check types over function calls (``call``/``http`` mode, ``facts["cases"]``) against the
expectations in ``facts["expect"]`` (``{"value": v}`` or ``{"raises": [names]}``).

A module that failed to import or lacks the function fails every case type. A selected case
that was not observed, or has no expectation, earns nothing; credit is the mean over cases.
A check selecting a case the reference solution failed on is ``error`` (not judged).
"""

from __future__ import annotations

import builtins
import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ...prompts.base import CheckContext, Outcome, excerpt, load_problem
from ..registry import builtin_check
from .common import (COMPARE_PARAMS, comparer, exception_note, labels_param, mapping,
                     observation_problem, pooled, reference_failure, select_labels)

LABELS_PARAM = labels_param("case")


def _blocked(ctx: CheckContext) -> Outcome | None:
    problem = observation_problem(ctx.facts)
    if problem:
        return problem
    if "import_error" not in ctx.facts and "function_found" not in ctx.facts:
        return Outcome.fail("no call was observed")
    run = ctx.task.run if ctx.task is not None else {}
    return load_problem(ctx.facts, str(run.get("module", "the module")),
                        str(run.get("function", "the function")))


def _module(ctx: CheckContext) -> str:
    return str(ctx.task.run.get("module") or ctx.task.main) if ctx.task is not None else ""


def _judge_cases(ctx: CheckContext, labels: Sequence[str] | None, wanted: str, judge) -> Outcome:
    """Pool ``judge(case, expect)`` over the selected labels; the default selection is every
    label whose expectation has the key ``wanted`` ("value" or "raises")."""
    blocked = _blocked(ctx)
    if blocked:
        return blocked
    cases, expect = mapping(ctx.facts, "cases"), mapping(ctx.facts, "expect")
    missing = mapping(ctx.facts, "expected_problem")
    if labels is None:
        chosen = sorted([k for k, v in expect.items() if isinstance(v, Mapping) and wanted in v]
                        + [k for k in missing if k not in expect])
    else:
        chosen = select_labels(labels, set(cases) | set(expect))
    unjudged = reference_failure(ctx, chosen, _module(ctx))
    if unjudged:
        return unjudged
    scores: list[tuple[str, float, str]] = []
    for label in chosen:
        case, rule = cases.get(label), expect.get(label)
        if not isinstance(case, Mapping):
            scores.append((label, 0.0, "the call was not observed"))
        elif not isinstance(rule, Mapping) or wanted not in rule:
            why = missing.get(label) or f"its expectation has no {wanted!r}"
            scores.append((label, 0.0, f"no expected {wanted} ({why})"))
        else:
            scores.append((label, *judge(case, rule[wanted])))
    return pooled(_module(ctx), scores, "cases")


@builtin_check("cases.equal", method="behaviour", params={
    "labels": LABELS_PARAM, **COMPARE_PARAMS,
    "zero_at": {"type": "number", "minimum": 0, "maximum": 1, "default": 0,
                "description": "the share of right cases that earns nothing: a classifier's chance "
                               "level, e.g. 0.5 for two classes (default 0)"},
    "full_at": {"type": "number", "minimum": 0, "maximum": 1, "default": 1,
                "description": "the share of right cases that earns full credit (default 1); above zero_at"},
})
def equal(ctx: CheckContext, labels: Sequence[str] | None = None, compare: str = "strict",
          float_tol: float = 1e-9, zero_at: float = 0.0, full_at: float = 1.0) -> Outcome:
    """The function returns the expected value on each selected case.

    Compared type-strictly after the child's JSON round trip (``1``, ``1.0`` and ``True``
    differ) unless ``compare: numeric``. Parameters: ``labels`` (default every case that
    expects a value; ``perturbed`` selects the generated ones), ``compare``, ``float_tol``,
    ``zero_at``, ``full_at``. Partial credit: the share of right cases, scaled linearly from
    ``zero_at`` (nothing: a classifier that guesses, or always answers the majority class,
    reaches chance) to ``full_at`` (all).
    """
    if zero_at >= full_at:
        return Outcome.error(f"cases.equal: zero_at ({zero_at:g}) must be below full_at ({full_at:g})")
    same = comparer(compare, float_tol)

    def judge(case: Mapping[str, Any], value: Any) -> tuple[float, str]:
        if not case.get("returned"):
            return 0.0, f"raised {exception_note(case.get('exception'))}"
        if case.get("unserializable"):
            return 0.0, f"returned a value that is not plain data: {case['unserializable']}"
        if same(case.get("value"), value):
            return 1.0, "equal"
        return 0.0, f"returned {excerpt(case.get('value'))} ({case.get('value_type')}), not the expected value"

    outcome = _judge_cases(ctx, labels, "value", judge)
    if (zero_at, full_at) == (0.0, 1.0) or outcome.status is not None:  # (error, skipped: as they are)
        return outcome
    scaled = max(0.0, min(1.0, (outcome.fraction - zero_at) / (full_at - zero_at)))
    return dataclasses.replace(outcome, fraction=scaled, rationale=f"{outcome.rationale}; scaled from "
                               f"{zero_at:.0%} (nothing) to {full_at:.0%} (all): {scaled:.0%} of the points")


def _builtin_exception(name: str) -> bool:
    """Whether ``name`` names an exception class built into Python (``ValueError``)."""
    value = getattr(builtins, name, None)
    return isinstance(value, type) and issubclass(value, BaseException)


def _names(rule: Any) -> list[str]:
    return [rule] if isinstance(rule, str) else [str(name) for name in rule or ()]


@builtin_check("cases.raises", method="behaviour", params={"labels": LABELS_PARAM})
def raises(ctx: CheckContext, labels: Sequence[str] | None = None) -> Outcome:
    """The function raises the expected exception on each selected case.

    The raised type matches by name (``ValueError``), a dotted name matching by its last
    part, or by any name when the expectation lists several. A built-in exception's name
    matches what really derives from it, as ``except`` does: a subclass of ``ValueError``
    counts, a class merely named ``ValueError`` does not (the harness reports the built-in
    classes an exception derives from, read through ``type``). Parameters: ``labels``
    (default every case that expects an exception). Partial credit: the share of right cases.
    """
    def judge(case: Mapping[str, Any], rule: Any) -> tuple[float, str]:
        names = _names(rule)
        if case.get("returned"):
            return 0.0, f"returned instead of raising {' or '.join(names)}"
        exception = case.get("exception") or {}
        kind = str(exception.get("type") or "")
        ancestry = exception.get("builtin") if isinstance(exception.get("builtin"), list) else None
        for name in names:
            short = name.rsplit(".", 1)[-1]
            if _builtin_exception(short) and ancestry is not None:
                if short in ancestry:
                    return 1.0, f"raised {kind}" + ("" if kind == short else f" (a {short})")
            elif kind == name or kind.rsplit(".", 1)[-1] == short:
                return 1.0, f"raised {kind}"
        if kind in names and ancestry is not None:
            return 0.0, (f"raised a class named {kind} that is no built-in {kind} "
                         f"(it derives from {', '.join(map(str, ancestry[:3])) or 'nothing built in'})")
        return 0.0, f"raised {exception_note(case.get('exception'))}, not {' or '.join(names)}"

    return _judge_cases(ctx, labels, "raises", judge)


@builtin_check("cases.no_mutation", method="behaviour", params={"labels": LABELS_PARAM})
def no_mutation(ctx: CheckContext, labels: Sequence[str] | None = None) -> Outcome:
    """The function leaves its arguments unchanged on each selected case.

    A case where mutation could not be observed (``mutated`` is null) is not judged, and
    listed; a selected case that was not observed at all counts as a failure. Parameters:
    ``labels`` (default every observed case). Partial credit: the share of cases with
    unchanged arguments; no judged case at all is a fail.
    """
    blocked = _blocked(ctx)
    if blocked:
        return blocked
    cases = mapping(ctx.facts, "cases")
    chosen = select_labels(labels, cases)
    scores, unknown = [], []
    for label in chosen:
        case = cases.get(label)
        if not isinstance(case, Mapping):
            scores.append((label, 0.0, "the call was not observed"))
        elif case.get("mutated") is None:
            unknown.append(label)
        else:
            scores.append((label, 0.0 if case["mutated"] else 1.0,
                           "modified its arguments" if case["mutated"] else "unchanged"))
    outcome = pooled(_module(ctx), scores, "cases")
    if unknown:
        return dataclasses.replace(outcome, rationale=f"{outcome.rationale}; not judged: {', '.join(unknown[:10])}")
    return outcome
