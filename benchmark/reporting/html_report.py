"""report.html: one self-contained folder built from the results document alone.

Leaderboard (searchable, sortable and filterable by the page's one script, readable without
it; and the model folders the run did not grade, when there are any), model x category
heatmap, per-prompt charts (``html_board``), a drill-down per model and prompt down to every
check (points, status, rationale, evidence with source excerpt), with where the points went,
the prompt's state, what the sandbox denied and what a child run raised (``html_prompt``), a
"How scores are computed" section, and the run's manifest (folded but for the run and the
isolation summary); in a run with task-pack tasks also each model's per-pack subtotals and,
with more than one pack, a leaderboard per pack.

Up to ``INLINE_MODELS`` models the drill-downs are in report.html; past that each model's is
its own page, ``models/m<index>.html`` (``render_model_pages``, written beside report.html by
the writer), so report.html stays a leaderboard and charts of a few hundred KB at thousands of
models, and a deep link into report.html goes on to the model's page.

This module turns the run's view (``view.run_view``, read once at the entry) into the
template's context; ``templates/report.html.j2`` lays it out (autoescaped), ``svg`` computes
chart geometry, ``templating`` supplies the CSP. The check rows, most of a drill-down, are built
here with markupsafe's ``escape`` on every value (the function autoescaping calls), which costs
a fraction of a template loop over them; so are each prompt's category totals, child-run rows
and graded-files note.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from ..rubric import GATES, PASS_FRACTION
from .banner import banner_rows
from .common import GATE_FORMULAS, NOTHING_GRADED, STATES, fixed, group_legend, maximum
from .html_board import STATE_WORDS, bars, board, heatmap_chart, prompt_charts, short  # noqa: F401  (short: diff_html's)
from .chart_markup import escaped as _h
from .html_prompt import (GATE_TIP, HOW, denial_badge, denials_block, excerpt_block, gate_links, losses_list,
                          run_failures, state_pill)
from .svg import pct_text
from .fragments import part
from .templating import environment, leaderboard_script, render_page
from .view import Category, Check, ChildRun, Model, PackTotal, Prompt, Run, run_view

INLINE_MODELS = 50  # the drill-downs are in report.html up to this many models; past it, a page per model
MODEL_PAGES = "models"  # the per-model pages' folder, beside report.html


def _mapping(value: Any) -> Mapping[str, Any]:
    """A part of the run's free-form manifest (``_metadata``) as a mapping, or an empty one."""
    return value if isinstance(value, Mapping) else {}


def kv_rows(value: Any, prefix: str = "") -> list[tuple[str, str]]:
    """Nested manifest data as (dotted key, text) rows."""
    if isinstance(value, Mapping):
        rows: list[tuple[str, str]] = []
        for key in value:
            rows += kv_rows(value[key], f"{prefix}.{key}" if prefix else str(key))
        return rows or [(prefix, "(none)")]
    if isinstance(value, (list, tuple)):
        value = ", ".join(str(v) for v in value) or "(none)"
    return [(prefix, "—" if value is None else str(value))]


def _evidence_items(check: Check, parts: list[str]) -> None:
    """A check's evidence list, every value escaped, appended to ``parts``."""
    if not check.evidence:
        return
    parts.append('<ul class="evidence">\n')
    for item in check.evidence:
        parts.append(f'<li><code>{_h(item.place)}</code>')
        if item.note:
            parts.append(f' — {_h(item.note)}')
        parts.append(excerpt_block(item.excerpt, item.line))
        parts.append('</li>\n')
    parts.append('</ul>\n')


def _case_groups(groups) -> str:
    """The shown and the hidden (generated) cases a check judged, side by side, escaped: an
    answer written against the shown ones reads as what it is."""
    cells = "".join(f'<span class="group g-{_h(g.name)}{" short" if g.right < g.of else ""}">{_h(g.name)} '
                    f'<b>{_h(g.right)}/{_h(g.of)}</b></span>' for g in groups)
    return f'<div class="cases">{cells}</div>\n'


