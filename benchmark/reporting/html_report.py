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

This module turns the document into a view model; ``templates/report.html.j2`` lays it out
(autoescaped), ``svg`` computes chart geometry, ``templating`` supplies the CSP. The check
rows, most of a drill-down, are built here with markupsafe's ``escape`` on every value (the
function autoescaping calls), which costs a fraction of a template loop over them; so are each
prompt's category totals, child-run rows and graded-files note.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from ..rubric import GATES, PASS_FRACTION
from .banner import banner_rows
from .common import (CATEGORY_NAMES, GATE_FORMULAS, NOTHING_GRADED, STATES, by_percentage, denials_of, fixed,
                     isolation_origin, maximum, num, pack_boards, pack_subtotals, pack_titles, places, prompts_of,
                     reference_failures, skipped_of, verdict)
from .html_board import STATE_WORDS, bars, board, heatmap_chart, prompt_charts, short  # noqa: F401  (short: diff_html's)
from .chart_markup import escaped as _h
from .html_prompt import (GATE_TIP, HOW, denial_badge, denials_block, gate_links, losses_list, run_failures,
                          state_pill)
from .svg import pct_text
from .templating import leaderboard_script, render_page

_HIT = ' class="hit"'
INLINE_MODELS = 50  # the drill-downs are in report.html up to this many models; past it, a page per model
MODEL_PAGES = "models"  # the per-model pages' folder, beside report.html


def _mapping(value: Any) -> Mapping[str, Any]:
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


def _excerpt(item: Mapping[str, Any]) -> list[dict[str, Any]]:
    excerpt = _mapping(item.get("excerpt"))
    start, lines = excerpt.get("start"), excerpt.get("lines")
    if not isinstance(start, int) or not isinstance(lines, list):
        return []
    return [{"no": start + i, "text": str(text), "hit": start + i == item.get("line")}
            for i, text in enumerate(lines)]


def _evidence_items(check: Mapping[str, Any], parts: list[str]) -> None:
    """A check's evidence list, every value escaped, appended to ``parts``."""
    items = [item for item in check.get("evidence") or () if isinstance(item, Mapping)]
    if not items:
        return
    parts.append('<ul class="evidence">\n')
    for item in items:
        where = str(item.get("file") or "")
        if item.get("line"):
            where += f":{item['line']}"
        parts.append(f'<li><code>{_h(where)}</code>')
        note = str(item.get("note") or "")
        if note:
            parts.append(f' — {_h(note)}')
        lines = _excerpt(item)
        if lines:
            parts.append('<pre class="excerpt">')
            parts += [f'<span{_HIT if line["hit"] else ""}><i>{_h(line["no"])}</i>{_h(line["text"])}</span>'
                      for line in lines]
            parts.append('</pre>')
        parts.append('</li>\n')
    parts.append('</ul>\n')


def _check_row(check: Mapping[str, Any]) -> str:
    """One check's table row, every value escaped (the template's autoescaping, done here:
    the rows are most of the page, and building them in Python costs a fraction of a loop
    in the template). Built straight from the check, with ``markupsafe.escape``'s output as
    plain strings: the same text as escaping a view of the check value by value
    (``tests/test_report_html.py`` compares the two), in about half the time."""
    get = check.get
    status = _h(get("status"))
    parts = [f'<tr class="check" data-status="{status}"><td><code>{_h(get("id"))}</code></td>'
             f'<td>{_h(get("category"))}</td><td>{_h(get("method"))}</td>'
             f'<td><span class="pill st-{status}">{status}</span></td>'
             f'<td class="num">{fixed(get("earned"), 2)}/{fixed(get("points"), 2)}</td>'
             f'<td class="rationale">{_h(str(get("rationale") or ""))}\n']
    _evidence_items(check, parts)
    parts.append('</td></tr>\n')
    return "".join(parts)


