"""A results document whose figures contradict each other is refused: by the writer before
anything is written, and by --report-only and --compare when a saved file is read back."""

from __future__ import annotations

import copy
import json
import shutil

import pytest

from benchmark import cli
from benchmark.reporting.consistency import TOLERANCE, first_difference
from benchmark.reporting.results_json import ResultsSchemaError, run_to_dict, validate_results
from result_fakes import make_model, make_run

from trees import REFERENCE, reference_tree


@pytest.fixture
def doc():
    return run_to_dict(make_run(make_model("alpha", 0.9), make_model("beta", 0.5),
                                make_model("gamma", 0.7), run_id="20250101_run"))


def _prompt(doc, model="beta", pid="prompt_2"):
    return doc["models"][model]["prompts"][pid]


def _bump_prompt(doc):
    """A prompt's score raised and its model's totals kept in step: only the prompt's own
    categories disagree with it."""
    _prompt(doc)["score"] = round(_prompt(doc)["score"] + 2, 4)
    model = doc["models"]["beta"]
    model["overall_score"] = round(model["overall_score"] + 2, 4)
    model["percentage"] = round(model["overall_score"], 4)


def _bump_total(doc):
    doc["models"]["beta"]["overall_score"] += 5


def _bump_percentage(doc):
    doc["models"]["beta"]["percentage"] += 5


def _ghost_in_ranking(doc):
    doc["comparison"]["ranking"][1]["model"] = "ghost"


def _ranking_out_of_order(doc):
    ranking = doc["comparison"]["ranking"]
    ranking[0], ranking[1] = ranking[1], ranking[0]


def _ranking_score_disagrees(doc):
    doc["comparison"]["ranking"][2]["score"] = 99.0


def _model_left_out_of_ranking(doc):
    doc["comparison"]["ranking"].pop()


def _average_disagrees(doc):
    doc["comparison"]["prompt_performance"]["prompt_3"]["avg_score"] = 24.0


TAMPERING = [
    (_bump_prompt, "$.models.beta.prompts.prompt_2.score", "is not the sum of its categories' earned points"),
    (_bump_total, "$.models.beta.overall_score", "is not the sum of its prompts' scores"),
    (_bump_percentage, "$.models.beta.percentage", "is not 100 * overall_score / total_possible"),
    (_ghost_in_ranking, "$.comparison.ranking[1].model", "'ghost', where the models give 'gamma'"),
    (_ranking_out_of_order, "$.comparison.ranking[0].model", "'gamma', where the models give 'alpha'"),
    (_ranking_score_disagrees, "$.comparison.ranking[2].score", "99.0, where the models give"),
    (_model_left_out_of_ranking, "$.comparison.ranking", "2 entries, where the models give 3"),
    (_average_disagrees, "$.comparison.prompt_performance.prompt_3.avg_score", "24.0, where the models give"),
]


@pytest.mark.parametrize("tamper, path, said", TAMPERING, ids=[t[0].__name__.strip("_") for t in TAMPERING])
def test_validation_names_the_first_inconsistency(doc, tamper, path, said):
    validate_results(doc)
    tamper(doc)
    with pytest.raises(ResultsSchemaError) as raised:
        validate_results(doc)
    assert raised.value.path == path and said in str(raised.value)


@pytest.mark.parametrize("tamper, path, said", TAMPERING, ids=[t[0].__name__.strip("_") for t in TAMPERING])
def test_report_only_and_compare_refuse_an_inconsistent_file_naming_it(tmp_path, doc, capsys, tamper, path, said):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(doc), encoding="utf-8")
    tamper(doc)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    assert cli.main(["--report-only", str(bad)]) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}: not usable: results document invalid at {path}: ") and said in err
    assert cli.main(["--compare", str(good), str(bad)]) == cli.EXIT_ERROR
    assert f"{bad}: not usable" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "good.json"]  # nothing written


def test_an_untrusted_value_in_the_message_is_escaped(tmp_path, doc, capsys):
    doc["comparison"]["summary_stats"]["best_model"] = "evil\x1b[2J\u202emodel"  # (any string, for the schema)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert cli.main(["--report-only", str(path)]) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert "$.comparison.summary_stats.best_model: 'evil\\x1b[2J\\u202emodel', where the models give 'alpha'" in err
    assert "\x1b" not in err and "\u202e" not in err


