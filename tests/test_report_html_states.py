"""report.html explains every score and shows every state (issue 30): where each prompt's
points went, the five states and a pass that is not clean on security, what the sandbox
denied, what a child run raised; and it scales: histograms past the bar limit, a page per
model past the inline limit (written by the writer), a folded manifest."""

from __future__ import annotations

import copy
import re
from html import unescape
from html.parser import HTMLParser

import pytest

from benchmark.reporting import html_board, html_report, svg
from benchmark.reporting.html_report import render_html_report, render_model_pages
from benchmark.reporting.results_json import run_to_dict
from benchmark.reporting.view import run_view
from benchmark.reporting.writer import write_reports
from result_fakes import make_model, make_run

HOSTILE = '<script>window.__pwned = 1</script>&"\''


def _text(html: str) -> str:
    """The page's text (tags dropped, entities decoded)."""
    class Text(HTMLParser):
        parts: list[str] = []

        def handle_data(self, data):
            self.parts.append(data)

    parser = Text(convert_charrefs=True)
    parser.parts = []
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


def _body(html: str, anchor: str) -> str:
    """The drill-down body of ``anchor`` (up to its closing </details>)."""
    start = html.index(f'id="{anchor}"')
    return html[start: html.index("</details>", start)]


def _summary(html: str, anchor: str) -> str:
    end = html.index(f'id="{anchor}"')
    return html[html.rindex("<summary>", 0, end): end]


@pytest.fixture
def gated():
    """One model whose execution earned half: its other categories are gated."""
    return run_to_dict(make_run(make_model("gated", 0.9, fractions={"execution": 0.5})))


def states_doc() -> dict:
    """A hand-made document with every state: prompt_1 could not be graded, prompt_2 was not
    attempted, prompt_3 timed out (and raised, and was denied a connection), prompt_4 passed
    with a security check not fully passed; a second model passes everything cleanly."""
    doc = run_to_dict(make_run(make_model("mixed", 1.0), make_model("clean", 1.0)))
    prompts = doc["models"]["mixed"]["prompts"]
    prompts["prompt_1"].update(status="error", passed=False, score=0.0, error="prompt_1.py: file not found")
    prompts["prompt_2"].update(status="not_attempted", passed=False, score=0.0)
    third = prompts["prompt_3"]
    third["execution"] = [{"mode": "call", "label": "fixture", "returncode": None, "timed_out": True,
                           "killed_by": "timeout", "stderr_tail": f"Traceback ...\n{HOSTILE}",
                           "raised": {"type": "ValueError", "message": HOSTILE, "file": "prompt_3.py", "line": 7,
                                      "excerpt": {"start": 6, "lines": ["def f():", "    raise ValueError(x)"]}}}]
    third["denials"] = [{"kind": "network", "event": "socket.connect", "target": f"203.0.113.7:443{HOSTILE}",
                         "count": 2, "where": "prompt_3.py:12"}]
    security = next(c for c in prompts["prompt_4"]["checks"] if c["category"] == "security")
    security.update(id="weak_tls", status="partial", earned=security["points"] / 2)
    return doc


def test_where_the_points_went_lists_every_loss_and_each_gate_with_its_formula(gated):
    html = render_html_report(gated)
    prompt = gated["models"]["gated"]["prompts"]["prompt_1"]
    body = _body(html, "m0-prompt_1")
    losses = run_view(gated).model("gated").prompt("prompt_1").losses
    assert losses and "Where the points went" in body
    heading = re.search(r"Where the points went \(−([\d.]+)\)", body).group(1)
    assert abs(float(heading) - (prompt["max_score"] - prompt["score"])) < 0.011  # they add up
    for loss in losses:
        assert f"−{loss.points:.2f}" in body
        if loss.kind == "check":
            assert f"<code>{loss.id}</code>" in body
    gates = [loss for loss in losses if loss.kind == "gate"]
    assert {g.formula for g in gates} == {"× w", "× (0.25 + 0.75·w)"}
    for gate in gates:  # the formula in text, as a tooltip, and a link to the page's own section
        assert f'<a href="#how-scores" title="{gate.reason}">{gate.category} gate {gate.formula}</a>' in body
    assert "(gate ×" not in html and 'class="gate" href="#how-scores" title="security credit' in body
    how = _text(html[html.index('<section id="how-scores">'):])
    assert "w = execution points earned / execution points possible" in how
    assert "security, performance, maintainability keep × w" in how
    assert "syntax, structure, quality keep × (0.25 + 0.75·w)" in how


