"""Scoring: pure arithmetic from checks to prompt, model and cross-model results.

No I/O and no printing. Stored floats are rounded to ``DIGITS`` decimals so results files
stay byte-stable between runs. The comparison and feedback helpers work on the JSON dict
shapes (``ModelResults``), so reports can be rebuilt from a saved results file.

Gating (see ``benchmark.rubric.GATES``): with ``work`` = execution earned / execution max,
a category keeps all of its raw credit ("none"), ``work`` of it ("full"), or
``0.25 + 0.75 * work`` of it ("partial"). A prompt passes at ``PASS_FRACTION`` of its maximum.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .packs.model import CORE_PACK
from .rubric import GATES, PASS_FRACTION, PROMPT_POINTS, RUBRIC, PromptRubric
from .types import CATEGORY_ORDER, Category, CategoryScore, Check, ModelResult, PromptResult

if TYPE_CHECKING:
    from .packs.model import Task

DIGITS = 4
EPS = 1e-9

# (minimum percentage, grade), highest first; anything below the last row is "F".
GRADE_THRESHOLDS: tuple[tuple[float, str], ...] = (
    (97.0, "A+"),
    (93.0, "A"),
    (90.0, "A-"),
    (87.0, "B+"),
    (83.0, "B"),
    (80.0, "B-"),
    (77.0, "C+"),
    (73.0, "C"),
    (70.0, "C-"),
    (60.0, "D"),
)
FAIL_GRADE = "F"
GRADES: tuple[str, ...] = tuple(g for _, g in GRADE_THRESHOLDS) + (FAIL_GRADE,)

# (minimum percentage, badge), highest first; anything below the last row gets DEFAULT_BADGE.
BADGE_THRESHOLDS: tuple[tuple[float, str], ...] = (
    (90.0, "Gold"),
    (80.0, "Silver"),
    (70.0, "Bronze"),
)
DEFAULT_BADGE = "Participant"
BADGES: tuple[str, ...] = tuple(b for _, b in BADGE_THRESHOLDS) + (DEFAULT_BADGE,)

# A category counts as weak below this share of its maximum.
WEAK_CATEGORY_RATIO = 0.8
MAX_CHECK_SUGGESTIONS = 8

CATEGORY_ADVICE: dict[str, str] = {
    "syntax": "Make every file parse: compile the Python and lint the YAML/JSON before submitting.",
    "structure": "Match the requested shape: required imports, function names and signatures, "
    "error handling and type hints.",
    "execution": "Most points depend on behaviour: run the solution on the fixtures and compare "
    "its output with what the prompt asks for.",
    "quality": "Catch specific exceptions, open files with context managers, avoid shadowing "
    "built-ins and add a main guard.",
    "security": "Use yaml.safe_load, never eval/exec or shell=True, keep secrets out of logs, "
    "send tokens in headers and set request timeouts.",
    "performance": "Avoid nested loops over the same data and I/O inside loops; process records "
    "in one pass.",
    "maintainability": "Keep functions short with low cyclomatic complexity and descriptive names.",
}
GATED_NOTE = (
    "Security, performance and maintainability credit is scaled by how much of the prompt "
    "works: fixing behaviour raises those scores too."
)


def _r(value: float) -> float:
    """Round for storage; ``+ 0.0`` turns -0.0 into 0.0."""
    return round(float(value), DIGITS) + 0.0


def as_number(value: Any) -> float:
    """A finite number from untrusted dict data, else 0.0 (bools are not numbers here)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    return float(value) if math.isfinite(value) else 0.0


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


def _first_reached(table: tuple[tuple[float, str], ...], percentage: float, below: str) -> str:
    """The label of the first (highest) row whose minimum the percentage reaches."""
    pct = as_number(percentage)
    return next((label for minimum, label in table if pct >= minimum - EPS), below)


def get_grade(percentage: float) -> str:
    """Letter grade for a percentage (a score out of 100); see ``GRADE_THRESHOLDS``."""
    return _first_reached(GRADE_THRESHOLDS, percentage, FAIL_GRADE)


calculate_grade = get_grade


def generate_badge(percentage: float) -> str:
    """Plain-text badge for a percentage; see ``BADGE_THRESHOLDS``."""
    return _first_reached(BADGE_THRESHOLDS, percentage, DEFAULT_BADGE)


def calculate_score(results: Mapping[str, Any]) -> float:
    """Sum of ``score`` over ``{"prompt_1": {"score": 23.5, "max_score": 25}, ...}``."""
    return _r(sum(as_number(entry.get("score")) for entry in results.values() if isinstance(entry, Mapping)))


def score_model(model: str, tier: str, prompts: Sequence[PromptResult],
                max_score: float | None = None) -> ModelResult:
    """Total a model's prompts out of ``max_score``: the suite's points, by default the core
    pack's 25 per prompt (missing prompts count as 0)."""
    max_score = PROMPT_POINTS * len(RUBRIC) if max_score is None else max_score
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


