"""End to end in a real headless Chromium: grade two models (one with hostile source text),
open the run's report.html from disk and check what a person sees, that nothing runs but
the page's own leaderboard script (search, sort, filter), that no request leaves the page and
that it fits a 420 px screen; then, in the same browser, a hand-made report with every state
and a sandbox denial, and one past the inline limit whose deep link goes on to the model's own
page. Saves screenshots under the test's tmp dir.

Uses Debian's chromium at /usr/bin/chromium (``scripts/install_browser.sh``, run by
``make test``) driven by playwright; ``playwright install`` is never run. The test skips only
when chromium is missing and cannot be installed because we are not root.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from benchmark import cli
from benchmark.reporting import html_board, html_report, templating
from benchmark.reporting.results_json import run_to_dict
from benchmark.reporting.writer import write_reports
from result_fakes import make_model, make_run
from test_report_html_states import states_doc

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
INSTALLER = ROOT / "scripts" / "install_browser.sh"
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
MARKER = '</pre><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


def _chromium() -> Path:
    if CHROMIUM.exists():
        return CHROMIUM
    if os.geteuid() != 0:
        pytest.skip(f"{CHROMIUM} is missing and we are not root, so it cannot be installed: "
                    f"run `sudo {INSTALLER}` (or `sudo apt-get install chromium`) to enable this test")
    subprocess.run(["bash", str(INSTALLER)], check=True, timeout=900)
    assert CHROMIUM.exists(), f"{INSTALLER} ran as root but {CHROMIUM} is still missing"
    return CHROMIUM


@pytest.fixture
def graded_run(tmp_path, monkeypatch) -> tuple[Path, dict]:
    """A real run: the reference model and a weak model whose source holds HTML/script text."""
    subs = tmp_path / "submissions"
    shutil.copytree(ROOT / "submissions/reference_implementations/example_model",
                    subs / "reference_implementations" / "example_model")
    hostile = subs / "user_submissions" / "hostile_model"
    shutil.copytree(ROOT / "tests/models/weak_model", hostile)
    source = hostile / "prompt_1_solution.py"
    lines = source.read_text(encoding="utf-8").splitlines()
    lines[12] = f"# {MARKER}"  # a blank line near the evidence of open() without encoding
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RUBRICBENCH_TEST_DATA", str(ROOT / "test_data"))
    cli.main(["--all-models", "-q"])
    doc = json.loads((tmp_path / "results" / "latest_results.json").read_text(encoding="utf-8"))
    excerpts = [line for p in doc["models"]["hostile_model"]["prompts"].values() for c in p["checks"]
                for e in c["evidence"] for line in e.get("excerpt", {}).get("lines", ())]
    assert any(MARKER in line for line in excerpts), "the hostile line must be shown in an excerpt"
    return tmp_path / "results" / doc["run_id"] / "report.html", doc


def test_report_in_headless_chromium(graded_run, tmp_path, monkeypatch):
    executable = _chromium()
    from playwright.sync_api import sync_playwright

    report, doc = graded_run
    url = report.resolve().as_uri()
    requests: list[str] = []
    problems: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(executable), args=LAUNCH_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1366, "height": 768})
            page.on("request", lambda r: requests.append(r.url))
            page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.goto(url, wait_until="load")
            _check_page(page, doc, tmp_path)
            linked = browser.new_page(viewport={"width": 1366, "height": 768})  # a deep link opens its row
            linked.goto(f"{url}#m1-prompt_3", wait_until="load")
            linked.wait_for_function("document.querySelector('details:has(#m1-prompt_3)').open", timeout=5000)
            assert linked.evaluate("[...document.querySelectorAll('details.prompt')].filter(d => d.open).length") == 1
            expected = [url, *_check_states(browser, tmp_path, requests),
                        *_check_model_pages(browser, tmp_path, requests, monkeypatch)]
        finally:
            browser.close()
    assert requests == expected, f"the reports made requests besides loading themselves: {requests}"
    assert problems == [], f"console errors (e.g. CSP violations): {problems}"


def _check_page(page, doc: dict, tmp_path: Path) -> None:
    csp = page.get_attribute('meta[http-equiv="Content-Security-Policy"]', "content")
    assert "default-src 'none'" in csp and "unsafe-inline" not in csp
    assert f"script-src {templating._sha256(templating.leaderboard_script())};" in csp
    assert page.locator("#leaderboard tr.model-row").count() == 2
    assert page.locator("#leaderboard tr.model-row").first.inner_text().startswith("1\texample_model")
    assert page.locator("svg.heatmap g.cell").count() == 2 * 8
    assert page.locator("svg.heatmap").is_visible()
    assert page.locator("#prompts svg.bars").count() == 4
    _search_sort_filter(page)
    page.screenshot(path=str(tmp_path / "report_top.png"))

    drill = page.locator("details:has(#m1-prompt_1)")  # hostile_model ranks second
    row = drill.locator("tr.check").first
    assert not row.is_visible()  # closed until opened
    drill.locator("summary").click()
    assert row.is_visible()
    hostile = drill.locator("pre.excerpt span", has_text="window.__pwned").first
    hostile.scroll_into_view_if_needed()
    assert hostile.is_visible() and MARKER in hostile.inner_text()
    checks = len(doc["models"]["hostile_model"]["prompts"]["prompt_1"]["checks"])
    assert drill.locator("tr.check").count() == checks
    page.screenshot(path=str(tmp_path / "report_drilldown.png"))

    assert page.evaluate("document.scripts.length") == 1
    assert page.evaluate("document.images.length") == 0
    assert page.evaluate("typeof window.__pwned") == "undefined"

    page.emulate_media(media="print")
    closed_row = page.locator("details:has(#m0-prompt_4) tr.check").first
    assert closed_row.is_visible(), "print CSS shows closed drill-downs"
    assert not page.locator("nav.toc").is_visible()
    page.emulate_media(media="screen")
    page.locator("#manifest").scroll_into_view_if_needed()
    manifest = page.locator("#manifest").inner_text()
    assert "Process layer" in manifest and doc["_metadata"]["rubric_hash"] in manifest
    page.screenshot(path=str(tmp_path / "report_manifest.png"))
    for name in ("report_top.png", "report_drilldown.png", "report_manifest.png"):
        assert (tmp_path / name).stat().st_size > 10_000
    page.set_viewport_size({"width": 420, "height": 800})  # a phone: nothing wider than the screen
    page.locator("#leaderboard").scroll_into_view_if_needed()
    assert page.evaluate("document.documentElement.scrollWidth") <= 420
    assert page.locator("#leaderboard tr.model-row a").first.is_visible()
    page.screenshot(path=str(tmp_path / "report_narrow.png"))


def _names(page) -> list[str]:
    return page.eval_on_selector_all("#board tbody tr:not([hidden]) td.name a", "cells => cells.map(c => c.textContent)")


def _search_sort_filter(page) -> None:
    """The leaderboard's script: the controls show, and search, filter and sort do what they say."""
    tools = page.locator("#board-tools")
    assert tools.is_visible() and page.locator("#board-count").inner_text() == "2 of 2 models match"
    assert _names(page) == ["example_model", "hostile_model"]
    tools.locator("input[name=q]").fill("HOSTILE")
    assert _names(page) == ["hostile_model"] and page.locator("#board-count").inner_text() == "1 of 2 models match"
    tools.locator("input[name=q]").fill("")
    tools.locator("select[name=state]").select_option("fail")
    assert _names(page) == ["hostile_model"]
    tools.locator("select[name=state]").select_option("clean")
    assert _names(page) == ["example_model"]
    tools.locator("select[name=state]").select_option("")
    tools.locator("select[name=tier]").select_option("user_submissions")
    assert _names(page) == ["hostile_model"]
    tools.locator("select[name=tier]").select_option("")
    score = page.locator("#board th button", has_text="Score")
    score.click()  # highest first: the rank order
    assert _names(page) == ["example_model", "hostile_model"] and score.get_attribute("aria-sort") == "descending"
    score.click()
    assert _names(page) == ["hostile_model", "example_model"] and score.get_attribute("aria-sort") == "ascending"
    page.locator("#board th button", has_text="#").click()
    assert _names(page) == ["example_model", "hostile_model"]


