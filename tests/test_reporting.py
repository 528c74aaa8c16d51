import copy
import json
import os
import re
from dataclasses import replace
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from benchmark.reporting import writer
from benchmark.reporting.chart import BAR_WIDTH, bar, render_comparison_chart
from benchmark.reporting.results_json import (
    ResultsSchemaError,
    load_results,
    load_schema,
    run_to_dict,
    validate_results,
)
from benchmark.reporting.terminal import format_detailed_score, format_model_block, format_prompt_line
from benchmark.reporting.text_summary import render_summary
from benchmark.reporting.view import run_view
from benchmark.reporting.writer import atomic_write_json, atomic_write_text, write_run
from result_fakes import make_model, make_run


@pytest.fixture
def doc():
    return run_to_dict(make_run(make_model("alpha_model", 0.9),
                                make_model("beta", 0.5, tier="user", fractions={"security": 0.0}),
                                make_model("Sonnet4.5_Thinking", 1.0)),
                       cached_models={"beta"}, model_timestamps={"beta": "2025-01-01T00:00:30"})


def test_schema_is_valid_draft_2020_12():
    Draft202012Validator.check_schema(load_schema())


def test_run_to_dict_shape_is_valid(doc):
    validate_results(doc)
    assert doc["schema_version"] == "1.0" and doc["benchmark_run"]["total_models"] == 3
    beta = doc["models"]["beta"]
    assert beta["cached"] is True and beta["timestamp"] == "2025-01-01T00:00:30"
    assert doc["models"]["alpha_model"]["cached"] is False and "timestamp" not in doc["models"]["alpha_model"]
    prompt = beta["prompts"]["prompt_1"]
    assert set(prompt["detailed_scoring"]) == {"syntax", "structure", "execution", "quality", "security",
                                               "performance", "maintainability"}
    assert prompt["tests_passed"]["valid_syntax"] is False  # partial is not a pass
    assert prompt["checks"][0]["evidence"] == [{"file": "prompt_1.py", "line": 3, "note": "seen here"}]
    assert doc["_metadata"]["config"] == {"workers": 1}
    assert [e["model"] for e in doc["comparison"]["ranking"]] == ["Sonnet4.5_Thinking", "alpha_model", "beta"]


def test_feedback_lines_use_icons_and_marks(doc):
    full = doc["models"]["Sonnet4.5_Thinking"]["prompts"]["prompt_1"]["feedback"]
    assert full[0] == "✅ Syntax (5.0/5.0): ✓valid_syntax"
    beta = doc["models"]["beta"]["prompts"]["prompt_1"]["feedback"]
    security = [line for line in beta if "Security" in line][0]
    assert security.startswith("❌ Security (0.0/4.0)") and "✗safe_yaml_loading, no_security_issues" in security
    assert any(line.startswith("⚠️ Syntax") and "◐valid_syntax" in line for line in beta)
    # prompt_2 has no performance/maintainability points: no feedback line for them
    assert not any("Performance" in line for line in doc["models"]["beta"]["prompts"]["prompt_2"]["feedback"])


def test_json_roundtrip_is_stable(doc):
    assert json.loads(json.dumps(doc)) == doc


@pytest.mark.parametrize(
    "mutate, where",
    [
        (lambda d: d["models"]["beta"]["prompts"]["prompt_1"]["checks"][0].update(status="maybe"), "status"),
        (lambda d: d["models"]["beta"]["prompts"]["prompt_1"].update(status="fine"), "status"),
        (lambda d: d["models"]["beta"].pop("grade"), "$.models.beta"),
        (lambda d: d.pop("comparison"), "$"),
        (lambda d: d["models"]["beta"]["prompts"]["prompt_1"]["detailed_scoring"].pop("security"), "detailed_scoring"),
        (lambda d: d["models"]["beta"]["prompts"]["prompt_1"]["checks"][0].update(category="style"), "category"),
        (lambda d: d["models"]["beta"].update(percentage=120.0), "percentage"),
        (lambda d: d.update(schema_version="2.0"), "schema_version"),
        (lambda d: d.update(run_id="../evil"), "run_id"),
        (lambda d: d["_metadata"].pop("rubric_hash"), "_metadata"),
    ],
)
def test_schema_rejects_bad_documents(doc, mutate, where):
    bad = copy.deepcopy(doc)
    mutate(bad)
    with pytest.raises(ResultsSchemaError) as info:
        validate_results(bad)
    assert where in info.value.path or where in str(info.value)
    assert info.value.path.startswith("$")


