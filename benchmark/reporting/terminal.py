"""Lines the CLI prints: after grading, a model x task table (``format_table``; the lost
points under it are ``terminal_losses``'); while grading, one line per model when stdout is
not a terminal (``format_model_line``; a model served from the cache gets none); with ``--verbose``, a block per model as it finishes
(each prompt's result, its category breakdown and lost checks). Pure string building on the
typed view of the results document (``view``; its text was escaped when the document was
built, and names pass ``label`` again); the CLI prints through ``benchmark.untrusted.for_stream``.
docs/reading-a-report.md, "Terminal", describes the output and its caps."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any
from unicodedata import combining, east_asian_width

from .common import (STATE_LABELS, STATE_MARKS, STATES, fixed, group_legend, label, maximum, pack_score,
                     samples_mark, state_text)
from .view import Category, Model, Prompt, Run, model_view, run_view

INDENT = "   "


def format_prompt_line(prompt: Prompt) -> str:
    """``   ✅ PASSED - Score: 23.17/25``: the prompt's state in words and mark (a grading error
    with its reason), as every report words it (``common.state_text``)."""
    score = f"Score: {fixed(prompt.score, 2)}/{maximum(prompt.max_score)}"
    reason = f" ({prompt.error or 'unknown error'})" if prompt.state == "error" else ""
    return f"{INDENT}{STATE_MARKS[prompt.state]} {state_text(prompt)} - {score}{reason}"


def format_detailed_score(categories: Sequence[Category]) -> str:
    """Categories as ``Name: earned/max``, split over two lines (the shorter half first)."""
    parts = [f"{c.name.title()}: {fixed(c.earned)}/{fixed(c.max)}" for c in categories]
    if not parts:
        return ""
    half = len(parts) // 2
    first, second = (parts[:half], parts[half:]) if half else (parts, [])
    lines = [f"     └─ {', '.join(first)}"]
    if second:
        lines.append(f"        {', '.join(second)}")
    return "\n".join(lines)


def format_lost_checks(prompt: Prompt) -> list[str]:
    """One line per check that did not fully pass: status, id, points and the reason."""
    return [f"        {c.status}: {c.id} ({fixed(c.earned, 2)}/{fixed(c.points, 2)})"
            f"{f' [{c.groups_text}]' if c.groups else ''} {c.rationale}".rstrip()
            for c in prompt.checks if c.status != "pass"]


def format_model_block(model: Mapping[str, Any] | Model, *, show_checks: bool = False) -> str:
    """Everything the CLI shows for one model (its record or view): each prompt's result and
    breakdown, then the total."""
    model = model_view(model)
    lines = [f"Model: {model.name} ({model.tier})" + (" [cached]" if model.cached else ""), "=" * 50]
    for prompt in model.prompts:
        lines.append("")
        lines.append(f"📝 {label(prompt.key)}: {label(prompt.title or prompt.key)}")
        lines.append(format_prompt_line(prompt))
        detail = format_detailed_score(prompt.categories)
        if detail:
            lines.append(detail)
        if show_checks:
            lines.extend(format_lost_checks(prompt))
    lines.append("")
    lines += [f"📦 {pack}: {pack_score(totals)}" for pack, totals in model.subtotals.items()]
    lines.append(f"🎯 Final Score: {fixed(model.score, 2)}/{maximum(model.max_score)} ({model.percentage:.1f}%) - "
                 f"grade {model.grade}, {model.badge}")
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


def state_mark(prompt: Prompt) -> str:
    """The state's mark, then ``!`` for a pass with a failed security check, ``D`` when the
    sandbox denied the prompt's runs something."""
    return (MARKS[prompt.state] + (SECURITY_MARK if prompt.not_clean else "")
            + (DENIAL_MARK if prompt.denials else ""))


