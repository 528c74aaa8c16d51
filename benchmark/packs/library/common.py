"""What the built-in check types share: finding the file to read, selecting run/case labels,
the parameter schemas they have in common, and the small scoring rules they reuse.

Rules stated once here:

* a Python-reading type reads ``file`` (default: the task's main file); a file that was not
  submitted, could not be read or did not parse is a fail that names the file and why;
* the label ``perturbed`` in ``runs``/``labels`` stands for every ``perturbed_<n>`` label
  present; selecting nothing is a fail, never a pass ("no points for nothing");
* ``numeric`` comparison treats ints and floats as equal by value within a tolerance, and is
  otherwise as type-strict as ``strict_equal`` (``True`` is never ``1``).
"""

from __future__ import annotations

import ast
import dataclasses
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...prompts.base import LIST_LIMIT, CheckContext, Outcome, listed, raised, strict_equal
from ...submission import SourceFile
from ...types import CaseGroup, Evidence
from .. import reference

PERTURBED = "perturbed"
_PERTURBED_LABEL = re.compile(r"^perturbed_([0-9]+)$")
LABEL_PATTERN = "^[a-z0-9_]+$"

FILE_PARAM = {"type": "string", "minLength": 1,
              "description": "the submitted file to read (default: the task's main file)"}
COST_PARAM = {"type": "number", "minimum": 0, "maximum": 1, "default": 0.25,
              "description": "credit lost per finding (default 0.25: four findings lose all)"}
RATIO_PARAM = {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "default": 1.0,
               "description": "the share that earns full credit; below it credit is "
                              "share / min_ratio (default 1.0)"}
IF_NONE_PARAM = {"type": "string", "enum": ["pass", "fail"], "default": "fail",
                 "description": "the verdict when the file has nothing of the kind judged "
                                "(default fail: no points for nothing)"}


def labels_param(what: str) -> dict[str, Any]:
    return {"type": "array", "minItems": 1, "uniqueItems": True,
            "items": {"type": "string", "pattern": LABEL_PATTERN},
            "description": f"the {what} labels to judge; 'perturbed' stands for every "
                           f"perturbed_<n> label (default: every {what} observed)"}


COMPARE_PARAMS = {
    "compare": {"type": "string", "enum": ["strict", "numeric"], "default": "strict",
                "description": "strict: type-strict equality (1 and 1.0 differ); numeric: ints "
                               "and floats equal by value within float_tol (default strict)"},
    "float_tol": {"type": "number", "minimum": 0, "default": 1e-9,
                  "description": "absolute tolerance for compare: numeric (default 1e-9)"},
}


# ---- files -------------------------------------------------------------------------------


def file_name(ctx: CheckContext, file: str | None) -> str:
    """``file``, else the task's main file."""
    if file:
        return file
    return ctx.task.main if ctx.task is not None else "<no task>"


def python_tree(ctx: CheckContext, file: str | None) -> tuple[str, ast.Module | None, Outcome | None]:
    """(name, parsed tree, None) or (name, None, a fail saying why there is no tree)."""
    name = file_name(ctx, file)
    source: SourceFile | None = ctx.files.get(name)
    if source is None:
        return name, None, Outcome.fail(f"{name}: not submitted")
    if not source.usable:
        return name, None, Outcome.fail(f"{name}: {source.error or 'could not be read'}")
    if source.tree is None:
        why = source.syntax_error or "is not a Python file"
        return name, None, Outcome.fail(f"{name}: {why}", [Evidence(name, source.syntax_line)])
    return name, source.tree, None


# ---- findings ----------------------------------------------------------------------------


