"""Feedback for one model, on its JSON dict shape (``ModelResults``): the summary lines and
the improvement suggestions of the text report. ``benchmark.scoring`` re-exports every public
name here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .scoring_compare import _prompts, prompt_sort_key
from .scoring_grades import EPS, _r, as_number, generate_badge, get_grade
from .types import CATEGORY_ORDER

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
            reason = str(prompts[pid].get("error") or "unknown error")
            lines.append(f"{pid} could not be graded: {reason}" + ("" if reason.endswith((".", "?", "!")) else "."))
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