def test_a_full_score_has_no_losses_list():
    html = render_html_report(run_to_dict(make_run(make_model("perfect", 1.0))))
    assert '<div class="losses">' not in html and "Where the points went (" not in html


def test_each_state_has_its_own_pill_bar_and_leaderboard_count():
    html = render_html_report(states_doc())
    assert '<span class="pill st-error">COULD NOT BE GRADED</span>' in _summary(html, "m1-prompt_1")
    assert '<span class="pill st-not_attempted">NOT ATTEMPTED</span>' in _summary(html, "m1-prompt_2")
    assert '<span class="pill st-timed_out">TIMED OUT</span>' in _summary(html, "m1-prompt_3")
    pill = re.search(r'<span class="pill st-pass-security" title="([^"]*)">PASS · security</span>',
                     _summary(html, "m1-prompt_4"))
    assert pill and pill.group(1) == "passed, but security checks not fully passed: weak_tls"
    assert '<span class="pill st-pass">PASS</span>' in _summary(html, "m0-prompt_4")  # the clean model
    row = re.search(r'<tr class="model-row" data-name="mixed" data-tier="reference" data-states="([^"]*)">(.*?)</tr>',
                    html).group(1, 2)
    assert set(row[0].split()) == {"error", "not_attempted", "timed_out", "pass-security", "denied"}
    for pill in ("1 not graded", "1 not attempted", "1 timed out", "1 pass · security"):
        assert pill in _text(row[1])
    assert 'data-states="pass clean"' in html
    # the bars: a state that scores nothing shows in its track, and the legend names every state
    chart = html[html.index('<section id="prompts">'):html.index('<section id="details"')]
    assert f'fill="{svg.TRACKS["error"]}"' in chart and f'fill="{svg.TRACKS["not_attempted"]}"' in chart
    assert ">could not be graded</text>" in chart and ">not attempted</text>" in chart
    assert f'fill="{svg.STATE_COLOURS["pass-security"]}"' in chart
    legend = _text(chart[:chart.index('<div class="charts">')])
    for words in ("passed", "failed", "could not be graded", "not attempted", "timed out",
                  "passed, security checks not fully passed"):
        assert words in legend
    assert len(set(svg.STATE_COLOURS[s] for s in ("pass", "fail", "error", "not_attempted", "timed_out"))) == 5


def test_sandbox_denials_have_a_badge_per_model_and_prompt_naming_where_and_what():
    html = render_html_report(states_doc())
    escaped = "&lt;script&gt;window.__pwned = 1&lt;/script&gt;"
    board = html[html.index('<table class="leaderboard" id="board"'):html.index("</table>")]
    badge = re.search(r'<span class="pill denied" title="([^"]*)">2 sandbox denials</span>', board)
    assert badge and "prompt_3: prompt_3.py:12" in badge.group(1) and "socket.connect 203.0.113.7:443" in badge.group(1)
    assert escaped in badge.group(1) and "<script>" not in board
    assert "2 sandbox denials" in _summary(html, "m1-prompt_3")
    body = _body(html, "m1-prompt_3")
    assert "Denied by the sandbox" in body and "<code>prompt_3.py:12</code> <b>network</b> socket.connect" in body
    assert f"203.0.113.7:443{escaped}" in body and "×2" in body
    assert "sandbox denial" not in _summary(html, "m1-prompt_2")


