"""report.html: content, self-containment (CSP, no external references), escaping of
submission text, source excerpts in the results, and --report-only."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from benchmark import cli
from benchmark.reporting import templating
from benchmark.reporting.excerpts import MAX_LINE_CHARS, attach_excerpts, excerpt_for
from benchmark.reporting.html_report import render_html_report, report_context
from benchmark.reporting.results_json import ResultsSchemaError, run_to_dict, validate_results
from benchmark.reporting.writer import write_run
from result_fakes import make_model, make_run

HOSTILE = '</pre><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


class Page(HTMLParser):
    """Collects what matters for safety and structure: tags, attributes, style text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str]] = []
        self.ids: set[str] = set()
        self.style = ""
        self.scripts: list[str] = []
        self._in_style = False
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            self.attrs.append((tag, name, value or ""))
            if name == "id":
                self.ids.add(value)
        self._in_style = tag == "style"
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag):
        self._in_style = self._in_script = False

    def handle_data(self, data):
        if self._in_style:
            self.style += data
        if self._in_script:
            self.scripts[-1] += data


def parse(html: str) -> Page:
    page = Page()
    page.feed(html)
    return page


@pytest.fixture
def doc():
    return run_to_dict(make_run(make_model("alpha_model", 0.9), make_model("beta", 0.4, tier="user"),
                                make_model("gamma", 1.0)))


def _hostile_doc() -> dict:
    doc = run_to_dict(make_run(make_model("evil<b>model", 0.5)))
    check = doc["models"]["evil<b>model"]["prompts"]["prompt_1"]["checks"][0]
    check["rationale"] = HOSTILE
    check["evidence"] = [{"file": "prompt_1.py", "line": 2, "note": HOSTILE,
                          "excerpt": {"start": 1, "lines": ["x = 1", HOSTILE, "y = 2"]}}]
    doc["_metadata"]["isolation"]["network"] = HOSTILE
    validate_results(doc)
    return doc


def test_report_has_leaderboard_heatmap_bars_drilldown_and_manifest(doc):
    html = render_html_report(doc)
    page = parse(html)
    assert {"leaderboard", "heatmap", "prompts", "details", "manifest"} <= page.ids
    assert html.count('class="model-row"') == 3
    articles = report_context(doc)["articles"]
    assert [html.index(str(article)) for article in articles] == sorted(html.index(str(a)) for a in articles)
    ranked = [re.search(r"<h3>(\d+)\. (\w+) ", str(article)).groups() for article in articles]
    assert ranked == [("1", "gamma"), ("2", "alpha_model"), ("3", "beta")]
    assert html.count('<g class="cell">') == 3 * 8  # seven categories + overall
    assert html.count('<g class="bar">') == 3 * 4  # one bar per model in each prompt chart
    for index in range(3):
        for pid in ("prompt_1", "prompt_2", "prompt_3", "prompt_4"):
            assert f"m{index}-{pid}" in page.ids
    checks = sum(len(p["checks"]) for m in doc["models"].values() for p in m["prompts"].values())
    assert html.count('<tr class="check"') == checks
    gamma = doc["models"]["gamma"]
    assert f"{gamma['overall_score']:.2f}/100" in html and gamma["grade"] in html and "Gold" in html
    assert "0123456789abcdef" in html and "Linux-test" in html  # manifest: rubric hash, platform
    assert "timeout_s" in html and "@media print" in html


def test_every_check_row_shows_points_status_rationale_and_evidence(doc):
    html = render_html_report(doc)
    beta_check = doc["models"]["beta"]["prompts"]["prompt_1"]["checks"][1]
    assert f"<code>{beta_check['id']}</code>" in html
    assert f"{beta_check['earned']:.2f}/{beta_check['points']:.2f}" in html
    assert f'<span class="pill st-{beta_check["status"]}">' in html
    assert beta_check["rationale"] in html and "<code>prompt_1.py:3</code> — seen here" in html