def test_invariants_beyond_the_schema(doc):
    bad = copy.deepcopy(doc)
    check = bad["models"]["beta"]["prompts"]["prompt_1"]["checks"][0]
    check["earned"] = check["points"] + 1
    with pytest.raises(ResultsSchemaError, match="exceeds points"):
        validate_results(bad)
    bad = copy.deepcopy(doc)
    bad["benchmark_run"]["total_models"] = 7
    with pytest.raises(ResultsSchemaError, match="total_models"):
        validate_results(bad)


def test_duplicate_model_names_are_our_bug():
    with pytest.raises(ValueError, match="duplicate"):
        run_to_dict(make_run(make_model("same"), make_model("same")))


def test_load_results_validates(tmp_path, doc):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(doc), encoding="utf-8")
    assert load_results(good) == doc
    bad = copy.deepcopy(doc)
    bad["models"]["beta"]["prompts"]["prompt_1"]["status"] = "weird"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(ResultsSchemaError):
        load_results(path)


# ---- terminal, chart, summary ------------------------------------------------------------


def test_terminal_lines(doc):
    run = run_view(doc)
    prompt = run.model("Sonnet4.5_Thinking").prompt("prompt_1")
    assert format_prompt_line(prompt) == "   ✅ PASSED - Score: 25.00/25"
    failing = run.model("beta").prompt("prompt_1")
    assert format_prompt_line(failing).startswith("   ❌ FAILED - Score: ")
    err = replace(failing, status="error", error="file not found", score=0.0)
    assert format_prompt_line(err).startswith("   ⚠️ ERROR - Score: 0.00/25 (file not found)")
    assert format_prompt_line(replace(failing, status="not_attempted")).startswith("   ➖ NOT ATTEMPTED - Score: ")
    detail = format_detailed_score(prompt.categories).splitlines()
    assert detail[0] == "     └─ Syntax: 5.0/5.0, Structure: 3.0/3.0, Execution: 6.0/6.0"
    assert detail[1].startswith("        Quality: 3.0/3.0, Security: 4.0/4.0")
    assert format_detailed_score(()) == ""


def test_model_block_shows_every_prompt_and_total(doc):
    block = format_model_block(doc["models"]["beta"], show_checks=True)
    assert "Model: beta (user) [cached]" in block
    assert block.count("📝 prompt_") == 4
    assert "🎯 Final Score:" in block and doc["models"]["beta"]["grade"] in block
    assert "partial: valid_syntax" in block


def test_bar_is_fixed_width():
    for pct in (0, 33.3, 50, 99.9, 100, 150, -5):
        text = bar(pct)
        assert len(text) == BAR_WIDTH + 2
    assert bar(50) == "[" + "█" * 25 + "░" * 25 + "]"


def test_chart_sorted_with_names_and_rounded_numbers(doc):
    chart = render_comparison_chart(doc)
    names = ["Sonnet4.5_Thinking", "alpha_model", "beta"]
    positions = [chart.index(name) for name in names]
    assert positions == sorted(positions)
    pct = doc["models"]["alpha_model"]["percentage"]
    assert f"{pct:.2f}%" in chart and f"{pct:.3f}" not in chart  # two decimals, no float noise
    assert "prompt_4" in chart and "25.00/25 ✓" in chart
    assert render_comparison_chart(run_to_dict(make_run())).count("(no models)") == 1


