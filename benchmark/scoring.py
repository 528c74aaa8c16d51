"""Scoring: pure arithmetic from checks to prompt, model and cross-model results.

No I/O and no printing. Stored floats are rounded to ``DIGITS`` decimals so results files
stay byte-stable between runs. The comparison and feedback helpers work on the JSON dict
shapes (``ModelResults``), so reports can be rebuilt from a saved results file.

This module holds the arithmetic from checks to prompt and model results and the spec's
``BenchmarkScorer``; the rounding, grades and badges live in ``scoring_grades``, the comparison
across models in ``scoring_compare``, the feedback for one model in ``scoring_feedback``.
Every public name of the three is re-exported here: ``benchmark.scoring.X`` is the library's
name for each of them.

Gating (see ``benchmark.rubric.GATES``): with ``work`` = execution earned / execution max,
a category keeps all of its raw credit ("none"), ``work`` of it ("full"), or
``0.25 + 0.75 * work`` of it ("partial"). A prompt passes at ``PASS_FRACTION`` of its maximum.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .rubric import GATES, PASS_FRACTION, PROMPT_POINTS, RUBRIC, PromptRubric
from .scoring_compare import (compare_models, graded_packs, is_core_only,  # noqa: F401
                              pack_of, pack_rankings, pack_totals, prompt_sort_key, unattempted_packs)
from .scoring_feedback import (CATEGORY_ADVICE, GATED_NOTE, MAX_CHECK_SUGGESTIONS,  # noqa: F401
                               WEAK_CATEGORY_RATIO, category_totals, generate_feedback_summary,
                               generate_improvement_suggestions)
from .scoring_grades import (BADGE_THRESHOLDS, BADGES, DEFAULT_BADGE, DIGITS, EPS,  # noqa: F401
                             FAIL_GRADE, GRADE_THRESHOLDS, GRADES, _r, as_number,
                             calculate_grade, generate_badge, get_grade)
from .types import CATEGORY_ORDER, Category, CategoryScore, Check, ModelResult, PromptResult

if TYPE_CHECKING:
    from .packs.model import Task


def _clamp(value: float, low: float = 0.0, high: float = 1.0) -> float:
    if math.isnan(value):
        return low
    return max(low, min(high, value))


def gate_factor(gate: str, work: float) -> float:
    """Share of a category's raw credit kept, given ``work`` in [0, 1] (clamped)."""
    w = _clamp(float(work))
    if gate == "none":
        return 1.0
    if gate == "full":
        return w
    if gate == "partial":
        return 0.25 + 0.75 * w
    raise ValueError(f"unknown gate {gate!r}")


def is_pass(score: float, max_score: float, pass_fraction: float = PASS_FRACTION) -> bool:
    return max_score > 0 and score >= pass_fraction * max_score - EPS


def score_prompt(
    rubric: PromptRubric | Task, checks: Sequence[Check]
) -> tuple[tuple[CategoryScore, ...], float, bool]:
    """Sum checks into the seven categories, apply the gates; return (categories, score, passed).
    A pack's task brings its own gates and pass fraction; a core rubric row uses the core's."""
    gates = getattr(rubric, "gates", GATES)
    pass_fraction = getattr(rubric, "pass_fraction", PASS_FRACTION)
    grouped: dict[Category, list[Check]] = {cat: [] for cat in CATEGORY_ORDER}
    for check in checks:
        grouped[Category(check.category)].append(check)
    possible = {cat: float(rubric.maxima.get(cat, 0.0)) for cat in CATEGORY_ORDER}
    raw = {
        cat: _clamp(sum(as_number(c.earned) for c in grouped[cat]), 0.0, possible[cat])
        for cat in CATEGORY_ORDER
    }
    exec_max = possible[Category.EXECUTION]
    work = 1.0 if exec_max <= 0 else raw[Category.EXECUTION] / exec_max
    categories = []
    for cat in CATEGORY_ORDER:
        factor = gate_factor(gates[cat], work)
        categories.append(
            CategoryScore(cat, _r(raw[cat] * factor), _r(possible[cat]), _r(factor), tuple(grouped[cat]))
        )
    score = _r(sum(c.earned for c in categories))
    return tuple(categories), score, is_pass(score, sum(possible.values()), pass_fraction)


