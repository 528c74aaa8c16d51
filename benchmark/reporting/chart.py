"""Text comparison chart: one fixed-width bar per model (best first) and a per-prompt table.

A run with task-pack tasks gets, instead of that table, a numbered list of its tasks (key and
title) and tables of at most ``TASKS_PER_TABLE`` numbered columns, so long keys and many
tasks keep the width bounded; with more than one pack, a bar per model and pack follows.
Numbers are formatted with two decimals (never raw floats), bars use block characters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..scoring import prompt_sort_key
from .common import (RULE_WIDTH, by_percentage, fixed, label, maximum, num, pack_boards, pack_titles,
                     prompts_of)

BAR_WIDTH = 50
TASKS_PER_TABLE = 5
CELL = 12  # "100.00/100 ✓"
FULL, EMPTY = "█", "░"
RULE = "━" * RULE_WIDTH


def bar(percentage: float, width: int = BAR_WIDTH) -> str:
    """``[████░░…]`` with ``round(width * pct / 100)`` filled cells, pct clamped to 0..100."""
    pct = max(0.0, min(100.0, num(percentage)))
    filled = int(round(width * pct / 100.0))
    return "[" + FULL * filled + EMPTY * (width - filled) + "]"


def _cell(prompt: Mapping[str, Any] | None) -> str:
    if prompt is None:
        return "-"
    mark = "!" if prompt.get("status") == "error" else ("✓" if prompt.get("passed") is True else "✗")
    return f"{fixed(prompt.get('score'), 2)}/{maximum(prompt.get('max_score'))} {mark}"


def _task_ids(ranked: list[tuple[str, Mapping[str, Any]]]) -> list[str]:
    return sorted({pid for _, m in ranked for pid, _ in prompts_of(m)}, key=prompt_sort_key)


def _prompt_table(ranked: list[tuple[str, Mapping[str, Any]]], name_width: int) -> list[str]:
    prompt_ids = _task_ids(ranked)
    if not prompt_ids:
        return []
    cell = max(10, *(len(pid) for pid in prompt_ids))
    lines = ["Per-prompt scores (✓ passed, ✗ failed, ! error):",
             " " * name_width + "".join(pid.rjust(cell + 2) for pid in prompt_ids)]
    for name, model in ranked:
        prompts = dict(prompts_of(model))
        lines.append(name.ljust(name_width) + "".join(_cell(prompts.get(pid)).rjust(cell + 2)
                                                      for pid in prompt_ids))
    return lines


def _task_legend(ranked: list[tuple[str, Mapping[str, Any]]], task_ids: list[str]) -> list[str]:
    titles = {pid: p.get("title") for _, m in ranked for pid, p in prompts_of(m)}
    width = len(f"T{len(task_ids)}")
    return ["Tasks:"] + [f"  {f'T{i}'.ljust(width)}  {label(pid)}: {label(titles.get(pid) or pid)}"
                         for i, pid in enumerate(task_ids, 1)]


def _task_tables(ranked: list[tuple[str, Mapping[str, Any]]], name_width: int) -> list[str]:
    """The per-task scores with numbered columns (see ``_task_legend``), a few per table."""
    task_ids = _task_ids(ranked)
    if not task_ids:
        return []
    lines = _task_legend(ranked, task_ids) + ["", "Per-task scores (✓ passed, ✗ failed, ! error):"]
    for start in range(0, len(task_ids), TASKS_PER_TABLE):
        block = task_ids[start:start + TASKS_PER_TABLE]
        lines.append(" " * name_width + "".join(f"T{start + i}".rjust(CELL + 2) for i in range(1, len(block) + 1)))
        for name, model in ranked:
            prompts = dict(prompts_of(model))
            lines.append(name.ljust(name_width) + "".join(_cell(prompts.get(pid)).rjust(CELL + 2) for pid in block))
    return lines


def _pack_bars(doc: Mapping[str, Any], name_width: int) -> list[str]:
    """Per pack (when more than one was graded), a bar per model for its score on that pack."""
    boards, titles = pack_boards(doc), pack_titles(doc)
    lines = ["", "Per-pack scores:"] if boards else []
    for pack, rows in boards:
        lines.append(f"{pack}: {titles[pack]}" if pack in titles else pack)
        for name, totals in rows:
            pct = num(totals.get("percentage")) + 0.0
            lines.append(f"  {name.ljust(name_width)} {bar(pct)} {pct:6.2f}%  "
                         f"{fixed(totals.get('score'), 2)}/{maximum(totals.get('max_score'))}")
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
    packed = any("." in pid for pid in _task_ids(ranked))
    table = _task_tables(ranked, name_width) + _pack_bars(doc, name_width) if packed else \
        _prompt_table(ranked, name_width)
    if table:
        lines += [""] + table
    return "\n".join(lines) + "\n"
