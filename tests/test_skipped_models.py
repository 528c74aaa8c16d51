"""Model folders a run does not grade (a name that cannot name a model, a symbolic link) are
in the run's files, not only on stderr: ``skipped_models`` in results.json and a section or
testcase in every report, each name escaped by ``benchmark.untrusted`` first."""

from __future__ import annotations

import copy
import json
import shutil
import xml.etree.ElementTree as ET

import pytest

from benchmark import cli
from benchmark.reporting.results_json import ResultsSchemaError, run_to_dict, validate_results
from benchmark.types import RunResult

from trees import REFERENCE, reference_tree

REPORTS = ("summary_report.txt", "summary.md", "report.html", "junit.xml")
LINKED = "<link&model>"  # a good name: refused because the folder is a symbolic link
BIDI = "evil<b>&\u202emodel"  # the name check refuses the override
LONG = "L&" * 120  # 240 characters: over the 128 a model name may have
BIDI_SHOWN = "evil<b>&\\u202emodel"
LONG_SHOWN = "L&" * 87 + "L... (65 more characters)"  # cut to at most 200 characters by untrusted.text
EXPECTED = [
    {"tier": "reference_implementations", "folder": LONG_SHOWN,
     "reason": "it is 240 characters long; a model name has at most 128"},
    {"tier": "reference_implementations", "folder": BIDI_SHOWN,
     "reason": "it contains control, bidirectional or non-UTF-8 characters"},
    {"tier": "user_submissions", "folder": LINKED, "reason": "it is a symbolic link (not followed)"},
]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One run over the reference model and three folders it does not grade; returns the run
    folder and the exit code."""
    tmp_path = tmp_path_factory.mktemp("skipped")
    with pytest.MonkeyPatch.context() as monkeypatch:
        reference_tree(tmp_path, monkeypatch)
        tiers = tmp_path / "submissions"
        for name in (BIDI, LONG):
            shutil.copytree(REFERENCE, tiers / "reference_implementations" / name)
        (tiers / "user_submissions").mkdir()
        shutil.copytree(REFERENCE, tmp_path / "outside")
        (tiers / "user_submissions" / LINKED).symlink_to(tmp_path / "outside")
        code = cli.main(["--all-models", "--no-metadata", "--results-dir", str(tmp_path / "results")])
    run_dir = json.loads((tmp_path / "results" / "latest_results.json").read_text())["run_id"]
    return tmp_path / "results" / run_dir, code


def test_the_run_exits_3_and_results_json_lists_every_folder_not_graded_escaped(graded):
    run_dir, code = graded
    doc = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    assert code == cli.EXIT_VALIDATION
    assert list(doc["models"]) == ["example_model"] and doc["benchmark_run"]["total_models"] == 1
    assert doc["skipped_models"] == EXPECTED
    assert len(doc["skipped_models"][0]["folder"]) <= 200
    validate_results(doc)


@pytest.mark.parametrize("report", REPORTS)
def test_every_report_names_each_folder_not_graded_and_carries_no_raw_override(graded, report):
    run_dir, _ = graded
    body = (run_dir / report).read_text(encoding="utf-8")
    assert "\u202e" not in body and LONG not in body
    if report == "summary_report.txt":
        assert "Model folders not graded (3):" in body
        for entry in EXPECTED:
            assert f"  ! {entry['folder']} (tier: {entry['tier']}): {entry['reason']}" in body
    elif report == "summary.md":
        assert "### ⚠️ Model folders not graded (3)" in body
        assert "| &lt;link&amp;model&gt; | user_submissions | it is a symbolic link (not followed) |" in body
        assert "| evil&lt;b&gt;&amp;\\\\u202emodel | reference_implementations |" in body
        assert "L&amp;L&amp;" in body and "... (65 more characters) |" in body
    elif report == "report.html":
        assert '<section id="not-graded">' in body and 'href="#not-graded"' in body
        assert "&lt;link&amp;model&gt;" in body and "<link&model>" not in body
        assert "evil&lt;b&gt;&amp;\\u202emodel" in body and "evil<b>" not in body
        assert "L&amp;L&amp;" in body and "(65 more characters)" in body
    else:
        _check_junit(body)


def _check_junit(body: str) -> None:
    root = ET.fromstring(body)
    suite = root.find("testsuite[@name='not graded']")
    assert suite is not None and suite.get("errors") == "3" and suite.get("tests") == "3"
    cases = suite.findall("testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        (f"rubricbench.{e['tier']}", e["folder"]) for e in EXPECTED]
    for case, entry in zip(cases, EXPECTED):
        error = case.find("error")
        assert error is not None and error.get("type") == "not_graded"
        assert error.get("message") == f"model folder not graded: {entry['reason']}"
    graded_errors = sum(int(s.get("errors")) for s in root.findall("testsuite"))
    assert int(root.get("errors")) == graded_errors and int(root.get("errors")) >= 3
    assert int(root.get("tests")) == 4 + 3  # the reference model's four prompts and three folders


def test_report_only_rebuilds_the_same_reports_from_results_json(graded, capsys):
    run_dir, _ = graded
    before = {name: (run_dir / name).read_bytes() for name in REPORTS}
    for name in REPORTS:
        (run_dir / name).unlink()
    assert cli.main(["--report-only", str(run_dir / "results.json")]) == cli.EXIT_OK
    assert {name: (run_dir / name).read_bytes() for name in REPORTS} == before


def test_the_terminal_lists_the_folders_not_graded_with_the_run_s_files(tmp_path, monkeypatch, capsys):
    reference_tree(tmp_path, monkeypatch)
    (tmp_path / "submissions" / "user_submissions").mkdir()
    shutil.copytree(REFERENCE, tmp_path / "outside")
    (tmp_path / "submissions" / "user_submissions" / BIDI).symlink_to(tmp_path / "outside")
    assert cli.main(["--all-models", "--no-metadata"]) == cli.EXIT_VALIDATION
    out = capsys.readouterr().out
    assert ("⚠️  not graded: model folder 'evil<b>&\\u202emodel' in user_submissions: "
            "it is a symbolic link (not followed)") in out
    assert "\u202e" not in out and out.index("not graded: model folder") < out.index("📄 results:")


def _doc_with(entries):
    doc = json.loads(json.dumps(_minimal()))
    doc["skipped_models"] = entries
    return doc


def _minimal():
    run = RunResult("1.0", "r1", "2024-01-01T00:00:00Z", "2024-01-01T00:00:01Z", {},
                    {"grader_version": "0", "rubric_hash": "x"}, ())
    return run_to_dict(run)


def test_a_run_without_folders_not_graded_has_no_skipped_models_key():
    assert "skipped_models" not in _minimal()
    validate_results(_minimal())


def test_the_schema_accepts_escaped_entries():
    validate_results(_doc_with(copy.deepcopy(EXPECTED)))


@pytest.mark.parametrize("broken", [
    [],
    [{"tier": "user_submissions", "folder": "m"}],
    [{"tier": "user_submissions", "folder": "m", "reason": "r", "path": "/etc"}],
    [{"tier": "templates", "folder": "m", "reason": "r"}],
    [{"tier": "user_submissions", "folder": "", "reason": "r"}],
    [{"tier": "user_submissions", "folder": "evil\u202emodel", "reason": "r"}],
    [{"tier": "user_submissions", "folder": "evil\x1b[2Jmodel", "reason": "r"}],
    [{"tier": "user_submissions", "folder": "m\n", "reason": "r"}],
    [{"tier": "user_submissions", "folder": "m" * 201, "reason": "r"}],
    [{"tier": "user_submissions", "folder": "m", "reason": "r" * 501}],
    ["m"],
], ids=["empty", "no-reason", "extra-key", "bad-tier", "empty-name", "raw-bidi", "raw-escape",
        "trailing-newline", "long-name", "long-reason", "not-an-object"])
def test_the_schema_rejects_a_malformed_entry(broken):
    with pytest.raises(ResultsSchemaError) as raised:
        validate_results(_doc_with(broken))
    assert raised.value.path.startswith("$.skipped_models"), raised.value.path


def _only_a_link(tmp_path, monkeypatch):
    """A submissions tree whose only model folder is a symbolic link to a copy of the reference."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RUBRICBENCH_TEST_DATA", str(REFERENCE.parents[2] / "test_data"))
    (tmp_path / "submissions" / "user_submissions").mkdir(parents=True)
    shutil.copytree(REFERENCE, tmp_path / "outside")
    (tmp_path / "submissions" / "user_submissions" / LINKED).symlink_to(tmp_path / "outside")


