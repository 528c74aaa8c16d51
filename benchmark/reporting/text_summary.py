"""The human summary report (summary_report.txt), built from the results document alone."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..scoring import generate_feedback_summary, generate_improvement_suggestions
from .common import (CATEGORY_NAMES, RULE_WIDTH, SCORING_DOC, by_percentage, denial_text, denials_of, fixed,
                     isolation_origin, label, loss_lines, maximum, num, NOTHING_GRADED, pack_boards, pack_score,
                     pack_subtotals, pack_titles, places, prompts_of, raised_runs, raised_text, reference_failures,
                     skipped_of, state_text, verdict)

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


def _header(doc: Mapping[str, Any]) -> list[str]:
    """What the run was, in two lines: the results follow at once (the environment is last)."""
    run = doc.get("benchmark_run") if isinstance(doc.get("benchmark_run"), Mapping) else {}
    return [
        "RubricBench summary report",
        f"Run {doc.get('run_id', '?')}: started {run.get('timestamp', '?')}, "
        f"finished {run.get('finished_at', '?')}, {run.get('total_models', 0)} model(s)",
        "=" * RULE_WIDTH,
    ]


def _environment(doc: Mapping[str, Any]) -> list[str]:
    """The grader, the machine and the isolation the run applied: after the results."""
    meta = doc.get("_metadata") if isinstance(doc.get("_metadata"), Mapping) else {}
    lines = [
        "", "=" * RULE_WIDTH, "Run environment",
        f"Grader {meta.get('grader_version', '?')}, rubric {meta.get('rubric_hash', '?')}, "
        f"results schema {doc.get('schema_version', '?')}",
        f"Python {meta.get('python_version', '?')} on {meta.get('platform', '?')}, "
        f"git commit {meta.get('git_commit') or 'unknown'}",
        "",
    ]
    origin = isolation_origin(meta)
    lines.append(f"Isolation ({origin}):" if origin else "Isolation (as measured at run time):")
    isolation = meta.get("isolation")
    lines += [f"  {line}" for line in _flatten(isolation)] if isolation else ["  (not recorded)"]
    return lines


def _not_graded(doc: Mapping[str, Any]) -> list[str]:
    """The model folders the run did not grade, each with its tier and reason (none: no lines)."""
    skipped = skipped_of(doc)
    lines = ["", f"Model folders not graded ({len(skipped)}):"] if skipped else []
    return lines + [f"  ! {s.get('folder')} (tier: {s.get('tier')}): {s.get('reason')}" for s in skipped]


def _references(doc: Mapping[str, Any]) -> list[str]:
    """Each task whose reference solution failed, once (none: no lines): the pack's fault."""
    failed = reference_failures(doc)
    lines = ["", f"Reference solutions that failed ({len(failed)}): the pack's fault, "
                 "not the models'; those checks were not judged"] if failed else []
    return lines + [f"  ! {f['reason']} [checks {', '.join(f['checks'])}; {f['models']} model(s)]"
                    for f in failed]


def _top_performers(doc: Mapping[str, Any]) -> list[str]:
    lines = ["", "Top performers:"]
    ranked = by_percentage(doc)[:TOP_N]
    for place, (name, model) in zip(places(ranked), ranked):
        lines.append(f"  {place}. {name}: {num(model.get('percentage')):.1f}% "
                     f"({model.get('grade', '?')}, {model.get('badge', '?')})")
    if ranked:
        return lines
    return lines + [f"  {NOTHING_GRADED}." if skipped_of(doc) else "  (no models)"]


def _pack_name(pack: str, titles: Mapping[str, str]) -> str:
    return f"{pack} ({titles[pack]})" if pack in titles else pack


def _pack_leaderboards(doc: Mapping[str, Any]) -> list[str]:
    """Per pack, the models best first by their score on it (when more than one pack was graded)."""
    boards, titles = pack_boards(doc), pack_titles(doc)
    lines = ["", "Leaderboard per pack:"] if boards else []
    for pack, rows in boards:
        lines.append(f"  {_pack_name(pack, titles)}:")
        lines += [f"    {place}. {name}: {pack_score(totals)}" for place, (name, totals) in zip(places(rows, "score"), rows)]
    return lines


