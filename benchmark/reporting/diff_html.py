"""The comparison of two runs as one self-contained HTML page (``--compare``).

Built from ``run_diff.diff_runs``; laid out by ``templates/compare.html.j2`` with the same
autoescaping, stylesheet and Content-Security-Policy as report.html.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .common import CATEGORY_NAMES, fixed, maximum
from .diff_text import gate_scope, regression_text, settings_warning, significance_text, signed
from .html_report import short
from .svg import diverging
from .templating import render_page


def tone(value: float) -> str:
    """CSS class for a delta."""
    if round(value, 2) > 0:
        return "delta-up"
    return "delta-down" if round(value, 2) < 0 else "delta-zero"


def _cell(value: float | None) -> dict[str, str]:
    if value is None:
        return {"text": "—", "tone": "delta-zero"}
    return {"text": signed(value), "tone": tone(value)}


def _score(value: Any) -> str:
    return "—" if value is None else fixed(value, 2)


def _prompt_row(prompt: Mapping[str, Any]) -> dict[str, Any]:
    return {"pid": prompt["prompt"], "title": prompt["title"], "old": _score(prompt["old"]),
            "new": _score(prompt["new"]), "max": maximum(prompt["max"]), "total": _cell(prompt["delta"]),
            "old_verdict": prompt["old_verdict"] or "absent", "new_verdict": prompt["new_verdict"] or "absent",
            "cells": [_cell(prompt["categories"][cat]["delta"]) for cat in CATEGORY_NAMES]}


def _flip_row(flip: Mapping[str, Any]) -> dict[str, Any]:
    return {"prompt": flip["prompt"], "check": flip["check"], "category": flip.get("category") or "",
            "kind": flip["kind"], "old_status": flip["old_status"] or "—", "new_status": flip["new_status"] or "—",
            "old_earned": _score(flip["old_earned"]), "new_earned": _score(flip["new_earned"]),
            "points": fixed(flip["points"], 2), "delta": _cell(flip["delta"]), "rationale": flip["rationale"]}


def _model_view(index: int, model: Mapping[str, Any]) -> dict[str, Any]:
    old, new = model["old"], model["new"]
    return {"anchor": f"c{index}", "name": model["model"], "old": fixed(old["score"], 2), "new": fixed(new["score"], 2),
            "total": maximum(new["total"]), "delta": _cell(model["delta"]), "old_grade": old["grade"],
            "significance": significance_text(model["significance"]) if model.get("significance") and model["delta"] != 0 else "",
            "significant": bool((model.get("significance") or {}).get("significant")),
            "new_grade": new["grade"], "prompts": [_prompt_row(p) for p in model["prompts"]],
            "categories": [_cell(model["categories"][cat]["delta"]) for cat in CATEGORY_NAMES],
            "flips": [_flip_row(f) for f in model["flips"]],
            "verdict_flips": sum(1 for p in model["prompts"] if p["old_verdict"] != p["new_verdict"]),
            "packs": [{"pack": pack, "old": _score(p["old"]), "new": _score(p["new"]), "max": maximum(p["max"]),
                       "delta": _cell(p["delta"])} for pack, p in (model.get("packs") or {}).items()]
            if len(model.get("packs") or {}) > 1 else []}


def _brief(brief: Mapping[str, Any]) -> dict[str, Any]:
    return {"name": brief["model"], "tier": brief.get("tier") or "", "score": fixed(brief["score"], 2),
            "total": maximum(brief["total"]), "pct": f"{brief['percentage']:.2f}%", "grade": brief.get("grade") or "?"}


def compare_context(diff: Mapping[str, Any], threshold: float | None = None,
                    failed: list[Mapping[str, Any]] | None = None, significance: float | None = None) -> dict[str, Any]:
    models = [_model_view(i, m) for i, m in enumerate(diff["models"])]
    span = max([abs(m["delta"]) for m in diff["models"]] + [1.0])
    chart = diverging([{"label": short(m["model"]), "value": m["delta"], "text": signed(m["delta"])}
                       for m in diff["models"]], span)
    gate = None
    if threshold is not None:
        gate = {"threshold": f"{threshold:.2f}", "scope": gate_scope(diff),
                "level": f", significant at p < {significance:g}" if significance is not None else "",
                "failed": [regression_text(r) for r in failed or []]}
    return {"old": diff["old"], "new": diff["new"], "rubric_changed": diff["rubric_changed"],
            "settings_warning": settings_warning(diff),
            "models": models, "chart": chart, "categories": list(CATEGORY_NAMES), "gate": gate,
            "added": [_brief(b) for b in diff["added"]], "removed": [_brief(b) for b in diff["removed"]],
            "skipped": [{**_brief(b), "reason": b["reason"]} for b in diff.get("skipped") or ()],
            "tasks_added": list(diff.get("tasks_added") or ()), "tasks_removed": list(diff.get("tasks_removed") or ())}


def render_diff_html(diff: Mapping[str, Any], threshold: float | None = None,
                     failed: list[Mapping[str, Any]] | None = None, significance: float | None = None) -> str:
    return render_page("compare.html.j2", cmp=compare_context(diff, threshold, failed, significance))
