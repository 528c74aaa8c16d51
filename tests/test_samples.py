"""Several samples per model: the ``samples/<id>/`` layout, grading and caching per sample,
the mean record and its statistics, and a sample that cannot be graded costing only itself."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from benchmark import cli
from benchmark.discovery import ModelEntry, scan_samples
from benchmark.reporting.results_json import run_to_dict, validate_results
from benchmark.sampling import combine, mean_result
from benchmark.reporting.terminal import format_lost_checks
from benchmark.reporting.view import model_view
from benchmark.types import CaseGroup, Evidence

from result_fakes import make_model, make_run
from trees import REFERENCE, ROOT, reference_tree

WEAK = ROOT / "tests" / "models" / "weak_model"


# ---- the layout ---------------------------------------------------------------------------


def test_a_model_without_samples_is_its_own_single_unit(tmp_path):
    entry = ModelEntry("m", "user_submissions", tmp_path)
    assert scan_samples(entry) == ([entry], [])


def test_samples_are_units_in_natural_order_and_bad_sample_folders_are_refused(tmp_path):
    folder = tmp_path / "samples"
    for sid in ("10", "2", "b", "a\u202eb", ".hidden", "_draft"):
        (folder / sid).mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (folder / "linked").symlink_to(tmp_path / "outside")
    (folder / "B").mkdir()  # reads as "b" once case-folded
    (folder / "notes.txt").write_text("not a sample")
    units, refused = scan_samples(ModelEntry("m", "user_submissions", tmp_path))
    assert [(u.name, u.sample, u.unit, u.path.name) for u in units] == [
        ("m", "2", "m/samples/2", "2"), ("m", "10", "m/samples/10", "10"), ("m", "B", "m/samples/B", "B")]
    assert {r.name: r.reason for r in refused} == {
        "m/samples/a\u202eb": "it contains control, bidirectional or non-UTF-8 characters",
        "m/samples/b": "it reads as the sample 'B'",
        "m/samples/linked": "it is a symbolic link (not followed)",
    }


def test_a_samples_folder_that_is_a_link_or_empty_refuses_the_model(tmp_path):
    (tmp_path / "empty" / "samples").mkdir(parents=True)
    assert scan_samples(ModelEntry("e", "t", tmp_path / "empty"))[1][0].reason == \
        "it holds no sample folder to grade"
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / "samples").symlink_to(tmp_path / "empty" / "samples")
    units, refused = scan_samples(ModelEntry("l", "t", tmp_path / "linked"))
    assert units == [] and refused[0].name == "l/samples" and "symbolic link" in refused[0].reason


# ---- the mean record ----------------------------------------------------------------------


def _samples(*defaults: float, name: str = "multi"):
    return [replace(make_model(name, default=d), sample=str(i)) for i, d in enumerate(defaults, 1)]


def test_the_mean_record_is_the_mean_of_its_samples_and_keeps_every_one():
    samples = _samples(1.0, 0.5, 0.0)
    model = mean_result(samples)
    assert model.sample is None and [s.sample for s in model.samples] == ["1", "2", "3"]
    assert model.percentage == pytest.approx(sum(s.percentage for s in samples) / 3, abs=1e-3)
    for prompt in model.prompts:
        scores = [next(p for p in s.prompts if p.prompt_id == prompt.prompt_id).score for s in samples]
        assert prompt.score == pytest.approx(sum(scores) / 3, abs=1e-3)
        assert prompt.passed is False  # passed in 1 of 3 samples: not by most of them
        check = prompt.categories[0].checks[0]
        assert check.status == "partial"
        assert check.rationale.startswith("the mean of 3 samples; passed in 1; ")
        assert check.rationale.endswith(f"; not in 2, 3 (sample 2: {check.id} rationale)")
        assert all(e.file.startswith("samples/2/") for e in check.evidence)
    doc = run_to_dict(make_run(model, make_model("single", default=0.5)))
    validate_results(doc)  # the schema, and rules 1 to 5 of benchmark.reporting.consistency
    record = doc["models"]["multi"]
    assert set(record["samples"]) == {"1", "2", "3"}
    assert record["statistics"]["samples"] == 3 and doc["models"]["single"]["statistics"]["samples"] == 1
    assert record["statistics"]["tasks"]["prompt_1"]["passed"] == 1
    assert record["statistics"]["tasks"]["prompt_1"]["pass_at"] == {"1": pytest.approx(1 / 3, abs=1e-4)}


def _with_groups(model, *groups):
    """``model`` with its first check of every prompt judging these case groups."""
    def prompt(p):
        first, *rest = p.categories
        checks = (replace(first.checks[0], groups=tuple(CaseGroup(*g) for g in groups)), *first.checks[1:])
        return replace(p, categories=(replace(first, checks=checks), *rest))

    return replace(model, prompts=tuple(prompt(p) for p in model.prompts))


def test_the_shown_and_hidden_cases_of_the_samples_add_up_and_are_shown_apart():
    one, two = _samples(1.0, 0.5)
    model = mean_result([_with_groups(one, ("shown", 4, 4), ("hidden", 5, 6)),
                         _with_groups(two, ("shown", 3, 4), ("hidden", 0, 6))])
    check = model.prompts[0].categories[0].checks[0]
    assert [tuple(g) for g in check.groups] == [("shown", 7, 8), ("hidden", 5, 12)]
    record = run_to_dict(make_run(model))["models"]["multi"]["prompts"]["prompt_1"]["checks"][0]
    assert record["cases"] == [{"group": "shown", "right": 7, "of": 8}, {"group": "hidden", "right": 5, "of": 12}]
    line = next(text for text in format_lost_checks(model_view(run_to_dict(make_run(model))["models"]["multi"])
                                                    .prompts[0]) if check.id in text)
    assert f"{check.id} (" in line and "[shown 7/8 · hidden 5/12] the mean of 2 samples" in line
    mixed = mean_result([_with_groups(one, ("hidden", 5, 6)), _with_groups(two, ("shown", 3, 4), ("hidden", 0, 6))])
    assert mixed.prompts[0].categories[0].checks[0].groups == ()  # (not the same groups: not added up)


def test_a_single_folder_model_is_unchanged_and_pass_at_k_above_n_is_left_out():
    single = make_model("single", default=0.5)
    assert combine([single]) == [single]
    doc = run_to_dict(make_run(mean_result(_samples(1.0, 0.0)), single), pass_at=(1, 2, 5))
    assert doc["models"]["multi"]["statistics"]["tasks"]["prompt_2"]["pass_at"] == {"1": 0.5, "2": 1.0}
    assert doc["models"]["single"]["statistics"]["tasks"]["prompt_2"]["pass_at"] == {"1": 0.0}
    assert "samples" not in doc["models"]["single"]
    total = doc["models"]["single"]["statistics"]["total"]
    assert total["mean"] == pytest.approx(doc["models"]["single"]["percentage"], abs=1e-3)


def test_a_sample_of_another_model_name_or_nested_samples_fail_validation():
    doc = run_to_dict(make_run(mean_result(_samples(1.0, 0.5))))
    doc["models"]["multi"]["samples"]["1"]["model_name"] = "other"
    with pytest.raises(Exception, match="samples.1.model_name"):
        validate_results(doc)


def test_the_statistics_are_reproducible_and_a_models_interval_ignores_the_others():
    first = run_to_dict(make_run(mean_result(_samples(1.0, 0.4, 0.7)), make_model("b", default=0.6)))
    again = run_to_dict(make_run(mean_result(_samples(1.0, 0.4, 0.7))))
    assert first["models"]["multi"]["statistics"] == again["models"]["multi"]["statistics"]
    other = run_to_dict(make_run(mean_result(_samples(1.0, 0.4, 0.7))), seed=7)
    assert other["models"]["multi"]["statistics"]["total"]["mean"] == \
        first["models"]["multi"]["statistics"]["total"]["mean"]


# ---- graded as a user would -------------------------------------------------------------


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """example_model alone; ``multi`` of three samples (two reference answers and the weak
    model's) and ``weak_model`` alone, graded with --workers 2, then again from the cache."""
    tmp_path = tmp_path_factory.mktemp("samples")
    with pytest.MonkeyPatch.context() as monkeypatch:
        reference_tree(tmp_path, monkeypatch)
        users = tmp_path / "submissions" / "user_submissions"
        for sid in ("1", "2"):
            shutil.copytree(REFERENCE, users / "multi" / "samples" / sid)
        shutil.copytree(WEAK, users / "multi" / "samples" / "3")
        shutil.copytree(WEAK, users / "weak_model")
        args = ["--all-models", "--no-metadata", "--workers", "2", "--pass-at", "1,2",
                "--results-dir", str(tmp_path / "results")]
        code = cli.main(args)
        first = json.loads((tmp_path / "results" / "latest_results.json").read_text())
        again_code = cli.main(args)
        again = json.loads((tmp_path / "results" / "latest_results.json").read_text())
    return first, code, again, again_code


def test_each_sample_is_graded_as_the_model_folder_it_is(graded):
    doc, code, _, _ = graded
    assert code == 0
    multi, weak, reference = (doc["models"][n] for n in ("multi", "weak_model", "example_model"))
    assert list(multi["samples"]) == ["1", "2", "3"]
    for sid, like in (("1", reference), ("2", reference), ("3", weak)):
        assert {k: p["score"] for k, p in multi["samples"][sid]["prompts"].items()} == \
            {k: p["score"] for k, p in like["prompts"].items()}
    assert multi["percentage"] == pytest.approx((2 * reference["percentage"] + weak["percentage"]) / 3, abs=1e-3)
    assert multi["statistics"]["samples"] == 3
    assert multi["statistics"]["tasks"]["prompt_1"]["pass_at"]["2"] == pytest.approx(1.0)
    assert "2" not in weak["statistics"]["tasks"]["prompt_1"]["pass_at"]
    low, high = multi["statistics"]["total"]["low"], multi["statistics"]["total"]["high"]
    assert low <= multi["percentage"] <= high
    # four tasks cannot tell models apart: nobody is surely better than anybody
    assert doc["comparison"]["significance"]["ranks"] == {"example_model": 1, "multi": 1, "weak_model": 1}


def test_evidence_of_a_sample_carries_an_excerpt_of_that_samples_file(graded):
    doc = graded[0]
    sample = doc["models"]["multi"]["samples"]["3"]
    shown = [e for p in sample["prompts"].values() for c in p["checks"] for e in c["evidence"] if "excerpt" in e]
    mean = [e for p in doc["models"]["multi"]["prompts"].values() for c in p["checks"]
            for e in c["evidence"] if "excerpt" in e]
    assert shown and mean and all(e["file"].startswith("samples/3/") for e in mean)


def test_a_rerun_serves_every_sample_from_the_cache_with_the_same_figures(graded):
    first, _, again, code = graded
    assert code == 0 and again["models"]["multi"]["cached"] is True
    assert all(s["cached"] for s in again["models"]["multi"]["samples"].values())
    for name in first["models"]:
        assert again["models"][name]["percentage"] == first["models"][name]["percentage"]
        assert again["models"][name]["statistics"] == first["models"][name]["statistics"]


def test_a_sample_that_cannot_be_graded_costs_only_itself(tmp_path, monkeypatch, capsys):
    reference_tree(tmp_path, monkeypatch)
    model = tmp_path / "submissions" / "user_submissions" / "multi"
    shutil.copytree(REFERENCE, model / "samples" / "good")
    shutil.copytree(REFERENCE, model / "samples" / "broken")
    for path in (model / "samples" / "broken").glob("prompt_1*.py"):
        path.write_bytes(b"\xff\xfe not UTF-8 \x00")
    (model / "samples" / "bad\u202eid").mkdir()
    code = cli.main(["--model", "multi", "--no-metadata", "--results-dir", str(tmp_path / "r")])
    doc = json.loads((tmp_path / "r" / "latest_results.json").read_text())
    samples = doc["models"]["multi"]["samples"]
    assert code == 3  # a folder was not graded
    assert samples["broken"]["prompts"]["prompt_1"]["status"] == "error"
    assert samples["good"]["percentage"] == 100.0
    assert samples["broken"]["prompts"]["prompt_2"]["score"] == samples["good"]["prompts"]["prompt_2"]["score"]
    assert doc["skipped_models"] == [{"tier": "user_submissions", "folder": "multi/samples/bad\\u202eid",
                                      "reason": "it contains control, bidirectional or non-UTF-8 characters"}]
    assert "skipped sample folder 'multi/samples/bad\\u202eid'" in capsys.readouterr().err


# ---- the reports --------------------------------------------------------------------------


def test_the_table_groups_models_it_cannot_tell_apart_and_shows_each_interval(graded):
    from benchmark.reporting.terminal import format_table

    lines = format_table(graded[0])
    rows = {line.split()[1]: line for line in lines[2:5]}
    assert lines[1].split()[-3:] == ["Total", "95%", "CI"] or "95% CI" in lines[1]
    assert all(line.lstrip().startswith("1 ") for line in rows.values())  # one group: none surely better
    multi = next(line for line in lines if " multi ×3 " in line)
    ci = graded[0]["models"]["multi"]["statistics"]["total"]
    assert f"{ci['low']:.1f}–{ci['high']:.1f}" in multi
    assert "models that share a # cannot be told apart (here: none can)" in lines[-1]


def test_report_html_and_summary_md_show_the_intervals_and_the_samples(tmp_path, graded):
    from benchmark.reporting.html_report import render_html_report
    from benchmark.reporting.markdown_summary import render_markdown_summary as render_summary

    page = render_html_report(graded[0])
    assert page.count('class="whisker"') == 3 and '<table class="samples">' in page
    assert "<th>pass@2</th>" in page and "the mean of 3 samples" in page
    summary = render_summary(graded[0])
    assert "| # | Model | Tier | Score | Percent | 95% CI |" in summary
    assert "| 1 | multi ×3 |" in summary


def _saved(tmp_path, name, *defaults):
    doc = run_to_dict(make_run(mean_result(_samples(*defaults))), seed=1)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_the_regression_gate_can_require_significance(tmp_path, capsys):
    before = _saved(tmp_path, "before", 0.9, 0.92, 0.88, 0.91, 0.9, 0.89)
    real = _saved(tmp_path, "real", 0.7, 0.72, 0.69, 0.71, 0.7, 0.68)
    noise = _saved(tmp_path, "noise", 0.92, 0.86, 0.9, 0.87, 0.91, 0.88)
    gate = ["--fail-on-regression", "0.5", "--results-dir", str(tmp_path)]
    assert cli.main(["--compare", before, noise, *gate]) == 6  # a drop of 1.43 points fails the plain gate
    assert "FAILED: multi -1.43 (p = " in capsys.readouterr().out
    assert cli.main(["--compare", before, noise, *gate, "--significance", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "[not significant: p = " in out and "significantly (p < 0.05)" in out
    assert cli.main(["--compare", before, real, *gate, "--significance", "0.05"]) == 6
    out = capsys.readouterr().out
    assert "[significant: p = " in out and "(6 tasks" not in out and "(4 tasks, 6 vs 6 samples)" in out
    assert "FAILED: multi -" in out


def test_significance_needs_compare_and_a_level_between_0_and_1(capsys):
    for argv in (["--significance", "0.05"], ["--compare", "a", "b", "--significance", "1.5"]):
        with pytest.raises(SystemExit) as stop:
            cli.main(argv)
        assert stop.value.code == 2
    assert "--significance needs --compare" in capsys.readouterr().err


def test_real_differences_are_kept_and_equal_models_grouped_when_graded_as_a_user_would(tmp_path, monkeypatch):
    """Three models of four samples each whose truth is known: ``ref_a`` and ``ref_b`` answer
    as the reference does, ``weak`` as the weak model. With one sample each no pair could be
    told apart on four tasks; with four, the weak model is surely worse than both, and the two
    alike share rank 1."""
    reference_tree(tmp_path, monkeypatch)
    users = tmp_path / "submissions" / "user_submissions"
    for model, source in (("ref_a", REFERENCE), ("ref_b", REFERENCE), ("weak", WEAK)):
        for sid in range(1, 5):
            shutil.copytree(source, users / model / "samples" / str(sid))
    code = cli.main(["--model", "ref_a", "--model", "ref_b", "--model", "weak", "--no-metadata",
                     "--workers", "2", "-q", "--results-dir", str(tmp_path / "r")])
    doc = json.loads((tmp_path / "r" / "latest_results.json").read_text())
    assert code == 0
    assert doc["comparison"]["significance"]["ranks"] == {"ref_a": 1, "ref_b": 1, "weak": 3}
    weak = doc["models"]["weak"]["statistics"]
    assert weak["total"]["high"] < doc["models"]["ref_a"]["statistics"]["total"]["low"]
    assert all(t["low"] == t["mean"] == t["high"] for t in weak["tasks"].values())  # four answers alike


def test_pass_at_takes_whole_numbers_and_the_run_records_them(graded, capsys):
    from benchmark.cli_args import parse_args

    assert parse_args(["--pass-at", "5,1,5"]).pass_at == (1, 5)
    for bad in ("0", "1,x", "", "10001"):
        with pytest.raises(SystemExit) as stop:
            parse_args(["--pass-at", bad])
        assert stop.value.code == 2
    assert "--pass-at" in capsys.readouterr().err
    assert graded[0]["_metadata"]["config"]["pass_at"] == [1, 2]