def _run_row(run: Mapping[str, Any]) -> str:
    """One child run's table row, every cell escaped (a missing key, or a null, shows as empty)."""
    def get(key: str) -> Any:
        value = run.get(key)
        return "" if value is None else value

    code = run.get("returncode")
    cells = (get("mode"), get("label") or get("stage"), "—" if code is None else code, get("wall_s"),
             get("cpu_s"), get("peak_rss_mb"), "yes" if get("timed_out") else "no",
             get("killed_by"), get("blocked_events"))
    return ("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
            "<td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>\n").format(*map(_h, cells))


def _category_spans(detailed: Mapping[str, Any], gates: Mapping[str, str] | None = None) -> str:
    """A prompt's category totals (those with points), escaped; a gate's factor when not 1, as
    a link to the page's "How scores are computed" with the formula as its tooltip (``gates``:
    ``html_prompt.gate_links``, else the general rule)."""
    spans = []
    for name in CATEGORY_NAMES:
        numbers = _mapping(detailed.get(name))
        if name in detailed and num(numbers.get("max")) > 0:
            factor = fixed(numbers.get("factor", 1.0), 2)
            gate = "" if factor == "1.00" else (gates or {}).get(name) or (
                f' <a class="gate" href="#{HOW}" title="{_h(name)} {GATE_TIP}">gate ×{_h(factor)}</a>')
            spans.append(f'<span>{_h(name)} <b>{_h(fixed(numbers.get("earned"), 2))}/'
                         f'{_h(fixed(numbers.get("max"), 1))}</b>{gate}</span>')
    return "".join(spans)


def _graded_files(files: Mapping[str, Any]) -> str:
    """A prompt's graded files and the start of each one's sha256, escaped ('' when none)."""
    shown = [f'<code>{_h(name)}</code> <span class="mono">{_h((digest or "unreadable")[:16])}</span>'
             for name, digest in sorted(files.items())]
    return f'<p class="note">Graded files: {" · ".join(shown)}</p>' if shown else ""


def _prompt_view(anchor: str, pid: str, prompt: Mapping[str, Any]) -> dict[str, Any]:
    """A prompt's drill-down: its cells as plain values, its tables' rows as markup (built here,
    escaped, like the check rows: ``tests/test_report_html.py`` holds them to the template
    loops they replace), and what explains its score and state (``html_prompt``)."""
    checks = [c for c in prompt.get("checks") or () if isinstance(c, Mapping)]
    execution = [e for e in prompt.get("execution") or () if isinstance(e, Mapping)]
    denials = denials_of(prompt)
    return {"pid": pid, "anchor": anchor, "title": str(prompt.get("title") or pid), "verdict": verdict(prompt),
            "pill": Markup(state_pill(prompt)), "denied": Markup(denial_badge(denials)),
            "denials": Markup(denials_block(prompt)),
            "score": fixed(prompt.get("score"), 2), "max": maximum(prompt.get("max_score")),
            "error": prompt.get("error"), "checks": checks,
            "categories": Markup(_category_spans(_mapping(prompt.get("detailed_scoring")), gate_links(prompt))),
            "losses": Markup(losses_list(prompt)),
            "rows": Markup("".join(_check_row(c) for c in checks)),
            "lost": sum(1 for c in checks if c.get("status") != "pass"),
            "runs": Markup("".join(_run_row(e) for e in execution)),
            "failures": Markup(run_failures(execution)),
            "files": Markup(_graded_files(_mapping(prompt.get("files"))))}


def _pack_total_view(pack: str, totals: Mapping[str, Any], titles: Mapping[str, str]) -> dict[str, Any]:
    return {"pack": pack, "title": titles.get(pack, ""), "score": fixed(totals.get("score"), 2),
            "max": maximum(totals.get("max_score")), "pct": pct_text(num(totals.get("percentage")), 2),
            "passed": int(num(totals.get("passed"))), "tasks": int(num(totals.get("tasks"))),
            "attempted": totals.get("attempted") is not False}  # (a pack of which no file was submitted)