def _check_states(browser, tmp_path: Path, requests: list[str]) -> list[str]:
    """Every state's pill is seen in its own colour, and the sandbox's denial badge names where."""
    report = tmp_path / "states" / "report.html"
    report.parent.mkdir()
    report.write_text(html_report.render_html_report(states_doc()), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.on("request", lambda r: requests.append(r.url))
    page.goto(report.as_uri(), wait_until="load")
    seen = page.evaluate("""() => {
        const row = [...document.querySelectorAll('#board tr.model-row')].find(r => r.dataset.name === 'mixed');
        const look = p => p && {text: p.innerText, colour: getComputedStyle(p).color, title: p.title,
                                shown: p.getBoundingClientRect().width > 0};
        const pills = {};
        for (const s of ['error', 'not_attempted', 'timed_out', 'pass-security']) pills[s] = look(row.querySelector('.pill.st-' + s));
        pills.pass = look(document.querySelector('summary .pill.st-pass'));
        return {pills, badge: look(row.querySelector('.pill.denied'))};
    }""")
    words = {"error": "1 not graded", "not_attempted": "1 not attempted", "timed_out": "1 timed out",
             "pass-security": "1 pass · security", "pass": "PASS"}
    assert {s: (p["text"], p["shown"]) for s, p in seen["pills"].items()} == {s: (w, True) for s, w in words.items()}
    assert len({p["colour"] for p in seen["pills"].values()}) == 5, seen  # each state its own colour
    badge = seen["badge"]
    assert badge["shown"] and badge["text"] == "2 sandbox denials" and "prompt_3.py:12" in badge["title"]
    page.locator("#board-tools select[name=state]").select_option("denied")
    assert _names(page) == ["mixed"]
    page.close()
    return [report.as_uri()]


def _check_model_pages(browser, tmp_path: Path, requests: list[str], monkeypatch) -> list[str]:
    """Past the inline limit, the leaderboard lists a page of rows until "Show all", and an old
    deep link into report.html goes on to the model's page and opens the prompt there; the
    model's page has no script at all."""
    monkeypatch.setattr(html_report, "INLINE_MODELS", 8)  # (the limits made small: the same code, less to write)
    monkeypatch.setattr(html_board, "BOARD_PAGE", 5)
    count = 9
    doc = run_to_dict(make_run(*[make_model(f"m-{i:02d}", 1.0 - i / 200) for i in range(count)]))
    folder = tmp_path / "many"
    write_reports(doc, folder)
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.on("request", lambda r: requests.append(r.url))
    page.goto((folder / "report.html").as_uri(), wait_until="load")
    assert len(_names(page)) == 5 and page.locator("#board-count").inner_text() == (
        f"{count} of {count} models match (the first 5 listed)")
    page.locator("#board-more").click()
    assert len(_names(page)) == count and not page.locator("#board-more").is_visible()
    page.goto(f"{(folder / 'report.html').as_uri()}#m7-prompt_3", wait_until="load")
    page.wait_for_url("**/models/m7.html#m7-prompt_3", timeout=5000)
    page.wait_for_function("document.querySelector('details:has(#m7-prompt_3)').open", timeout=5000)
    assert page.evaluate("document.scripts.length") == 0 and "8. m-07" in page.locator("h3").first.inner_text()
    page.close()
    return [(folder / "report.html").as_uri(), (folder / "models" / "m7.html").as_uri()]  # (a fragment: no load)