def _subtotal_lines(model: Mapping[str, Any], titles: Mapping[str, str]) -> list[str]:
    subtotals = pack_subtotals(model)
    lines = ["  Per pack:"] if subtotals else []
    return lines + [f"    {_pack_name(pack, titles)}: {pack_score(t)}" for pack, t in subtotals.items()]


TAIL_CHARS = 300  # of a raising run's stderr tail shown here (report.html shows more)


def _prompt_lines(pid: str, prompt: Mapping[str, Any]) -> list[str]:
    lines = ["", f"  {label(pid)} {label(prompt.get('title', ''))}: {state_text(prompt)} "
                 f"{fixed(prompt.get('score'))}/{maximum(prompt.get('max_score'))}"]
    if prompt.get("error"):
        lines.append(f"    error: {prompt['error']}")
    detailed = prompt.get("detailed_scoring") if verdict(prompt) != "not_attempted" else None
    for name in CATEGORY_NAMES if isinstance(detailed, Mapping) else ():
        numbers = detailed.get(name)
        if not isinstance(numbers, Mapping):
            continue
        factor = num(numbers.get("factor", 1.0))
        gated = f"  (gated x{factor:.2f})" if num(numbers.get("max")) > 0 and factor < 0.995 else ""
        lines.append(f"    {name:<16}{fixed(numbers.get('earned')):>5}/{fixed(numbers.get('max'))}{gated}")
    losses = loss_lines(prompt)
    if losses and verdict(prompt) != "not_attempted":
        lines.append(f"    where the {fixed(num(prompt.get('max_score')) - num(prompt.get('score')), 2)} "
                     f"points went (gates: {SCORING_DOC}):")
        lines += [f"      {line}" for line in losses]
    elif losses:
        lines.append(f"    {next(iter(c.get('rationale') for c in prompt.get('checks') or ()), '')}")
    denials = denials_of(prompt)
    if denials:
        lines.append(f"    sandbox denied {len(denials)} distinct attempt(s):")
        lines += [f"      ! {denial_text(d)}" for d in denials[:10]]
    for run, raised in raised_runs(prompt)[:3]:
        lines.append(f"    {raised_text(run, raised)}")
        tail = str(run.get("stderr_tail") or "")
        if tail:
            lines.append(f"      stderr (end): {tail[-TAIL_CHARS:]}")
    return lines


def _model_lines(name: str, model: Mapping[str, Any], titles: Mapping[str, str]) -> list[str]:
    cached = "  [from cache]" if model.get("cached") else ""
    lines = [
        "",
        "-" * RULE_WIDTH,
        f"Model: {name} (tier: {model.get('tier', '?')}){cached}",
        f"Score: {fixed(model.get('overall_score'), 2)}/{maximum(model.get('total_possible'))} "
        f"({num(model.get('percentage')):.1f}%)  Grade: {model.get('grade', '?')}  Badge: {model.get('badge', '?')}",
    ]
    lines += [f"  {line}" for line in generate_feedback_summary(model)]
    lines += _subtotal_lines(model, titles)
    for pid, prompt in prompts_of(model):
        lines += _prompt_lines(pid, prompt)
    lines += ["", "  Suggestions:"] + [f"    - {s}" for s in generate_improvement_suggestions(model)]
    return lines


def render_summary(doc: Mapping[str, Any]) -> str:
    """The whole report as text (ends with a newline)."""
    lines = _header(doc) + _not_graded(doc) + _references(doc) + _top_performers(doc) + _pack_leaderboards(doc)
    titles = pack_titles(doc)
    for name, model in by_percentage(doc):
        lines += _model_lines(name, model, titles)
    return "\n".join(lines + _environment(doc)) + "\n"
