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

from .common import (DENIAL_MARK, NOTHING_GRADED, SCORING_DOC, STATE_LEGEND, fixed, group_legend, maximum,
                     pack_score, samples_mark, state_marks, tasks_by_pack)
from .fragments import part
from .view import Model, Run, run_view

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


def _header(run: Run) -> list[str]:
    isolation = run.metadata.get("isolation")
    isolation = isolation if isinstance(isolation, Mapping) else {}  # (free-form: the machine's report)
    layers = ", ".join(f"{layer} {md(isolation[layer].get('status', '?'))}" for layer in ("process", "kernel", "guard")
                       if isinstance(isolation.get(layer), Mapping))
    lines = [f"## RubricBench results: run `{run.run_id}`", "",
             f"{len(run.models)} model(s) · grader {md(run.metadata['grader_version'])} · "
             f"rubric {md(run.metadata['rubric_hash'])}"]
    if layers:
        lines[-1] += f" · isolation: {layers} · network: {md(isolation.get('network', '?'))}"
        origin = run.isolation_origin
        if origin:
            lines[-1] += f" (isolation {md(origin, 2 * MAX_CELL_CHARS)})"
    return lines


def _not_graded(run: Run) -> list[str]:
    """A table of the model folders the run did not grade (none: no lines)."""
    if not run.skipped:
        return []
    lines = ["", f"### ⚠️ Model folders not graded ({len(run.skipped)})", "",
             "These folders were found among the submissions and not graded (the run did not exit 0).", "",
             "| Folder | Tier | Reason |", "|---|---|---|"]
    return lines + [f"| {md(s.folder)} | {md(s.tier)} | {md(s.reason, 2 * MAX_CELL_CHARS)} |" for s in run.skipped]


def _references(run: Run) -> list[str]:
    """A table of the tasks whose reference solution failed, once each (none: no lines)."""
    failed = run.reference_failures
    if not failed:
        return []
    lines = ["", f"### ⚠️ Reference solutions that failed ({len(failed)})", "",
             "The pack's fault, not the models': the checks that needed these references were not "
             "judged (status error, 0 points), and the run did not exit 0.", "",
             "| Task | Reason | Checks not judged | Models |", "|---|---|---|---|"]
    return lines + [f"| {md(f.task)} | {md(f.reason, 2 * MAX_CELL_CHARS)} | {md(', '.join(f.checks))} | "
                    f"{f.models} |" for f in failed]


def _leaderboard(run: Run, unit: str = "Prompts") -> list[str]:
    lines = ["", "### Leaderboard", "",
             f"| # | Model | Tier | Score | Percent | 95% CI | Grade | Badge | {unit} passed |",
             "|---:|---|---|---:|---:|---:|:---:|---|:---:|"]
    for group, model in zip(run.groups, run.models):
        passed = sum(1 for p in model.prompts if p.state == "pass")
        lines.append(f"| {group} | {md(model.name)}{samples_mark(model)} | {md(model.tier)} | "
                     f"{fixed(model.score, 2)}/{maximum(model.max_score)} | {model.percentage:.2f}% | "
                     f"{model.interval.text() if model.interval else ''} | "
                     f"{md(model.grade)} | {md(model.badge)} | {passed}/{len(model.prompts)} |")
    if not run.models:
        return lines[:2] + ["_No models in this run._"]
    return lines + ["", f"_{md(group_legend(run), 4 * MAX_CELL_CHARS)}._"]


def _per_prompt(run: Run) -> list[str]:
    if not run.task_keys:
        return []
    lines = ["", "### Per-prompt results", "", "| Model | " + " | ".join(run.task_keys) + " |",
             "|---|" + "---:|" * len(run.task_keys)]
    for model in run.models:
        cells = []
        for key in run.task_keys:
            prompt = model.prompt(key)
            cells.append("–" if prompt is None else f"{state_marks(prompt)} {fixed(prompt.score, 2)}")
        lines.append(f"| {md(model.name)} | " + " | ".join(cells) + " |")
    lines += ["", STATE_LEGEND]
    return lines


def _task_row(key: str, models: tuple[Model, ...]) -> str:
    cells, title = [], ""
    for model in models:
        prompt = model.prompt(key)
        title = title or (prompt.title if prompt else "")
        cells.append("–" if prompt is None else
                     f"{state_marks(prompt)} {fixed(prompt.score, 2)}/{maximum(prompt.max_score)}")
    return f"| {md(key, 90)} | {md(title or key)} | " + " | ".join(cells) + " |"