def _pack_boards(doc: Mapping[str, Any], hrefs: Mapping[str, str]) -> list[dict[str, Any]]:
    """Per pack (when more than one was graded): its title and models best first, with links."""
    titles = pack_titles(doc)  # (a model that attempted no task of a pack is not on its board: scoring.pack_rankings)
    return [{"pack": pack, "title": titles.get(pack, ""),
             "rows": [{"name": name, "href": hrefs[name], "rank": place, **_pack_total_view(pack, t, titles)}
                      for place, (name, t) in zip(places(rows, "score"), rows)]}
            for pack, rows in pack_boards(doc)]


def _model_view(index: int, name: str, model: Mapping[str, Any],
                titles: Mapping[str, str] | None = None, rank: int | None = None) -> dict[str, Any]:
    """A model's drill-down: its heading and every prompt's body."""
    anchor = f"m{index}"
    prompts = [_prompt_view(f"{anchor}-{pid}", pid, p) for pid, p in prompts_of(model)]
    pct = num(model.get("percentage"))
    return {"rank": rank or index + 1, "name": name, "anchor": anchor, "tier": model.get("tier", "?"),
            "cached": model.get("cached") is True, "score": fixed(model.get("overall_score"), 2),
            "total": maximum(model.get("total_possible")), "pct": pct_text(pct, 2),
            "grade": model.get("grade", "?"), "badge": model.get("badge", "?"),
            "passed": sum(1 for p in prompts if p["verdict"] == "pass"), "prompts": prompts,
            "packs": [_pack_total_view(pack, t, titles or {}) for pack, t in pack_subtotals(model).items()]}


def model_pages(count: int) -> bool:
    """Whether a run of ``count`` models gets a page per model (past ``INLINE_MODELS``)."""
    return count > INLINE_MODELS


def _hrefs(ranked: list[tuple[str, Mapping[str, Any]]]) -> list[str]:
    pages = model_pages(len(ranked))
    return [f"{MODEL_PAGES}/m{i}.html" if pages else f"#m{i}" for i in range(len(ranked))]


def how_scores() -> dict[str, Any]:
    """What "How scores are computed" states: the gates by category (the rubric's table) and
    the pass mark; the formulas are those ``common.point_losses`` names."""
    gates = {"none": [], "partial": [], "full": []}
    for category, gate in GATES.items():
        gates.setdefault(gate, []).append(category.value)
    return {"pass_mark": pct_text(100 * PASS_FRACTION, 0), "full": gates["full"], "partial": gates["partial"],
            "none": gates["none"], "full_formula": GATE_FORMULAS["full"], "partial_formula": GATE_FORMULAS["partial"]}


def _manifest(doc: Mapping[str, Any], pages: bool = False) -> list[dict[str, Any]]:
    """The manifest's parts: (title, rows, open). The run and the isolation summary show; the
    rest (details, limits, configuration, dependencies, hashes) is folded; past the inline limit
    each model's submission hashes are on its own page instead."""
    meta = _mapping(doc.get("_metadata"))
    isolation = meta.get("isolation")
    run = [("run_id", str(doc.get("run_id"))), ("schema_version", str(doc.get("schema_version")))]
    run += [(key, "—" if meta.get(key) is None else str(meta.get(key)))
            for key in ("grader_version", "rubric_hash", "git_commit", "python_version", "python_executable",
                        "platform", "timestamp_utc") if key in meta]
    layers = isolation if isinstance(isolation, Mapping) else {"isolation": isolation}
    summary = banner_rows(layers) if isinstance(isolation, Mapping) else kv_rows(layers)
    origin = isolation_origin(meta)
    hashes = [] if pages else kv_rows(meta.get("submission_hashes") or {})
    sections = [("Run", run, True),
                (f"Isolation layers ({origin})" if origin else "Isolation layers (measured at run time)", summary, True),
                ("Isolation details", kv_rows(layers) if layers else [], False),
                ("Limits", kv_rows(_mapping(_mapping(layers.get("process")).get("rlimits")))
                 + [("timeout_s", str(_mapping(layers.get("process")).get("timeout_s", "?")))], False),
                ("Configuration", kv_rows(meta.get("config") or {}), False),
                ("Dependencies", kv_rows(meta.get("dependencies") or {}), False),
                ("Fixture hashes (sha256)", kv_rows(meta.get("fixture_hashes") or {}), False),
                ("Submission hashes (sha256)", hashes, False)]
    return [{"title": title, "rows": rows, "open": is_open, "elsewhere": pages and title.startswith("Submission")}
            for title, rows, is_open in sections]


