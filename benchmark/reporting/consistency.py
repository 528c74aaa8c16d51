"""The figures of a results document agree with each other (what JSON Schema cannot say).

Every report and ``--compare`` read a model's totals, its prompts' scores and the
``comparison`` block side by side, so a document whose figures contradict each other (one
edited by hand, or damaged) would give reports that contradict themselves. The rules are
the writer's own arithmetic, checked on every document before it is written and when a saved
one is read back (``--report-only``, ``--compare``):

1. a prompt's ``score`` is the sum of its categories' ``earned`` (``detailed_scoring``);
2. a model's ``overall_score`` is the sum of its prompts' ``score``;
3. a model's ``percentage`` is ``100 * overall_score / total_possible`` (0 when that is 0);
4. ``comparison`` holds what ``scoring.compare_models`` computes from ``models``: the same
   ranking (the same models, each once, in the same order, with the same score and
   percentage), prompt performance, summary statistics and per-pack rankings. A field the
   schema lets a document leave out (``OPTIONAL``) is compared only when present. Its
   ``significance`` (a resampling test, not recomputed on reading) ranks exactly the models;
5. a model of samples: each sample's record keeps rules 1 to 3 and names the model.

Numbers agree within ``TOLERANCE``: the writer rounds every stored figure to ``DIGITS``
decimals, and sums and ratios of rounded figures may differ from the stored ones by that much.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..scoring import DIGITS, compare_models
from ..untrusted import NAME_LIMIT, text

TOLERANCE = 1.5 * 10 ** -DIGITS  # one rounding step, and a half more for sums of rounded figures
OPTIONAL = {"$.comparison.pack_rankings", "$.comparison.summary_stats.min_percentage",
            "$.comparison.summary_stats.max_percentage", "$.comparison.summary_stats.worst_model",
            "$.comparison.summary_stats.grade_distribution"}


def _shown(value: Any) -> str:
    """A value of the (untrusted) document, escaped and short, for a message."""
    return text(repr(value), NAME_LIMIT)


def _differs(stored: Any, expected: Any) -> bool:
    numbers = (int, float)
    if isinstance(stored, numbers) and isinstance(expected, numbers) and \
            not isinstance(stored, bool) and not isinstance(expected, bool):
        return abs(stored - expected) > TOLERANCE
    return stored != expected or type(stored) is not type(expected)


def _sum_rule(path: str, stored: Any, parts: list[Any], what: str) -> list[tuple[str, str]]:
    total = sum(parts)
    if abs(stored - total) > TOLERANCE:
        return [(path, f"{_shown(stored)} is not the sum of {what} ({round(total, DIGITS):g})")]
    return []


def model_consistency(name: str, model: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Rules 1 to 3 for one schema-valid model record: (path, message) per problem."""
    base = f"$.models.{name}"
    problems: list[tuple[str, str]] = []
    for pid, prompt in model["prompts"].items():
        earned = [numbers["earned"] for numbers in prompt["detailed_scoring"].values()]
        problems += _sum_rule(f"{base}.prompts.{pid}.score", prompt["score"], earned,
                              "its categories' earned points")
    problems += _sum_rule(f"{base}.overall_score", model["overall_score"],
                          [prompt["score"] for prompt in model["prompts"].values()], "its prompts' scores")
    possible = model["total_possible"]
    expected = 100.0 * model["overall_score"] / possible if possible else 0.0
    if abs(model["percentage"] - expected) > TOLERANCE:
        problems.append((f"{base}.percentage", f"{_shown(model['percentage'])} is not 100 * overall_score / "
                                               f"total_possible ({round(expected, DIGITS):g})"))
    return problems


def first_difference(stored: Any, expected: Any, path: str) -> tuple[str, str] | None:
    """Where ``stored`` first departs from ``expected`` (mappings key by key, in ``expected``'s
    order, then keys only ``stored`` has; lists item by item), or None."""
    if isinstance(expected, Mapping) and isinstance(stored, Mapping):
        for key, value in expected.items():
            where = f"{path}.{key}"
            if key not in stored:
                if where not in OPTIONAL:
                    return where, "missing, where the models give " + _shown(value)
                continue
            found = first_difference(stored[key], value, where)
            if found:
                return found
        extra = next((key for key in stored if key not in expected), None)
        return None if extra is None else (f"{path}.{text(extra, NAME_LIMIT)}", "not given by the models")
    if isinstance(expected, list) and isinstance(stored, list):
        for index, (item, value) in enumerate(zip(stored, expected)):
            found = first_difference(item, value, f"{path}[{index}]")
            if found:
                return found
        if len(stored) != len(expected):
            return path, f"{len(stored)} entries, where the models give {len(expected)}"
        return None
    if _differs(stored, expected):
        return path, f"{_shown(stored)}, where the models give {_shown(expected)}"
    return None


def comparison_consistency(doc: Mapping[str, Any], by_pack: bool) -> list[tuple[str, str]]:
    """Rule 4 for a schema-valid document whose models keep rules 1 to 3: the first place
    where ``comparison`` departs from what its models give, if any."""
    expected = compare_models(doc["models"], by_pack=by_pack)
    stored = {key: value for key, value in doc["comparison"].items() if key != "significance"}
    found = first_difference(stored, expected, "$.comparison")
    if found is None and "significance" in doc["comparison"]:
        ranked = doc["comparison"]["significance"]["ranks"]
        if set(ranked) != set(doc["models"]):
            found = ("$.comparison.significance.ranks", "does not rank exactly the document's models")
    return [found] if found else []
