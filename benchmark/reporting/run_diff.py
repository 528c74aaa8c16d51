"""Compare two saved runs: pure arithmetic over the typed views of two results documents
(``view.run_view``), no I/O.

``diff_runs(old, new)`` gives, for every model in both runs, the overall, per-prompt and
per-category score deltas, each prompt's state in either run (``view.Prompt.state``) and the
checks that flipped (status or earned points changed,
or a check present in only one run), plus the models only in the new run (added) or only
in the old one (removed) or, when the new run lists its folder in ``skipped_models``, graded
in the old run and not graded in the new one (skipped), and the tasks only in one run (two runs of different suites: a task
added or removed is a row with one side ``None``, never a crash; its checks are not listed as
flips) with per-pack subtotals, and the grading settings that differ (``settings_changed``:
grader, rubric, seed, packs, memory and time limits, isolation, fixtures, the analysers'
versions). ``regressions`` applies ``--fail-on-regression``, weighing only the tasks graded in
both runs; a model graded before and skipped now is always one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from .. import stats
from ..scoring import DIGITS, EPS, prompt_sort_key
from ..types import RunConfig
from .common import CATEGORY_NAMES
from . import run_stats
from .run_stats import ALPHA
from .view import Check, Model, Prompt, Run, run_view


def delta(old: float, new: float) -> float:
    """``new - old`` rounded like stored scores (never -0.0)."""
    return round(new - old, DIGITS) + 0.0


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _run_info(run: Run) -> dict[str, Any]:
    return {"run_id": run.run_id, "timestamp": run.started, "grader_version": run.metadata["grader_version"],
            "rubric_hash": run.metadata["rubric_hash"]}


DEFAULT_SEED = RunConfig.seed  # (a run with the default seed does not record it)
# The grading settings two runs must share for their scores to compare: (label, how to read it
# from ``_metadata``, whose sections but the grader and the rubric are free-form and optional).
SETTINGS = (
    ("grader", lambda meta: meta["grader_version"]),
    ("rubric", lambda meta: meta["rubric_hash"]),
    ("seed", lambda meta: meta.get("config", {}).get("seed", DEFAULT_SEED)),
    ("packs", lambda meta: sorted(f"{p.get('id')}@{p.get('version')}:{str(p.get('hash'))[:12]}"
                                  for p in meta.get("suite") or [] if isinstance(p, Mapping)) or ["core"]),
    ("memory_mb", lambda meta: meta.get("config", {}).get("memory_mb")),
    ("timeout_s", lambda meta: meta.get("config", {}).get("timeout_s")),
    ("isolation", lambda meta: _isolation(meta.get("isolation"))),
    ("fixtures", lambda meta: _digest(meta.get("fixture_hashes"))),
    ("analysers", lambda meta: {name: version for name, version in meta.get("dependencies", {}).items()
                                if str(name).lower() in ("bandit", "radon")} or None),
)


def _isolation(report: Any) -> str | None:
    """What isolation a run applied, in one line: unsafe, or the kernel's and the guard's status
    (free-form; a report the schema allows as plain text is not compared)."""
    report = _mapping(report)
    if not report:
        return None
    if report.get("unsafe"):
        return "unsafe"
    return (f"kernel {_mapping(report.get('kernel')).get('status')}, guard {_mapping(report.get('guard')).get('status')}, "
            f"network {report.get('network')}")


def _digest(value: Any) -> str | None:
    if not value:
        return None
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:12]


def settings_changed(old: Mapping[str, Any] | Run, new: Mapping[str, Any] | Run) -> list[dict[str, Any]]:
    """Each grading setting that differs between two runs: ``{"setting", "old", "new"}``. A
    setting one of them did not record (an older document, ``--no-metadata``) is not compared."""
    old_meta, new_meta = run_view(old).metadata, run_view(new).metadata
    found = []
    for label, read in SETTINGS:
        before, after = read(old_meta), read(new_meta)
        if before is not None and after is not None and before != after:
            found.append({"setting": label, "old": before, "new": after})
    return found


def model_brief(model: Model) -> dict[str, Any]:
    return {"model": model.name, "tier": model.tier, "score": model.score, "total": model.max_score,
            "percentage": model.percentage, "grade": model.grade, "badge": model.badge}


def _category_deltas(old: Prompt | None, new: Prompt | None) -> dict[str, dict[str, float]]:
    """Per category, the prompt's earned points in either run (0 where it has no such prompt)."""
    deltas = {}
    for cat in CATEGORY_NAMES:
        before, after = _earned(old, cat), _earned(new, cat)
        deltas[cat] = {"old": before, "new": after, "delta": delta(before, after)}
    return deltas


