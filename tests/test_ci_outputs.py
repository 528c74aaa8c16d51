"""CI outputs written with every run: junit.xml and summary.md; and --fail-under (exit 7)."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from benchmark import cli, commands
from benchmark.reporting.view import run_view
from benchmark.reporting.junit import render_junit, xml_text
from benchmark.reporting.markdown_summary import MAX_FAILED_ROWS, md, render_markdown_summary
from benchmark.reporting.results_json import run_to_dict
from benchmark.reporting.saved_runs import models_under
from result_fakes import make_model, make_run

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model"
WEAK = ROOT / "tests" / "models" / "weak_model"


@pytest.fixture
def doc():
    doc = run_to_dict(make_run(make_model("good", 1.0), make_model("mid", 0.7),
                               make_model("bad|model", 0.3, tier="user")))
    prompt = doc["models"]["bad|model"]["prompts"]["prompt_3"]
    prompt["status"], prompt["error"] = "error", "syntax error: <bad> & \x00 \x1b[31m (line 1)"
    prompt["checks"][0]["rationale"] = "]]> <tag> & \"quotes\" \x07 bell\nsecond line"
    failed = doc["models"]["bad|model"]["prompts"]["prompt_1"]["checks"][1]
    failed["status"], failed["earned"], failed["rationale"] = "fail", 0.0, "no <tag> & _emphasis_ here"
    return doc


def _suites(root: ET.Element) -> dict[str, ET.Element]:
    return {suite.get("name"): suite for suite in root.findall("testsuite")}


def test_junit_parses_and_counts_are_right(doc):
    root = ET.fromstring(render_junit(doc).encode("utf-8"))
    assert root.tag == "testsuites"
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == 3 * 4  # one per model x prompt
    failures = root.findall("./testsuite/testcase/failure")
    errors = root.findall("./testsuite/testcase/error")
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("12", str(len(failures)), str(len(errors)))
    assert len(errors) == 1
    suites = _suites(root)
    assert set(suites) == {"good", "mid", "bad|model"}
    assert suites["good"].get("failures") == "0" and not suites["good"].findall(".//failure")
    assert suites["bad|model"].get("errors") == "1" and suites["bad|model"].get("failures") == "3"
    for suite in suites.values():
        assert int(suite.get("tests")) == len(suite.findall("testcase"))
    props = {p.get("name"): p.get("value") for p in suites["good"].find("properties")}
    assert props["grade"] == "A+" and props["score"] == "100.00"
    assert {c.get("classname") for c in suites["mid"].findall("testcase")} == {"rubricbench.mid"}
    assert suites["mid"].find("testcase").get("name").startswith("prompt_1: ")


def test_junit_failures_carry_failed_checks_with_rationale(doc):
    root = ET.fromstring(render_junit(doc).encode("utf-8"))
    bad = _suites(root)["bad|model"]
    failure = bad.find("testcase/failure")
    assert "below the pass mark" in failure.get("message")
    prompt = doc["models"]["bad|model"]["prompts"]["prompt_1"]
    for check in prompt["checks"]:
        if check["status"] != "pass":
            assert f"{check['id']} [{check['status']}]: {check['rationale']}" in failure.text
    assert failure.text.startswith("where the points went (gates: docs/scoring.md):")
    assert "at prompt_1.py:3 (seen here)" in failure.text
    error = bad.find("testcase/error")
    assert error.get("type") == "grading_error" and "syntax error: <bad> &" in error.get("message")


def test_junit_escapes_markup_and_drops_characters_xml_cannot_hold(doc):
    text = render_junit(doc)
    assert "\x00" not in text and "\x1b" not in text and "\x07" not in text
    root = ET.fromstring(text.encode("utf-8"))
    error = _suites(root)["bad|model"].find("testcase/error")
    assert error.text.startswith("[fail]") or "]]> <tag> & \"quotes\"" in error.text
    assert "]]> <tag> & \"quotes\" \ufffd bell" in error.text  # round-trips through the parser
    assert xml_text("ok\x00\ud800") == "ok\ufffd\ufffd"


def _junit_as_one_tree(doc) -> str:
    """junit.xml as one element tree, indented and written whole (how it was made before each
    model's testsuite became a part of its own)."""
    from benchmark.reporting import junit

    run = run_view(doc)
    root = ET.Element("testsuites", name="RubricBench")
    totals = dict.fromkeys(junit.COUNTS, 0)
    for counts in [junit._suite(root, m, run.started) for m in run.models] + [junit._not_graded(root, run)]:
        totals = {key: totals[key] + counts[key] for key in junit.COUNTS}
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


@pytest.mark.parametrize("shape", ["hostile", "skipped folders", "no model", "one model"])
def test_junit_made_of_one_part_per_model_is_the_document_written_whole(doc, shape):
    """Each model's testsuite is made on its own (and kept between runs), its timestamp the run's:
    the document is byte for byte the one tree ``xml.etree`` would write."""
    if shape != "hostile":
        names = {"skipped folders": ["good", "bad|model"], "no model": [], "one model": ["mid"]}[shape]
        doc["models"] = {name: doc["models"][name] for name in names}
    if shape in ("skipped folders", "no model"):
        doc["skipped_models"] = [{"tier": "user", "folder": 'a "folder" <b>', "reason": "not a folder & more"}]
    doc["models"].get("good", {}).update(model_name="good")
    assert render_junit(doc) == _junit_as_one_tree(doc)


def test_summary_md_has_leaderboard_per_prompt_and_failed_checks(doc):
    text = render_markdown_summary(doc)
    assert text.startswith("## RubricBench results: run `20250101_000000`")
    board = text.split("### Leaderboard")[1].split("###")[0]
    rows = [line for line in board.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [row.split(" | ")[1] for row in rows] == ["good", "mid", "bad\\|model"]
    assert "| 1 | good | reference | 100.00/100 | 100.00% | 100.0–100.0 | A+ | Gold | 4/4 |" in board
    per_prompt = text.split("### Per-prompt results")[1].split("###")[0]
    assert "| good | ✅ 25.00 | ✅ 25.00 | ✅ 25.00 | ✅ 25.00 |" in per_prompt
    assert "⚠️ " in per_prompt and "❌ " in per_prompt
    failed = text.split("### Where the points went")[1]
    check = doc["models"]["bad|model"]["prompts"]["prompt_1"]["checks"][1]
    lost = check["points"] - check["earned"]
    assert f"| bad\\|model | prompt_1 | {lost:.2f} | {check['id']} | {check['status']} |" in failed
    assert "no &lt;tag&gt; &amp; \\_emphasis\\_ here" in failed
    total = sum(len(p.losses) for m in run_view(doc).models for p in m.prompts)
    rows = [line for line in failed.splitlines() if line.startswith("| ") and not line.startswith("| Model")]
    assert total > MAX_FAILED_ROWS and len(rows) == MAX_FAILED_ROWS  # every check that lost points, each gate
    assert f"…and {total - MAX_FAILED_ROWS} more; see report.html" in failed and "gate |" in failed
    assert "\n" not in md("a\nb") and "<" not in md("<script>") and md("a|b") == "a\\|b"


def test_summary_md_when_nothing_failed():
    text = render_markdown_summary(run_to_dict(make_run(make_model("good", 1.0))))
    assert "Nowhere: every graded task earned all of its points." in text


def test_models_under():
    doc = run_to_dict(make_run(make_model("good", 1.0), make_model("mid", 0.7)))
    mid = doc["models"]["mid"]["percentage"]
    assert models_under(doc, 100.0) == [("mid", mid)]
    assert models_under(doc, mid) == [] and models_under(doc, 0) == []


@pytest.fixture
def tree(tmp_path, monkeypatch):
    subs = tmp_path / "submissions"
    shutil.copytree(REFERENCE, subs / "reference_implementations" / "example_model")
    shutil.copytree(WEAK, subs / "user_submissions" / "weak_model")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RUBRICBENCH_TEST_DATA", str(ROOT / "test_data"))
    return tmp_path


def test_fail_under_exits_7_and_every_ci_output_is_written(tree, capsys):
    code = cli.main(["--all-models", "-q", "--fail-under", "60"])
    assert code == cli.EXIT_FAIL_UNDER == 7
    assert "--fail-under 60: weak_model scored" in capsys.readouterr().err
    doc = json.loads((tree / "results" / "latest_results.json").read_text(encoding="utf-8"))
    run_dir = tree / "results" / doc["run_id"]
    root = ET.parse(run_dir / "junit.xml").getroot()
    assert root.get("tests") == "8" and len(root.findall(".//testcase")) == 8
    assert "| weak_model |" in (run_dir / "summary.md").read_text(encoding="utf-8")
    assert "weak_model" in (run_dir / "report.html").read_text(encoding="utf-8")
    excerpts = [e for p in doc["models"]["weak_model"]["prompts"].values() for c in p["checks"]
                for e in c["evidence"] if "excerpt" in e]
    assert excerpts, "evidence lines of the graded files carry source excerpts"
    assert cli.main(["--model", "example_model", "-q", "--fail-under", "90"]) == cli.EXIT_OK


def test_fail_under_leaves_grading_problems_first(capsys):
    doc = run_to_dict(make_run(make_model("low", 0.2)))
    assert commands._gate(cli.EXIT_VALIDATION, doc, 50.0) == cli.EXIT_VALIDATION
    assert commands._gate(cli.EXIT_OK, doc, 50.0) == cli.EXIT_FAIL_UNDER
    assert commands._gate(cli.EXIT_OK, doc, None) == cli.EXIT_OK
    assert "low scored" in capsys.readouterr().err


def test_fail_under_takes_a_percentage():
    for bad in (["--fail-under", "101"], ["--fail-under", "-1"], ["--fail-under", "5", "--compare", "a", "b"]):
        with pytest.raises(SystemExit):
            cli.parse_args(bad)
    assert cli.parse_args(["--fail-under", "80"]).fail_under == 80.0
