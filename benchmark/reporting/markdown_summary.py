"""summary.md: Markdown for a CI job summary (e.g. ``cat summary.md >> $GITHUB_STEP_SUMMARY``).

Leaderboard table, per-prompt table of states (passed, failed, could not be graded, timed out,
not attempted; marked when security checks failed or the sandbox denied an attempt), the
sandbox denials, and where the points went per model and prompt (every check that lost points
and every gate deduction); first, when there are any, the model folders the run did not
grade (``skipped_models``) and the tasks whose reference solution failed. A run with task-pack tasks gets a per-task table with a row per
task (key and title; a subtotal row per pack) and, with more than one pack, a leaderboard per pack. Every value from the document is escaped for Markdown and
inline HTML, so a submission's text cannot add markup; long lists are capped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..scoring import prompt_sort_key
from .common import (DENIAL_MARK, NOTHING_GRADED, SCORING_DOC, STATE_LEGEND, by_percentage, denials_of, fixed,
                     isolation_origin, maximum, num, pack_boards, pack_score, pack_subtotals, pack_titles, places,
                     point_losses, prompts_of, reference_failures, skipped_of, state_marks, tasks_by_pack, verdict)

MAX_FAILED_ROWS = 150
MAX_CELL_CHARS = 220
# Inside a table cell only these can start markup; "_" only at a word's edge (GFM ignores intraword).
_SPECIAL = re.compile(r"([\\`*\[\]|~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")


def md(value: Any, limit: int = MAX_CELL_CHARS) -> str:
    """One table cell's text: one line, capped, HTML-escaped, Markdown punctuation escaped."""
    text = " ".join(str(value).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SPECIAL.sub(r"\\\1", text)


def _header(doc: Mapping[str, Any]) -> list[str]:
    meta = doc.get("_metadata") if isinstance(doc.get("_metadata"), Mapping) else {}
    isolation = meta.get("isolation") if isinstance(meta.get("isolation"), Mapping) else {}
    layers = ", ".join(f"{layer} {md(isolation[layer].get('status', '?'))}" for layer in ("process", "kernel", "guard")
                       if isinstance(isolation.get(layer), Mapping))
    lines = [f"## RubricBench results: run `{doc.get('run_id', '?')}`", "",
             f"{len(by_percentage(doc))} model(s) · grader {md(meta.get('grader_version', '?'))} · "
             f"rubric {md(meta.get('rubric_hash', '?'))}"]
    if layers:
        lines[-1] += f" · isolation: {layers} · network: {md(isolation.get('network', '?'))}"
        origin = isolation_origin(meta)
        if origin:
            lines[-1] += f" (isolation {md(origin, 2 * MAX_CELL_CHARS)})"
    return lines


def _not_graded(doc: Mapping[str, Any]) -> list[str]:
    """A table of the model folders the run did not grade (none: no lines)."""
    skipped = skipped_of(doc)
    if not skipped:
        return []
    lines = ["", f"### ⚠️ Model folders not graded ({len(skipped)})", "",
             "These folders were found among the submissions and not graded (the run did not exit 0).", "",
             "| Folder | Tier | Reason |", "|---|---|---|"]
    return lines + [f"| {md(s.get('folder'))} | {md(s.get('tier'))} | "
                    f"{md(s.get('reason'), 2 * MAX_CELL_CHARS)} |" for s in skipped]


def _references(doc: Mapping[str, Any]) -> list[str]:
    """A table of the tasks whose reference solution failed, once each (none: no lines)."""
    failed = reference_failures(doc)
    if not failed:
        return []
    lines = ["", f"### ⚠️ Reference solutions that failed ({len(failed)})", "",
             "The pack's fault, not the models': the checks that needed these references were not "
             "judged (status error, 0 points), and the run did not exit 0.", "",
             "| Task | Reason | Checks not judged | Models |", "|---|---|---|---|"]
    return lines + [f"| {md(f['task'])} | {md(f['reason'], 2 * MAX_CELL_CHARS)} | {md(', '.join(f['checks']))} | "
                    f"{f['models']} |" for f in failed]


def _leaderboard(ranked: list[tuple[str, Mapping[str, Any]]], unit: str = "Prompts") -> list[str]:
    lines = ["", "### Leaderboard", "", f"| # | Model | Tier | Score | Percent | Grade | Badge | {unit} passed |",
             "|---:|---|---|---:|---:|:---:|---|:---:|"]
    for place, (name, model) in zip(places(ranked), ranked):
        prompts = prompts_of(model)
        passed = sum(1 for _, p in prompts if verdict(p) == "pass")
        lines.append(f"| {place} | {md(name)} | {md(model.get('tier', '?'))} | "
                     f"{fixed(model.get('overall_score'), 2)}/{maximum(model.get('total_possible'))} | "
                     f"{num(model.get('percentage')):.2f}% | {md(model.get('grade', '?'))} | "
                     f"{md(model.get('badge', '?'))} | {passed}/{len(prompts)} |")
    return lines if ranked else lines[:2] + ["_No models in this run._"]


def _per_prompt(ranked: list[tuple[str, Mapping[str, Any]]]) -> list[str]:
    prompt_ids = sorted({pid for _, m in ranked for pid, _ in prompts_of(m)}, key=prompt_sort_key)
    if not prompt_ids:
        return []
    lines = ["", "### Per-prompt results", "", "| Model | " + " | ".join(prompt_ids) + " |",
             "|---|" + "---:|" * len(prompt_ids)]
    for name, model in ranked:
        prompts = dict(prompts_of(model))
        cells = []
        for pid in prompt_ids:
            prompt = prompts.get(pid)
            cells.append("–" if prompt is None else f"{state_marks(prompt)} {fixed(prompt.get('score'), 2)}")
        lines.append(f"| {md(name)} | " + " | ".join(cells) + " |")
    lines += ["", STATE_LEGEND]
    return lines


def _task_row(pid: str, ranked: list[tuple[str, Mapping[str, Any]]]) -> str:
    cells, title = [], ""
    for _, model in ranked:
        prompt = dict(prompts_of(model)).get(pid)
        title = title or (prompt.get("title") if prompt else "")
        cells.append("–" if prompt is None else
                     f"{state_marks(prompt)} {fixed(prompt.get('score'), 2)}/{maximum(prompt.get('max_score'))}")
    return f"| {md(pid, 90)} | {md(title or pid)} | " + " | ".join(cells) + " |"


def _per_task(doc: Mapping[str, Any], ranked: list[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """A row per task (its key and title), grouped by pack, each pack closed by its subtotals."""
    groups = tasks_by_pack([pid for _, m in ranked for pid, _ in prompts_of(m)])
    titles = pack_titles(doc)
    lines = ["", "### Per-task results", "", "| Task | Title | " + " | ".join(md(n) for n, _ in ranked) + " |",
             "|---|---|" + "---:|" * len(ranked)]
    for pack, keys in groups:
        lines += [_task_row(pid, ranked) for pid in dict.fromkeys(keys)]
        if len(groups) > 1:
            cells = [pack_score(pack_subtotals(m)[pack]) if pack in pack_subtotals(m) else "–" for _, m in ranked]
            lines.append(f"| **{md(pack)} subtotal** | {md(titles.get(pack, ''))} | " + " | ".join(cells) + " |")
    return lines + ["", STATE_LEGEND]


def _pack_leaderboards(doc: Mapping[str, Any]) -> list[str]:
    titles, lines = pack_titles(doc), []
    for pack, rows in pack_boards(doc):
        heading = f"{md(pack)}: {md(titles[pack])}" if pack in titles else md(pack)
        lines += ["", f"#### {heading}", "", "| # | Model | Score | Percent | Tasks passed |",
                  "|---:|---|---:|---:|:---:|"]
        lines += [f"| {place} | {md(name)} | {fixed(t.get('score'), 2)}/{maximum(t.get('max_score'))} | "
                  f"{num(t.get('percentage')):.2f}% | {int(num(t.get('passed')))}/{int(num(t.get('tasks')))} |"
                  for place, (name, t) in zip(places(rows, "score"), rows)]
    return ["", "### Leaderboard per pack"] + lines if lines else []


def _loss_rows(ranked: list[tuple[str, Mapping[str, Any]]]) -> list[tuple[str, str, Mapping[str, Any]]]:
    """(model, task, loss) for every part of where a graded task's points went."""
    return [(name, pid, loss) for name, model in ranked for pid, prompt in prompts_of(model)
            if verdict(prompt) != "not_attempted" for loss in point_losses(prompt)]


def _failed_checks(ranked: list[tuple[str, Mapping[str, Any]]], unit: str = "Prompt") -> list[str]:
    """Where the points went: every check that lost points and every gate deduction, per
    model and task, largest first within each (they add up to what the task lost)."""
    rows = _loss_rows(ranked)
    lines = ["", "### Where the points went", ""]
    if not rows:
        return lines + ["Nowhere: every graded task earned all of its points."]
    lines += [f"A gate scales a category by w = execution earned / execution maximum (× w, or × (0.25 + 0.75·w)): "
              f"see {SCORING_DOC}.", "",
              f"| Model | {unit} | Lost | Check or gate | Status | Reason |", "|---|---|---:|---|---|---|"]
    for name, pid, loss in rows[:MAX_FAILED_ROWS]:
        lines.append(f"| {md(name)} | {md(pid, 90)} | {loss['points']:.2f} | {md(loss['id'], 80)} | "
                     f"{md(loss['status'])} | {md(loss['reason'])} |")
    if len(rows) > MAX_FAILED_ROWS:
        lines += ["", f"…and {len(rows) - MAX_FAILED_ROWS} more; see report.html or junit.xml for all of them."]
    return lines


def _denials(ranked: list[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """A table of what the sandbox denied, per model and task (none: no lines)."""
    rows = [(name, pid, d) for name, model in ranked for pid, prompt in prompts_of(model) for d in denials_of(prompt)]
    if not rows:
        return []
    lines = ["", f"### {DENIAL_MARK} Sandbox denials ({len(rows)})", "",
             "| Model | Task | Kind | Event | Tried | Where | Times |", "|---|---|---|---|---|---|---:|"]
    lines += [f"| {md(name)} | {md(pid, 90)} | {md(d.get('kind'))} | {md(d.get('event'))} | {md(d.get('target'))} | "
              f"{md(d.get('where'))} | {int(num(d.get('count')) or 1)} |" for name, pid, d in rows[:MAX_FAILED_ROWS]]
    return lines


def render_markdown_summary(doc: Mapping[str, Any]) -> str:
    """The whole summary (ends with a newline)."""
    ranked = by_percentage(doc)
    if not ranked and skipped_of(doc):  # every model folder found was skipped: no checks to list
        lines = _header(doc) + _not_graded(doc) + ["", "### Leaderboard", "", f"_{NOTHING_GRADED}._"]
    elif not any("." in pid for _, m in ranked for pid, _ in prompts_of(m)):  # the core pack alone
        lines = (_header(doc) + _not_graded(doc) + _references(doc) + _leaderboard(ranked) + _per_prompt(ranked)
                 + _denials(ranked) + _failed_checks(ranked))
    else:
        lines = (_header(doc) + _not_graded(doc) + _references(doc) + _leaderboard(ranked, "Tasks")
                 + _pack_leaderboards(doc)
                 + _per_task(doc, ranked) + _denials(ranked) + _failed_checks(ranked, "Task"))
    return "\n".join(lines) + "\n"