# ---- comparison across models (JSON dict shapes) ---------------------------------------


def prompt_sort_key(prompt_id: str) -> tuple[int, str, int, str]:
    """Natural order, core prompts first: prompt_2 before prompt_10 before acme.sales."""
    pack = 1 if "." in prompt_id else 0
    match = re.match(r"^(.*?)(\d+)$", prompt_id)
    if match:
        return (pack, match.group(1), int(match.group(2)), "")
    return (pack, prompt_id, -1, prompt_id)


def pack_of(task_key: str) -> str:
    """The pack a results key belongs to: ``prompt_3`` -> ``core``, ``acme.sales`` -> ``acme``."""
    return task_key.split(".", 1)[0] if "." in task_key else CORE_PACK


def _prompts(model: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    prompts = model.get("prompts") if isinstance(model, Mapping) else None
    if not isinstance(prompts, Mapping):
        return {}
    return {pid: p for pid, p in prompts.items() if isinstance(p, Mapping)}


def _ranked(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(entries, key=lambda e: (-e["score"], e["model"]))


def _prompt_performance(all_results: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    table: dict[str, list[dict[str, Any]]] = {}
    for name, model in all_results.items():
        for pid, prompt in _prompts(model).items():
            entry = {"model": name, "score": _r(as_number(prompt.get("score"))), "passed": prompt.get("passed") is True}
            table.setdefault(pid, []).append(entry)
    performance = {}
    for pid in sorted(table, key=prompt_sort_key):
        ranking = _ranked(table[pid])
        scores = [e["score"] for e in ranking]
        performance[pid] = {
            "best_score": max(scores),
            "avg_score": _r(statistics.fmean(scores)),
            "pass_rate": _r(100.0 * sum(e["passed"] for e in ranking) / len(ranking)),
            "ranking": ranking,
        }
    return performance


def pack_totals(model: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per pack (in task order: core first), a model's score, maximum, percentage, number of
    tasks and tasks passed, summed from its prompts' keys."""
    prompts = _prompts(model)
    totals: dict[str, dict[str, Any]] = {}
    for pid in sorted(prompts, key=prompt_sort_key):
        entry = totals.setdefault(pack_of(pid), {"score": 0.0, "max_score": 0.0, "tasks": 0, "passed": 0})
        entry["score"] += as_number(prompts[pid].get("score"))
        entry["max_score"] += as_number(prompts[pid].get("max_score"))
        entry["tasks"] += 1
        entry["passed"] += prompts[pid].get("passed") is True
    return {pack: {"score": _r(t["score"]), "max_score": _r(t["max_score"]),
                   "percentage": _r(100.0 * t["score"] / t["max_score"]) if t["max_score"] > 0 else 0.0,
                   "tasks": t["tasks"], "passed": t["passed"]} for pack, t in totals.items()}


def graded_packs(all_results: Mapping[str, Any]) -> list[str]:
    """Every pack any model has a task of, core first, then by name."""
    packs = {pack_of(pid) for model in all_results.values() for pid in _prompts(model)}
    return sorted(packs, key=lambda pack: (pack != CORE_PACK, pack))


def is_core_only(all_results: Mapping[str, Any]) -> bool:
    """True when no model has a task outside the core pack (a run as graded before packs)."""
    return graded_packs(all_results) in ([], [CORE_PACK])


def pack_rankings(all_results: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Per pack, the models that have a task of it ranked like ``ranking`` (by the pack's score)."""
    totals = {name: pack_totals(model) for name, model in all_results.items() if isinstance(model, Mapping)}
    return {pack: _ranked([{"model": name, "score": t[pack]["score"], "percentage": t[pack]["percentage"]}
                           for name, t in totals.items() if pack in t])
            for pack in graded_packs(all_results)}


def _summary_stats(ranking: list[dict[str, Any]], all_results: Mapping[str, Any]) -> dict[str, Any]:
    pcts = [e["percentage"] for e in ranking]
    grades: dict[str, int] = {}
    for entry in ranking:
        model = all_results[entry["model"]]
        grade = model.get("grade") if isinstance(model, Mapping) else None
        grade = grade if grade in GRADES else get_grade(entry["percentage"])
        grades[grade] = grades.get(grade, 0) + 1
    return {
        "models": len(ranking),
        "mean_percentage": _r(statistics.fmean(pcts)) if pcts else None,
        "median_percentage": _r(statistics.median(pcts)) if pcts else None,
        "min_percentage": min(pcts) if pcts else None,
        "max_percentage": max(pcts) if pcts else None,
        "best_model": ranking[0]["model"] if ranking else None,
        "worst_model": ranking[-1]["model"] if ranking else None,
        "grade_distribution": {g: grades[g] for g in GRADES if g in grades},
    }


def compare_models(all_results: Mapping[str, Any], *, by_pack: bool | None = None) -> dict[str, Any]:
    """Ranking, per-prompt performance and summary statistics over ``{name: ModelResults}``,
    and ``pack_rankings`` (per pack, ranked like ``ranking``) when ``by_pack``: by default when
    a model has a task outside the core pack.

    Ties are broken by model name so the order is stable.
    """
    ranking = _ranked(
        [
            {
                "model": name,
                "score": _r(as_number(model.get("overall_score"))),
                "percentage": _r(as_number(model.get("percentage"))),
            }
            for name, model in all_results.items()
            if isinstance(model, Mapping)
        ]
    )
    out = {
        "ranking": ranking,
        "prompt_performance": _prompt_performance(all_results),
        "summary_stats": _summary_stats(ranking, all_results),
    }
    if by_pack if by_pack is not None else not is_core_only(all_results):
        out["pack_rankings"] = pack_rankings(all_results)
    return out


# ---- feedback for one model (JSON dict shape) ------------------------------------------


def category_totals(results: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """Per category, earned and max summed over a model's prompts (all seven, in order)."""
    totals = {cat.value: {"earned": 0.0, "max": 0.0} for cat in CATEGORY_ORDER}
    for prompt in _prompts(results).values():
        detailed = prompt.get("detailed_scoring")
        if not isinstance(detailed, Mapping):
            continue
        for cat, numbers in detailed.items():
            if cat in totals and isinstance(numbers, Mapping):
                totals[cat]["earned"] += as_number(numbers.get("earned"))
                totals[cat]["max"] += as_number(numbers.get("max"))
    return {cat: {k: _r(v) for k, v in t.items()} for cat, t in totals.items()}


def _ratios(results: Mapping[str, Any]) -> list[tuple[float, str]]:
    return sorted(
        (t["earned"] / t["max"], cat) for cat, t in category_totals(results).items() if t["max"] > 0
    )


def generate_feedback_summary(results: Mapping[str, Any]) -> list[str]:
    """A few high-level lines about one model's results dict."""
    pct = as_number(results.get("percentage"))
    prompts = _prompts(results)
    passed = sum(1 for p in prompts.values() if p.get("passed") is True)
    lines = [
        f"Overall {pct:.1f}%: grade {get_grade(pct)}, {generate_badge(pct)} badge.",
        f"Passed {passed} of {len(prompts)} prompt(s).",
    ]
    for pid in sorted(prompts, key=prompt_sort_key):
        if prompts[pid].get("status") == "error":
            lines.append(f"{pid} could not be graded: {prompts[pid].get('error') or 'unknown error'}.")
    ratios = _ratios(results)
    if ratios:
        best, worst = ratios[-1], ratios[0]
        lines.append(f"Strongest category: {best[1]} ({100 * best[0]:.0f}%).")
        if worst[0] < WEAK_CATEGORY_RATIO:
            lines.append(f"Weakest category: {worst[1]} ({100 * worst[0]:.0f}%).")
    return lines


def _lost_checks(results: Mapping[str, Any]) -> list[tuple[float, str, Mapping[str, Any]]]:
    lost = []
    for pid, prompt in _prompts(results).items():
        for check in prompt.get("checks") or ():
            if isinstance(check, Mapping) and check.get("status") in ("fail", "partial", "error"):
                lost.append((as_number(check.get("points")) - as_number(check.get("earned")), pid, check))
    return sorted(lost, key=lambda t: (-t[0], prompt_sort_key(t[1]), str(t[2].get("id"))))


def _gating_cost(results: Mapping[str, Any]) -> bool:
    for prompt in _prompts(results).values():
        detailed = prompt.get("detailed_scoring")
        if isinstance(detailed, Mapping):
            for cat in ("security", "performance", "maintainability"):
                numbers = detailed.get(cat)
                if isinstance(numbers, Mapping) and as_number(numbers.get("max")) > 0:
                    if "factor" in numbers and as_number(numbers.get("factor")) < 1.0 - EPS:
                        return True
    return False


def generate_improvement_suggestions(results: Mapping[str, Any]) -> list[str]:
    """Advice for the weakest categories, then the checks that lost the most points."""
    suggestions = [
        f"{cat}: {CATEGORY_ADVICE[cat]}" for ratio, cat in _ratios(results) if ratio < WEAK_CATEGORY_RATIO
    ]
    if _gating_cost(results):
        suggestions.append(GATED_NOTE)
    for lost, pid, check in _lost_checks(results)[:MAX_CHECK_SUGGESTIONS]:
        reason = check.get("rationale") or check.get("status")
        suggestions.append(f"{pid} {check.get('id')} ({lost:.1f} pts lost): {reason}")
    return suggestions or ["Every check passed: nothing to improve."]


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