def _check_row(check: Check) -> str:
    """One check's table row, every value escaped (the template's autoescaping, done here:
    the rows are most of the page, and building them in Python costs a fraction of a loop
    in the template). Built straight from the check's view, with ``markupsafe.escape``'s output
    as plain strings: the same text as escaping a view model of the check value by value
    (``tests/test_report_html.py`` compares the two), in about half the time."""
    status = _h(check.status)
    parts = [f'<tr class="check" data-status="{status}"><td><code>{_h(check.id)}</code></td>'
             f'<td>{_h(check.category)}</td><td>{_h(check.method)}</td>'
             f'<td><span class="pill st-{status}">{status}</span></td>'
             f'<td class="num">{fixed(check.earned, 2)}/{fixed(check.points, 2)}</td>'
             f'<td class="rationale">{_h(check.rationale)}\n']
    if check.groups:
        parts.append(_case_groups(check.groups))
    _evidence_items(check, parts)
    parts.append('</td></tr>\n')
    return "".join(parts)


def _blank(value: Any) -> Any:
    return "" if value is None else value


def _run_row(run: ChildRun) -> str:
    """One child run's table row, every cell escaped (a value the run did not record shows as empty)."""
    cells = (_blank(run.mode), _blank(run.label), "—" if run.returncode is None else run.returncode,
             _blank(run.wall_s), _blank(run.cpu_s), _blank(run.peak_rss_mb), "yes" if run.timed_out else "no",
             _blank(run.killed_by), run.blocked_events)
    return ("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
            "<td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>\n").format(*map(_h, cells))


def _category_spans(categories: Sequence[Category], gates: Mapping[str, str] | None = None) -> str:
    """A prompt's category totals (those with points), escaped; a gate's factor when not 1, as
    a link to the page's "How scores are computed" with the formula as its tooltip (``gates``:
    ``html_prompt.gate_links``, else the general rule)."""
    spans = []
    for category in categories:
        if category.max > 0:
            name, factor = category.name, fixed(category.factor, 2)
            gate = "" if factor == "1.00" else (gates or {}).get(name) or (
                f' <a class="gate" href="#{HOW}" title="{_h(name)} {GATE_TIP}">gate ×{_h(factor)}</a>')
            spans.append(f'<span>{_h(name)} <b>{_h(fixed(category.earned, 2))}/'
                         f'{_h(fixed(category.max, 1))}</b>{gate}</span>')
    return "".join(spans)


def _graded_files(files: Mapping[str, str | None]) -> str:
    """A prompt's graded files and the start of each one's sha256, escaped ('' when none)."""
    shown = [f'<code>{_h(name)}</code> <span class="mono">{_h((digest or "unreadable")[:16])}</span>'
             for name, digest in sorted(files.items())]
    return f'<p class="note">Graded files: {" · ".join(shown)}</p>' if shown else ""


def _prompt_view(anchor: str, prompt: Prompt) -> dict[str, Any]:
    """A prompt's drill-down: its cells as plain values, its tables' rows as markup (built here,
    escaped, like the check rows: ``tests/test_report_html.py`` holds them to the template
    loops they replace), and what explains its score and state (``html_prompt``)."""
    return {"pid": prompt.key, "anchor": anchor, "title": prompt.title or prompt.key, "verdict": prompt.state,
            "pill": Markup(state_pill(prompt)), "denied": Markup(denial_badge(prompt.denials)),
            "denials": Markup(denials_block(prompt)),
            "score": fixed(prompt.score, 2), "max": maximum(prompt.max_score),
            "error": prompt.error, "checks": prompt.checks,
            "categories": Markup(_category_spans(prompt.categories, gate_links(prompt))),
            "losses": Markup(losses_list(prompt)),
            "rows": Markup("".join(_check_row(c) for c in prompt.checks)),
            "lost": sum(1 for c in prompt.checks if c.status != "pass"),
            "runs": Markup("".join(_run_row(r) for r in prompt.runs)),
            "failures": Markup(run_failures(prompt.runs)),
            "files": Markup(_graded_files(prompt.files))}


def _pack_total_view(pack: str, totals: PackTotal, titles: Mapping[str, str]) -> dict[str, Any]:
    return {"pack": pack, "title": titles.get(pack, ""), "score": fixed(totals.score, 2),
            "max": maximum(totals.max_score), "pct": pct_text(totals.percentage, 2),
            "passed": totals.passed, "tasks": totals.tasks, "attempted": totals.attempted}


