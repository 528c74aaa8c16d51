"""The grading engine: bad input becomes an error status naming the file; check crashes become data."""

from __future__ import annotations

import shutil
from pathlib import Path

import dataclasses

import pytest

from benchmark.engine.grading import GradeOptions, grade_model, grade_prompt
from benchmark.packs import registry
from benchmark.prompts import PROMPT_MODULES, module_for
from benchmark.prompts.base import Outcome

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model"
TEST_DATA = ROOT / "test_data"

BAD_INPUTS = {
    "missing": (None, "file not found"),
    "empty": (b"   \n", "file is empty"),
    "bom_only": (b"\xef\xbb\xbf", "file is empty"),  # an editor's "UTF-8 with BOM" of nothing
    "bom_and_blank_lines": (b"\xef\xbb\xbf\r\n \n", "file is empty"),
    "binary": (b"\x00\x01\x02import os\n", "binary file"),
    "non_utf8": (b"def f():\n    return '\xff\xfe'\n", "not valid UTF-8"),
    "huge": (b"x = 1\n" * 200_000, "file too large"),
    "syntax": (b"def transform_and_enrich_users(users:\n    return users\n", "syntax error"),
    "utf16_no_bom": ("def f():\n    return 1\n".encode("utf-16-le"), "UTF-16-LE text (no byte order mark)"),
    "utf16_bom": ("def f():\n    return 1\n".encode("utf-16"), "UTF-16 text (byte order mark)"),
    "latin1": ("def f():\n    return 'caf\u00e9'\n".encode("latin-1"),
               "it reads as Latin-1 (ISO-8859-1) or cp1252 text ('\u00e9' on line 2)"),
}
REFERENCE_P3 = (REFERENCE / "prompt_3_transform.py").read_text(encoding="utf-8")
CHAT_REPLIES = {  # a chat reply saved as the .py file -> what the reason must say
    "fenced": ("Here is the refactored function:\n\n```python\n" + REFERENCE_P3 + "```\n\nHope this helps!\n",
               f"the file is a chat reply: the code sits in a fenced block at lines 3-"
               f"{REFERENCE_P3.count(chr(10)) + 4}; the grader scores files exactly as delivered "
               "(Python stops at line 1: invalid syntax)"),
    "bare_fence": ("```\n" + REFERENCE_P3 + "```\n",
                   f"the code sits in a fenced block at lines 1-{REFERENCE_P3.count(chr(10)) + 2}"),
    "prose": ("Sure! Here is the code you asked for.\n" + REFERENCE_P3,
              "the file is a chat reply: line 1 is prose ('Sure! Here is the code you asked for.'), "
              "not code; the grader scores files exactly as delivered"),
    "prose_after": (REFERENCE_P3 + "\nThis version keeps the input list unchanged.\n",
                    f"line {REFERENCE_P3.count(chr(10)) + 2} is prose"),
}


def _model_with(tmp_path: Path, name: str, data: bytes | None) -> Path:
    model = tmp_path / "model"
    shutil.copytree(REFERENCE, model)
    target = model / name
    target.unlink()
    if data is not None:
        target.write_bytes(data)
    return model


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_python_input_is_an_error_naming_the_file(tmp_path, case):
    data, reason = BAD_INPUTS[case]
    model = _model_with(tmp_path, "prompt_3_transform.py", data)
    result = grade_prompt(module_for("prompt_3"), model, test_data=TEST_DATA)
    assert result.status == "error" and result.score == 0 and not result.passed
    assert result.error.startswith("prompt_3_transform.py: ") and reason in result.error
    statuses = {c.status for cat in result.categories for c in cat.checks}
    assert statuses == {"error"}


@pytest.mark.parametrize("case", sorted(CHAT_REPLIES))
def test_a_chat_reply_is_diagnosed_as_one_everywhere_and_still_scored_as_delivered(tmp_path, case):
    text, reason = CHAT_REPLIES[case]
    model = _model_with(tmp_path, "prompt_3_transform.py", text.encode("utf-8"))
    result = grade_prompt(module_for("prompt_3"), model, test_data=TEST_DATA)
    assert result.status == "error" and result.score == 0  # nothing is extracted from the reply
    assert result.error.startswith("prompt_3_transform.py: ") and reason in result.error, result.error
    checks = [c for cat in result.categories for c in cat.checks]
    assert all(c.status == "error" and reason in c.rationale for c in checks)