def test_page_is_self_contained_with_a_strict_csp(doc):
    html = render_html_report(doc)
    page = parse(html)
    metas = [v for t, n, v in page.attrs if t == "meta" and n == "content" and "default-src" in v]
    assert len(metas) == 1
    csp = metas[0]
    for directive in ("default-src 'none'", "connect-src 'none'", "img-src 'none'",
                      "form-action 'none'", "base-uri 'none'"):
        assert directive in csp
    digest = base64.b64encode(hashlib.sha256(page.style.encode()).digest()).decode()
    assert f"style-src 'sha256-{digest}'" in csp and "unsafe-inline" not in csp and "unsafe-eval" not in csp
    # one script, ours (the leaderboard's), inline and allowed by the hash of its exact text only
    assert page.tags.count("script") == 1 and page.scripts == [templating.leaderboard_script()]
    script = base64.b64encode(hashlib.sha256(page.scripts[0].encode()).digest()).decode()
    assert re.search(r"script-src ([^;]*);", csp).group(1) == f"'sha256-{script}'"
    assert not any(t == "script" and n == "src" for t, n, _ in page.attrs)
    assert "fetch(" not in page.scripts[0] and "XMLHttpRequest" not in page.scripts[0]
    assert "link" not in page.tags and "img" not in page.tags
    links = [v for _, n, v in page.attrs if n in ("href", "src", "xlink:href", "action")]
    assert links and all(v.startswith("#") for v in links)
    assert not any(n == "style" for _, n, _ in page.attrs)  # inline style attributes would need 'unsafe-inline'
    assert not re.search(r"https?://", html) and "url(" not in page.style and "@import" not in page.style


def test_a_page_without_a_script_keeps_script_src_none():
    assert "script-src 'none'" in templating.content_security_policy("x")
    assert "script-src 'sha256-" in templating.content_security_policy("x", ("a",))


def test_submission_text_is_escaped_everywhere():
    html = render_html_report(_hostile_doc())
    page = parse(html)
    assert page.scripts == [templating.leaderboard_script()] and "img" not in page.tags and "evil<b>model" not in html
    assert not any(n.startswith("on") for _, n, _ in page.attrs)
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in html
    assert "evil&lt;b&gt;model" in html
    assert html.count("&lt;/pre&gt;&lt;script&gt;") >= 4  # rationale, note, excerpt line, manifest


def test_template_environment_autoescapes():
    assert templating.environment().autoescape is True


def test_manifest_shows_isolation_layers_and_copes_with_an_unmeasured_run(doc):
    html = render_html_report(doc)
    assert "Isolation layers (measured at run time)" in html and "Process layer" in html
    doc["_metadata"]["isolation"] = "not measured <yet>"
    validate_results(doc)
    assert "not measured &lt;yet&gt;" in render_html_report(doc)


def test_report_of_an_empty_run_renders():
    html = render_html_report(run_to_dict(make_run()))
    assert "No models in this run." in html


# ---- excerpts --------------------------------------------------------------------------------


def _model_dir(tmp_path: Path, text: str) -> tuple[dict, Path]:
    doc = run_to_dict(make_run(make_model("alpha_model", 0.5)))
    folder = tmp_path / "alpha_model"
    folder.mkdir()
    (folder / "prompt_1.py").write_text(text, encoding="utf-8")
    digest = hashlib.sha256(text.encode()).hexdigest()
    doc["models"]["alpha_model"]["prompts"]["prompt_1"]["files"] = {"prompt_1.py": digest}
    return doc, folder


def _excerpts(doc: dict) -> list[dict]:
    return [e["excerpt"] for p in doc["models"]["alpha_model"]["prompts"].values()
            for c in p["checks"] for e in c["evidence"] if "excerpt" in e]


def test_excerpts_come_from_the_graded_file(tmp_path):
    text = "".join(f"line {n}\n" for n in range(1, 9))
    doc, folder = _model_dir(tmp_path, text)
    out = attach_excerpts(doc, {"alpha_model": folder})
    assert "excerpt" not in json.dumps(doc)  # the input is not modified
    excerpts = _excerpts(out)
    assert excerpts and excerpts[0] == {"start": 1, "lines": ["line 1", "line 2", "line 3", "line 4", "line 5"]}
    validate_results(out)
    html = render_html_report(out)
    assert '<span class="hit"><i>3</i>line 3</span>' in html