def test_summary_contains_models_numbers_isolation_and_top_performers(doc):
    text = render_summary(doc)
    for name in doc["models"]:
        assert f"Model: {name}" in text
    assert "Top performers:" in text and "1. Sonnet4.5_Thinking: 100.0%" in text
    assert "process.timeout_s: 30" in text and "network: blocked" in text
    beta = doc["models"]["beta"]
    assert f"({beta['percentage']:.1f}%)" in text
    assert "security          0.0/4.0" in text
    assert "no_security_issues [fail]:" in text and "[prompt_1.py:3]" in text
    assert "Suggestions:" in text and "[from cache]" in text
    assert "-0.38 error_handling [partial]: error_handling rationale [prompt_1.py:3]" in text  # (two decimals)
    assert "where the" in text and "points went (gates: docs/scoring.md):" in text


def test_summary_leads_with_the_results_and_ends_with_the_run_environment(doc):
    lines = render_summary(doc).splitlines()
    assert lines.index("Top performers:") <= 5  # (title, run, rule, a blank line)
    environment = lines.index("Run environment")
    assert environment > max(i for i, line in enumerate(lines) if line.startswith("Model: "))
    assert any(line.startswith("Isolation") for line in lines[environment:])
    assert not any(line.startswith(("Isolation", "Grader ", "Python ")) for line in lines[:environment])


# ---- writer --------------------------------------------------------------------------------


def _leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_atomic_write_creates_and_replaces(tmp_path):
    target = tmp_path / "sub" / "out.json"
    atomic_write_json(target, {"a": 1})
    atomic_write_json(target, {"a": 2, "text": "é"})
    assert json.loads(target.read_text(encoding="utf-8")) == {"a": 2, "text": "é"}
    assert _leftovers(target.parent) == []


def test_atomic_write_keeps_old_file_when_serialisation_fails(tmp_path):
    target = tmp_path / "out.json"
    atomic_write_json(target, {"ok": True})
    with pytest.raises(TypeError):
        atomic_write_json(target, {"bad": object()})
    with pytest.raises(ValueError):
        atomic_write_json(target, {"nan": float("nan")})
    assert json.loads(target.read_text()) == {"ok": True}
    assert _leftovers(tmp_path) == []


def test_atomic_write_keeps_old_file_when_replace_fails(tmp_path, monkeypatch):
    target = tmp_path / "out.txt"
    atomic_write_text(target, "old")

    def broken_replace(src, dst):
        raise OSError("disk on fire")

    monkeypatch.setattr(writer.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk on fire"):
        atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert _leftovers(tmp_path) == []


def test_atomic_write_cleans_up_when_write_fails_midway(tmp_path, monkeypatch):
    target = tmp_path / "out.txt"
    atomic_write_text(target, "old")

    def broken_fsync(fd):
        raise OSError("fsync failed")

    monkeypatch.setattr(writer.os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        atomic_write_text(target, "new")
    assert target.read_text() == "old" and _leftovers(tmp_path) == []


def test_atomic_write_preserves_mode(tmp_path):
    target = tmp_path / "out.txt"
    atomic_write_text(target, "a")
    os.chmod(target, 0o640)
    atomic_write_text(target, "b")
    assert target.stat().st_mode & 0o777 == 0o640


def test_write_run_writes_every_file(tmp_path, doc):
    paths = write_run(doc, tmp_path)
    run_dir = tmp_path / doc["run_id"]
    assert paths["results"] == run_dir / "results.json"
    assert set(paths) == {"results", "summary", "chart", "report", "junit", "markdown", "latest", "latest_dir"}
    assert paths["latest_dir"].resolve() == run_dir.resolve()
    assert load_results(paths["results"]) == doc
    assert paths["latest"].read_bytes() == paths["results"].read_bytes()
    assert "Model Comparison" in paths["chart"].read_text(encoding="utf-8")
    assert "Top performers" in paths["summary"].read_text(encoding="utf-8")
    assert _leftovers(run_dir) == [] and _leftovers(tmp_path) == []


def test_latest_links_to_the_newest_runs_reports_and_leaves_a_folder_of_that_name_alone(tmp_path, doc):
    first = write_run(copy.deepcopy(doc), tmp_path)
    assert (tmp_path / "latest").is_symlink() and os.readlink(tmp_path / "latest") == doc["run_id"]
    assert (tmp_path / "latest" / "report.html").read_bytes() == first["report"].read_bytes()
    newer = {**copy.deepcopy(doc), "run_id": doc["run_id"] + "-2"}
    write_run(newer, tmp_path)
    assert os.readlink(tmp_path / "latest") == newer["run_id"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".latest")]  # (no temporary link left)
    mine = tmp_path / "mine"
    (mine / "latest").mkdir(parents=True)
    (mine / "latest" / "notes.txt").write_text("keep")
    paths = write_run(copy.deepcopy(doc), mine)
    assert "latest_dir" not in paths and (mine / "latest" / "notes.txt").read_text() == "keep"
    with pytest.raises(ValueError, match="unsafe run_id"):  # (a saved run named so would write into it)
        write_run({**copy.deepcopy(doc), "run_id": "latest"}, tmp_path)


def test_write_run_validates_before_writing_anything(tmp_path, doc):
    (tmp_path / "latest_results.json").write_text("previous", encoding="utf-8")
    bad = copy.deepcopy(doc)
    bad["models"]["beta"]["prompts"]["prompt_2"]["checks"][0]["status"] = "ok-ish"
    with pytest.raises(ResultsSchemaError):
        write_run(bad, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest_results.json"]
    assert (tmp_path / "latest_results.json").read_text(encoding="utf-8") == "previous"


def test_write_run_can_skip_latest(tmp_path, doc):
    paths = write_run(doc, tmp_path, update_latest=False)
    assert "latest" not in paths and not (tmp_path / "latest_results.json").exists()


def test_dumps_writes_what_the_standard_encoder_writes_with_indent_2(doc):
    doc = copy.deepcopy(doc)
    doc["models"]["beta"]["note"] = "Grüße, ✅ \u2028 \"quoted\" <tag>"
    expected = json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    assert writer.dumps(doc) == expected
    assert writer.dumps({1: [], "k": {}}) == '{\n  "1": [],\n  "k": {}\n}\n'


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), {1, 2}, object()])
def test_dumps_refuses_what_json_cannot_carry(bad):
    with pytest.raises((ValueError, TypeError)):
        writer.dumps({"value": [bad]})


