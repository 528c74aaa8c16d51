"""The results document built from the frozen result types: checks, prompts and models as
the spec's dicts, the per-pack totals and the folders not graded (``run_to_dict``).

Every other reporter reads what this builds; ``results_json`` validates it (and re-exports
each name here, so ``benchmark.reporting.results_json.run_to_dict`` is this function).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import orjson

from ..sample_names import unit_name
from ..scoring import EPS, compare_models, is_core_only, pack_totals
from .run_stats import DEFAULT_PASS_AT, add_statistics
from ..types import CATEGORY_ORDER, CategoryScore, Check, ModelResult, PromptResult, RunConfig, RunResult
from ..untrusted import NAME_LIMIT, NOTE_LIMIT, text

ICON_FULL, ICON_SOME, ICON_NONE = "✅", "⚠️", "❌"


def _fmt(value: float) -> str:
    return f"{value:.1f}"


def feedback_line(category: CategoryScore) -> str:
    """e.g. ``✅ Syntax (5.0/5.0): ✓valid_syntax`` or ``⚠️ Structure (2.4/3.0): ✓a, b ✗c``."""
    if category.earned >= category.possible - EPS:
        icon = ICON_FULL
    elif category.earned > EPS:
        icon = ICON_SOME
    else:
        icon = ICON_NONE
    groups = (
        ("✓", [c.id for c in category.checks if c.status == "pass"]),
        ("◐", [c.id for c in category.checks if c.status == "partial"]),
        ("✗", [c.id for c in category.checks if c.status in ("fail", "error", "skipped")]),
    )
    marks = " ".join(mark + ", ".join(ids) for mark, ids in groups if ids)
    title = category.category.value.title()
    return f"{icon} {title} ({_fmt(category.earned)}/{_fmt(category.possible)}): {marks}".rstrip()


def check_to_dict(check: Check) -> dict[str, Any]:
    out = {
        "id": check.id,
        "category": check.category.value,
        "points": check.points,
        "earned": check.earned,
        "status": check.status,
        "method": check.method,
        "rationale": check.rationale,
        "evidence": [{"file": e.file, "line": e.line, "note": e.note} for e in check.evidence],
    }
    if check.cause is not None:
        out["cause"] = check.cause
    if check.groups:
        out["cases"] = [{"group": g.name, "right": g.right, "of": g.of} for g in check.groups]
    return out


def prompt_to_dict(prompt: PromptResult) -> dict[str, Any]:
    categories = {c.category: c for c in prompt.categories}
    checks = [check for c in prompt.categories for check in c.checks]
    out: dict[str, Any] = {
        "title": prompt.title,
        "passed": prompt.passed,
        "score": prompt.score,
        "max_score": prompt.max_score,
        "status": prompt.status,
        "feedback": [feedback_line(categories[cat]) for cat in CATEGORY_ORDER
                     if cat in categories and categories[cat].possible > 0],
        "tests_passed": {check.id: check.status == "pass" for check in checks},
        "detailed_scoring": {
            cat.value: {"earned": c.earned, "max": c.possible, "factor": c.factor}
            for cat in CATEGORY_ORDER if (c := categories.get(cat)) is not None
        },
        "checks": [check_to_dict(check) for check in checks],
        "execution": [dict(entry) for entry in prompt.execution],
        "files": dict(prompt.files),
    }
    if prompt.error is not None:
        out["error"] = prompt.error
    if prompt.denials:
        out["denials"] = [dict(denial) for denial in prompt.denials]
    if prompt.cap is not None:
        out["cap"] = dict(prompt.cap)
    return out


def model_to_dict(model: ModelResult, *, timestamp: str | None = None, cached: bool | None = None,
                  cached_samples: Collection[str] = ()) -> dict[str, Any]:
    """A model's record; a model of samples holds each sample's record under ``samples``
    (by id; ``cached_samples``: the ids served from the cache). A result read from the
    result cache is read back from the record the cache stored (``ModelResult.record``)."""
    out: dict[str, Any] = {"model_name": model.model, "tier": model.tier}
    if timestamp is not None:
        out["timestamp"] = timestamp
    stored = _stored(model)
    if stored is not None:
        out.update(stored)
        if cached is not None:
            out["cached"] = cached
        return out
    out.update(
        prompts={p.prompt_id: prompt_to_dict(p) for p in model.prompts},
        overall_score=model.score,
        total_possible=model.max_score,
        percentage=model.percentage,
        grade=model.grade,
        badge=model.badge,
    )
    if model.samples:
        out["samples"] = {s.sample: model_to_dict(s, cached=s.sample in cached_samples if cached is not None else None)
                          for s in model.samples}
    if cached is not None:
        out["cached"] = cached
    return out


def _stored(model: ModelResult) -> dict[str, Any] | None:
    """The parts of a cached result's stored record after its name and tier (a new dict each
    time: the document's writers fill it in place), or None to build them from the result.
    Only for a model of one folder whose record names it as it is named now."""
    if model.record is None or model.sample is not None or model.samples:
        return None
    stored = orjson.loads(model.record)
    if stored.pop("model_name", None) != model.model or stored.pop("tier", None) != model.tier:
        return None
    return stored


def by_pack(models: Mapping[str, Any], metadata: Mapping[str, Any]) -> bool:
    """Whether a run graded more than the core pack (its manifest lists a suite, or a model
    has a task of another pack): its records then carry per-pack totals and rankings."""
    return "suite" in metadata or not is_core_only(models)


def add_pack_totals(models: Mapping[str, dict[str, Any]]) -> None:
    """Give each model record its ``packs`` (per-pack totals), after ``badge``; computed from
    the record's own task keys, so a record read back from the cache is given them again."""
    for record in models.values():
        cached = record.pop("cached", None)
        record["packs"] = pack_totals(record)
        if cached is not None:
            record["cached"] = cached