def _pack_boards(run: Run, hrefs: Mapping[str, str]) -> list[dict[str, Any]]:
    """Per pack (when more than one was graded): its title and models best first, with links."""
    titles = run.pack_titles
    return [{"pack": pack, "title": titles.get(pack, ""),
             "rows": [{"name": model.name, "href": hrefs[model.name], "rank": place,
                       **_pack_total_view(pack, totals, titles)} for place, model, totals in rows]}
            for pack, rows in run.pack_boards]


def _model_view(index: int, rank: int, model: Model, titles: Mapping[str, str]) -> dict[str, Any]:
    """A model's drill-down: its heading and every prompt's body."""
    anchor = f"m{index}"
    return {"rank": rank, "name": model.name, "anchor": anchor, "tier": model.tier, "cached": model.cached,
            "score": fixed(model.score, 2), "total": maximum(model.max_score), "pct": pct_text(model.percentage, 2),
            "grade": model.grade, "badge": model.badge,
            "passed": sum(1 for p in model.prompts if p.state == "pass"),
            "prompts": [_prompt_view(f"{anchor}-{p.key}", p) for p in model.prompts],
            "packs": [_pack_total_view(pack, t, titles) for pack, t in model.subtotals.items()],
            "ci": model.interval.text(2) if model.interval else None, "samples": _samples_view(model)}


def _samples_view(model: Model) -> dict[str, Any] | None:
    """A model of several samples: each sample's points per task and total, then per task the
    mean, its 95 % interval over the samples, and pass@k."""
    if model.sample_count < 2:
        return None
    keys = [p.key for p in model.prompts]
    rows = [{"id": sample.sample, "cells": [fixed(p.score) if (p := sample.prompt(k)) else "—" for k in keys],
             "pct": pct_text(sample.percentage, 1)} for sample in model.samples]
    stats = model.task_stats
    ks = sorted({k for t in stats.values() for k in t.pass_at})
    return {"keys": keys, "rows": rows,
            "mean": [fixed(stats[k].interval.mean) if k in stats else "—" for k in keys],
            "ci": [stats[k].interval.text() if k in stats else "—" for k in keys],
            "passed": [f"{stats[k].passed}/{model.sample_count}" if k in stats else "—" for k in keys],
            "pass_at": [(k, [fixed(stats[key].pass_at[k], 2) if key in stats and k in stats[key].pass_at else "—"
                             for key in keys]) for k in ks]}


def _article(index: int, rank: int, model: Model, run: Run, packed: bool) -> Markup:
    """A model's drill-down as markup (``_drill.html.j2``'s ``model_article``), from the run's
    fragments when they hold it for this record at this place (``fragments``)."""
    def render() -> str:
        macro = environment().get_template("_drill.html.j2").module.model_article
        return str(macro(_model_view(index, rank, model, run.pack_titles), packed))

    return Markup(part(model.name, model.record, "article", [index, rank, packed, run.pack_titles], render))


def model_pages(count: int) -> bool:
    """Whether a run of ``count`` models gets a page per model (past ``INLINE_MODELS``)."""
    return count > INLINE_MODELS


def _hrefs(count: int) -> list[str]:
    pages = model_pages(count)
    return [f"{MODEL_PAGES}/m{i}.html" if pages else f"#m{i}" for i in range(count)]


def how_scores() -> dict[str, Any]:
    """What "How scores are computed" states: the gates by category (the rubric's table) and
    the pass mark; the formulas are those ``view.Prompt.losses`` names."""
    gates = {"none": [], "partial": [], "full": []}
    for category, gate in GATES.items():
        gates.setdefault(gate, []).append(category.value)
    return {"pass_mark": pct_text(100 * PASS_FRACTION, 0), "full": gates["full"], "partial": gates["partial"],
            "none": gates["none"], "full_formula": GATE_FORMULAS["full"], "partial_formula": GATE_FORMULAS["partial"]}