def _header(doc: Mapping[str, Any], models: int) -> dict[str, Any]:
    run = _mapping(doc.get("benchmark_run"))
    meta = _mapping(doc.get("_metadata"))
    return {"id": str(doc.get("run_id", "?")), "started": run.get("timestamp", "?"),
            "finished": run.get("finished_at", "?"), "models": models,
            "grader": meta.get("grader_version", "?"), "rubric": meta.get("rubric_hash", "?")}


def _packed(ranked: list[tuple[str, Mapping[str, Any]]]) -> bool:
    return any("." in pid for _, m in ranked for pid, _ in prompts_of(m))


def report_context(doc: Mapping[str, Any]) -> dict[str, Any]:
    """Everything the template shows, as plain strings, numbers and lists."""
    ranked = by_percentage(doc)
    ranks = places(ranked)
    titles = pack_titles(doc)
    packed = _packed(ranked)
    pages = model_pages(len(ranked))
    hrefs = _hrefs(ranked)
    return {
        "packed": packed,
        "unit": "Tasks" if packed else "Prompts",
        "pack_boards": _pack_boards(doc, {name: href for (name, _), href in zip(ranked, hrefs)}),
        "nothing_graded": NOTHING_GRADED if not ranked and skipped_of(doc) else None,
        "skipped": [{"folder": str(s.get("folder", "?")), "tier": str(s.get("tier", "?")),
                     "reason": str(s.get("reason", "?"))} for s in skipped_of(doc)],
        "references": reference_failures(doc),
        "run": _header(doc, len(ranked)),
        "board": board(ranked, ranks, hrefs),
        "model_pages": MODEL_PAGES if pages else None,
        "inline_models": INLINE_MODELS,
        "models": [] if pages else [_model_view(i, name, model, titles, rank)
                                    for i, ((name, model), rank) in enumerate(zip(ranked, ranks))],
        "heatmap": heatmap_chart(ranked, hrefs),
        "prompt_charts": prompt_charts(doc, ranked),
        "bars": bars(len(ranked)),
        "manifest": _manifest(doc, pages),
        "pass_mark": pct_text(100 * PASS_FRACTION, 0),
        "how": how_scores(),
        "states": [(state, STATE_WORDS[state]) for state in (*STATES, "pass-security")],
    }


def render_html_report(doc: Mapping[str, Any]) -> str:
    """The whole page (UTF-8 text)."""
    return render_page("report.html.j2", scripts=(leaderboard_script(),), report=report_context(doc))


def render_model_pages(doc: Mapping[str, Any]) -> dict[str, str]:
    """Past ``INLINE_MODELS`` models, each model's drill-down as its own page, by file name
    (``m<index>.html``, the index in the leaderboard's order; ``MODEL_PAGES`` is their folder
    beside report.html); none otherwise."""
    ranked = by_percentage(doc)
    if not model_pages(len(ranked)):
        return {}
    titles, packed, header, how = pack_titles(doc), _packed(ranked), _header(doc, len(ranked)), how_scores()
    hashes = _mapping(_mapping(doc.get("_metadata")).get("submission_hashes"))
    pages = {}
    for i, ((name, model), rank) in enumerate(zip(ranked, places(ranked))):
        view = _model_view(i, name, model, titles, rank)
        pages[f"m{i}.html"] = render_page("model_page.html.j2", m=view, report={
            "packed": packed, "run": header, "how": how, "hashes": kv_rows(_mapping(hashes.get(name)))})
    return pages