def test_excerpts_in_place_fill_the_same_entries_and_leave_the_graded_results_alone(tmp_path):
    """What ``commands`` does with the document it has just built: the same excerpts as the
    copy, in ``doc`` itself, and nothing of the ``ModelResult`` it was built from changes."""
    text = "".join(f"line {n}\n" for n in range(1, 9))
    doc, folder = _model_dir(tmp_path, text)
    copied = attach_excerpts(doc, {"alpha_model": folder})
    model = make_model("alpha_model", 0.5)
    run = make_run(model)
    fresh = run_to_dict(run)
    fresh["models"]["alpha_model"]["prompts"]["prompt_1"]["files"] = doc["models"]["alpha_model"]["prompts"][
        "prompt_1"]["files"]
    assert attach_excerpts(fresh, {"alpha_model": folder}, in_place=True) is fresh
    assert _excerpts(fresh) == _excerpts(copied) != []
    assert json.dumps(fresh, sort_keys=True) == json.dumps(copied, sort_keys=True)
    again = run_to_dict(run)  # the dataclasses' evidence was not touched through the document
    assert "excerpt" not in json.dumps(again)
    assert again["models"]["alpha_model"] == run_to_dict(make_run(make_model("alpha_model", 0.5)))["models"][
        "alpha_model"]


def test_excerpts_show_a_declared_encoding_decoded_as_it_was_graded(tmp_path):
    doc, folder = _model_dir(tmp_path, "x\n")
    data = "# coding: latin-1\nS = 'caf\u00e9'\n# 3\n# 4\n# 5\n".encode("latin-1")
    (folder / "prompt_1.py").write_bytes(data)
    doc["models"]["alpha_model"]["prompts"]["prompt_1"]["files"] = {
        "prompt_1.py": hashlib.sha256(data).hexdigest()}
    excerpts = _excerpts(attach_excerpts(doc, {"alpha_model": folder}))
    assert excerpts and excerpts[0]["lines"][1] == "S = 'caf\u00e9'"


def test_no_excerpt_when_the_file_changed_is_a_link_or_escapes_the_folder(tmp_path):
    doc, folder = _model_dir(tmp_path, "a\nb\nc\nd\n")
    (folder / "prompt_1.py").write_text("a\nb\nCHANGED\nd\n", encoding="utf-8")
    assert _excerpts(attach_excerpts(doc, {"alpha_model": folder})) == []
    (folder / "prompt_1.py").unlink()
    (tmp_path / "secret.py").write_text("a\nb\nc\nd\n", encoding="utf-8")
    (folder / "prompt_1.py").symlink_to(tmp_path / "secret.py")
    assert _excerpts(attach_excerpts(doc, {"alpha_model": folder})) == []
    prompt = doc["models"]["alpha_model"]["prompts"]["prompt_1"]
    prompt["files"] = {"../secret.py": prompt["files"]["prompt_1.py"]}
    for check in prompt["checks"]:
        for item in check["evidence"]:
            item["file"] = "../secret.py"
    assert _excerpts(attach_excerpts(doc, {"alpha_model": folder})) == []
    assert _excerpts(attach_excerpts(doc, {})) == []


def test_excerpt_bounds_and_caps():
    lines = ["a", "b", "x" * 500]
    assert excerpt_for(lines, 0) is None and excerpt_for(lines, 4) is None and excerpt_for(lines, None) is None
    assert excerpt_for(lines, True) is None
    near_end = excerpt_for(lines, 3)
    assert near_end["start"] == 1 and len(near_end["lines"]) == 3
    assert len(near_end["lines"][2]) == MAX_LINE_CHARS and near_end["lines"][2].endswith("…")


def test_results_without_excerpts_still_validate_and_bad_excerpts_do_not(doc):
    validate_results(doc)  # old results: no excerpt anywhere
    bad = copy.deepcopy(doc)
    evidence = bad["models"]["beta"]["prompts"]["prompt_1"]["checks"][0]["evidence"][0]
    evidence["excerpt"] = {"start": 0, "lines": ["x"]}
    with pytest.raises(ResultsSchemaError):
        validate_results(bad)
    evidence["excerpt"] = {"start": 1, "lines": ["x"], "extra": True}
    with pytest.raises(ResultsSchemaError):
        validate_results(bad)


