"""--compare: deltas per model, prompt and category, flipped checks, new and removed models,
the text and HTML outputs, and the --fail-on-regression exit code."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from benchmark import cli
from benchmark.reporting.diff_html import render_diff_html
from benchmark.reporting.diff_text import render_diff_text, signed
from benchmark.reporting.results_json import run_to_dict, validate_results
from benchmark.reporting.run_diff import diff_runs, regressions
from result_fakes import make_model, make_run


@pytest.fixture
def runs():
    old = run_to_dict(make_run(make_model("alpha", 0.9), make_model("beta", 0.5),
                               make_model("gone_model", 0.7), run_id="20250101_old"))
    new = run_to_dict(make_run(make_model("alpha", 0.9), make_model("beta", 0.3),
                               make_model("fresh<i>model", 1.0), run_id="20250102_new"))
    checks = new["models"]["alpha"]["prompts"]["prompt_1"]["checks"]
    checks[0]["earned"] = round(checks[0]["earned"] - 0.1, 4)  # same status, fewer points
    checks[1]["status"] = "fail"  # same points, new status (was partial)
    checks[1]["rationale"] = "<script>bad()</script> grader could not run"
    prompt_2 = new["models"]["alpha"]["prompts"]["prompt_2"]
    prompt_2["checks"][-1]["id"] = "renamed_check"  # one check removed, one added
    validate_results(new)
    return old, new


def _model(diff, name):
    return next(m for m in diff["models"] if m["model"] == name)


def test_models_in_both_new_and_removed(runs):
    diff = diff_runs(*runs)
    assert [m["model"] for m in diff["models"]] == ["alpha", "beta"]
    assert [b["model"] for b in diff["added"]] == ["fresh<i>model"]
    assert [b["model"] for b in diff["removed"]] == ["gone_model"]
    assert diff["added"][0]["score"] == 100.0 and not diff["rubric_changed"]


def test_deltas_per_model_prompt_and_category(runs):
    old, new = runs
    beta = _model(diff_runs(old, new), "beta")
    expected = round(new["models"]["beta"]["overall_score"] - old["models"]["beta"]["overall_score"], 4)
    assert beta["delta"] == expected < 0
    assert [p["prompt"] for p in beta["prompts"]] == ["prompt_1", "prompt_2", "prompt_3", "prompt_4"]
    for prompt in beta["prompts"]:
        pid = prompt["prompt"]
        assert prompt["delta"] == round(new["models"]["beta"]["prompts"][pid]["score"]
                                        - old["models"]["beta"]["prompts"][pid]["score"], 4)
        assert sum(c["delta"] for c in prompt["categories"].values()) == pytest.approx(prompt["delta"], abs=1e-3)
    assert sum(c["delta"] for c in beta["categories"].values()) == pytest.approx(beta["delta"], abs=1e-3)
    assert beta["categories"]["execution"]["delta"] < 0


def test_flipped_checks_by_status_points_and_presence(runs):
    alpha = _model(diff_runs(*runs), "alpha")
    flips = {(f["prompt"], f["check"]): f for f in alpha["flips"]}
    p1 = runs[1]["models"]["alpha"]["prompts"]["prompt_1"]["checks"]
    removed_id = runs[0]["models"]["alpha"]["prompts"]["prompt_2"]["checks"][-1]["id"]
    assert set(flips) == {("prompt_1", p1[0]["id"]), ("prompt_1", p1[1]["id"]),
                          ("prompt_2", "renamed_check"), ("prompt_2", removed_id)}
    earned = flips[("prompt_1", p1[0]["id"])]
    assert earned["kind"] == "changed" and earned["old_status"] == earned["new_status"] and earned["delta"] == -0.1
    status = flips[("prompt_1", p1[1]["id"])]
    assert (status["old_status"], status["new_status"], status["delta"]) == ("partial", "fail", 0.0)
    assert flips[("prompt_2", "renamed_check")]["kind"] == "added"
    assert flips[("prompt_2", removed_id)]["kind"] == "removed"
    assert _model(diff_runs(*runs), "beta")["flips"]  # every beta check lost points


def test_identical_runs_have_no_deltas():
    doc = run_to_dict(make_run(make_model("alpha", 0.8)))
    diff = diff_runs(doc, copy.deepcopy(doc))
    alpha = diff["models"][0]
    assert alpha["delta"] == 0 and alpha["flips"] == [] and not diff["added"] and not diff["removed"]
    assert "unchanged" in render_diff_text(diff)


def test_regression_threshold_is_a_strict_drop(runs):
    diff = diff_runs(*runs)
    drop = -_model(diff, "beta")["delta"]
    assert [r["model"] for r in regressions(diff, drop - 0.01)] == ["beta"]
    assert regressions(diff, drop) == []  # exactly PTS is not "more than PTS"
    # alpha's score did not move; one sample on four tasks cannot make beta's drop significant
    assert regressions(diff, 0.0) == [{"model": "beta", "delta": -drop, "p_value": 0.125}]
    assert regressions(diff, 0.0, significant=True) == []


def test_text_comparison(runs):
    diff = diff_runs(*runs)
    text = render_diff_text(diff, 1.0, regressions(diff, 1.0))
    beta = _model(diff, "beta")
    assert f"beta: {beta['old']['score']:.2f} → {beta['new']['score']:.2f} ({signed(beta['delta'])})" in text
    assert "+ fresh<i>model" in text and "- gone_model" in text
    assert "partial → fail" in text and "renamed_check" in text and "check removed" in text
    assert "Regression gate (--fail-on-regression 1.00): FAILED: beta" in text
    assert "-0.00" not in text and "e-" not in text
    assert signed(-0.0) == "±0.00" and signed(0.004) == "±0.00" and signed(1.005) in ("+1.00", "+1.01")


def test_html_comparison_is_escaped_and_self_contained(runs):
    diff = diff_runs(*runs)
    html = render_diff_html(diff, 1.0, regressions(diff, 1.0))
    assert "<script" not in html and "&lt;script&gt;bad()&lt;/script&gt;" in html
    assert "fresh&lt;i&gt;model" in html and "gone_model" in html
    assert "default-src &#39;none&#39;" in html and "http://" not in html and "https://" not in html
    assert html.count('<tr class="flip"') == sum(len(m["flips"]) for m in diff["models"])
    assert "FAILED" in html


def _write(tmp_path: Path, runs) -> tuple[Path, Path]:
    old_dir, new_dir = tmp_path / "old", tmp_path / "new"
    old_dir.mkdir()
    new_dir.mkdir()
    (old_dir / "results.json").write_text(json.dumps(runs[0]), encoding="utf-8")
    (new_dir / "results.json").write_text(json.dumps(runs[1]), encoding="utf-8")
    return old_dir / "results.json", new_dir / "results.json"


def test_cli_compare_prints_text_and_writes_html_next_to_new(tmp_path, runs, capsys):
    old, new = _write(tmp_path, runs)
    assert cli.main(["--compare", str(old), str(new)]) == cli.EXIT_OK
    out = capsys.readouterr().out
    assert out.startswith("RubricBench comparison") and "gone_model" in out
    html = new.parent / "comparison_20250101_old_vs_20250102_new.html"
    assert html.exists() and str(html) in out
    assert cli.main(["--compare", str(old), str(new), "--results-dir", str(tmp_path / "out"), "-q"]) == 0
    assert (tmp_path / "out" / html.name).exists()
    assert str(html) not in capsys.readouterr().out  # -q: only the comparison itself


def test_cli_fail_on_regression_exits_6(tmp_path, runs, capsys):
    old, new = _write(tmp_path, runs)
    drop = -_model(diff_runs(*runs), "beta")["delta"]
    assert cli.EXIT_REGRESSION == 6
    assert cli.main(["--compare", str(old), str(new), "--fail-on-regression", f"{drop - 0.5:.4f}"]) == 6
    assert "FAILED: beta" in capsys.readouterr().out
    assert cli.main(["--compare", str(old), str(new), "--fail-on-regression", f"{drop + 0.5:.4f}"]) == 0
    assert cli.main(["--compare", str(new), str(old), "--fail-on-regression", "0"]) == 0  # beta improved


def test_cli_compare_rejects_invalid_inputs(tmp_path, runs, capsys):
    old, new = _write(tmp_path, runs)
    bad = copy.deepcopy(runs[1])
    del bad["models"]["beta"]["grade"]
    (tmp_path / "bad.json").write_text(json.dumps(bad), encoding="utf-8")
    assert cli.main(["--compare", str(old), str(tmp_path / "bad.json")]) == cli.EXIT_ERROR
    assert "grade" in capsys.readouterr().err
    assert cli.main(["--compare", str(old), str(tmp_path / "nope.json")]) == cli.EXIT_ERROR
    with pytest.raises(SystemExit):
        cli.parse_args(["--fail-on-regression", "1"])
    with pytest.raises(SystemExit):
        cli.parse_args(["--compare", "a", "b", "--fail-on-regression", "-1"])
    with pytest.raises(SystemExit):  # (a NaN threshold: no drop is ever more than it)
        cli.parse_args(["--compare", "a", "b", "--fail-on-regression", "nan"])


def test_cli_compare_into_a_folder_that_cannot_be_written_is_an_error_not_a_traceback(tmp_path, runs, capsys):
    old, new = _write(tmp_path, runs)
    taken = tmp_path / "taken"
    taken.write_text("a file, not a folder")
    assert cli.main(["--compare", str(old), str(new), "--results-dir", str(taken)]) == cli.EXIT_ERROR
    assert capsys.readouterr().err == f"error: results folder {taken}: {taken} is not a folder\n"
    assert taken.read_text() == "a file, not a folder"


def _skipped_in_new(runs, reason="it is a symbolic link (not followed)"):
    """The runs, with the new run listing gone_model's folder as skipped."""
    old, new = copy.deepcopy(runs[0]), copy.deepcopy(runs[1])
    new["skipped_models"] = [{"tier": "user_submissions", "folder": "gone_model", "reason": reason}]
    validate_results(new)
    return old, new