def test_a_child_run_that_raised_shows_the_exception_its_lines_and_its_stderr_escaped():
    html = render_html_report(states_doc())
    body = _body(html, "m1-prompt_3")
    assert "<b>ValueError</b>: &lt;script&gt;" in body and "at <code>prompt_3.py:7</code>" in body
    assert '<span class="hit"><i>7</i>    raise ValueError(x)</span>' in body
    assert '<pre class="stderr">Traceback ...\n&lt;script&gt;' in body
    assert "<script>window" not in html


def _field(count: int) -> dict:
    return run_to_dict(make_run(*[make_model(f"model-{i:02d}", 1.0 - i / (2 * count)) for i in range(count)]))


def test_past_the_bar_limit_each_prompt_is_a_histogram_of_every_model_by_state(monkeypatch):
    monkeypatch.setattr(html_board, "BAR_MODELS", 3)
    doc = _field(4)
    doc["models"]["model-03"]["prompts"]["prompt_2"].update(status="error", passed=False, score=0.0)
    html = render_html_report(doc)
    assert '<g class="bar">' not in html and html.count('<svg class="histogram"') == 4
    assert "4 models: per prompt, how many models scored in each tenth of its points" in html
    charts = html[html.index('<section id="prompts">'):html.index('<section id="details"')]
    counts = [int(n) for n in re.findall(r"<title>\d+–\d+% of the points: (\d+) ", charts)]
    assert sum(counts) == 4 * 4  # every model in every prompt's chart
    assert "0–10% of the points: 1 could not be graded" in charts
    assert charts.count('stroke-dasharray="4 3"') == 4  # the pass mark
    monkeypatch.setattr(html_board, "BAR_MODELS", 4)
    assert render_html_report(doc).count('<g class="bar">') == 4 * 4


def test_the_histogram_puts_each_score_in_its_tenth():
    chart = svg.histogram([(0.0, "fail"), (0.59, "fail"), (0.6, "pass"), (1.0, "pass"), (1.0, "error")],
                          ["pass", "fail", "error"], 0.6)
    bins = sorted((s["bin"], s["state"], s["count"]) for s in chart["segments"])
    assert bins == [("0–10%", "fail", 1), ("50–60%", "fail", 1), ("60–70%", "pass", 1),
                    ("90–100%", "error", 1), ("90–100%", "pass", 1)]
    assert chart["mark_x"] == round(chart["left"] + 0.6 * chart["plot_w"], 2)
    assert chart["ticks"][-1]["x"] == chart["left"] + chart["plot_w"] <= chart["width"] - 16  # ("100%" fits)


def test_past_the_inline_limit_each_model_gets_its_own_page_written_by_the_writer(tmp_path, monkeypatch):
    monkeypatch.setattr(html_report, "INLINE_MODELS", 2)
    monkeypatch.setattr(html_board, "HEATMAP_MODELS", 2)
    doc = _field(3)
    html = render_html_report(doc)
    assert '<article class="model"' not in html and 'data-model-pages="models"' in html
    assert [f"models/m{i}.html" for i in range(3)] == re.findall(r'<td class="name"><a href="([^"]+)">', html)
    assert html.count('<g class="cell">') == 2 * 8 and "the other 1 are in the leaderboard" in _text(html)
    assert "On each model's own page." in html and "ab" * 32 not in html  # (hashes: on the pages)
    paths = write_reports(doc, tmp_path)
    assert paths["report_pages"] == tmp_path / "models" and not [k for k in paths if "/" in k]
    pages = sorted(p.name for p in (tmp_path / "models").iterdir())
    assert pages == ["m0.html", "m1.html", "m2.html"]
    page = (tmp_path / "models" / "m2.html").read_text(encoding="utf-8")
    assert 'id="m2-prompt_3"' in page and "3. model-02" in page and "model-00" not in page
    assert 'href="../report.html#leaderboard"' in page and 'id="how-scores"' in page
    assert "script-src 'none'" in unescape(page) and "<script" not in page
    assert render_model_pages(doc)["m2.html"] == page
    monkeypatch.setattr(html_report, "INLINE_MODELS", 3)
    assert render_model_pages(doc) == {} and '<article class="model" id="m2">' in render_html_report(doc)
    assert "report_pages" not in write_reports(doc, tmp_path / "small")


