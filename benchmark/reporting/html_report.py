"""report.html: one self-contained page built from the results document alone.

Leaderboard (and the model folders the run did not grade, when there are any), model x
category heatmap, per-prompt bars, a drill-down per model and prompt down to every check
(points, status, rationale, evidence with source excerpt) and the run's manifest; in a run
with task-pack tasks also each model's per-pack subtotals and, with more than one pack, a
leaderboard per pack. This module turns the document into a view model; ``templates/report.html.j2``
lays it out (autoescaped), ``svg`` computes chart geometry, ``templating`` supplies the CSP.
The check rows, most of the page, are built here with markupsafe's ``escape`` on every value
(the function autoescaping calls), which costs a fraction of a template loop over them; so are
each prompt's category totals, child-run rows and graded-files note.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from ..rubric import PASS_FRACTION
from ..packs.model import CORE_PACK
from ..scoring import category_totals, pack_of, prompt_sort_key
from .banner import banner_rows
from .common import (CATEGORY_NAMES, NOTHING_GRADED, by_percentage, fixed, isolation_origin, maximum, num, pack_boards,
                     pack_subtotals, pack_titles, places, prompts_of, reference_failures, skipped_of)
from . import chart_markup
from .chart_markup import escaped as _h
from .svg import hbars, heatmap, meter, pct_text
from .templating import render_page

_HIT = ' class="hit"'

LABEL_CHARS = 24


def short(text: Any, limit: int = LABEL_CHARS) -> str:
    """A chart label: long names end with an ellipsis (the full name is in the tooltip)."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def verdict(prompt: Mapping[str, Any]) -> str:
    if prompt.get("status") == "error":
        return "error"
    return "pass" if prompt.get("passed") is True else "fail"


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


def _category_spans(detailed: Mapping[str, Any]) -> str:
    """A prompt's category totals (those with points), escaped; a gate's factor when not 1."""
    spans = []
    for name in CATEGORY_NAMES:
        numbers = _mapping(detailed.get(name))
        if name in detailed and num(numbers.get("max")) > 0:
            factor = fixed(numbers.get("factor", 1.0), 2)
            gate = "" if factor == "1.00" else f" (gate ×{_h(factor)})"
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
    loops they replace)."""
    checks = [c for c in prompt.get("checks") or () if isinstance(c, Mapping)]
    return {"pid": pid, "anchor": anchor, "title": str(prompt.get("title") or pid), "verdict": verdict(prompt),
            "score": fixed(prompt.get("score"), 2), "max": maximum(prompt.get("max_score")),
            "error": prompt.get("error"), "checks": checks,
            "categories": Markup(_category_spans(_mapping(prompt.get("detailed_scoring")))),
            "rows": Markup("".join(_check_row(c) for c in checks)),
            "lost": sum(1 for c in checks if c.get("status") != "pass"),
            "runs": Markup("".join(_run_row(e) for e in prompt.get("execution") or () if isinstance(e, Mapping))),
            "files": Markup(_graded_files(_mapping(prompt.get("files"))))}


def _pack_total_view(pack: str, totals: Mapping[str, Any], titles: Mapping[str, str]) -> dict[str, Any]:
    return {"pack": pack, "title": titles.get(pack, ""), "score": fixed(totals.get("score"), 2),
            "max": maximum(totals.get("max_score")), "pct": pct_text(num(totals.get("percentage")), 2),
            "passed": int(num(totals.get("passed"))), "tasks": int(num(totals.get("tasks")))}


def _pack_boards(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per pack (when more than one was graded): its title and models best first, with anchors."""
    titles = pack_titles(doc)
    anchors = {name: f"m{i}" for i, (name, _) in enumerate(by_percentage(doc))}
    return [{"pack": pack, "title": titles.get(pack, ""),
             "rows": [{"name": name, "anchor": anchors[name], "rank": place, **_pack_total_view(pack, t, titles)}
                      for place, (name, t) in zip(places(rows, "score"), rows)]}
            for pack, rows in pack_boards(doc)]


def _model_view(index: int, name: str, model: Mapping[str, Any],
                titles: Mapping[str, str] | None = None, rank: int | None = None) -> dict[str, Any]:
    anchor = f"m{index}"
    prompts = [_prompt_view(f"{anchor}-{pid}", pid, p) for pid, p in prompts_of(model)]
    pct = num(model.get("percentage"))
    return {"rank": rank or index + 1, "name": name, "anchor": anchor, "tier": model.get("tier", "?"),
            "cached": model.get("cached") is True, "score": fixed(model.get("overall_score"), 2),
            "total": maximum(model.get("total_possible")), "pct": pct_text(pct, 2),
            "grade": model.get("grade", "?"), "badge": model.get("badge", "?"),
            "passed": sum(1 for p in prompts if p["verdict"] == "pass"), "prompts": prompts,
            "meter": chart_markup.meter(meter(pct / 100.0)),
            "packs": [_pack_total_view(pack, t, titles or {}) for pack, t in pack_subtotals(model).items()]}