def test_a_model_graded_before_and_skipped_now_is_reported_as_not_graded_not_removed(runs):
    diff = diff_runs(*_skipped_in_new(runs))
    assert diff["removed"] == []
    assert [(s["model"], s["reason"]) for s in diff["skipped"]] == [
        ("gone_model", "it is a symbolic link (not followed)")]
    assert diff["skipped"][0]["score"] == runs[0]["models"]["gone_model"]["overall_score"]
    text = render_diff_text(diff)
    assert "2 in both runs, 1 new, 0 removed, 1 graded before and not graded now" in text
    assert "Models not graded in the new run (graded in the old one; their folder was skipped):" in text
    assert "  ! gone_model (" in text and ": it is a symbolic link (not followed)" in text
    assert "- gone_model" not in text
    html = render_diff_html(diff)
    assert '<tr class="skipped"><td class="st-error">not graded now: it is a symbolic link' in html
    # without skipped_models in the new run the model is removed, as before
    assert [b["model"] for b in diff_runs(*runs)["removed"]] == ["gone_model"]
    assert diff_runs(*runs)["skipped"] == []


def test_the_regression_gate_fails_on_a_model_graded_before_and_skipped_now(runs):
    old, new = _skipped_in_new(runs)
    failed = regressions(diff_runs(old, new), 100.0)  # no score drop can fail this threshold
    assert failed == [{"model": "gone_model", "delta": None, "skipped": "it is a symbolic link (not followed)"}]
    assert "FAILED: gone_model not graded" in render_diff_text(diff_runs(old, new), 100.0, failed)
    assert "gone_model not graded" in render_diff_html(diff_runs(old, new), 100.0, failed)
    assert regressions(diff_runs(*runs), 100.0) == []  # merely removed: no regression