def skipped_to_dict(folder: Any) -> dict[str, str]:
    """A model folder the run did not grade (``runner.RejectedModel``: ``tier``, ``name``,
    ``reason``) as a ``skipped_models`` entry: its name is the submitter's, so it passes
    ``untrusted.text`` here, before any report sees it (escaped, cut to 200 characters)."""
    return {"tier": folder.tier, "folder": text(folder.name, NAME_LIMIT),
            "reason": text(folder.reason, NOTE_LIMIT)}


def _cached_samples(model: ModelResult, cached: Collection[str]) -> set[str]:
    return {s.sample for s in model.samples if unit_name(model.model, s.sample) in cached}


def _cached(model: ModelResult, cached: Collection[str]) -> bool:
    if not model.samples:
        return model.model in cached
    return len(_cached_samples(model, cached)) == len(model.samples)


def run_to_dict(
    run: RunResult,
    *,
    cached_models: Collection[str] = (),
    model_timestamps: Mapping[str, str] | None = None,
    skipped: Iterable[Any] = (),
    seed: int = RunConfig.seed,
    pass_at: Sequence[int] = DEFAULT_PASS_AT,
) -> dict[str, Any]:
    """The whole results document. ``cached_models`` names the units whose results came from
    the cache (a model, or ``<model>/samples/<id>``; a model all of whose units did gets
    ``"cached": true``); ``model_timestamps`` gives per-model times; ``skipped`` the model
    folders not graded (``skipped_models``, only when there are any); ``seed`` and ``pass_at``
    the statistics' (``run_stats.add_statistics``)."""
    stamps = model_timestamps or {}
    names = [m.model for m in run.models]
    if len(names) != len(set(names)):
        raise ValueError(f"duplicate model names in run {run.run_id}: {sorted(names)}")
    models = {m.model: model_to_dict(m, timestamp=stamps.get(m.model), cached=_cached(m, cached_models),
                                     cached_samples=_cached_samples(m, cached_models))
              for m in run.models}
    metadata = dict(run.environment)
    metadata.setdefault("config", dict(run.config))
    packed = by_pack(models, metadata)
    if packed:
        add_pack_totals(models)
    doc: dict[str, Any] = {
        "schema_version": run.schema_version,
        "run_id": run.run_id,
        "benchmark_run": {
            "timestamp": run.started_at,
            "finished_at": run.finished_at,
            "total_models": len(models),
        },
        "models": models,
        "comparison": compare_models(models, by_pack=packed),
    }
    add_statistics(doc, seed, pass_at)
    not_graded = [skipped_to_dict(folder) for folder in skipped]
    if not_graded:  # (absent otherwise: a run without one is written as before)
        doc["skipped_models"] = not_graded
    doc["_metadata"] = metadata
    return doc