# ---- --report-only ---------------------------------------------------------------------------


def test_report_only_rebuilds_every_report_next_to_the_results(tmp_path, doc, capsys):
    paths = write_run(doc, tmp_path)
    run_dir = paths["results"].parent
    before = {p.name: p.read_bytes() for p in run_dir.iterdir()}
    for name in ("report.html", "summary_report.txt", "comparison_chart.txt", "junit.xml", "summary.md"):
        (run_dir / name).unlink()
    assert cli.main(["--report-only", str(paths["results"])]) == cli.EXIT_OK
    after = {p.name: p.read_bytes() for p in run_dir.iterdir()}
    assert after == before  # same files, byte for byte; results.json untouched
    assert "report: " in capsys.readouterr().out


def test_report_only_validates_first_and_writes_nothing_on_error(tmp_path, doc, capsys):
    bad = copy.deepcopy(doc)
    bad["models"]["beta"]["grade"] = "Z"
    path = tmp_path / "results.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    assert cli.main(["--report-only", str(path)]) == cli.EXIT_ERROR
    assert "$.models.beta.grade" in capsys.readouterr().err
    (tmp_path / "broken.json").write_text("{not json", encoding="utf-8")
    assert cli.main(["--report-only", str(tmp_path / "broken.json")]) == cli.EXIT_ERROR
    assert cli.main(["--report-only", str(tmp_path / "missing.json")]) == cli.EXIT_ERROR
    assert "not found" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.json", "results.json"]


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_report_only_and_compare_refuse_a_saved_run_holding_a_number_json_cannot_hold(
        tmp_path, doc, capsys, number):
    """Python's json reads NaN and infinities (and 1e999 as infinity); the grader never writes
    them, so a results file holding one was edited or damaged: it is refused, naming the file,
    and nothing is written (before, a NaN score passed validation and was shown as 0)."""
    doc["models"]["alpha_model"]["overall_score"] = float("nan") if number == "NaN" else float("inf")
    text = json.dumps(doc).replace("NaN", number).replace("Infinity", number.lstrip("-"))
    if number == "-Infinity":
        text = text.replace("Infinity", "-Infinity")
    assert f'"overall_score": {number},' in text
    path = tmp_path / "results.json"
    path.write_text(text, encoding="utf-8")
    assert cli.main(["--report-only", str(path)]) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert str(path) in err and f"{number} is not a JSON number" in err
    assert cli.main(["--compare", str(path), str(path)]) == cli.EXIT_ERROR
    assert f"{number} is not a JSON number" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]  # no report, no comparison


def test_report_only_that_cannot_write_a_report_is_an_error_naming_the_folder(tmp_path, doc, capsys):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    (tmp_path / "report.html").mkdir()  # (root may write anywhere: a folder in the way cannot be replaced)
    assert cli.main(["--report-only", str(path)]) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert err.startswith(f"error: cannot write the reports into {tmp_path}: ") and err.count("\n") == 1
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # no temporary file left


def test_report_only_refuses_grading_flags():
    with pytest.raises(SystemExit):
        cli.parse_args(["--report-only", "r.json", "--model", "m"])
    with pytest.raises(SystemExit):
        cli.parse_args(["--report-only", "r.json", "--compare", "a", "b"])
    with pytest.raises(SystemExit):
        cli.parse_args(["--report-only", "r.json", "--fail-under", "50"])


def test_excerpt_lines_spell_out_control_and_bidirectional_characters():
    """A source line cannot redraw a terminal or reorder what a reader sees (Trojan Source)."""
    lines = ["ok = 1", "access = 'user\u202e \u2066# admin\u2069\u2066'", "\x1b[2J" + "y" * 300]
    shown = excerpt_for(lines, 2)["lines"]
    assert shown[0] == "ok = 1"
    assert "\\u202e" in shown[1] and "\u202e" not in shown[1] and "\u2066" not in shown[1]
    assert shown[2].startswith("\\x1b[2J") and "\x1b" not in shown[2]
    assert len(shown[2]) == MAX_LINE_CHARS