def test_the_manifest_folds_all_but_the_run_and_the_isolation_summary(gated):
    html = render_html_report(gated)
    manifest = html[html.index('<section id="manifest"'):]
    folded = re.findall(r'<details class="manifest-part"( open)?>\s*<summary><h3>([^<]*)', manifest)
    assert [(bool(o), t.strip()) for o, t in folded][:2] == [(True, "Run"), (True, "Isolation layers (measured at run time)")]
    assert all(not o for o, _ in folded[2:]) and any(t.startswith("Submission hashes") for _, t in folded)


def test_leaderboard_cells_carry_sort_values_and_rows_their_filters():
    doc = _field(3)
    doc["models"]["model-01"]["tier"] = "user<x>"
    html = render_html_report(doc)
    rows = re.findall(r'<tr class="model-row" data-name="([^"]*)" data-tier="([^"]*)" data-states="[^"]*">'
                      r'<td class="num" data-v="(\d+)">', html)
    assert [r[0] for r in rows] == ["model-00", "model-01", "model-02"] and rows[1][1] == "user&lt;x&gt;"
    assert '<option value="user&lt;x&gt;">user&lt;x&gt;</option>' in html
    assert re.search(r'<th class="num wide" data-sort="desc">Score</th>', html)
    shown = copy.deepcopy(doc)
    shown["models"]["MiXeD"] = shown["models"].pop("model-02")  # the search matches any case
    mixed = render_html_report(shown)
    assert 'data-name="mixed"' in mixed and '<a href="#m2">MiXeD</a>' in mixed


def test_a_prompt_and_a_pack_not_attempted_say_so_in_the_drill_down():
    from result_fakes import SIX_TASKS, suite_meta

    doc = run_to_dict(make_run(make_model("alpha", 0.9, tasks=SIX_TASKS), make_model("beta", 0.5, tasks=SIX_TASKS),
                               suite=suite_meta(SIX_TASKS)))
    alpha = doc["models"]["alpha"]
    alpha["prompts"]["prompt_2"].update(status="not_attempted", passed=False)
    alpha["packs"]["text_pack"]["attempted"] = False
    html = render_html_report(doc)
    assert "Not attempted: no file of this prompt was submitted" in _body(html, "m0-prompt_2")
    assert "Not attempted" not in _body(html, "m0-prompt_1")
    totals = re.search(r'<p class="pack-totals">(.*?)</p>', html[html.index('<article class="model" id="m0">'):]).group(1)
    assert re.search(r'text_pack</span> Text &lt;tasks&gt; <b>[\d.]+/15</b> \([\d.]+%, <span class="pill '
                     r'st-not_attempted">not attempted \(1 task\(s\)\): not in the total</span>\)', totals)
    assert re.search(r"data_pack</span> Data tasks <b>[\d.]+/25</b> \([\d.]+%, \d/1 passed\)", totals)


def test_checks_that_lost_points_for_one_reason_are_one_item():
    doc = states_doc()
    prompt = doc["models"]["mixed"]["prompts"]["prompt_1"]
    for check in prompt["checks"]:
        check.update(status="error", earned=0.0, rationale="prompt_1.py: file <not> found")
    body = _body(render_html_report(doc), "m1-prompt_1")
    losses = body[body.index('<div class="losses">'):body.index("</div>", body.index('<div class="losses">'))]
    total = sum(c["points"] for c in prompt["checks"])
    assert losses.count('<li class="loss">') == 1
    item = re.search(r'<b class="num">−([\d.]+)</b> <span title="([^"]*)">(\d+) checks</span> '
                     r'<span class="pill st-error">error</span>: prompt_1.py: file &lt;not&gt; found', losses)
    assert item and item.group(1) == f"{total:.2f}" and int(item.group(3)) == len(prompt["checks"])
    assert sorted(item.group(2).split(", ")) == sorted(c["id"] for c in prompt["checks"])
