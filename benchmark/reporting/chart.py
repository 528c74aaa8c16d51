"""Text comparison chart: one fixed-width bar per model (best first) and a per-prompt table.

A run with task-pack tasks gets, instead of that table, a numbered list of its tasks (key and
title) and tables of at most ``TASKS_PER_TABLE`` numbered columns, so long keys and many
tasks keep the width bounded; with more than one pack, a bar per model and pack follows.
Numbers are formatted with two decimals (never raw floats), bars use block characters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .common import RULE_WIDTH, fixed, label, maximum, num
from .view import Model, Prompt, Run, run_view

BAR_WIDTH = 50
TASKS_PER_TABLE = 5
CELL = 12  # "100.00/100 ✓"
FULL, EMPTY = "█", "░"
RULE = "━" * RULE_WIDTH
MARKS = {"pass": "✓", "fail": "✗", "error": "!", "timed_out": "T", "not_attempted": "–"}  # one column each
LEGEND = "(✓ passed, ✗ failed, ! could not be graded, T timed out, – not attempted)"


def bar(percentage: float, width: int = BAR_WIDTH) -> str:
    """``[████░░…]`` with ``round(width * pct / 100)`` filled cells, pct clamped to 0..100."""
    pct = max(0.0, min(100.0, num(percentage)))
    filled = int(round(width * pct / 100.0))
    return "[" + FULL * filled + EMPTY * (width - filled) + "]"


def _cell(prompt: Prompt | None) -> str:
    if prompt is None:
        return "-"
    return f"{fixed(prompt.score, 2)}/{maximum(prompt.max_score)} {MARKS[prompt.state]}"


def _prompt_table(run: Run, name_width: int) -> list[str]:
    if not run.task_keys:
        return []
    cell = max(10, *(len(key) for key in run.task_keys))
    lines = [f"Per-prompt scores {LEGEND}:", " " * name_width + "".join(key.rjust(cell + 2) for key in run.task_keys)]
    for model in run.models:
        lines.append(model.name.ljust(name_width) + "".join(_cell(model.prompt(key)).rjust(cell + 2)
                                                            for key in run.task_keys))
    return lines


def _task_legend(run: Run) -> list[str]:
    titles = {p.key: p.title for m in run.models for p in m.prompts}
    width = len(f"T{len(run.task_keys)}")
    return ["Tasks:"] + [f"  {f'T{i}'.ljust(width)}  {label(key)}: {label(titles.get(key) or key)}"
                         for i, key in enumerate(run.task_keys, 1)]


def _task_tables(run: Run, name_width: int) -> list[str]:
    """The per-task scores with numbered columns (see ``_task_legend``), a few per table."""
    keys = run.task_keys
    if not keys:
        return []
    lines = _task_legend(run) + ["", f"Per-task scores {LEGEND}:"]
    for start in range(0, len(keys), TASKS_PER_TABLE):
        block = keys[start:start + TASKS_PER_TABLE]
        lines.append(" " * name_width + "".join(f"T{start + i}".rjust(CELL + 2) for i in range(1, len(block) + 1)))
        for model in run.models:
            lines.append(model.name.ljust(name_width) + "".join(_cell(model.prompt(key)).rjust(CELL + 2)
                                                                for key in block))
    return lines


def _pack_bars(run: Run, name_width: int) -> list[str]:
    """Per pack (when more than one was graded), a bar per model for its score on that pack."""
    lines = ["", "Per-pack scores:"] if run.pack_boards else []
    for pack, rows in run.pack_boards:
        lines.append(f"{pack}: {run.pack_titles[pack]}" if pack in run.pack_titles else pack)
        for _, model, totals in rows:
            pct = totals.percentage + 0.0
            lines.append(f"  {model.name.ljust(name_width)} {bar(pct)} {pct:6.2f}%  "
                         f"{fixed(totals.score, 2)}/{maximum(totals.max_score)}")
    return lines


def _model_bar(model: Model, name_width: int) -> str:
    pct = model.percentage + 0.0
    return f"{model.name.ljust(name_width)} {bar(pct)} {pct:6.2f}%  {model.grade}"


def render_comparison_chart(doc: Mapping[str, Any] | Run) -> str:
    """The whole chart as text (ends with a newline), from a validated results document or its view."""
    run = run_view(doc)
    name_width = max([15] + [len(m.name) + 1 for m in run.models])
    lines = ["Model Comparison:", RULE, ""]
    if not run.models:
        lines.append("(no models)")
    lines += [_model_bar(model, name_width) for model in run.models]
    lines += ["", RULE]
    packed = any("." in key for key in run.task_keys)
    table = _task_tables(run, name_width) + _pack_bars(run, name_width) if packed else _prompt_table(run, name_width)
    if table:
        lines += [""] + table
    return "\n".join(lines) + "\n"
