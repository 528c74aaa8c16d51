"""Compare two saved runs: pure arithmetic over two results documents, no I/O.

``diff_runs(old, new)`` gives, for every model in both runs, the overall, per-prompt and
per-category score deltas and the checks that flipped (status or earned points changed,
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

from ..scoring import DIGITS, EPS, as_number, category_totals, pack_totals, prompt_sort_key
from ..types import CATEGORY_ORDER, RunConfig

CATEGORIES: tuple[str, ...] = tuple(c.value for c in CATEGORY_ORDER)


def delta(old: Any, new: Any) -> float:
    """``new - old`` rounded like stored scores (never -0.0)."""
    return round(as_number(new) - as_number(old), DIGITS) + 0.0


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _models(doc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {name: m for name, m in _mapping(doc.get("models")).items() if isinstance(m, Mapping)}


def _run_info(doc: Mapping[str, Any]) -> dict[str, Any]:
    meta, run = _mapping(doc.get("_metadata")), _mapping(doc.get("benchmark_run"))
    return {"run_id": doc.get("run_id"), "timestamp": run.get("timestamp"),
            "grader_version": meta.get("grader_version"), "rubric_hash": meta.get("rubric_hash")}


DEFAULT_SEED = RunConfig.seed  # (a run with the default seed does not record it)
# The grading settings two runs must share for their scores to compare: (label, how to read it).
SETTINGS = (
    ("grader", lambda meta: meta.get("grader_version")),
    ("rubric", lambda meta: meta.get("rubric_hash")),
    ("seed", lambda meta: _mapping(meta.get("config")).get("seed", DEFAULT_SEED)),
    ("packs", lambda meta: sorted(f"{p.get('id')}@{p.get('version')}:{str(p.get('hash'))[:12]}"
                                  for p in meta.get("suite") or [] if isinstance(p, Mapping)) or ["core"]),
    ("memory_mb", lambda meta: _mapping(meta.get("config")).get("memory_mb")),
    ("timeout_s", lambda meta: _mapping(meta.get("config")).get("timeout_s")),
    ("isolation", lambda meta: _isolation(meta.get("isolation"))),
    ("fixtures", lambda meta: _digest(meta.get("fixture_hashes"))),
    ("analysers", lambda meta: {name: version for name, version in _mapping(meta.get("dependencies")).items()
                                if str(name).lower() in ("bandit", "radon")} or None),
)


def _isolation(report: Any) -> str | None:
    """What isolation a run applied, in one line: unsafe, or the kernel's and the guard's status."""
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


def settings_changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each grading setting that differs between two runs: ``{"setting", "old", "new"}``. A
    setting one of them did not record (an older document, ``--no-metadata``) is not compared."""
    old_meta, new_meta = _mapping(old.get("_metadata")), _mapping(new.get("_metadata"))
    found = []
    for label, read in SETTINGS:
        before, after = read(old_meta), read(new_meta)
        if before is not None and after is not None and before != after:
            found.append({"setting": label, "old": before, "new": after})
    return found


def model_brief(name: str, model: Mapping[str, Any]) -> dict[str, Any]:
    return {"model": name, "tier": model.get("tier"), "score": as_number(model.get("overall_score")),
            "total": as_number(model.get("total_possible")), "percentage": as_number(model.get("percentage")),
            "grade": model.get("grade"), "badge": model.get("badge")}


def verdict(prompt: Mapping[str, Any] | None) -> str | None:
    if not prompt:
        return None
    if prompt.get("status") == "error":
        return "error"
    return "pass" if prompt.get("passed") is True else "fail"


