"""Reports of a run that graded task packs besides the core pack: per-pack totals and
rankings in results.json, every writer naming each task and each pack's subtotal, JUnit per
task, and --compare across runs of different suites. A core-only run gets none of it."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from benchmark.engine.cache import model_from_dict
from benchmark.reporting.chart import render_comparison_chart
from benchmark.reporting.html_report import render_html_report
from benchmark.reporting.junit import render_junit
from benchmark.reporting.markdown_summary import render_markdown_summary
from benchmark.reporting.results_json import model_to_dict, run_to_dict, validate_results
from benchmark.reporting.saved_runs import compare_files
from benchmark.reporting.text_summary import render_summary
from benchmark.reporting.writer import REPORTS, write_run
from benchmark.reporting.run_diff import diff_runs, regressions
from result_fakes import PACK_TASKS, SIX_TASKS, make_model, make_run, suite_meta

LONG = "text_pack.a_rather_long_task_identifier_for_layout"
KEYS = [t.id for t in SIX_TASKS]


@pytest.fixture
def doc():
    alpha = make_model("alpha", 0.9, tasks=SIX_TASKS, per_task={LONG: 0.2})
    beta = make_model("beta", 0.6, tasks=SIX_TASKS)
    return run_to_dict(make_run(alpha, beta, run_id="20250101_packs", suite=suite_meta(SIX_TASKS)))


def test_a_six_task_document_is_schema_valid_and_out_of_the_suites_points(doc):
    validate_results(doc)
    for model in doc["models"].values():
        assert list(model["prompts"]) == KEYS
        assert model["total_possible"] == 140.0  # 4 x 25 + 25 + 15
        assert model["percentage"] == round(100 * model["overall_score"] / 140, 4)


def test_pack_totals_add_up_per_pack(doc):
    alpha = doc["models"]["alpha"]
    assert list(alpha["packs"]) == ["core", "data_pack", "text_pack"]
    core = sum(alpha["prompts"][k]["score"] for k in KEYS[:4])
    assert alpha["packs"]["core"] == {"score": round(core, 4), "max_score": 100.0,
                                      "percentage": round(core, 4), "tasks": 4, "passed": 4}
    text = alpha["packs"]["text_pack"]
    assert (text["max_score"], text["tasks"], text["passed"]) == (15.0, 1, 0)
    assert text["score"] == alpha["prompts"][LONG]["score"]
    assert text["percentage"] == round(100 * text["score"] / 15, 4)
    assert sum(p["score"] for p in alpha["packs"].values()) == pytest.approx(alpha["overall_score"], abs=1e-3)


def test_pack_rankings_rank_models_by_their_score_on_each_pack(doc):
    rankings = doc["comparison"]["pack_rankings"]
    assert list(rankings) == ["core", "data_pack", "text_pack"]
    assert [r["model"] for r in rankings["core"]] == ["alpha", "beta"]
    assert [r["model"] for r in rankings["text_pack"]] == ["beta", "alpha"]  # alpha did badly there
    top = rankings["text_pack"][0]
    assert top == {"model": "beta", "score": doc["models"]["beta"]["packs"]["text_pack"]["score"],
                   "percentage": doc["models"]["beta"]["packs"]["text_pack"]["percentage"]}


def test_a_core_only_document_has_no_packs_or_pack_rankings():
    doc = run_to_dict(make_run(make_model("alpha", 0.9), make_model("beta", 0.5)))
    validate_results(doc)
    assert "pack_rankings" not in doc["comparison"]
    assert all("packs" not in model for model in doc["models"].values())


def test_a_pack_only_run_has_its_pack_and_a_pack_with_two_tasks_sums_both():
    tasks = PACK_TASKS[:2]
    doc = run_to_dict(make_run(make_model("solo", 0.5, tasks=tasks), suite=suite_meta(tasks)))
    validate_results(doc)
    assert doc["models"]["solo"]["packs"]["data_pack"]["tasks"] == 2
    assert doc["models"]["solo"]["packs"]["data_pack"]["max_score"] == 35.0
    assert list(doc["comparison"]["pack_rankings"]) == ["data_pack"]


def test_the_cache_round_trip_ignores_and_rebuilds_pack_totals(doc):
    record = doc["models"]["alpha"]
    model = model_from_dict(record)  # a record with ``packs`` reads back as the same result
    assert "packs" not in model_to_dict(model)  # the cache stores the record without them
    again = run_to_dict(make_run(model, model_from_dict(doc["models"]["beta"]),
                                 run_id="20250101_packs", suite=suite_meta(SIX_TASKS)))
    assert again["models"]["alpha"]["packs"] == record["packs"]
    assert again["comparison"] == doc["comparison"]


def test_every_writer_produces_its_file(doc, tmp_path):
    paths = write_run(doc, tmp_path)
    for kind, (name, _) in REPORTS.items():
        assert paths[kind] == tmp_path / "20250101_packs" / name and paths[kind].stat().st_size > 0
    assert paths["results"].is_file() and paths["latest"].is_file()


@pytest.mark.parametrize("render", [render_summary, render_markdown_summary, render_html_report, render_junit,
                                    render_comparison_chart])
def test_each_report_names_every_task_key(doc, render):
    text = render(doc)
    for key in KEYS:
        assert key in text, (render.__name__, key)


@pytest.mark.parametrize("render", [render_summary, render_markdown_summary, render_html_report, render_junit])
def test_each_report_shows_each_packs_subtotal(doc, render):
    text = render(doc)
    for model in doc["models"].values():
        for pack, totals in model["packs"].items():
            assert pack in text
            assert f"{totals['score']:.2f}/{totals['max_score']:.0f}" in text, (render.__name__, pack)


def test_text_reports_and_html_have_a_leaderboard_per_pack(doc):
    assert "Leaderboard per pack:" in render_summary(doc)
    assert "### Leaderboard per pack" in render_markdown_summary(doc)
    html = render_html_report(doc)
    assert 'id="packs"' in html and "Text &lt;tasks&gt;" in html and "Text <tasks>" not in html
    assert "Wrap &lt;long&gt; lines &amp; more" in html
    assert "Per-pack scores:" in render_comparison_chart(doc)


def test_the_chart_keeps_its_width_with_long_keys(doc):
    widest = max(len(line) for line in render_comparison_chart(doc).splitlines())
    assert widest <= 15 + 5 * 14 + 5 + len(LONG) + 40  # numbered columns, five per table


def test_junit_has_one_testcase_per_task_and_a_classname_per_pack(doc):
    root = ET.fromstring(render_junit(doc).split("\n", 1)[1])
    for suite in root.iter("testsuite"):
        cases = suite.findall("testcase")
        assert len(cases) == 6 and suite.get("tests") == "6"
        name = suite.get("name")
        assert [c.get("classname") for c in cases] == [f"rubricbench.{name}.core"] * 4 + [
            f"rubricbench.{name}.data_pack", f"rubricbench.{name}.text_pack"]
        props = {p.get("name") for p in suite.iter("property")}
        assert {"pack.core", "pack.data_pack", "pack.text_pack"} <= props
    assert root.get("tests") == "12"


def test_core_only_junit_keeps_one_classname_per_model():
    doc = run_to_dict(make_run(make_model("alpha", 0.9)))
    root = ET.fromstring(render_junit(doc).split("\n", 1)[1])
    assert {c.get("classname") for c in root.iter("testcase")} == {"rubricbench.alpha"}
    assert not any(p.get("name").startswith("pack.") for p in root.iter("property"))


def test_the_regression_gate_says_it_counts_only_the_tasks_both_runs_graded(tmp_path):
    """Dropping a pack's two tasks costs alpha points overall, which the gate does not count;
    it said "passed, no model dropped more than 0.50 points" under alpha's negative total."""
    old = run_to_dict(make_run(make_model("alpha", 0.8, tasks=SIX_TASKS), run_id="20250101_packs",
                               suite=suite_meta(SIX_TASKS)))
    new = run_to_dict(make_run(make_model("alpha", 0.8), run_id="20250102_core"))
    write_run(old, tmp_path)
    write_run(new, tmp_path)
    result = compare_files(tmp_path / "20250101_packs" / "results.json", tmp_path / "20250102_core" / "results.json",
                           threshold=0.5)
    assert diff_runs(old, new)["models"][0]["delta"] < -0.5 and result.regressions == ()
    scope = "on the tasks both runs graded: 2 tasks graded in one run only do not count"
    assert f"Regression gate (--fail-on-regression 0.50, {scope}): passed" in result.text
    assert f"drop of more than 0.50 points, {scope})" in result.html_path.read_text(encoding="utf-8")
    same = compare_files(tmp_path / "20250102_core" / "results.json", tmp_path / "20250102_core" / "results.json",
                         threshold=0.5)
    assert "Regression gate (--fail-on-regression 0.50): passed" in same.text