def _heatmap(ranked: list[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
    values = []
    for name, model in ranked:
        totals = category_totals(model)
        row = []
        for cat in CATEGORY_NAMES:
            earned, possible = totals[cat]["earned"], totals[cat]["max"]
            row.append((earned / possible if possible > 0 else None,
                        f"{name} · {cat}: {fixed(earned, 2)}/{fixed(possible, 1)}"))
        pct = num(model.get("percentage"))
        row.append((pct / 100.0, f"{name} · overall: {pct_text(pct, 2)}"))
        values.append(row)
    chart = heatmap([short(name) for name, _ in ranked], [*CATEGORY_NAMES, "overall"], values)
    chart["anchors"] = [f"m{i}" for i in range(len(ranked))]
    return chart


def _prompt_charts(doc: Mapping[str, Any], ranked: list[tuple[str, Mapping[str, Any]]]) -> list[dict[str, Any]]:
    performance = _mapping(_mapping(doc.get("comparison")).get("prompt_performance"))
    prompt_ids = sorted({pid for _, m in ranked for pid, _ in prompts_of(m)}, key=prompt_sort_key)
    charts = []
    for pid in prompt_ids:
        items, title, top = [], pid, 0.0
        for name, model in ranked:
            prompt = _mapping(_mapping(model.get("prompts")).get(pid))
            if not prompt:
                continue
            title = str(prompt.get("title") or pid)
            top = max(top, num(prompt.get("max_score")))
            text = f"{fixed(prompt.get('score'), 2)}/{maximum(prompt.get('max_score'))}"
            items.append({"label": short(name), "value": num(prompt.get("score")), "state": verdict(prompt),
                          "text": text, "tip": f"{name}: {text} ({verdict(prompt)})"})
        stats = _mapping(performance.get(pid))
        mark = PASS_FRACTION * top if pack_of(pid) == CORE_PACK else None  # (a pack sets its own)
        charts.append({"pid": pid, "title": title, "chart": chart_markup.hbars(hbars(items, top, mark)),
                       "pass_rate": pct_text(stats.get("pass_rate"), 0) if stats else None,
                       "avg": fixed(stats.get("avg_score"), 2) if stats else None})
    return charts


def _manifest(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    meta = _mapping(doc.get("_metadata"))
    isolation = meta.get("isolation")
    run = [("run_id", str(doc.get("run_id"))), ("schema_version", str(doc.get("schema_version")))]
    run += [(key, "—" if meta.get(key) is None else str(meta.get(key)))
            for key in ("grader_version", "rubric_hash", "git_commit", "python_version", "python_executable",
                        "platform", "timestamp_utc") if key in meta]
    layers = isolation if isinstance(isolation, Mapping) else {"isolation": isolation}
    summary = banner_rows(layers) if isinstance(isolation, Mapping) else kv_rows(layers)
    origin = isolation_origin(meta)
    sections = [("Run", run),
                (f"Isolation layers ({origin})" if origin else "Isolation layers (measured at run time)", summary),
                ("Isolation details", kv_rows(layers) if layers else []),
                ("Limits", kv_rows(_mapping(_mapping(layers.get("process")).get("rlimits")))
                 + [("timeout_s", str(_mapping(layers.get("process")).get("timeout_s", "?")))]),
                ("Configuration", kv_rows(meta.get("config") or {})),
                ("Dependencies", kv_rows(meta.get("dependencies") or {})),
                ("Fixture hashes (sha256)", kv_rows(meta.get("fixture_hashes") or {})),
                ("Submission hashes (sha256)", kv_rows(meta.get("submission_hashes") or {}))]
    return [{"title": title, "rows": rows} for title, rows in sections]


def report_context(doc: Mapping[str, Any]) -> dict[str, Any]:
    """Everything the template shows, as plain strings, numbers and lists."""
    ranked = by_percentage(doc)
    run = _mapping(doc.get("benchmark_run"))
    meta = _mapping(doc.get("_metadata"))
    titles = pack_titles(doc)
    packed = any("." in pid for _, m in ranked for pid, _ in prompts_of(m))
    return {
        "packed": packed,
        "unit": "Tasks" if packed else "Prompts",
        "pack_boards": _pack_boards(doc),
        "nothing_graded": NOTHING_GRADED if not ranked and skipped_of(doc) else None,
        "skipped": [{"folder": str(s.get("folder", "?")), "tier": str(s.get("tier", "?")),
                     "reason": str(s.get("reason", "?"))} for s in skipped_of(doc)],
        "references": reference_failures(doc),
        "run": {"id": str(doc.get("run_id", "?")), "started": run.get("timestamp", "?"),
                "finished": run.get("finished_at", "?"), "models": len(ranked),
                "grader": meta.get("grader_version", "?"), "rubric": meta.get("rubric_hash", "?")},
        "models": [_model_view(i, name, model, titles, rank)
                   for i, ((name, model), rank) in enumerate(zip(ranked, places(ranked)))],
        "heatmap": chart_markup.heatmap(_heatmap(ranked)),
        "prompt_charts": _prompt_charts(doc, ranked),
        "manifest": _manifest(doc),
        "pass_mark": pct_text(100 * PASS_FRACTION, 0),
    }


def render_html_report(doc: Mapping[str, Any]) -> str:
    """The whole page (UTF-8 text)."""
    return render_page("report.html.j2", report=report_context(doc))
