"""The comparison of two runs as text (what ``--compare`` prints), from ``run_diff.diff_runs``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .common import RULE_WIDTH, fixed, label, maximum

MAX_FLIPS_SHOWN = 40
ARROW = "→"


def signed(value: Any, digits: int = 2) -> str:
    """``+1.25`` / ``-0.50`` / ``±0.00``: no ``-0.00`` and no float noise."""
    number = round(float(value or 0.0), digits)
    if number == 0:
        return "±" + f"{0:.{digits}f}"
    return f"{number:+.{digits}f}"


def _score(value: Any) -> str:
    return "—" if value is None else fixed(value, 2)


def _run_line(label: str, info: Mapping[str, Any]) -> str:
    return (f"  {label}: {info.get('run_id')} ({info.get('timestamp') or '?'}), "
            f"grader {info.get('grader_version') or '?'}, rubric {info.get('rubric_hash') or '?'}")


def _flip_line(flip: Mapping[str, Any]) -> str:
    head = f"    {flip['prompt']} {flip['check']} [{flip.get('category')}]: "
    if flip["kind"] == "added":
        return head + f"new check, {flip['new_status']} {fixed(flip['new_earned'], 2)}/{fixed(flip['points'], 2)}"
    if flip["kind"] == "removed":
        return head + f"check removed (was {flip['old_status']} {fixed(flip['old_earned'], 2)}/{fixed(flip['points'], 2)})"
    return (head + f"{flip['old_status']} {ARROW} {flip['new_status']}, {fixed(flip['old_earned'], 2)} {ARROW} "
            f"{fixed(flip['new_earned'], 2)} ({signed(flip['delta'])}): {flip['rationale']}")


def _pack_line(packs: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Per-pack subtotals, old -> new (only when a run graded more than one pack)."""
    if len(packs) < 2:
        return []
    parts = [f"{pack} {_score(p['old'])} {ARROW} {_score(p['new'])}/{maximum(p['max'])} ({signed(p['delta'])})"
             for pack, p in packs.items()]
    return ["  packs: " + ", ".join(parts)]


def _task_lines(diff: Mapping[str, Any]) -> list[str]:
    lines = []
    for key, heading in (("tasks_added", "Tasks only in the new run (added):"),
                         ("tasks_removed", "Tasks only in the old run (removed):")):
        if diff.get(key):
            lines += ["", heading] + [f"  {'+' if key == 'tasks_added' else '-'} {label(t['prompt'])}: "
                                      f"{label(t['title'])}" for t in diff[key]]
    return lines


def _model_lines(model: Mapping[str, Any]) -> list[str]:
    old, new = model["old"], model["new"]
    grade = f"grade {old['grade']}" if old["grade"] == new["grade"] else f"grade {old['grade']} {ARROW} {new['grade']}"
    totals = ("", "") if old["total"] == new["total"] else (f"/{maximum(old['total'])}", f"/{maximum(new['total'])}")
    lines = ["", f"{model['model']}: {fixed(old['score'], 2)}{totals[0]} {ARROW} {fixed(new['score'], 2)}{totals[1]} "
                 f"({signed(model['delta'])})  {grade}"]
    if model["delta"] != 0 and model.get("significance"):
        lines[1] += f"  [{significance_text(model['significance'])}]"
    if unchanged(model):
        return lines[:1] + [lines[1] + ", unchanged (every prompt, category and check)"]
    for prompt in model["prompts"]:
        verdicts = "" if prompt["old_verdict"] == prompt["new_verdict"] else \
            f"  {prompt['old_verdict'] or 'absent'} {ARROW} {prompt['new_verdict'] or 'absent'}"
        lines.append(f"  {label(prompt['prompt']):<10} {_score(prompt['old']):>6} {ARROW} {_score(prompt['new']):>6}"
                     f"/{maximum(prompt['max'])}  ({signed(prompt['delta'])}){verdicts}")
    lines += _pack_line(model.get("packs") or {})
    changed = [f"{cat} {signed(c['delta'])}" for cat, c in model["categories"].items() if c["delta"] != 0]
    rest = " (others unchanged)" if len(changed) < len(model["categories"]) else ""
    lines.append("  categories: " + (", ".join(changed) + rest if changed else "all unchanged"))
    flips = model["flips"]
    lines.append(f"  flipped checks: {len(flips) or 'none'}")
    lines += [_flip_line(flip) for flip in flips[:MAX_FLIPS_SHOWN]]
    if len(flips) > MAX_FLIPS_SHOWN:
        lines.append(f"    …and {len(flips) - MAX_FLIPS_SHOWN} more (see the HTML comparison)")
    return lines