def _category_deltas(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    old_s, new_s = _mapping(old.get("detailed_scoring")), _mapping(new.get("detailed_scoring"))
    return {cat: {"old": as_number(_mapping(old_s.get(cat)).get("earned")),
                  "new": as_number(_mapping(new_s.get(cat)).get("earned")),
                  "delta": delta(_mapping(old_s.get(cat)).get("earned"), _mapping(new_s.get(cat)).get("earned"))}
            for cat in CATEGORIES}


def _prompt_diff(pid: str, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> dict[str, Any]:
    either = new or old or {}
    return {"prompt": pid, "title": either.get("title") or pid,
            "change": "both" if old and new else ("added" if new else "removed"),
            "old": as_number(old.get("score")) if old else None,
            "new": as_number(new.get("score")) if new else None,
            "delta": delta(old.get("score") if old else 0, new.get("score") if new else 0),
            "max": as_number(either.get("max_score")),
            "old_verdict": verdict(old), "new_verdict": verdict(new),
            "categories": _category_deltas(old or {}, new or {})}


def _checks(prompt: Mapping[str, Any] | None) -> dict[str, Mapping[str, Any]]:
    return {str(c.get("id")): c for c in (prompt or {}).get("checks") or () if isinstance(c, Mapping)}


def _flip(pid: str, check_id: str, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if old and new and old.get("status") == new.get("status") \
            and abs(as_number(old.get("earned")) - as_number(new.get("earned"))) <= EPS:
        return None
    either = new or old or {}
    return {"prompt": pid, "check": check_id, "category": either.get("category"),
            "kind": "changed" if old and new else ("added" if new else "removed"),
            "points": as_number(either.get("points")),
            "old_status": old.get("status") if old else None, "new_status": new.get("status") if new else None,
            "old_earned": as_number(old.get("earned")) if old else None,
            "new_earned": as_number(new.get("earned")) if new else None,
            "delta": delta(old.get("earned") if old else 0, new.get("earned") if new else 0),
            "rationale": str(either.get("rationale") or "")}


def _flips(pid: str, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    old_checks, new_checks = _checks(old), _checks(new)
    ids = list(new_checks) + [i for i in old_checks if i not in new_checks]
    return [f for i in ids if (f := _flip(pid, i, old_checks.get(i), new_checks.get(i))) is not None]


def _pack_deltas(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per pack of either run: the model's old and new subtotal (None where it had no task of it)."""
    old_t, new_t = pack_totals(old), pack_totals(new)
    packs = list(old_t) + [p for p in new_t if p not in old_t]
    return {pack: {"old": old_t[pack]["score"] if pack in old_t else None,
                   "new": new_t[pack]["score"] if pack in new_t else None,
                   "max": (new_t.get(pack) or old_t[pack])["max_score"],
                   "delta": delta(old_t.get(pack, {}).get("score", 0), new_t.get(pack, {}).get("score", 0))}
            for pack in packs}


def _task_keys(models: Mapping[str, Mapping[str, Any]]) -> set[str]:
    return {pid for model in models.values() for pid in _mapping(model.get("prompts"))}


def _titles(*docs: Mapping[str, Any]) -> dict[str, str]:
    return {pid: str(_mapping(p).get("title") or pid) for doc in docs for m in _models(doc).values()
            for pid, p in _mapping(m.get("prompts")).items()}


def _common_delta(old: Mapping[str, Any], new: Mapping[str, Any], old_p: Mapping[str, Any],
                  new_p: Mapping[str, Any]) -> float:
    """The change in score over the tasks graded in both runs (the overall change when the
    two runs graded the same tasks)."""
    if set(old_p) == set(new_p):
        return delta(old.get("overall_score"), new.get("overall_score"))
    common = set(old_p) & set(new_p)
    return delta(sum(as_number(_mapping(old_p[k]).get("score")) for k in common),
                 sum(as_number(_mapping(new_p[k]).get("score")) for k in common))


def _model_diff(name: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    old_p, new_p = _mapping(old.get("prompts")), _mapping(new.get("prompts"))
    pids = sorted(set(old_p) | set(new_p), key=prompt_sort_key)
    old_c, new_c = category_totals(old), category_totals(new)
    return {
        "model": name, "old": model_brief(name, old), "new": model_brief(name, new),
        "delta": delta(old.get("overall_score"), new.get("overall_score")),
        "delta_percentage": delta(old.get("percentage"), new.get("percentage")),
        "prompts": [_prompt_diff(pid, old_p.get(pid), new_p.get(pid)) for pid in pids],
        "categories": {cat: {"old": old_c[cat]["earned"], "new": new_c[cat]["earned"],
                             "delta": delta(old_c[cat]["earned"], new_c[cat]["earned"]),
                             "max": new_c[cat]["max"]} for cat in CATEGORIES},
        "flips": [f for pid in pids if pid in old_p and pid in new_p
                  for f in _flips(pid, old_p[pid], new_p[pid])],
        "packs": _pack_deltas(old, new),
        "delta_common": _common_delta(old, new, old_p, new_p),
    }


def _not_graded(doc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The run's ``skipped_models`` by folder name (a model's name is its folder's name)."""
    skipped = doc.get("skipped_models")
    return {str(s.get("folder")): s for s in skipped if isinstance(s, Mapping)} if isinstance(skipped, list) else {}


def diff_runs(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """Everything the comparison reports show, as plain data."""
    old_models, new_models = _models(old), _models(new)
    common = sorted(set(old_models) & set(new_models))
    not_graded = _not_graded(new)
    gone = sorted(set(old_models) - set(new_models))
    old_info, new_info = _run_info(old), _run_info(new)
    old_keys, new_keys = _task_keys(old_models), _task_keys(new_models)
    titles = _titles(old, new)
    return {
        "old": old_info, "new": new_info,
        "rubric_changed": old_info["rubric_hash"] != new_info["rubric_hash"],
        "settings_changed": settings_changed(old, new),
        "models": [_model_diff(name, old_models[name], new_models[name]) for name in common],
        "added": [model_brief(n, new_models[n]) for n in sorted(set(new_models) - set(old_models))],
        "removed": [model_brief(n, old_models[n]) for n in gone if n not in not_graded],
        "skipped": [{**model_brief(n, old_models[n]), "reason": str(not_graded[n].get("reason") or "?")}
                    for n in gone if n in not_graded],
        "tasks_added": [{"prompt": k, "title": titles[k]} for k in sorted(new_keys - old_keys, key=prompt_sort_key)],
        "tasks_removed": [{"prompt": k, "title": titles[k]} for k in sorted(old_keys - new_keys, key=prompt_sort_key)],
    }


def regressions(diff: Mapping[str, Any], threshold: float) -> list[dict[str, Any]]:
    """Models in both runs whose score dropped by more than ``threshold`` points, over the tasks
    graded in both runs (a task added or removed is no regression), then every model graded in
    the old run that the new run skipped (``delta`` None, ``skipped`` the reason): whatever it
    would score now, it was not graded."""
    dropped = [{"model": m["model"], "delta": m["delta_common"]} for m in diff["models"]
               if -m["delta_common"] > threshold + EPS]
    return dropped + [{"model": s["model"], "delta": None, "skipped": s["reason"]}
                      for s in diff.get("skipped") or ()]