def _cells(models: Sequence[Model], key: str) -> list[str]:
    """The column of one task: each score right-aligned, then its mark (blank: a task that
    model was not graded on)."""
    found = [model.prompt(key) for model in models]
    scores = [fixed(p.score) if p else "" for p in found]
    digits = max(map(len, scores))
    return [f"{score:>{digits}} {state_mark(p)}" if p else "" for score, p in zip(scores, found)]


def _headers(keys: Sequence[str]) -> tuple[list[str], list[str]]:
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


def format_table(doc: Mapping[str, Any] | Run) -> list[str]:
    """One row per model, best first with shared places (1, 1, 3): a cell per task (its score
    and state mark), the total percentage and the grade; the legend under it. Over
    ``TABLE_ROWS`` models, the best ``TABLE_HEAD`` and the last ``TABLE_TAIL`` are shown."""
    run = run_view(doc)
    if not run.models:
        return []
    keys = run.task_keys
    headers, named = _headers(keys)
    columns = [_cells(run.models, key) for key in keys]
    intervals = any(model.interval for model in run.models)  # (a document of an older grader has none)
    body = [[str(group), cut(label(model.name), NAME_WIDTH) + samples_mark(model),
             *[column[i] for column in columns], f"{model.percentage:.1f}%",
             *([model.interval.text() if model.interval else ""] if intervals else []), label(model.grade)]
            for i, (group, model) in enumerate(zip(run.groups, run.models))]
    head = ["#", "Model", *headers, "Total", *(["95% CI"] if intervals else []), "Grade"]
    shown, gap = _row_subset(len(body))
    widths = [max(width(row[i]) for row in [head, *(body[j] for j in shown)]) for i in range(len(head))]
    right = {0, *range(len(headers) + 2, len(head) - 1)}  # the rank, the percentage (and its interval)

    def line(cells: list[str]) -> str:
        return "  ".join(pad(cell, widths[i], i in right) for i, cell in enumerate(cells)).rstrip()

    lines = [f"🏆 {len(body)} model(s) × {len(keys)} task(s), best first:", line(head)]
    for index in shown:
        if index == gap:
            lines.append(f"   … {len(body) - TABLE_HEAD - TABLE_TAIL} more models (places "
                         f"{run.places[TABLE_HEAD]}-{run.places[len(body) - TABLE_TAIL - 1]}): {SEE_REPORTS}")
        lines.append(line(body[index]))
    legend = ", ".join(f"{MARKS[state]} {STATE_LABELS[state]}" for state in STATES)
    lines.append(f"   {legend}; {SECURITY_MARK} passed with a failed security check, "
                 f"{DENIAL_MARK} the sandbox denied something")
    lines.append(f"   {group_legend(run)}")
    return lines + named


GRADING_NAMES = 10  # models named on the "Grading" line; the rest are counted


def format_grading_line(names: list[str], units: int | None = None) -> str:
    """``🔍 Grading 300 model(s): a, b, ... and 290 more`` (the names the CLI found, in order);
    ``units``: the samples graded, when some model has several."""
    shown = ", ".join(label(name) for name in names[:GRADING_NAMES])
    more = f" and {len(names) - GRADING_NAMES} more" if len(names) > GRADING_NAMES else ""
    samples = f" ({units} samples)" if units is not None and units != len(names) else ""
    return f"🔍 Grading {len(names)} model(s){samples}: {shown}{more}"


def format_model_line(model: Mapping[str, Any] | Model) -> str:
    """The one line a model this run grades gets as it finishes when stdout is not a terminal
    (its record or view): ``graded weak_model: 44.74/100 (44.7%), grade F; 4 failed``."""
    model = model_view(model)
    states = Counter(prompt.state for prompt in model.prompts)
    counts = ", ".join(f"{states[s]} {STATE_LABELS[s]}" for s in STATES if s in states) or "no task"
    return (f"graded {label(model.name)}: {fixed(model.score, 2)}/{maximum(model.max_score)} "
            f"({model.percentage:.1f}%), grade {label(model.grade)}; {counts}")
