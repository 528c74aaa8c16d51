"""Lines the CLI prints while grading: one pass line and a two-line category breakdown per
prompt, and a block per model. Pure string building; the CLI does the printing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .common import CATEGORY_NAMES, fixed, label, maximum, num, pack_score, pack_subtotals, prompts_of

INDENT = "   "


def format_prompt_line(prompt: Mapping[str, Any]) -> str:
    """``   ✅ PASSED - Score: 23.17/25``; failures and grading errors are marked ❌."""
    score = f"Score: {fixed(prompt.get('score'), 2)}/{maximum(prompt.get('max_score'))}"
    if prompt.get("status") == "error":
        reason = prompt.get("error") or "unknown error"
        return f"{INDENT}❌ ERROR - {score} ({reason})"
    if prompt.get("passed") is True:
        return f"{INDENT}✅ PASSED - {score}"
    return f"{INDENT}❌ FAILED - {score}"


def format_detailed_score(detailed_scoring: Mapping[str, Any]) -> str:
    """Categories as ``Name: earned/max``, split over two lines (the shorter half first)."""
    parts = []
    for name in CATEGORY_NAMES:
        numbers = detailed_scoring.get(name)
        if isinstance(numbers, Mapping):
            parts.append(f"{name.title()}: {fixed(numbers.get('earned'))}/{fixed(numbers.get('max'))}")
    if not parts:
        return ""
    half = len(parts) // 2
    first, second = (parts[:half], parts[half:]) if half else (parts, [])
    lines = [f"     └─ {', '.join(first)}"]
    if second:
        lines.append(f"        {', '.join(second)}")
    return "\n".join(lines)


def format_lost_checks(prompt: Mapping[str, Any]) -> list[str]:
    """One line per check that did not fully pass: status, id, points and the reason."""
    lines = []
    for check in prompt.get("checks") or ():
        if isinstance(check, Mapping) and check.get("status") != "pass":
            lines.append(
                f"        {check.get('status')}: {check.get('id')} "
                f"({fixed(check.get('earned'), 2)}/{fixed(check.get('points'), 2)}) {check.get('rationale', '')}".rstrip()
            )
    return lines


def format_model_block(model: Mapping[str, Any], *, show_checks: bool = False) -> str:
    """Everything the CLI shows for one model: each prompt's result and breakdown, then the total."""
    name = model.get("model_name", "?")
    lines = [f"Model: {name} ({model.get('tier', '?')})" + (" [cached]" if model.get("cached") else ""),
             "=" * 50]
    for pid, prompt in prompts_of(model):
        lines.append("")
        lines.append(f"📝 {label(pid)}: {label(prompt.get('title') or pid)}")
        lines.append(format_prompt_line(prompt))
        detail = format_detailed_score(prompt.get("detailed_scoring") or {})
        if detail:
            lines.append(detail)
        if show_checks:
            lines.extend(format_lost_checks(prompt))
    total = f"{fixed(model.get('overall_score'), 2)}/{maximum(model.get('total_possible'))}"
    lines.append("")
    lines += [f"📦 {pack}: {pack_score(totals)}" for pack, totals in pack_subtotals(model).items()]
    lines.append(
        f"🎯 Final Score: {total} ({num(model.get('percentage')):.1f}%) - "
        f"grade {model.get('grade', '?')}, {model.get('badge', '?')}"
    )
    return "\n".join(lines)