def test_figures_within_the_writer_s_rounding_pass(doc):
    doc["models"]["beta"]["overall_score"] += TOLERANCE / 2
    doc["models"]["beta"]["percentage"] += TOLERANCE / 2  # (total_possible is 100)
    doc["comparison"]["prompt_performance"]["prompt_3"]["avg_score"] += TOLERANCE / 2
    validate_results(doc)
    assert TOLERANCE < 0.001  # (a tampered figure shown with two decimals is never let through)


def test_an_optional_summary_field_may_be_absent_but_not_wrong(doc):
    older = copy.deepcopy(doc)
    del older["comparison"]["summary_stats"]["grade_distribution"]
    validate_results(older)  # a document the schema allows, e.g. written by another tool
    doc["comparison"]["summary_stats"]["grade_distribution"] = {"A": 3}
    with pytest.raises(ResultsSchemaError, match=r"grade_distribution"):
        validate_results(doc)


def test_first_difference_reports_extra_keys_and_types():
    assert first_difference({"a": 1, "b": 2}, {"a": 1}, "$") == ("$.b", "not given by the models")
    assert first_difference({"a": True}, {"a": True}, "$") is None
    assert first_difference({"a": 1}, {"a": True}, "$") == ("$.a", "1, where the models give True")
    assert first_difference([1.0, 2.0], [1.0, 2.00001], "$") is None


def test_a_real_run_writes_a_file_that_passes_and_rebuilds(tmp_path, monkeypatch):
    reference_tree(tmp_path, monkeypatch)
    user = tmp_path / "submissions" / "user_submissions"
    user.mkdir()
    shutil.copytree(REFERENCE, user / "second_model")
    (user / "second_model" / "prompt_3_transform.py").write_text("def transform(records):\n    return []\n")
    assert cli.main(["--all-models", "-q", "--no-metadata", "--results-dir", "results"]) == cli.EXIT_OK
    run_id = json.loads((tmp_path / "results" / "latest_results.json").read_text())["run_id"]
    saved = tmp_path / "results" / run_id / "results.json"
    doc = json.loads(saved.read_text(encoding="utf-8"))
    assert len(doc["models"]) == 2 and doc["comparison"]["ranking"][0]["model"] == "example_model"
    validate_results(doc)
    assert cli.main(["--report-only", str(saved)]) == cli.EXIT_OK
    assert cli.main(["--compare", str(saved), str(saved)]) == cli.EXIT_OK


def test_report_only_and_compare_spell_out_control_characters_a_saved_file_carries(tmp_path, doc, capsys):
    """A saved file is untrusted too (hand-edited, from another tool, or an older grader's):
    raw ESC, OSC and BEL in a title or a rationale reached summary.md, summary_report.txt and
    report.html as they were, so ``cat`` of a report drove the terminal."""
    prompt = _prompt(doc)
    prompt["title"] = "Title \x1b[31mred\x1b[0m"
    prompt["checks"][0]["rationale"] = "why \x1b]0;pwned\x07 \u202eevil"
    path = tmp_path / "run" / "results.json"
    path.parent.mkdir()
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert cli.main(["--report-only", str(path)]) == cli.EXIT_OK
    written = [p for p in path.parent.iterdir() if p.name != "results.json"]
    assert {p.name for p in written} >= {"summary.md", "summary_report.txt", "report.html", "junit.xml"}
    for report in written:
        body = report.read_text(encoding="utf-8")
        assert not any(c in body for c in "\x1b\x07\u202e"), report.name
    assert "Title \\x1b[31mred\\x1b[0m" in (path.parent / "summary_report.txt").read_text(encoding="utf-8")
    assert "why \\x1b]0;pwned\\x07 \\u202eevil" in (path.parent / "report.html").read_text(encoding="utf-8")
    assert json.loads(path.read_text(encoding="utf-8")) == doc  # the saved file itself is left alone
    capsys.readouterr()
    assert cli.main(["--compare", str(path), str(path)]) == cli.EXIT_OK
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\u202e" not in out
    html = next(path.parent.glob("comparison_*.html")).read_text(encoding="utf-8")
    assert not any(c in html for c in "\x1b\x07\u202e")