def per_finding(name: str, found: Sequence[tuple[int, str]], cost: float, what: str) -> Outcome:
    """Full credit for no findings; each ``(line, note)`` finding costs ``cost``."""
    if not found:
        return Outcome.ok(f"{name}: no {what}")
    notes = [f"{note} (line {line})" for line, note in found]
    evidence = [Evidence(name, line, note) for line, note in found[:LIST_LIMIT]]
    return Outcome(max(0.0, 1.0 - cost * len(found)),
                   f"{name}: {len(found)} {what}: {listed(notes)}", tuple(evidence))


def share_with_floor(done: int, total: int, min_ratio: float) -> float:
    """``min(1, (done / total) / min_ratio)``; 0 for no total."""
    if total <= 0:
        return 0.0
    return min(1.0, (done / total) / min_ratio)


# ---- labels ------------------------------------------------------------------------------


def perturbed_labels(available: Iterable[str]) -> list[str]:
    """Every ``perturbed_<n>`` in ``available``, in numeric order."""
    found = {label for label in available if _PERTURBED_LABEL.match(label)}
    return sorted(found, key=lambda label: int(_PERTURBED_LABEL.match(label).group(1)))


def select_labels(requested: Sequence[str] | None, available: Iterable[str]) -> list[str]:
    """The labels to judge: ``requested`` with ``perturbed`` expanded, else every available
    label (sorted). A requested label that is absent stays in (and is judged as missing)."""
    available = list(available)
    if requested is None:
        return sorted(set(available))
    chosen: list[str] = []
    for label in requested:
        for item in perturbed_labels(available) if label == PERTURBED else [label]:
            if item not in chosen:
                chosen.append(item)
    return chosen