def test_a_chat_reply_yaml_is_named_in_the_parse_check_and_earns_no_style(tmp_path):
    model = _model_with(tmp_path, "prompt_2_config_fixed.yaml", b"")
    yaml_text = (REFERENCE / "prompt_2_config_fixed.yaml").read_text(encoding="utf-8")
    (model / "prompt_2_config_fixed.yaml").write_text(
        "Here is the corrected configuration:\n\n```yaml\n" + yaml_text + "```\n", encoding="utf-8")
    (model / "prompt_2_config.json").write_bytes(
        (REFERENCE / "prompt_2_config.json").read_text(encoding="utf-8").encode("utf-16-le"))
    result = grade_prompt(module_for("prompt_2"), model, test_data=TEST_DATA)
    checks = {c.id: c for cat in result.categories for c in cat.checks}
    fenced = f"the code sits in a fenced block at lines 3-{yaml_text.count(chr(10)) + 4}"
    assert checks["yaml_parses"].earned == 0 and fenced in checks["yaml_parses"].rationale
    assert "the YAML parser stops at line 3" in checks["yaml_parses"].rationale
    assert "UTF-16-LE text (no byte order mark)" in checks["json_parses"].rationale
    assert all(checks[i].earned == 0 and fenced in checks[i].rationale
               for i in ("yaml_indentation", "json_literals", "formatting_style", "no_duplication"))
    assert result.status == "ok" and result.score < 10


def test_one_bad_prompt_does_not_stop_the_others(tmp_path):
    model = _model_with(tmp_path, "prompt_1_solution.py", b"\x00binary")
    result = grade_model(model, "user_submissions", test_data=TEST_DATA)
    by_id = {p.prompt_id: p for p in result.prompts}
    assert by_id["prompt_1"].status == "error"
    assert all(by_id[p].status == "ok" and by_id[p].passed for p in ("prompt_2", "prompt_3", "prompt_4"))


def _replace_check(monkeypatch, name, fn):
    """Swap the function behind a registered check type for the test's duration."""
    monkeypatch.setitem(registry.CHECK_TYPES, name, dataclasses.replace(registry.CHECK_TYPES[name], fn=fn))


def test_a_crashing_check_becomes_an_error_record(monkeypatch):
    module = module_for("prompt_3")

    def broken(ctx):
        raise RuntimeError("bug in a check")

    _replace_check(monkeypatch, "core.p3.readable_loops", broken)
    result = grade_prompt(module, REFERENCE, test_data=TEST_DATA)
    check = next(c for cat in result.categories for c in cat.checks if c.id == "readable_loops")
    assert check.status == "error" and check.earned == 0
    assert "RuntimeError: bug in a check" in check.rationale
    with pytest.raises(RuntimeError):
        grade_prompt(module, REFERENCE, test_data=TEST_DATA, options=GradeOptions(debug=True))


@pytest.mark.parametrize("returned, why", [
    (None, "check returned NoneType, not an Outcome"),
    (0.5, "check returned float, not an Outcome"),
    (Outcome(float("nan"), "nan"), "check returned a fraction that is not a finite number (nan)"),
    (Outcome(float("inf"), "inf"), "check returned a fraction that is not a finite number (inf)"),
    (Outcome("1", "text"), "check returned a fraction that is not a finite number ('1')"),
    (Outcome(1.0, "ok", ("prompt_3_transform.py:3",)), "check returned evidence that is str, not Evidence"),
])
def test_a_check_that_returns_no_proper_outcome_is_an_error_record_not_a_crash_or_full_marks(
        monkeypatch, returned, why):
    """A plugin's check type returning None crashed the whole run with a traceback (no results
    written); a NaN fraction earned full points (``min(1.0, nan)`` is 1.0)."""
    module = module_for("prompt_3")
    _replace_check(monkeypatch, "core.p3.readable_loops", lambda ctx: returned)
    result = grade_prompt(module, REFERENCE, test_data=TEST_DATA)
    check = next(c for cat in result.categories for c in cat.checks if c.id == "readable_loops")
    assert (check.status, check.earned) == ("error", 0)
    assert check.rationale == f"internal error: {why}"