def significance_text(found: Mapping[str, Any]) -> str:
    """``significant: p = 0.004 < 0.05`` or ``not significant: p = 0.125 ≥ 0.05 (4 tasks, 1 vs 1 sample)``."""
    word = "significant" if found["significant"] else "not significant"
    sign = "<" if found["significant"] else "≥"
    samples = found.get("samples") or [1, 1]
    return (f"{word}: p = {found['p_value']:.3g} {sign} {found['alpha']:g} ({found['tasks']} tasks, "
            f"{samples[0]} vs {samples[1]} sample{'s' if samples[1] != 1 else ''})")


def unchanged(model: Mapping[str, Any]) -> bool:
    """No delta anywhere and no flipped check or verdict."""
    return (model["delta"] == 0 and not model["flips"]
            and all(p["delta"] == 0 and p["old_verdict"] == p["new_verdict"] for p in model["prompts"])
            and all(c["delta"] == 0 for c in model["categories"].values()))


def _brief(sign: str, brief: Mapping[str, Any]) -> str:
    return (f"  {sign} {brief['model']} ({brief.get('tier')}): {fixed(brief['score'], 2)}/{maximum(brief['total'])} "
            f"({brief['percentage']:.2f}%) {brief.get('grade')}")


def regression_text(row: Mapping[str, Any]) -> str:
    """One failed model of the regression gate: its drop, or that it was not graded."""
    if row.get("delta") is None:
        return f"{row['model']} not graded"
    return f"{row['model']} {signed(row['delta'])}" + (f" (p = {row['p_value']:.3g})" if "p_value" in row else "")


def gate_scope(diff: Mapping[str, Any]) -> str:
    """What the gate measures when the runs graded different tasks (``regressions`` counts a
    model's drop over the tasks both graded), else ""."""
    only = len(diff.get("tasks_added") or ()) + len(diff.get("tasks_removed") or ())
    if not only:
        return ""
    return (f", on the tasks both runs graded: {only} task{'s' if only > 1 else ''} graded in one run only "
            f"{'do' if only > 1 else 'does'} not count")


def _setting_value(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {v}" for k, v in sorted(value.items()))
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def settings_warning(diff: Mapping[str, Any]) -> str | None:
    """``WARNING: grading settings differ: seed 1 → 2; ...`` or None when the runs share them."""
    changed = diff.get("settings_changed") or []
    if not changed:
        return None
    said = "; ".join(f"{c['setting']} {_setting_value(c['old'])} {ARROW} {_setting_value(c['new'])}"
                     for c in changed)
    return f"WARNING: grading settings differ between the runs: {said}; the scores were not graded alike"


def gate_line(threshold: float, failed: list[Mapping[str, Any]], scope: str = "",
              alpha: float | None = None) -> str:
    """The regression gate's verdict; ``scope``: ``gate_scope`` of the diff; ``alpha``: the
    level a drop must be significant at (``--significance``)."""
    level = f" --significance {alpha:g}" if alpha is not None else ""
    head = f"Regression gate (--fail-on-regression {threshold:.2f}{level}{scope})"
    if not failed:
        return (f"{head}: passed, no model dropped more than {threshold:.2f} points"
                + (f" significantly (p < {alpha:g})" if alpha is not None else "") + " or went ungraded")
    return f"{head}: FAILED: {', '.join(regression_text(r) for r in failed)}"


def render_diff_text(diff: Mapping[str, Any], threshold: float | None = None,
                     failed: list[Mapping[str, Any]] | None = None, significance: float | None = None) -> str:
    """The whole comparison (ends with a newline). ``threshold``/``failed``: the regression gate."""
    lines = ["RubricBench comparison", _run_line("old", diff["old"]), _run_line("new", diff["new"])]
    if diff["rubric_changed"]:
        lines.append(f"  note: the rubric changed ({diff['old'].get('rubric_hash')} {ARROW} "
                     f"{diff['new'].get('rubric_hash')}); scores may not be directly comparable")
    warning = settings_warning(diff)
    if warning:
        lines.append(f"  {warning}")
    skipped = diff.get("skipped") or []
    lines += ["━" * RULE_WIDTH, f"Models: {len(diff['models'])} in both runs, {len(diff['added'])} new, "
                                f"{len(diff['removed'])} removed"
              + (f", {len(skipped)} graded before and not graded now" if skipped else "")]
    lines += _task_lines(diff)
    for model in diff["models"]:
        lines += _model_lines(model)
    if diff["added"]:
        lines += ["", "New models (only in the new run):"] + [_brief("+", b) for b in diff["added"]]
    if diff["removed"]:
        lines += ["", "Removed models (only in the old run):"] + [_brief("-", b) for b in diff["removed"]]
    if skipped:
        lines += ["", "Models not graded in the new run (graded in the old one; their folder was skipped):"]
        lines += [_brief("!", b) + f": {b['reason']}" for b in skipped]
    if threshold is not None:
        lines += ["", gate_line(threshold, failed or [], gate_scope(diff), significance)]
    return "\n".join(lines) + "\n"