def mapping(facts: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = facts.get(key)
    return value if isinstance(value, Mapping) else {}


def observation_problem(facts: Mapping[str, Any]) -> Outcome | None:
    """A fail when the task's observation itself failed (``problem`` is set)."""
    problem = facts.get("problem")
    if problem:
        return Outcome.fail(f"nothing could be observed: {problem}")
    return None


def reference_failure(ctx: CheckContext, labels: Iterable[str], name: str) -> Outcome | None:
    """An ``error`` when the task's reference solution gave any of ``labels`` no expected
    value (``facts["reference_problem"]``): the check cannot be judged, through the pack's
    fault, not the model's. It names the task, the reference's copy of ``name`` and why
    (``reference.failure_message``). None when the reference gave every label its value."""
    failed = mapping(ctx.facts, "reference_problem")
    hit = {label: failed[label] for label in labels if isinstance(failed.get(label), Mapping)}
    if not hit:
        return None
    transient = any(item.get("transient") is not False for item in hit.values())
    reasons = {label: str(item.get("reason", "")) for label, item in hit.items()}
    return Outcome.error(reference.failure_message(ctx.task, name, reasons, transient),
                         reference.failure_cause(transient))


def pooled(name: str, scores: Sequence[tuple[str, float, str]], what: str) -> Outcome:
    """The mean of per-label ``(label, score, note)``; notes of imperfect labels are listed.
    When the labels mix cases or runs the pack shows (its fixtures) with generated ones
    (``perturbed_<n>``), the two groups are counted apart: an answer that gets the shown ones
    right and the hidden ones wrong reads as what it is."""
    if not scores:
        return Outcome.fail(f"no {what} selected, so nothing could be judged")
    total = sum(score for _, score, _ in scores)
    good = sum(score >= 1.0 for _, score, _ in scores)
    bad = [f"{label}: {note}" for label, score, note in scores if score < 1.0]
    evidence = [Evidence(name, None, note[:200]) for note in bad[:LIST_LIMIT]]
    rationale = f"{good}/{len(scores)} {what} right"
    hidden = [score for label, score, _ in scores if _PERTURBED_LABEL.match(label)]
    groups: tuple[CaseGroup, ...] = ()
    if hidden:  # the shown cases and the generated ones, apart
        right = sum(s >= 1.0 for s in hidden)
        groups = (CaseGroup("shown", good - right, len(scores) - len(hidden)), CaseGroup("hidden", right, len(hidden)))
        groups = groups[1:] if len(hidden) == len(scores) else groups
        if len(hidden) < len(scores):
            rationale += f": shown {good - right}/{groups[0].of}, hidden (generated) {right}/{len(hidden)}"
    if bad:
        rationale += f" ({listed(bad)})"
    return dataclasses.replace(Outcome.ratio(total, len(scores), rationale, evidence), groups=groups)


def exception_note(exception: Mapping[str, Any] | None) -> str:
    return raised(exception) if isinstance(exception, Mapping) else "no exception reported"


# ---- comparing ---------------------------------------------------------------------------


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _within(a: int | float, b: int | float, tol: float) -> bool:
    """``|a - b| <= tol`` for finite numbers; an int too large for a float (a child may return
    one of thousands of digits) is never within ``tol`` of a float, and never raises."""
    if isinstance(a, float) and not math.isfinite(a) or isinstance(b, float) and not math.isfinite(b):
        return False
    try:
        return abs(a - b) <= tol
    except OverflowError:
        return False


def numeric_equal(a: Any, b: Any, tol: float) -> bool:
    """``strict_equal`` except that ints and floats are equal when within ``tol`` (NaN never)."""
    if _is_number(a) and _is_number(b):
        return _within(a, b, tol)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(numeric_equal(a[k], b[k], tol) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(numeric_equal(x, y, tol) for x, y in zip(a, b))
    return bool(a == b)


def comparer(compare: str, float_tol: float):
    """The equality ``compare`` names: ``strict`` or ``numeric``."""
    if compare == "numeric":
        return lambda a, b: numeric_equal(a, b, float_tol)
    return strict_equal


def item_share(got: Any, expected: Any, equal) -> float:
    """Share of top-level items equal: list positions or mapping keys over the larger side
    (an extra item counts against); a scalar is 0 or 1; two empty containers are 1."""
    if isinstance(expected, list) and isinstance(got, list):
        size = max(len(got), len(expected))
        return 1.0 if size == 0 else sum(map(equal, got, expected)) / size
    if isinstance(expected, dict) and isinstance(got, dict):
        keys = set(got) | set(expected)
        if not keys:
            return 1.0
        return sum(k in got and k in expected and equal(got[k], expected[k]) for k in keys) / len(keys)
    return 1.0 if equal(got, expected) else 0.0


def first_difference(got: Any, expected: Any, equal, path: str = "") -> str:
    """The JSON Pointer of the first place where ``got`` differs from ``expected``."""
    if isinstance(got, dict) and isinstance(expected, dict):
        for key in [*expected, *(k for k in got if k not in expected)]:
            if key not in got or key not in expected or not equal(got[key], expected[key]):
                if key in got and key in expected:
                    return first_difference(got[key], expected[key], equal, f"{path}/{key}")
                return f"{path}/{key} ({'missing' if key not in got else 'unexpected'})"
    if isinstance(got, list) and isinstance(expected, list):
        if len(got) != len(expected):
            return f"{path or '/'} ({len(got)} items, {len(expected)} expected)"
        for index, (a, b) in enumerate(zip(got, expected)):
            if not equal(a, b):
                return first_difference(a, b, equal, f"{path}/{index}")
    return path or "/"


_MISSING = object()
_INDEX = re.compile(r"0|[1-9][0-9]*")


def pointer(document: Any, path: str) -> Any:
    """The value at a JSON Pointer (``/a/0/b``, RFC 6901: ``~1`` is ``/``, ``~0`` is ``~``;
    ``""`` is the whole document), or ``MISSING``."""
    if path == "":
        return document
    if not path.startswith("/"):
        return _MISSING
    value = document
    for raw in path[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and _INDEX.fullmatch(token) and int(token) < len(value):
            value = value[int(token)]
        else:
            return _MISSING
    return value


MISSING = _MISSING
POINTER_PATTERN = "^(/([^~]|~[01])*)*$"