def test_cli_fail_on_regression_exits_6_for_a_model_skipped_now(tmp_path, runs, capsys):
    old, new = _write(tmp_path, _skipped_in_new(runs))
    assert cli.main(["--compare", str(old), str(new), "--fail-on-regression", "100"]) == cli.EXIT_REGRESSION
    assert "FAILED: gone_model not graded" in capsys.readouterr().out
    assert cli.main(["--compare", str(old), str(new)]) == cli.EXIT_OK  # no gate asked for
    assert "gone_model" in capsys.readouterr().out


def test_runs_graded_with_other_settings_are_named_and_warned_about(runs, tmp_path, capsys):
    old, new = runs
    assert diff_runs(old, new)["settings_changed"] == []  # (the fixtures share every setting)
    old["_metadata"]["config"]["memory_mb"] = 512
    new["_metadata"]["config"].update(seed=7, memory_mb=256)
    new["_metadata"]["isolation"] = {**new["_metadata"]["isolation"], "unsafe": True}
    changed = {c["setting"]: (c["old"], c["new"]) for c in diff_runs(old, new)["settings_changed"]}
    assert changed["seed"] == (20261121, 7) and changed["memory_mb"][1] == 256
    assert changed["isolation"][1] == "unsafe" and set(changed) == {"seed", "memory_mb", "isolation"}
    text = render_diff_text(diff_runs(old, new))
    assert "WARNING: grading settings differ between the runs: seed 20261121 → 7; memory_mb" in text
    assert 'id="settings"' in render_diff_html(diff_runs(old, new))
    paths = []
    for name, doc in (("old", old), ("new", new)):
        path = tmp_path / name / "results.json"
        path.parent.mkdir()
        path.write_text(json.dumps(doc))
        paths.append(str(path))
    capsys.readouterr()
    code = cli.main(["-q", "--compare", *paths, "--fail-on-regression", "100"])
    out, err = capsys.readouterr()
    assert code == 0
    assert out.splitlines() == [out.splitlines()[0]] and out.startswith("Regression gate (--fail-on-regression 100.00")
    assert err.startswith("WARNING: grading settings differ") and "seed 20261121 → 7" in err


def test_each_prompt_s_state_is_the_one_every_report_gives(runs):
    """A task not submitted is ``not_attempted`` and one whose run hit the time-out ``timed_out``
    (``view.Prompt.state``), not merely ``fail``: a model that stopped submitting a task shows a
    change of state even where its score stayed 0."""
    old, new = runs
    beta = new["models"]["beta"]["prompts"]
    beta["prompt_2"]["status"] = "not_attempted"
    beta["prompt_3"]["execution"] = [{"mode": "script", "timed_out": True}]
    states = {p["prompt"]: (p["old_verdict"], p["new_verdict"]) for p in _model(diff_runs(old, new), "beta")["prompts"]}
    assert states == {"prompt_1": ("fail", "fail"), "prompt_2": ("fail", "not_attempted"),
                      "prompt_3": ("fail", "timed_out"), "prompt_4": ("fail", "fail")}
    text = render_diff_text(diff_runs(old, new))
    assert "  fail → not_attempted" in text and "  fail → timed_out" in text