def _reference_check_row(check) -> str:
    """The check row as 673ad22 built it (and its case groups, added later): a view model of the check, then ``markupsafe.escape`` on
    every value. ``html_report._check_row`` must give the same text for any check (a ``view.Check``)."""
    from markupsafe import escape

    from benchmark.reporting.common import fixed

    evidence = []
    for item in check.evidence:
        where = item.file + (f":{item.line}" if item.line else "")
        excerpt = item.excerpt
        lines = [{"no": excerpt.start + i, "text": text, "hit": excerpt.start + i == item.line}
                 for i, text in enumerate(excerpt.lines)] if excerpt else []
        evidence.append({"where": where, "note": item.note, "lines": lines})
    view = {"id": check.id, "category": check.category, "method": check.method,
            "status": check.status, "earned": fixed(check.earned, 2),
            "points": fixed(check.points, 2), "rationale": check.rationale,
            "evidence": evidence}
    hit = ' class="hit"'
    status = escape(view["status"])
    parts = [f'<tr class="check" data-status="{status}"><td><code>{escape(view["id"])}</code></td>'
             f'<td>{escape(view["category"])}</td><td>{escape(view["method"])}</td>'
             f'<td><span class="pill st-{status}">{status}</span></td>'
             f'<td class="num">{escape(view["earned"])}/{escape(view["points"])}</td>'
             f'<td class="rationale">{escape(view["rationale"])}\n']
    if check.groups:
        parts.append('<div class="cases">' + "".join(
            f'<span class="group g-{escape(g.name)}{" short" if g.right < g.of else ""}">{escape(g.name)} '
            f'<b>{escape(g.right)}/{escape(g.of)}</b></span>' for g in check.groups) + '</div>\n')
    if view["evidence"]:
        parts.append('<ul class="evidence">\n')
        for item in view["evidence"]:
            parts.append(f'<li><code>{escape(item["where"])}</code>')
            if item["note"]:
                parts.append(f' — {escape(item["note"])}')
            if item["lines"]:
                parts.append('<pre class="excerpt">')
                parts += [f'<span{hit if line["hit"] else ""}><i>{escape(line["no"])}</i>'
                          f'{escape(line["text"])}</span>' for line in item["lines"]]
                parts.append('</pre>')
            parts.append('</li>\n')
        parts.append('</ul>\n')
    parts.append('</td></tr>\n')
    return "".join(parts)


class _Safe:
    def __html__(self):
        return "<b>already safe</b>"


ODD_CHECKS = [
    {"id": "a&b<c>'d\"e", "category": "quality", "method": "ast", "status": "pa'ss\"", "earned": 1.005,
     "points": 2, "rationale": HOSTILE + " & 'quoted' \"double\"",
     "evidence": [{"file": "x&<y>.py", "line": 3, "note": HOSTILE,
                   "excerpt": {"start": 2, "lines": ["a < b && c > d", "it's \"q\"", HOSTILE]}},
                  {"file": "", "line": 0, "note": ""}, "not a mapping", {"file": None, "line": None},
                  {"file": "f.py", "line": 9, "note": "n", "excerpt": {"start": "1", "lines": ["x"]}},
                  {"file": "f.py", "line": True, "excerpt": {"start": True, "lines": ["t", "u"]}}]},
    {"id": None, "category": 7, "method": ["list"], "status": None, "earned": "x", "points": None,
     "rationale": None, "evidence": None},
    {"id": _Safe(), "status": _Safe(), "rationale": 0, "earned": float("nan"), "points": float("inf")},
    {"id": "pooled", "status": "partial", "rationale": "5/10 cases right", "earned": 1, "points": 2,
     "cases": [{"group": "shown", "right": 4, "of": 4}, {"group": "hidden<&>", "right": 1, "of": 6}]},
    {},
]


