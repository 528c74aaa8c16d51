"""The human summary report (summary_report.txt), built from the results document alone."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..scoring import generate_feedback_summary, generate_improvement_suggestions
from .common import (NOTHING_GRADED, RULE_WIDTH, SCORING_DOC, fixed, group_legend, label, loss_lines, maximum, pack_name,
                     pack_score, state_text)
from .fragments import part
from .view import Model, Prompt, Run, run_view

TOP_N = 3


def _flatten(value: Any, prefix: str = "") -> list[str]:
    """Nested manifest data as ``key.sub: value`` lines."""
    if isinstance(value, Mapping):
        lines = []
        for key in value:
            lines += _flatten(value[key], f"{prefix}.{key}" if prefix else str(key))
        return lines or [f"{prefix}: (none)"]
    if isinstance(value, (list, tuple)):
        value = ", ".join(str(v) for v in value) or "(none)"
    return [f"{prefix}: {value}" if prefix else str(value)]


def _header(run: Run) -> list[str]:
    """What the run was, in two lines: the results follow at once (the environment is last)."""
    return [
        "RubricBench summary report",
        f"Run {run.run_id}: started {run.started}, finished {run.finished or '?'}, {len(run.models)} model(s)",
        "=" * RULE_WIDTH,
    ]


def _environment(run: Run) -> list[str]:
    """The grader, the machine and the isolation the run applied: after the results."""
    meta = run.metadata
    lines = [
        "", "=" * RULE_WIDTH, "Run environment",
        f"Grader {meta['grader_version']}, rubric {meta['rubric_hash']}, results schema {run.schema_version}",
        f"Python {meta.get('python_version', '?')} on {meta.get('platform', '?')}, "
        f"git commit {meta.get('git_commit') or 'unknown'}",
        "",
    ]
    origin = run.isolation_origin
    lines.append(f"Isolation ({origin}):" if origin else "Isolation (as measured at run time):")
    isolation = meta.get("isolation")
    lines += [f"  {line}" for line in _flatten(isolation)] if isolation else ["  (not recorded)"]
    return lines


def _not_graded(run: Run) -> list[str]:
    """The model folders the run did not grade, each with its tier and reason (none: no lines)."""
    lines = ["", f"Model folders not graded ({len(run.skipped)}):"] if run.skipped else []
    return lines + [f"  ! {s.folder} (tier: {s.tier}): {s.reason}" for s in run.skipped]


def _references(run: Run) -> list[str]:
    """Each task whose reference solution failed, once (none: no lines): the pack's fault."""
    failed = run.reference_failures
    lines = ["", f"Reference solutions that failed ({len(failed)}): the pack's fault, "
                 "not the models'; those checks were not judged"] if failed else []
    return lines + [f"  ! {f.reason} [checks {', '.join(f.checks)}; {f.models} model(s)]" for f in failed]


def _top_performers(run: Run) -> list[str]:
    lines = ["", "Top performers:"]
    ranked = list(zip(run.groups, run.models))[:TOP_N]
    for group, model in ranked:
        interval = f", 95% CI {model.interval.text()}" if model.interval else ""
        samples = f", mean of {model.sample_count} samples" if model.sample_count > 1 else ""
        lines.append(f"  {group}. {model.name}: {model.percentage:.1f}%{interval}{samples} "
                     f"({model.grade}, {model.badge})")
    if ranked:
        return lines + [f"  ({group_legend(run)})"]
    return lines + [f"  {NOTHING_GRADED}." if run.skipped else "  (no models)"]


def _pack_leaderboards(run: Run) -> list[str]:
    """Per pack, the models best first by their score on it (when more than one pack was graded)."""
    lines = ["", "Leaderboard per pack:"] if run.pack_boards else []
    for pack, rows in run.pack_boards:
        lines.append(f"  {pack_name(pack, run.pack_titles)}:")
        lines += [f"    {place}. {model.name}: {pack_score(totals)}" for place, model, totals in rows]
    return lines


def _subtotal_lines(model: Model, titles: Mapping[str, str]) -> list[str]:
    lines = ["  Per pack:"] if model.subtotals else []
    return lines + [f"    {pack_name(pack, titles)}: {pack_score(t)}" for pack, t in model.subtotals.items()]


TAIL_CHARS = 300  # of a raising run's stderr tail shown here (report.html shows more)


def _prompt_lines(prompt: Prompt) -> list[str]:
    lines = ["", f"  {label(prompt.key)} {label(prompt.title)}: {state_text(prompt)} "
                 f"{fixed(prompt.score)}/{maximum(prompt.max_score)}"]
    if prompt.error:
        lines.append(f"    error: {prompt.error}")
    attempted = prompt.state != "not_attempted"
    for category in prompt.categories if attempted else ():
        gated = f"  (gated x{category.factor:.2f})" if category.max > 0 and category.factor < 0.995 else ""
        lines.append(f"    {category.name:<16}{fixed(category.earned):>5}/{fixed(category.max)}{gated}")
    losses = loss_lines(prompt)
    if losses and attempted:
        lines.append(f"    where the {fixed(prompt.lost, 2)} points went (gates: {SCORING_DOC}):")
        lines += [f"      {line}" for line in losses]
    elif losses:
        lines.append(f"    {prompt.checks[0].rationale if prompt.checks else ''}")
    if prompt.denials:
        lines.append(f"    sandbox denied {len(prompt.denials)} distinct attempt(s):")
        lines += [f"      ! {d.text()}" for d in prompt.denials[:10]]
    for run in prompt.raised_runs[:3]:
        lines.append(f"    {run.raised_text()}")
        if run.stderr_tail:
            lines.append(f"      stderr (end): {run.stderr_tail[-TAIL_CHARS:]}")
    return lines


def _model_header(model: Model) -> list[str]:
    cached = "  [from cache]" if model.cached else ""
    return ["", "-" * RULE_WIDTH, f"Model: {model.name} (tier: {model.tier}){cached}"]


def _model_lines(model: Model, titles: Mapping[str, str]) -> list[str]:
    """A model's block after its header (which alone says whether it came from the cache)."""
    lines = [
        f"Score: {fixed(model.score, 2)}/{maximum(model.max_score)} ({model.percentage:.1f}%)  "
        f"Grade: {model.grade}  Badge: {model.badge}",
    ]
    if model.interval:
        lines.append(f"95% interval of the total: {model.interval.text(2)}%"
                     + (f" (the mean of {model.sample_count} samples: "
                        + ", ".join(f"{s.sample} {s.percentage:.1f}%" for s in model.samples) + ")"
                        if model.sample_count > 1 else ""))
    lines += [f"  {line}" for line in generate_feedback_summary(model.record)]
    lines += _subtotal_lines(model, titles)
    for prompt in model.prompts:
        lines += _prompt_lines(prompt)
    lines += ["", "  Suggestions:"] + [f"    - {s}" for s in generate_improvement_suggestions(model.record)]
    return lines


def render_summary(doc: Mapping[str, Any] | Run) -> str:
    """The whole report as text (ends with a newline), from a validated results document or
    its view (``view.run_view``)."""
    run = run_view(doc)
    lines = _header(run) + _not_graded(run) + _references(run) + _top_performers(run) + _pack_leaderboards(run)
    titles = run.pack_titles
    for model in run.models:  # (a model's block from the run's fragments, when they hold it: ``fragments``)
        lines += _model_header(model)
        lines.append(part(model.name, model.record, "summary", [titles],
                          lambda model=model: "\n".join(_model_lines(model, titles))))
    return "\n".join(lines + _environment(run)) + "\n"