def test_outcome_status_is_derived_from_the_fraction(monkeypatch):
    module = module_for("prompt_3")
    _replace_check(monkeypatch, "core.p3.readable_loops", lambda ctx: Outcome.ratio(1, 4, "quarter"))
    result = grade_prompt(module, REFERENCE, test_data=TEST_DATA)
    check = next(c for cat in result.categories for c in cat.checks if c.id == "readable_loops")
    assert check.status == "partial" and check.earned == pytest.approx(check.points / 4)


def test_every_prompt_records_file_hashes_and_child_runs():
    for module in PROMPT_MODULES:
        result = grade_prompt(module, REFERENCE, test_data=TEST_DATA)
        assert set(result.files) == set(module.FILES)
        assert all(len(h) == 64 for h in result.files.values())
        if module.PYTHON_FILES:
            assert result.execution, f"{module.PROMPT_ID} ran no child"
            assert all(e["channel_error"] is None for e in result.execution)


def test_a_blocked_attempt_costs_security_points(tmp_path):
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        model = _model_with(tmp_path, "prompt_3_transform.py",
                            (REFERENCE / "prompt_3_transform.py").read_bytes() +
                            f"\n\ntry:\n    __import__('socket').create_connection(('127.0.0.1', {port}), 1)\n"
                            "except OSError:\n    pass\n".encode())
        result = grade_prompt(module_for("prompt_3"), model, test_data=TEST_DATA)
    check = next(c for cat in result.categories for c in cat.checks if c.id == "sandbox_violations")
    assert check.status == "partial" and check.earned == pytest.approx(0.25)
    assert "network" in check.rationale and check.evidence
    clean = grade_prompt(module_for("prompt_3"), REFERENCE, test_data=TEST_DATA)
    assert result.score < clean.score


def test_a_cp1252_file_with_a_coding_declaration_is_graded_like_its_utf8_twin(tmp_path):
    source = (REFERENCE / "prompt_3_transform.py").read_bytes()
    note = "# R\u00e9sum\u00e9 \u201cnotes\u201d \u20ac\n"
    cp1252 = _model_with(tmp_path / "a", "prompt_3_transform.py",
                         b"# -*- coding: cp1252 -*-\n" + note.encode("cp1252") + source)
    utf8 = _model_with(tmp_path / "b", "prompt_3_transform.py", b"# plain\n" + note.encode() + source)
    graded = [grade_prompt(module_for("prompt_3"), m, test_data=TEST_DATA) for m in (cp1252, utf8)]
    assert [r.status for r in graded] == ["ok", "ok"] and graded[0].passed
    assert graded[0].score == graded[1].score


def test_a_utf7_coding_declaration_is_refused_naming_the_codec(tmp_path):
    source = (REFERENCE / "prompt_3_transform.py").read_bytes().replace(b"+", b"+-")
    model = _model_with(tmp_path, "prompt_3_transform.py", b"# coding: utf-7\n" + source)
    result = grade_prompt(module_for("prompt_3"), model, test_data=TEST_DATA)
    assert result.status == "error" and result.score == 0 and not result.execution
    assert result.error == ("prompt_3_transform.py: its coding declaration names utf-7, "
                            "which is not ASCII-compatible (refused)")


def test_the_child_runs_exactly_the_bytes_that_were_graded(tmp_path, monkeypatch):
    import benchmark.engine.grading as grading
    from benchmark.secure_runner import SecureRunner

    model = _model_with(tmp_path, "prompt_3_transform.py",
                        (REFERENCE / "prompt_3_transform.py").read_bytes())
    graded = (model / "prompt_3_transform.py").read_bytes()
    staged: list[bytes] = []
    load, run_harness = grading.load_files, SecureRunner.run_harness

    def load_then_swap(module, folder):
        files = load(module, folder)
        (folder / "prompt_3_transform.py").write_bytes(b"raise SystemExit('swapped after grading')\n")
        return files

    def spy(self, request, files, *args, **kwargs):
        staged.append(files["prompt_3_transform.py"])
        return run_harness(self, request, files, *args, **kwargs)

    monkeypatch.setattr(grading, "load_files", load_then_swap)
    monkeypatch.setattr(SecureRunner, "run_harness", spy)
    result = grade_prompt(module_for("prompt_3"), model, test_data=TEST_DATA)
    assert staged and all(data == graded for data in staged)
    assert result.status == "ok" and result.passed