def _manifest(run: Run, pages: bool = False) -> list[dict[str, Any]]:
    """The manifest's parts: (title, rows, open). The run and the isolation summary show; the
    rest (details, limits, configuration, dependencies, hashes) is folded; past the inline limit
    each model's submission hashes are on its own page instead."""
    meta = run.metadata
    isolation = meta.get("isolation")
    facts = [("run_id", run.run_id), ("schema_version", run.schema_version)]
    facts += [(key, "—" if meta[key] is None else str(meta[key]))
              for key in ("grader_version", "rubric_hash", "git_commit", "python_version", "python_executable",
                          "platform", "timestamp_utc") if key in meta]
    layers = isolation if isinstance(isolation, Mapping) else {"isolation": isolation}  # (an object, or a sentence)
    summary = banner_rows(layers) if isinstance(isolation, Mapping) else kv_rows(layers)
    origin = run.isolation_origin
    hashes = [] if pages else kv_rows(meta.get("submission_hashes") or {})
    process = _mapping(layers.get("process"))
    limits = kv_rows(_mapping(process.get("rlimits"))) + [("timeout_s", str(process.get("timeout_s", "?")))]
    sections = [("Run", facts, True),
                (f"Isolation layers ({origin})" if origin else "Isolation layers (measured at run time)", summary, True),
                ("Isolation details", kv_rows(layers) if layers else [], False),
                ("Limits", limits, False),
                ("Configuration", kv_rows(meta.get("config") or {}), False),
                ("Dependencies", kv_rows(meta.get("dependencies") or {}), False),
                ("Fixture hashes (sha256)", kv_rows(meta.get("fixture_hashes") or {}), False),
                ("Submission hashes (sha256)", hashes, False)]
    return [{"title": title, "rows": rows, "open": is_open, "elsewhere": pages and title.startswith("Submission")}
            for title, rows, is_open in sections]


def _header(run: Run) -> dict[str, Any]:
    return {"id": run.run_id, "started": run.started, "finished": run.finished or "?", "models": len(run.models),
            "grader": run.metadata["grader_version"], "rubric": run.metadata["rubric_hash"]}


def _packed(run: Run) -> bool:
    """Whether the run has a task of a pack (its keys are ``pack.task``)."""
    return any("." in key for key in run.task_keys)


def report_context(doc: Mapping[str, Any] | Run) -> dict[str, Any]:
    """Everything the template shows, as plain strings, numbers, lists and views, from a
    validated results document or its view (``view.run_view``)."""
    run = run_view(doc)
    packed = _packed(run)
    pages = model_pages(len(run.models))
    hrefs = _hrefs(len(run.models))
    return {
        "packed": packed,
        "unit": "Tasks" if packed else "Prompts",
        "pack_boards": _pack_boards(run, {model.name: href for model, href in zip(run.models, hrefs)}),
        "nothing_graded": NOTHING_GRADED if not run.models and run.skipped else None,
        "skipped": run.skipped,
        "references": run.reference_failures,
        "run": _header(run),
        "board": board(tuple(zip(run.groups, run.models)), hrefs),
        "groups": group_legend(run) if run.models else "",
        "model_pages": MODEL_PAGES if pages else None,
        "inline_models": INLINE_MODELS,
        "articles": [] if pages else [_article(i, rank, model, run, packed)
                                      for i, (rank, model) in enumerate(run.ranked)],
        "heatmap": heatmap_chart(run.models, hrefs),
        "prompt_charts": prompt_charts(run),
        "bars": bars(len(run.models)),
        "manifest": _manifest(run, pages),
        "pass_mark": pct_text(100 * PASS_FRACTION, 0),
        "how": how_scores(),
        "states": [(state, STATE_WORDS[state]) for state in (*STATES, "pass-security")],
    }


def render_html_report(doc: Mapping[str, Any] | Run) -> str:
    """The whole page (UTF-8 text), from a validated results document or its view."""
    return render_page("report.html.j2", scripts=(leaderboard_script(),), report=report_context(doc))


def render_model_pages(doc: Mapping[str, Any] | Run) -> dict[str, str]:
    """Past ``INLINE_MODELS`` models, each model's drill-down as its own page, by file name
    (``m<index>.html``, the index in the leaderboard's order; ``MODEL_PAGES`` is their folder
    beside report.html); none otherwise. From a validated results document or its view."""
    run = run_view(doc)
    if not model_pages(len(run.models)):
        return {}
    packed = _packed(run)
    shared = {"packed": packed, "run": _header(run), "how": how_scores()}
    hashes = _mapping(run.metadata.get("submission_hashes"))
    return {f"m{i}.html": render_page("model_page.html.j2", name=model.name,
                                      article=_article(i, rank, model, run, packed),
                                      report={**shared, "hashes": kv_rows(_mapping(hashes.get(model.name)))})
            for i, (rank, model) in enumerate(run.ranked)}