def apply_critical(rubric: PromptRubric | Task, checks: Sequence[Check],
                   categories: tuple[CategoryScore, ...],
                   score: float) -> tuple[tuple[CategoryScore, ...], float, dict[str, Any] | None]:
    """The task's score capped by its critical checks (``TaskCheck.critical``): when a check
    earned less than ``below`` of its points, the task keeps at most ``cap`` of its points.
    Of several failing, the lowest cap counts (the first such check names it); a check that
    was not judged for a reason that is not the answer's (``Check.cause``) caps nothing. The cap scales
    every category's earned points alike (each keeps its gate's factor; the rounding step the
    sum is off goes to the largest), so a task's score is the cap and stays
    the sum of its categories; returns the categories, the score and the cap's record
    (``check``, ``fraction``, ``factor``: what the earned points were scaled by, ``before``: the
    score without it), or None when nothing caps."""
    rows = {row.id: row for row in getattr(rubric, "checks", ()) if getattr(row, "critical", None)}
    failing = [(rows[c.id].critical.cap, c.id) for c in checks  # (not one left unjudged by the grader's
               if c.id in rows and c.cause is None                  # or the reference's fault: ``cause``)
               and as_number(c.earned) < rows[c.id].critical.below * c.points - EPS]
    if not failing:
        return categories, score, None
    cap, check_id = min(failing, key=lambda item: item[0])
    limit = _r(cap * sum(c.possible for c in categories))
    if score <= limit + EPS:
        return categories, score, {"check": check_id, "fraction": cap, "factor": 1.0, "before": score}
    factor = limit / score if score > 0 else 0.0
    earned = [_r(c.earned * factor) for c in categories]
    excess = _r(sum(earned) - limit)  # (rounding may leave the sum a step off the cap: the largest takes it)
    if excess:
        largest = max(range(len(earned)), key=lambda i: earned[i])
        earned[largest] = _r(earned[largest] - excess)
    capped = tuple(CategoryScore(c.category, points, c.possible, c.factor, c.checks)
                   for c, points in zip(categories, earned))
    return capped, _r(sum(c.earned for c in capped)), {"check": check_id, "fraction": cap,
                                                       "factor": _r(factor), "before": score}


def calculate_score(results: Mapping[str, Any]) -> float:
    """Sum of ``score`` over ``{"prompt_1": {"score": 23.5, "max_score": 25}, ...}``."""
    return _r(sum(as_number(entry.get("score")) for entry in results.values() if isinstance(entry, Mapping)))


def unattempted_points(prompts: Sequence[PromptResult]) -> float:
    left = unattempted_packs({p.prompt_id: p.status for p in prompts})
    return sum(p.max_score for p in prompts if pack_of(p.prompt_id) in left)


def score_model(model: str, tier: str, prompts: Sequence[PromptResult],
                max_score: float | None = None) -> ModelResult:
    """Total a model's prompts out of ``max_score``: the suite's points, by default the core
    pack's 25 per prompt (missing prompts count as 0). A pack the model attempted no task of
    (every one ``not_attempted``) leaves the total: it was not asked that pack. A model that
    attempted nothing at all keeps the whole maximum (0 of it, and the run says why)."""
    max_score = PROMPT_POINTS * len(RUBRIC) if max_score is None else max_score
    max_score -= unattempted_points(prompts)
    score = _r(sum(p.score for p in prompts))
    percentage = _r(100.0 * score / max_score) if max_score else 0.0
    return ModelResult(
        model=model,
        tier=tier,
        prompts=tuple(prompts),
        score=score,
        max_score=_r(max_score),
        percentage=percentage,
        grade=get_grade(percentage),
        badge=generate_badge(percentage),
    )


class BenchmarkScorer:
    """The spec's object-style entry point; every method delegates to a module function."""

    def calculate_grade(self, percentage: float) -> str:
        return get_grade(percentage)

    def generate_badge(self, percentage: float) -> str:
        return generate_badge(percentage)

    def calculate_score(self, results: Mapping[str, Any]) -> float:
        return calculate_score(results)

    def generate_feedback_summary(self, results: Mapping[str, Any]) -> list[str]:
        return generate_feedback_summary(results)

    def generate_improvement_suggestions(self, results: Mapping[str, Any]) -> list[str]:
        return generate_improvement_suggestions(results)

    def compare_models(self, all_results: Mapping[str, Any]) -> dict[str, Any]:
        return compare_models(all_results)