def _earned(prompt: Prompt | None, category: str) -> float:
    found = prompt.category(category) if prompt else None
    return found.earned if found else 0.0


def _prompt_diff(key: str, old: Prompt | None, new: Prompt | None) -> dict[str, Any]:
    either = new or old
    return {"prompt": key, "title": either.title or key,
            "change": "both" if old and new else ("added" if new else "removed"),
            "old": old.score if old else None, "new": new.score if new else None,
            "delta": delta(old.score if old else 0.0, new.score if new else 0.0), "max": either.max_score,
            "old_verdict": old.state if old else None, "new_verdict": new.state if new else None,
            "categories": _category_deltas(old, new)}


def _flip(key: str, check_id: str, old: Check | None, new: Check | None) -> dict[str, Any] | None:
    if old and new and old.status == new.status and abs(old.earned - new.earned) <= EPS:
        return None
    either = new or old
    return {"prompt": key, "check": check_id, "category": either.category,
            "kind": "changed" if old and new else ("added" if new else "removed"), "points": either.points,
            "old_status": old.status if old else None, "new_status": new.status if new else None,
            "old_earned": old.earned if old else None, "new_earned": new.earned if new else None,
            "delta": delta(old.earned if old else 0.0, new.earned if new else 0.0), "rationale": either.rationale}


def _flips(old: Prompt, new: Prompt) -> list[dict[str, Any]]:
    """The checks of one task graded in both runs that flipped: the new run's in its order, then
    those only the old run has."""
    ids = [c.id for c in new.checks] + [c.id for c in old.checks if new.check(c.id) is None]
    return [f for i in ids if (f := _flip(new.key, i, old.check(i), new.check(i))) is not None]


def _pack_deltas(old: Model, new: Model) -> dict[str, dict[str, Any]]:
    """Per pack of either run: the model's old and new subtotal (None where it had no task of it)."""
    packs = list(old.packs) + [p for p in new.packs if p not in old.packs]
    return {pack: {"old": old.packs[pack].score if pack in old.packs else None,
                   "new": new.packs[pack].score if pack in new.packs else None,
                   "max": (new.packs[pack] if pack in new.packs else old.packs[pack]).max_score,
                   "delta": delta(old.packs[pack].score if pack in old.packs else 0.0,
                                  new.packs[pack].score if pack in new.packs else 0.0)}
            for pack in packs}


def _common_delta(old: Model, new: Model, old_p: Mapping[str, Prompt], new_p: Mapping[str, Prompt]) -> float:
    """The change in score over the tasks graded in both runs (the overall change when the
    two runs graded the same tasks)."""
    if set(old_p) == set(new_p):
        return delta(old.score, new.score)
    common = set(old_p) & set(new_p)
    return delta(sum(old_p[k].score for k in common), sum(new_p[k].score for k in common))


def change_significance(old: Model, new: Model, seed: int, alpha: float) -> dict[str, Any]:
    """Whether ``new``'s total differs from ``old``'s beyond what its samples vary by: the
    test of ``stats.compare`` on the tasks both runs' totals count (docs/statistics.md), with
    the p-value, the interval of the change (percentage points) and the verdict at ``alpha``."""
    before = set(run_stats.counted_tasks(old.record))
    shared = [k for k in run_stats.counted_tasks(new.record) if k in before]
    out: dict[str, Any] = {"alpha": alpha, "tasks": len(shared), "samples": [old.sample_count, new.sample_count]}
    maxima = [float(new.record["prompts"][k]["max_score"]) for k in shared]
    if not shared or sum(maxima) <= 0:
        return {**out, "p_value": 1.0, "low": 0.0, "high": 0.0, "significant": False}
    found = stats.compare(run_stats.matrix(new.record, shared)[0], run_stats.matrix(old.record, shared)[0],
                          maxima, run_stats.model_seed(seed, new.name), alpha)
    return {**out, "p_value": round(found.p_value, DIGITS), "low": round(found.low, DIGITS) + 0.0,
            "high": round(found.high, DIGITS) + 0.0, "significant": found.significant}


