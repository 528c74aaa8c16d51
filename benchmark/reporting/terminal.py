"""Lines the CLI prints: after grading, a model x task table (``format_table``; the lost
points under it are ``terminal_losses``'); while grading, one line per model when stdout is
not a terminal (``format_model_line``; a model served from the cache gets none); with ``--verbose``, a block per model as it finishes
(each prompt's result, its category breakdown and lost checks). Pure string building on the
results document (whose text fields were escaped when it was built; names pass ``label``
again); the CLI prints through ``benchmark.untrusted.for_stream``. docs/reading-a-report.md,
"Terminal", describes the output and its caps."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from unicodedata import combining, east_asian_width

from ..scoring import prompt_sort_key
from .common import (CATEGORY_NAMES, STATE_LABELS, STATES, by_percentage, denials_of, fixed, label, maximum,
                     models_of, num, pack_score, pack_subtotals, places, passed_not_clean, prompts_of, verdict)

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


# ---- after grading: the model x task table (the default view) ----------------------------

MARKS = {"pass": "✓", "fail": "✗", "error": "E", "not_attempted": "-", "timed_out": "T"}
SECURITY_MARK, DENIAL_MARK = "!", "D"  # beside the state: a pass with a failed security check; sandbox denials
TABLE_ROWS = 50  # more models: the best TABLE_HEAD, a line saying how many are left out, the last TABLE_TAIL
TABLE_HEAD, TABLE_TAIL = 40, 10
NAME_WIDTH = 32  # a longer model name is cut (with "…") in the table; the lost-points list names it in full
HEADER_WIDTH = 12  # a longer task key is shown as t1, t2 ... and named under the table
SEE_REPORTS = "see summary_report.txt / report.html"


def width(value: str) -> int:
    """Columns ``value`` takes on a terminal: wide (East Asian) characters two, combining ones none."""
    return sum(0 if combining(char) else 2 if east_asian_width(char) in "WF" else 1 for char in value)


def cut(value: str, columns: int) -> str:
    """``value`` cut to ``columns`` terminal columns, ending "…" when it was cut."""
    if width(value) <= columns:
        return value
    out, used = [], 0
    for char in value:
        size = width(char)
        if used + size > columns - 1:
            break
        out.append(char)
        used += size
    return "".join(out) + "…"


def pad(value: str, columns: int, right: bool = False) -> str:
    gap = " " * max(0, columns - width(value))
    return gap + value if right else value + gap


def task_keys(doc: Mapping[str, Any]) -> list[str]:
    """Every task any model was graded on, in natural order (prompt_2 before prompt_10)."""
    keys = {pid for model in models_of(doc).values() for pid, _ in prompts_of(model)}
    return sorted(keys, key=prompt_sort_key)


def state_mark(prompt: Mapping[str, Any]) -> str:
    """The state's mark, then ``!`` for a pass with a failed security check, ``D`` when the
    sandbox denied the prompt's runs something."""
    return (MARKS[verdict(prompt)] + (SECURITY_MARK if passed_not_clean(prompt) else "")
            + (DENIAL_MARK if denials_of(prompt) else ""))


def _cells(rows: list[tuple[str, Mapping[str, Any]]], key: str) -> list[str]:
    """The column of one task: each score right-aligned, then its mark (blank: a task that
    model was not graded on)."""
    found = [dict(prompts_of(model)).get(key) for _, model in rows]
    scores = [fixed(p.get("score")) if isinstance(p, Mapping) else "" for p in found]
    digits = max(map(len, scores))
    return [f"{score:>{digits}} {state_mark(p)}" if isinstance(p, Mapping) else ""
            for score, p in zip(scores, found)]


def _headers(keys: list[str]) -> tuple[list[str], list[str]]:
    """Column headers, and the legend lines naming the tasks whose key is too long for one."""
    long = any(len(label(key)) > HEADER_WIDTH for key in keys)
    if not long:
        return [label(key) for key in keys], []
    return [f"t{i}" for i, _ in enumerate(keys, 1)], [f"  t{i} = {label(key)}" for i, key in enumerate(keys, 1)]


def _row_subset(count: int) -> tuple[list[int], int]:
    """The indexes of the rows shown, and the row the "N more" line goes above (-1: every row shown)."""
    if count <= TABLE_ROWS:
        return list(range(count)), -1
    return [*range(TABLE_HEAD), *range(count - TABLE_TAIL, count)], count - TABLE_TAIL


def format_table(doc: Mapping[str, Any]) -> list[str]:
    """One row per model, best first with shared places (1, 1, 3): a cell per task (its score
    and state mark), the total percentage and the grade; the legend under it. Over
    ``TABLE_ROWS`` models, the best ``TABLE_HEAD`` and the last ``TABLE_TAIL`` are shown."""
    rows = by_percentage(doc)
    if not rows:
        return []
    keys = task_keys(doc)
    headers, named = _headers(keys)
    ranks = places(rows)
    columns = [_cells(rows, key) for key in keys]
    body = [[str(rank), cut(label(name), NAME_WIDTH), *[column[i] for column in columns],
             f"{num(model.get('percentage')):.1f}%", label(model.get("grade", "?"))]
            for i, (rank, (name, model)) in enumerate(zip(ranks, rows))]
    head = ["#", "Model", *headers, "Total", "Grade"]
    shown, gap = _row_subset(len(body))
    widths = [max(width(row[i]) for row in [head, *(body[j] for j in shown)]) for i in range(len(head))]
    right = {0, len(head) - 2}  # the place and the percentage, right-aligned

    def line(cells: list[str]) -> str:
        return "  ".join(pad(cell, widths[i], i in right) for i, cell in enumerate(cells)).rstrip()

    lines = [f"🏆 {len(rows)} model(s) × {len(keys)} task(s), best first:", line(head)]
    for index in shown:
        if index == gap:
            lines.append(f"   … {len(body) - TABLE_HEAD - TABLE_TAIL} more models (places "
                         f"{ranks[TABLE_HEAD]}-{ranks[len(body) - TABLE_TAIL - 1]}): {SEE_REPORTS}")
        lines.append(line(body[index]))
    legend = ", ".join(f"{MARKS[state]} {STATE_LABELS[state]}" for state in STATES)
    lines.append(f"   {legend}; {SECURITY_MARK} passed with a failed security check, "
                 f"{DENIAL_MARK} the sandbox denied something")
    return lines + named


GRADING_NAMES = 10  # models named on the "Grading" line; the rest are counted


def format_grading_line(names: list[str]) -> str:
    """``🔍 Grading 300 model(s): a, b, ... and 290 more`` (the names the CLI found, in order)."""
    shown = ", ".join(label(name) for name in names[:GRADING_NAMES])
    more = f" and {len(names) - GRADING_NAMES} more" if len(names) > GRADING_NAMES else ""
    return f"🔍 Grading {len(names)} model(s): {shown}{more}"


def format_model_line(model: Mapping[str, Any]) -> str:
    """The one line a model this run grades gets as it finishes when stdout is not a terminal:
    ``graded weak_model: 44.74/100 (44.7%), grade F; 4 failed``."""
    states: dict[str, int] = {}
    for _, prompt in prompts_of(model):
        states[verdict(prompt)] = states.get(verdict(prompt), 0) + 1
    counts = ", ".join(f"{states[s]} {STATE_LABELS[s]}" for s in STATES if s in states) or "no task"
    return (f"graded {label(model.get('model_name', '?'))}: {fixed(model.get('overall_score'), 2)}/"
            f"{maximum(model.get('total_possible'))} ({num(model.get('percentage')):.1f}%), grade "
            f"{label(model.get('grade', '?'))}; {counts}")