def test_compare_core_only_against_a_run_with_a_pack_lists_its_tasks_as_added(tmp_path):
    old = run_to_dict(make_run(make_model("alpha", 0.8), run_id="20250101_core"))
    new = run_to_dict(make_run(make_model("alpha", 0.8, tasks=SIX_TASKS), run_id="20250102_packs",
                               suite=suite_meta(SIX_TASKS)))
    write_run(old, tmp_path)
    write_run(new, tmp_path)
    result = compare_files(tmp_path / "20250101_core" / "results.json", tmp_path / "20250102_packs" / "results.json",
                           threshold=0.5)
    diff = diff_runs(old, new)
    assert [t["prompt"] for t in diff["tasks_added"]] == KEYS[4:] and diff["tasks_removed"] == []
    alpha = diff["models"][0]
    assert [p["change"] for p in alpha["prompts"]] == ["both"] * 4 + ["added"] * 2
    assert not any(f["prompt"] in KEYS[4:] for f in alpha["flips"])
    assert "Tasks only in the new run (added):" in result.text
    for key in KEYS[4:]:
        assert f"+ {key}" in result.text
    html = result.html_path.read_text(encoding="utf-8")
    assert 'id="tasks"' in html and LONG in html
    back = diff_runs(new, old)  # the other way round: removed, and no regression for it
    assert [t["prompt"] for t in back["tasks_removed"]] == KEYS[4:]
    assert regressions(back, 0.5) == []