def _as_view(check: dict):
    """An odd check of ``ODD_CHECKS`` as a ``view.Check``: its values as they are (a view does not
    check types), but its evidence read as the view reads a document's: an item that is not a
    mapping left out, file and note as text, a line only when it is an int, an excerpt only
    with an int start and a list of lines."""
    from benchmark.reporting.view import Check, Evidence, Excerpt, Group

    def excerpt(raw):
        ok = isinstance(raw, dict) and type(raw.get("start")) is int and isinstance(raw.get("lines"), list)
        return Excerpt(raw["start"], tuple(raw["lines"])) if ok else None

    evidence = tuple(Evidence(str(item.get("file") or ""), item.get("line") if type(item.get("line")) is int else None,
                              str(item.get("note") or ""), excerpt(item.get("excerpt")))
                     for item in check.get("evidence") or () if isinstance(item, dict))
    groups = tuple(Group(g["group"], g["right"], g["of"]) for g in check.get("cases", ()))
    return Check(check.get("id"), check.get("category"), check.get("points"), check.get("earned"),
                 check.get("status"), check.get("method"), check.get("rationale"), None, evidence, groups)


@pytest.mark.parametrize("check", ODD_CHECKS)
def test_check_rows_are_the_text_markupsafe_escaping_gives(check):
    from benchmark.reporting.html_report import _check_row

    assert _check_row(_as_view(check)) == _reference_check_row(_as_view(check))


def test_the_whole_page_is_byte_identical_to_the_reference_rows(doc, monkeypatch):
    """The report of a fixed document (with hostile text and excerpts) is the same bytes with
    the current rows as with the reference rows."""
    from benchmark.reporting import html_report

    for document in (doc, _hostile_doc()):
        fast = render_html_report(document).encode("utf-8")
        monkeypatch.setattr(html_report, "_check_row", _reference_check_row)
        assert render_html_report(document).encode("utf-8") == fast
        monkeypatch.undo()


# The report's charts as Jinja2 macros, as 838a1a3 wrote them in ``_charts.html.j2`` (and,
# since, a bar's track in its state's colour and a note in it: issue 30): ``chart_markup``
# must give the same text.
REFERENCE_CHART_MACROS = r"""
{% macro meter(m) %}
<svg class="meter" viewBox="0 0 {{ m.width }} {{ m.height }}" width="{{ m.width }}" height="{{ m.height }}" aria-hidden="true"><rect x="0" y="0" width="{{ m.width }}" height="{{ m.height }}" rx="3" fill="#eceef2"/><rect x="0" y="0" width="{{ m.fill }}" height="{{ m.height }}" rx="3" fill="{{ m.colour }}"/></svg>
{%- endmacro %}

{% macro heatmap(h) %}
<svg class="heatmap" viewBox="0 0 {{ h.width }} {{ h.height }}" width="{{ h.width }}" height="{{ h.height }}" role="img" aria-label="Heatmap: share of points earned, model by category">
{% for col in h.columns %}
<text class="head" x="{{ col.x }}" y="{{ h.header - 12 }}">{{ col.label }}</text>
{% endfor %}
{% for row in h.rows %}
<a href="#{{ h.anchors[loop.index0] }}"><text class="label" x="{{ h.label_width - 10 }}" y="{{ row.y }}">{{ row.label }}</text></a>
{% endfor %}
{% for c in h.cells %}
<g class="cell"><title>{{ c.tip }}</title><rect x="{{ c.x }}" y="{{ c.y }}" width="{{ c.w }}" height="{{ c.h }}" rx="3" fill="{{ c.fill }}"/><text class="cell{% if c.text == 'n/a' %} empty{% endif %}" x="{{ c.x + c.w / 2 }}" y="{{ c.y + c.h / 2 }}">{{ c.text }}</text></g>
{% endfor %}
</svg>
{%- endmacro %}

{% macro hbars(c) %}
<svg class="bars" viewBox="0 0 {{ c.width }} {{ c.height }}" width="{{ c.width }}" height="{{ c.height }}" role="img" aria-label="Scores per model">
{% for b in c.bars %}
<g class="bar"><title>{{ b.tip }}</title><text class="label" x="{{ c.label_width - 8 }}" y="{{ b.y + b.h / 2 }}">{{ b.label }}</text><rect x="{{ c.label_width }}" y="{{ b.y }}" width="{{ c.bar_area }}" height="{{ b.h }}" fill="{{ b.track }}"/><rect x="{{ c.label_width }}" y="{{ b.y }}" width="{{ b.w }}" height="{{ b.h }}" fill="{{ b.colour }}"/><text class="value" x="{{ c.label_width + c.bar_area + 6 }}" y="{{ b.y + b.h / 2 }}">{{ b.text }}</text>{% if b.note %}<text class="value note" x="{{ c.label_width + 6 }}" y="{{ b.y + b.h / 2 }}">{{ b.note }}</text>{% endif %}</g>
{% endfor %}
{% if c.mark_x is not none %}
<line x1="{{ c.mark_x }}" y1="2" x2="{{ c.mark_x }}" y2="{{ c.height - 2 }}" stroke="#333333" stroke-width="1" stroke-dasharray="4 3"/>
{% endif %}
</svg>
{%- endmacro %}
"""