@pytest.mark.parametrize("selection", [["--all-models"], ["--model", LINKED]])
def test_a_run_whose_every_folder_is_skipped_writes_that_down_and_exits_3(tmp_path, monkeypatch, capsys,
                                                                         selection):
    _only_a_link(tmp_path, monkeypatch)
    assert cli.main([*selection, "--no-metadata", "--results-dir", "results"]) == cli.EXIT_VALIDATION
    out = capsys.readouterr().out
    assert "Grading no model: every model folder found is skipped (listed below)" in out
    assert f"not graded: model folder '{LINKED}' in user_submissions" in out
    latest = json.loads((tmp_path / "results" / "latest_results.json").read_text())
    run_dir = tmp_path / "results" / latest["run_id"]
    doc = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    validate_results(doc)
    assert doc["models"] == {} and doc["benchmark_run"]["total_models"] == 0
    assert doc["skipped_models"] == [EXPECTED[2]] and doc["comparison"]["ranking"] == []
    said = "No model was graded: every model folder found was skipped"
    assert said in (run_dir / "summary_report.txt").read_text(encoding="utf-8")
    markdown = (run_dir / "summary.md").read_text(encoding="utf-8")
    assert said in markdown and "every check passed" not in markdown
    assert said in (run_dir / "report.html").read_text(encoding="utf-8")
    root = ET.fromstring((run_dir / "junit.xml").read_text(encoding="utf-8"))
    assert (root.get("tests"), root.get("errors")) == ("1", "1")
    before = (run_dir / "summary.md").read_bytes()
    (run_dir / "summary.md").unlink()
    assert cli.main(["--report-only", str(run_dir / "results.json")]) == cli.EXIT_OK
    assert (run_dir / "summary.md").read_bytes() == before


def test_a_model_asked_for_that_is_not_there_is_exit_2_even_beside_a_skipped_one(tmp_path, monkeypatch,
                                                                                  capsys):
    _only_a_link(tmp_path, monkeypatch)
    assert cli.main(["--model", "absent", "--model", LINKED, "--results-dir", "results"]) == \
        cli.EXIT_MISSING_MODEL
    assert "model 'absent' not found" in capsys.readouterr().err
    assert not (tmp_path / "results").exists()
