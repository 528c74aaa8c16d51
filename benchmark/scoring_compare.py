"""Comparison across models, on the JSON dict shapes (``ModelResults``), so reports can be
rebuilt from a saved results file: prompt order, per-pack totals and rankings, per-prompt
performance and summary statistics. ``benchmark.scoring`` re-exports every public name here.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from .packs.model import CORE_PACK
from .scoring_grades import GRADES, _r, as_number, get_grade


PROMPT_KEY_RE = re.compile(r"^(.*?)(\d+)$")


@lru_cache(maxsize=4096)  # (called thousands of times a run, for a handful of task keys)
def prompt_sort_key(prompt_id: str) -> tuple[int, str, int, str]:
    """Natural order, core prompts first: prompt_2 before prompt_10 before acme.sales."""
    pack = 1 if "." in prompt_id else 0
    match = PROMPT_KEY_RE.match(prompt_id)
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
            if prompt.get("status") == "not_attempted":  # (no answer: not in the task's figures)
                continue
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
    left = unattempted_packs({pid: p.get("status") for pid, p in prompts.items()})
    totals: dict[str, dict[str, Any]] = {}
    for pid in sorted(prompts, key=prompt_sort_key):
        entry = totals.setdefault(pack_of(pid), {"score": 0.0, "max_score": 0.0, "tasks": 0, "passed": 0})
        entry["score"] += as_number(prompts[pid].get("score"))
        entry["max_score"] += as_number(prompts[pid].get("max_score"))
        entry["tasks"] += 1
        entry["passed"] += prompts[pid].get("passed") is True
    return {pack: {"score": _r(t["score"]), "max_score": _r(t["max_score"]),
                   "percentage": _r(100.0 * t["score"] / t["max_score"]) if t["max_score"] > 0 else 0.0,
                   "tasks": t["tasks"], "passed": t["passed"], **({"attempted": False} if pack in left else {})}
            for pack, t in totals.items()}


def unattempted_packs(statuses: Mapping[str, Any]) -> set[str]:
    """The packs of ``{task key: prompt status}`` whose every task is ``not_attempted``, when
    another pack has a task attempted (else none: a model that answered nothing is scored on
    everything). Such a pack leaves the model's total and its pack's ranking."""
    packs: dict[str, bool] = {}
    for key, status in statuses.items():
        packs[pack_of(key)] = packs.get(pack_of(key), False) or status != "not_attempted"
    return {pack for pack, attempted in packs.items() if not attempted} if any(packs.values()) else set()


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
                           for name, t in totals.items() if pack in t and t[pack].get("attempted") is not False])
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
