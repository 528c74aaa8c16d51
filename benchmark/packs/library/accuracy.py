"""``output.accuracy``: labels predicted by a script against an answer key (ScriptBench's
``classification_match``), with credit rising linearly between two accuracies."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...prompts.base import CheckContext, Outcome, strict_equal
from ..registry import builtin_check
from .runs import RUNS_PARAM, Score, judge_runs


def labelled(value: Any, id_key: str, key: str) -> tuple[dict[str, Any] | None, set[str]]:
    """(id text -> label, ids given twice) from a list of records or an id -> label mapping
    (a mapping's value may also be a record holding ``key``); None when it is neither."""
    pairs: list[tuple[Any, Any]] = []
    if isinstance(value, Mapping):
        pairs = [(k, v[key] if isinstance(v, Mapping) and key in v else v) for k, v in value.items()]
    elif isinstance(value, list):
        if not all(isinstance(r, Mapping) and id_key in r and key in r for r in value):
            return None, set()
        pairs = [(r[id_key], r[key]) for r in value]
    else:
        return None, set()
    found: dict[str, Any] = {}
    twice: set[str] = set()
    for ident, label in pairs:
        text = str(ident)
        if text in found:
            twice.add(text)
        found[text] = label
    return found, twice


def _same(a: Any, b: Any, compare: str) -> bool:
    if compare == "text":
        return str(a).strip() == str(b).strip()
    return strict_equal(a, b)


@builtin_check("output.accuracy", method="behaviour", required=("key",), params={
    "runs": RUNS_PARAM,
    "key": {"type": "string", "minLength": 1,
            "description": "the field (JSON key or CSV column) holding the label"},
    "id_key": {"type": "string", "minLength": 1, "default": "id",
               "description": "the field holding each record's id (default id)"},
    "compare": {"type": "string", "enum": ["strict", "text"], "default": "strict",
                "description": "strict: type-strict equality; text: compare the labels' text, "
                               "stripped (for CSV against JSON) (default strict)"},
    "zero_at": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5,
                "description": "the accuracy at or below which nothing is earned (default 0.5)"},
    "full_at": {"type": "number", "minimum": 0, "maximum": 1, "default": 1.0,
                "description": "the accuracy earning full credit (default 1.0); above zero_at"},
})
def accuracy(ctx: CheckContext, key: str, runs: Sequence[str] | None = None, id_key: str = "id",
             compare: str = "strict", zero_at: float = 0.5, full_at: float = 1.0) -> Outcome:
    """The predicted labels match the answer key's: accuracy at least ``full_at``.

    Output and expected value are each a list of records (``id_key`` and ``key`` fields) or
    a mapping id -> label; ids are matched by their text. Accuracy is the share of expected
    ids whose predicted label is the expected one; an id the output gives twice counts as
    wrong, extra ids are ignored. Parameters: ``key``, ``id_key``, ``compare``,
    ``zero_at``, ``full_at``, ``runs``. Partial credit per run: linear from ``zero_at`` (0)
    to ``full_at`` (1), then the mean over runs.
    """
    if zero_at >= full_at:
        return Outcome.error(f"output.accuracy: zero_at ({zero_at:g}) must be below full_at ({full_at:g})")

    def judge(run: Mapping[str, Any], expected: Any) -> Score:
        if run.get("output_error") or run.get("output") is None:
            return 0.0, f"no parsed output: {run.get('output_error') or 'none'}"
        want, _ = labelled(expected, id_key, key)
        if not want:
            return 0.0, f"the expected value holds no labelled records (field {key!r})"
        got, twice = labelled(run["output"], id_key, key)
        if got is None:
            return 0.0, f"the output is not a list of records with {id_key!r} and {key!r}"
        right = sum(i in got and i not in twice and _same(got[i], label, compare)
                    for i, label in want.items())
        share = right / len(want)
        score = max(0.0, min(1.0, (share - zero_at) / (full_at - zero_at)))
        return score, f"accuracy {right}/{len(want)} = {share:.1%}"

    return judge_runs(ctx, runs, judge, with_expected=True)
