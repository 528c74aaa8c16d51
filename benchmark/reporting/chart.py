"""Text comparison chart: one fixed-width bar per model (best first) and a per-prompt table.

Numbers are formatted with two decimals (never raw floats), bars use block characters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..scoring import prompt_sort_key
from .common import RULE_WIDTH, by_percentage, fixed, maximum, num, prompts_of

BAR_WIDTH = 50
FULL, EMPTY = "█", "░"
RULE = "━" * RULE_WIDTH


def bar(percentage: float, width: int = BAR_WIDTH) -> str:
    """``[████░░…]`` with ``round(width * pct / 100)`` filled cells, pct clamped to 0..100."""
    pct = max(0.0, min(100.0, num(percentage)))
    filled = int(round(width * pct / 100.0))
    return "[" + FULL * filled + EMPTY * (width - filled) + "]"


def _prompt_table(ranked: list[tuple[str, Mapping[str, Any]]], name_width: int) -> list[str]:
    prompt_ids = sorted({pid for _, m in ranked for pid, _ in prompts_of(m)}, key=prompt_sort_key)
    if not prompt_ids:
        return []
    cell = max(10, *(len(pid) for pid in prompt_ids))
    lines = ["Per-prompt scores (✓ passed, ✗ failed, ! error):",
             " " * name_width + "".join(pid.rjust(cell + 2) for pid in prompt_ids)]
    for name, model in ranked:
        prompts = dict(prompts_of(model))
        cells = []
        for pid in prompt_ids:
            prompt = prompts.get(pid)
            if prompt is None:
                cells.append("-".rjust(cell + 2))
                continue
            mark = "!" if prompt.get("status") == "error" else ("✓" if prompt.get("passed") is True else "✗")
            text = f"{fixed(prompt.get('score'), 2)}/{maximum(prompt.get('max_score'))} {mark}"
            cells.append(text.rjust(cell + 2))
        lines.append(name.ljust(name_width) + "".join(cells))
    return lines


def render_comparison_chart(doc: Mapping[str, Any]) -> str:
    """The whole chart as text (ends with a newline)."""
    ranked = by_percentage(doc)
    name_width = max([15] + [len(name) + 1 for name, _ in ranked])
    lines = ["Model Comparison:", RULE, ""]
    if not ranked:
        lines.append("(no models)")
    for name, model in ranked:
        pct = num(model.get("percentage")) + 0.0
        lines.append(f"{name.ljust(name_width)} {bar(pct)} {pct:6.2f}%  {model.get('grade', '?')}")
    lines += ["", RULE]
    table = _prompt_table(ranked, name_width)
    if table:
        lines += [""] + table
    return "\n".join(lines) + "\n"
