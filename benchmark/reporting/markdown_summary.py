"""summary.md: Markdown for a CI job summary (e.g. ``cat summary.md >> $GITHUB_STEP_SUMMARY``).

Leaderboard table, per-prompt pass/fail table and the failed checks (status fail, error or
skipped) per model and prompt. Every value from the document is escaped for Markdown and
inline HTML, so a submission's text cannot add markup; long lists are capped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..scoring import prompt_sort_key
from .common import by_percentage, fixed, maximum, num, prompts_of

FAILED = ("fail", "error", "skipped")
MAX_FAILED_ROWS = 150
MAX_CELL_CHARS = 220
MARKS = {"pass": "✅", "fail": "❌", "error": "⚠️"}
# Inside a table cell only these can start markup; "_" only at a word's edge (GFM ignores intraword).
_SPECIAL = re.compile(r"([\\`*\[\]|~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")


def md(value: Any, limit: int = MAX_CELL_CHARS) -> str:
    """One table cell's text: one line, capped, HTML-escaped, Markdown punctuation escaped."""
    text = " ".join(str(value).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SPECIAL.sub(r"\\\1", text)


def _verdict(prompt: Mapping[str, Any]) -> str:
    if prompt.get("status") == "error":
        return "error"
    return "pass" if prompt.get("passed") is True else "fail"


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
    return lines


def _leaderboard(ranked: list[tuple[str, Mapping[str, Any]]]) -> list[str]:
    lines = ["", "### Leaderboard", "", "| # | Model | Tier | Score | Percent | Grade | Badge | Prompts passed |",
             "|---:|---|---|---:|---:|:---:|---|:---:|"]
    for place, (name, model) in enumerate(ranked, 1):
        prompts = prompts_of(model)
        passed = sum(1 for _, p in prompts if _verdict(p) == "pass")
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
            cells.append("–" if prompt is None else f"{MARKS[_verdict(prompt)]} {fixed(prompt.get('score'), 2)}")
        lines.append(f"| {md(name)} | " + " | ".join(cells) + " |")
    lines += ["", "✅ passed · ❌ below the pass mark · ⚠️ could not be graded"]
    return lines


def _failed_rows(ranked: list[tuple[str, Mapping[str, Any]]]) -> list[tuple[str, str, Mapping[str, Any]]]:
    return [(name, pid, check) for name, model in ranked for pid, prompt in prompts_of(model)
            for check in prompt.get("checks") or ()
            if isinstance(check, Mapping) and check.get("status") in FAILED]


def _failed_checks(ranked: list[tuple[str, Mapping[str, Any]]]) -> list[str]:
    rows = _failed_rows(ranked)
    lines = ["", "### Failed checks", ""]
    if not rows:
        return lines + ["None: every check passed or earned partial credit."]
    lines += ["| Model | Prompt | Check | Category | Status | Points | Rationale |",
              "|---|---|---|---|---|---:|---|"]
    for name, pid, check in rows[:MAX_FAILED_ROWS]:
        lines.append(f"| {md(name)} | {pid} | {md(check.get('id'), 80)} | {md(check.get('category'))} | "
                     f"{md(check.get('status'))} | {fixed(check.get('earned'), 2)}/{fixed(check.get('points'), 2)} | "
                     f"{md(check.get('rationale', ''))} |")
    if len(rows) > MAX_FAILED_ROWS:
        lines += ["", f"…and {len(rows) - MAX_FAILED_ROWS} more; see report.html or junit.xml for all of them."]
    return lines


def render_markdown_summary(doc: Mapping[str, Any]) -> str:
    """The whole summary (ends with a newline)."""
    ranked = by_percentage(doc)
    lines = _header(doc) + _leaderboard(ranked) + _per_prompt(ranked) + _failed_checks(ranked)
    return "\n".join(lines) + "\n"