def _per_task(run: Run) -> list[str]:
    """A row per task (its key and title), grouped by pack, each pack closed by its subtotals."""
    groups = tasks_by_pack(list(run.task_keys))
    lines = ["", "### Per-task results", "", "| Task | Title | " + " | ".join(md(m.name) for m in run.models) + " |",
             "|---|---|" + "---:|" * len(run.models)]
    for pack, keys in groups:
        lines += [_task_row(key, run.models) for key in keys]
        if len(groups) > 1:
            cells = [pack_score(m.subtotals[pack]) if pack in m.subtotals else "–" for m in run.models]
            lines.append(f"| **{md(pack)} subtotal** | {md(run.pack_titles.get(pack, ''))} | " + " | ".join(cells) + " |")
    return lines + ["", STATE_LEGEND]


def _pack_leaderboards(run: Run) -> list[str]:
    titles, lines = run.pack_titles, []
    for pack, rows in run.pack_boards:
        heading = f"{md(pack)}: {md(titles[pack])}" if pack in titles else md(pack)
        lines += ["", f"#### {heading}", "", "| # | Model | Score | Percent | Tasks passed |",
                  "|---:|---|---:|---:|:---:|"]
        lines += [f"| {place} | {md(model.name)} | {fixed(t.score, 2)}/{maximum(t.max_score)} | "
                  f"{t.percentage:.2f}% | {t.passed}/{t.tasks} |" for place, model, t in rows]
    return ["", "### Leaderboard per pack"] + lines if lines else []


def _model_loss_rows(model: Model) -> str:
    """The table's rows of one model: every part of where a graded task's points went, one
    line each (``md`` makes every cell one line), joined by newlines ('' when none)."""
    return "\n".join(f"| {md(model.name)} | {md(prompt.key, 90)} | {loss.points:.2f} | {md(loss.id, 80)} | "
                     f"{md(loss.status)} | {md(loss.reason)} |"
                     for prompt in model.prompts if prompt.state != "not_attempted" for loss in prompt.losses)


def _loss_rows(run: Run) -> list[str]:
    """Every model's rows, in the run's order (each model's from the run's ``fragments``, when
    they hold it)."""
    rows: list[str] = []
    for model in run.models:
        text = part(model.name, model.record, "markdown_losses", [], lambda model=model: _model_loss_rows(model))
        rows += text.split("\n") if text else []
    return rows


def _failed_checks(run: Run, unit: str = "Prompt") -> list[str]:
    """Where the points went: every check that lost points and every gate deduction, per
    model and task, largest first within each (they add up to what the task lost)."""
    rows = _loss_rows(run)
    lines = ["", "### Where the points went", ""]
    if not rows:
        return lines + ["Nowhere: every graded task earned all of its points."]
    lines += [f"A gate scales a category by w = execution earned / execution maximum (× w, or × (0.25 + 0.75·w)): "
              f"see {SCORING_DOC}.", "",
              f"| Model | {unit} | Lost | Check or gate | Status | Reason |", "|---|---|---:|---|---|---|"]
    lines += rows[:MAX_FAILED_ROWS]
    if len(rows) > MAX_FAILED_ROWS:
        lines += ["", f"…and {len(rows) - MAX_FAILED_ROWS} more; see report.html or junit.xml for all of them."]
    return lines


def _denials(run: Run) -> list[str]:
    """A table of what the sandbox denied, per model and task (none: no lines)."""
    rows = [(model.name, prompt.key, d) for model in run.models for prompt in model.prompts for d in prompt.denials]
    if not rows:
        return []
    lines = ["", f"### {DENIAL_MARK} Sandbox denials ({len(rows)})", "",
             "| Model | Task | Kind | Event | Tried | Where | Times |", "|---|---|---|---|---|---|---:|"]
    lines += [f"| {md(name)} | {md(key, 90)} | {md(d.kind)} | {md(d.event)} | {md(d.target)} | "
              f"{md(d.where)} | {d.count} |" for name, key, d in rows[:MAX_FAILED_ROWS]]
    return lines


def render_markdown_summary(doc: Mapping[str, Any] | Run) -> str:
    """The whole summary (ends with a newline), from a validated results document or its view."""
    run = run_view(doc)
    if not run.models and run.skipped:  # every model folder found was skipped: no checks to list
        lines = _header(run) + _not_graded(run) + ["", "### Leaderboard", "", f"_{NOTHING_GRADED}._"]
    elif not any("." in key for key in run.task_keys):  # the core pack alone
        lines = (_header(run) + _not_graded(run) + _references(run) + _leaderboard(run) + _per_prompt(run)
                 + _denials(run) + _failed_checks(run))
    else:
        lines = (_header(run) + _not_graded(run) + _references(run) + _leaderboard(run, "Tasks")
                 + _pack_leaderboards(run) + _per_task(run) + _denials(run) + _failed_checks(run, "Task"))
    return "\n".join(lines) + "\n"