def test_dumps_refuses_a_document_that_contains_itself():
    doc: dict = {"models": {}}
    doc["models"]["loop"] = doc
    with pytest.raises((ValueError, TypeError, RecursionError)):
        writer.dumps(doc)


@pytest.mark.parametrize("value", [0.0, -0.0, 1.005, 2.675, -3.14159, 1e16, 1e-9, 123456789.987654321,
                                   float("nan"), float("inf"), float("-inf"), 0, 7, -2, 10**400, True,
                                   False, None, "3.5", [1.5], {"x": 1.0}])
@pytest.mark.parametrize("digits", [0, 1, 2])
def test_fixed_formats_what_num_reads(value, digits):
    """``fixed``'s shortcut for finite floats gives what formatting ``num(value)`` gives."""
    from benchmark.reporting.common import fixed, num

    try:
        expected = f"{num(value):.{digits}f}"
    except OverflowError:  # (an int too large for a float: as before)
        with pytest.raises(OverflowError):
            fixed(value, digits)
        return
    assert fixed(value, digits) == expected


def test_every_report_ranks_by_real_differences_and_an_older_document_by_place():
    from benchmark.reporting.html_report import render_html_report
    from benchmark.reporting.markdown_summary import render_markdown_summary

    tied = run_to_dict(make_run(make_model("one", 0.8), make_model("two", 0.8), make_model("three", 0.5)))
    older = copy.deepcopy(tied)
    del older["comparison"]["significance"]  # (written before the statistics)
    for doc, three in ((tied, "1"), (older, "3")):  # four tasks tell no model apart: all share rank 1
        text = render_summary(doc)
        assert "  1. one: " in text and "  1. two: " in text and f"  {three}. three: " in text, text
        markdown = render_markdown_summary(doc)
        assert "| 1 | one |" in markdown and "| 1 | two |" in markdown and f"| {three} | three |" in markdown
        html = render_html_report(doc)
        places = re.findall(r'<tr class="model-row"[^>]*><td class="num" data-v="(\d+)">', html)
        assert places == ["1", "1", three]