def _model_diff(old: Model, new: Model, seed: int = DEFAULT_SEED, alpha: float = ALPHA) -> dict[str, Any]:
    old_p, new_p = {p.key: p for p in old.prompts}, {p.key: p for p in new.prompts}
    keys = sorted(set(old_p) | set(new_p), key=prompt_sort_key)
    old_c, new_c = old.category_totals, new.category_totals
    return {
        "model": new.name, "old": model_brief(old), "new": model_brief(new),
        "delta": delta(old.score, new.score), "delta_percentage": delta(old.percentage, new.percentage),
        "prompts": [_prompt_diff(key, old.prompt(key), new.prompt(key)) for key in keys],
        "categories": {cat: {"old": old_c[cat][0], "new": new_c[cat][0], "delta": delta(old_c[cat][0], new_c[cat][0]),
                             "max": new_c[cat][1]} for cat in CATEGORY_NAMES},
        "flips": [f for key in keys if key in old_p and key in new_p for f in _flips(old_p[key], new_p[key])],
        "packs": _pack_deltas(old, new),
        "delta_common": _common_delta(old, new, old_p, new_p),
        "significance": change_significance(old, new, seed, alpha),
    }


def diff_runs(old: Mapping[str, Any] | Run, new: Mapping[str, Any] | Run, alpha: float = ALPHA) -> dict[str, Any]:
    """Everything the comparison reports show, as plain data (each run its document or view);
    each model's change is tested at ``alpha`` (``change_significance``), seeded by the new
    run's seed."""
    old, new = run_view(old), run_view(new)
    seed = run_stats.settings_of(new.doc)[0]
    old_models, new_models = {m.name: m for m in old.models}, {m.name: m for m in new.models}
    common = sorted(set(old_models) & set(new_models))
    not_graded = {s.folder: s.reason for s in new.skipped}  # (a model's name is its folder's name)
    gone = sorted(set(old_models) - set(new_models))
    old_info, new_info = _run_info(old), _run_info(new)
    old_keys, new_keys = set(old.task_keys), set(new.task_keys)
    titles = {p.key: p.title or p.key for run in (old, new) for m in run.models for p in m.prompts}
    return {
        "old": old_info, "new": new_info,
        "rubric_changed": old_info["rubric_hash"] != new_info["rubric_hash"],
        "settings_changed": settings_changed(old, new),
        "alpha": alpha,
        "models": [_model_diff(old_models[name], new_models[name], seed, alpha) for name in common],
        "added": [model_brief(new_models[n]) for n in sorted(set(new_models) - set(old_models))],
        "removed": [model_brief(old_models[n]) for n in gone if n not in not_graded],
        "skipped": [{**model_brief(old_models[n]), "reason": not_graded[n]} for n in gone if n in not_graded],
        "tasks_added": [{"prompt": k, "title": titles[k]} for k in sorted(new_keys - old_keys, key=prompt_sort_key)],
        "tasks_removed": [{"prompt": k, "title": titles[k]} for k in sorted(old_keys - new_keys, key=prompt_sort_key)],
    }


def regressions(diff: Mapping[str, Any], threshold: float, significant: bool = False) -> list[dict[str, Any]]:
    """Models in both runs whose score dropped by more than ``threshold`` points, over the tasks
    graded in both runs (a task added or removed is no regression), then every model graded in
    the old run that the new run skipped (``delta`` None, ``skipped`` the reason): whatever it
    would score now, it was not graded. ``significant`` (``--significance``): a drop counts
    only when its test is significant at the diff's ``alpha``."""
    dropped = [{"model": m["model"], "delta": m["delta_common"], "p_value": m["significance"]["p_value"]}
               for m in diff["models"] if -m["delta_common"] > threshold + EPS
               and (not significant or m["significance"]["significant"])]
    return dropped + [{"model": s["model"], "delta": None, "skipped": s["reason"]}
                      for s in diff.get("skipped") or ()]