def _reference_charts():
    return templating.environment().from_string(REFERENCE_CHART_MACROS).module


CHART_LABELS = ["plain", HOSTILE, "a & b <c> 'd' \"e\"", "\u202e\u2066bidi", ""]


@pytest.mark.parametrize("fractions", [[0.0, 1.0, None], [0.333, None, 0.5], []])
def test_the_charts_are_the_text_the_macros_gave(fractions):
    from benchmark.reporting import chart_markup, svg

    reference = _reference_charts()
    labels = CHART_LABELS[: max(1, len(fractions))]
    values = [[(f, f"{label} · tip {i}") for i, f in enumerate(fractions)] for label in labels]
    grid = svg.heatmap(labels, [f"col{i} <&>" for i in range(len(fractions))], values)
    grid["anchors"] = [f"m{i}\"" for i in range(len(labels))]
    assert str(chart_markup.heatmap(grid)) == str(reference.heatmap(grid))
    items = [{"label": label, "value": 10 * (f or 0), "state": state, "text": f"{label}/25", "tip": HOSTILE,
              "note": label if state == "error" else ""}
             for label, f, state in zip(labels, fractions + [0.5], ["pass", "fail", "error", "odd"])]
    for mark in (None, 15.0, 99.0):
        bars = svg.hbars(items, 25.0, mark)
        assert str(chart_markup.hbars(bars)) == str(reference.hbars(bars))
    for fraction in fractions + [-1.0, 2.0]:
        gauge = svg.meter(fraction or 0.0)
        assert str(chart_markup.meter(gauge)) == str(reference.meter(gauge))


@pytest.mark.parametrize("text", ["a\nb\n", "a\r\nb\rc\n\nd", "no break", "\r\r\n", "x\u2028y\x0cz\n", ""])
def test_excerpt_lines_are_split_where_ast_counts_lines(tmp_path, text):
    """Only \\r\\n, \\r and \\n end a line (as ast counts them), with or without a \\r in the file."""
    import hashlib

    from benchmark.reporting.excerpts import LINE_BREAK, _GradedFiles
    from benchmark.submission import read_text

    (tmp_path / "f.py").write_bytes(text.encode("utf-8"))
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    files = _GradedFiles(tmp_path)
    decoded, error, _ = read_text(tmp_path / "f.py")
    expected = LINE_BREAK.split(decoded) if decoded is not None and error is None else None
    assert files.lines("f.py", digest) == expected
    for name in ("sub/f.py", "../f.py", ".", "..", ""):
        assert _GradedFiles(tmp_path).lines(name, digest) is None


@pytest.mark.parametrize("value", [0, -1, 1.5, float("nan"), float("-inf"), True, None, 10 ** 30, 1e-300,
                                   HOSTILE, "", _Safe()])
def test_the_escape_helper_gives_markupsafes_text(value):
    from markupsafe import escape

    from benchmark.reporting.chart_markup import escaped

    assert escaped(value) == str(escape(value))
