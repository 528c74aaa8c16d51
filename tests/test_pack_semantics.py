"""What the schema cannot say about a task, each reported on the line that says it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmark.packs.loader import check_pack

ROOT = Path(__file__).resolve().parent.parent
PACK = ROOT / "examples" / "data_pack"


@pytest.fixture
def pack(tmp_path):
    copy = tmp_path / "data_pack"
    shutil.copytree(PACK, copy)
    return copy


def _edit(path: Path, old: str, new: str) -> int:
    """Replace ``old`` (once) and return the 1-based line where ``new`` now starts."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return text[: text.index(new)].count("\n") + 1


def _errors(folder: Path) -> list[str]:
    _, problems = check_pack(folder)
    return [p.format() for p in problems if p.severity == "error"]


def test_a_cases_file_case_without_an_expectation_is_an_error_on_the_cases_file_line(pack):
    manifest = pack / "slugify" / "task.yaml"
    (pack / "slugify" / "more_cases.json").write_text(json.dumps([
        {"label": "extra_ok", "args": ["A b"], "expect": "a-b"},
        {"label": "no_expectation", "args": ["x"]},
        {"label": "simple", "args": ["Hi"], "expect": "hi"},
        {"label": "typo", "args": ["x"], "expext": "x"}]), encoding="utf-8")
    line = _edit(manifest, "  cases:                        #", "  cases_file: more_cases.json\n  cases:  #")
    errors = _errors(pack)
    assert len(errors) == 3 and all(f"slugify/task.yaml:{line}:" in e for e in errors)
    text = "\n".join(errors)
    assert "more_cases.json case 1: a case needs exactly one of expect and raises" in text
    assert "more_cases.json case 2: label 'simple' repeats cases/0" in text
    assert "more_cases.json case 3: Additional properties are not allowed ('expext'" in text


def test_generating_perturbed_inputs_from_an_answer_key_would_stage_it(pack):
    manifest = pack / "sales_report" / "task.yaml"
    line = _edit(manifest, "from: data/sales.csv,\n", "from: answers/expected.json,\n")
    errors = _errors(pack)
    assert any(f"sales_report/task.yaml:{line}:" in e and "perturb/inputs/sales.csv/from" in e
               and "would stage the answer key" in e for e in errors), errors


def test_a_core_prompt_check_type_is_not_for_other_packs(pack):
    manifest = pack / "slugify" / "task.yaml"
    line = _edit(manifest, "use: ast.no_nested_loops}", "use: core.p3.readable_loops}")
    errors = _errors(pack)
    assert len(errors) == 1 and f"slugify/task.yaml:{line}:" in errors[0]
    assert "core.p3.readable_loops judges what the core prompt's own observe function reports" in errors[0]


def test_a_path_that_climbs_out_of_the_model_folder_gets_a_plain_message(pack):
    line = _edit(pack / "pack.yaml", "submission_root: data_pack", "submission_root: ../elsewhere")
    errors = _errors(pack)
    assert len(errors) == 1 and f"pack.yaml:{line}:" in errors[0]
    assert "'../elsewhere' must be a relative path with forward slashes that stays inside its folder" in errors[0]


def test_a_folder_given_as_a_staged_file_is_an_error_on_its_line(pack):
    """A staged name gets one file's bytes: a folder passed validation, then every run of
    every model (and of the reference) was an internal error (IsADirectoryError)."""
    manifest = pack / "sales_report" / "task.yaml"
    _edit(manifest, "fixtures: [data/sales.csv]", "fixtures: [data]")
    line = _edit(manifest, "stage: {sales.csv: data/sales.csv}", "stage: {sales.csv: data}")
    assert _errors(pack) == [f"{manifest}:{line}:22: run/stage/sales.csv: data: is a folder: "
                             "a file is needed here"]


def test_a_staged_file_inside_a_fixtures_folder_counts_as_listed(pack):
    """``fixtures`` may name folders (docs/packs.md); a file inside one may be staged."""
    manifest = pack / "sales_report" / "task.yaml"
    _edit(manifest, "fixtures: [data/sales.csv]", "fixtures: [data]")
    assert _errors(pack) == []
    _edit(manifest, "fixtures: [data]", "fixtures: [dat]")
    (pack / "sales_report" / "dat").mkdir()
    assert [e.split(": ", 1)[1] for e in _errors(pack)] == [
        "run/stage/sales.csv: data/sales.csv is staged but not in fixtures (not listed, nor inside "
        "a listed folder)"]


def test_a_stdin_file_that_is_not_utf8_is_an_error_on_its_line(pack):
    """stdin is fed as UTF-8 text: a binary file passed validation, then every run was an
    internal error (UnicodeDecodeError) for every model and the reference."""
    manifest = pack / "sales_report" / "task.yaml"
    (pack / "sales_report" / "data" / "in.bin").write_bytes(b"ok\n\xa7\xff")
    _edit(manifest, "fixtures: [data/sales.csv]", "fixtures: [data/sales.csv, data/in.bin]")
    line = _edit(manifest, "  stage: {sales.csv: data/sales.csv}\n",
                 "  stage: {sales.csv: data/sales.csv}\n  stdin: data/in.bin\n") + 1
    assert _errors(pack) == [f"{manifest}:{line}:10: run/stdin: data/in.bin: not UTF-8 text (byte 0xa7 "
                             "at offset 3): stdin is fed to the program as UTF-8 text"]
    (pack / "sales_report" / "data" / "in.bin").write_bytes("\ufeffcafé\n".encode())
    assert _errors(pack) == []


def test_staged_files_over_the_sandboxs_file_limit_are_an_error_on_their_line(pack):
    """A run's staged files must fit the sandbox: one of 33 MiB passed validation, then every
    run died before the harness finished and each model failed its checks ('the child sent no
    result record'), the pack's fault charged to the model."""
    from benchmark.packs import paths
    from benchmark.sandbox.process_tools import FILE_SIZE_LIMIT

    assert paths.STAGED_LIMIT == FILE_SIZE_LIMIT
    manifest = pack / "sales_report" / "task.yaml"
    line = _edit(manifest, "  stage: {sales.csv: data/sales.csv}\n", "  stage: {sales.csv: data/sales.csv}\n")
    with open(pack / "sales_report" / "data" / "sales.csv", "r+b") as handle:
        handle.truncate(33 * 1024 * 1024)  # (sparse: nothing is written)
    assert _errors(pack) == [f"{manifest}:{line}:10: run/stage: the staged files take 33.0 MiB (largest: "
                             "data/sales.csv, 33.0 MiB); a run's staged files may take at most 32 MiB "
                             "together (no file in the sandbox may exceed 32 MiB, and the whole sandbox "
                             "holds 64 MB)"]
    with open(pack / "sales_report" / "data" / "sales.csv", "r+b") as handle:
        handle.truncate(31 * 1024 * 1024)
    assert _errors(pack) == []


@pytest.mark.parametrize("name, data, why", [
    ("expected.json", b"\x8b\x00binary", "cannot be read: 'utf-8' codec can't decode byte 0x8b in position 0"),
    ("expected.json", b'{"count": 5,', "json does not parse: line 1"),
    ("expected.jsonl", b'{"count": 5}\n', "unknown extension (use .json, .yaml, .yml, .csv, .txt)"),
])
def test_an_answer_key_that_cannot_be_loaded_is_an_error_on_its_line(pack, name, data, why):
    """--pack grading validates statically only: a broken answer key passed, then every
    model failed that run's checks ('no expected value (answer key ...)') for the pack's fault."""
    manifest = pack / "sales_report" / "task.yaml"
    (pack / "sales_report" / "answers" / name).write_bytes(data)
    line = _edit(manifest, "answers: {fixture: answers/expected.json}", f"answers: {{fixture: answers/{name}}}")
    errors = _errors(pack)
    assert len(errors) == 1 and errors[0].startswith(f"{manifest}:{line}:20: answers/fixture: answers/{name}: {why}")


@pytest.mark.parametrize("name", ["/tmp/planted.csv", "../sales.csv", "in\\\\sales.csv"])
def test_a_staged_name_that_leaves_the_run_folder_is_an_error(pack, name):
    """The staged name is where the grader writes the fixture: ``/tmp/planted.csv`` passed
    validation and the grader wrote the fixture to that path on the host."""
    manifest = pack / "sales_report" / "task.yaml"
    line = _edit(manifest, "stage: {sales.csv: data/sales.csv}", f'stage: {{"{name}": data/sales.csv}}')
    _edit(manifest, "    sales.csv: {generator:", f'    "{name}": {{generator:')
    shown = name.replace("\\\\", "\\")
    assert f"{manifest}:{line}:10: run/stage: {shown!r} must be a relative path with forward slashes that " \
           "stays inside its folder (no leading /, no .., no backslash)" in _errors(pack)


def test_an_output_file_path_that_leaves_the_run_folder_is_an_error(pack):
    """It passed validation, then every run of every model failed: 'not a plain relative path'."""
    manifest = pack / "sales_report" / "task.yaml"
    line = _edit(manifest, "output: {from: stdout, parse: json}", "output: {from: file, path: ../out.json, parse: json}")
    assert _errors(pack) == [f"{manifest}:{line}:30: run/output/path: '../out.json' must be a relative path "
                             "with forward slashes that stays inside its folder (no leading /, no .., no backslash)"]


def test_a_staged_name_that_is_a_submitted_file_is_an_error(pack):
    """Staged as sales_report.py, the fixture replaced the model's own script in the run's
    folder: every model (and the reference) ran the CSV instead of its code."""
    manifest = pack / "sales_report" / "task.yaml"
    line = _edit(manifest, "stage: {sales.csv: data/sales.csv}", "stage: {sales_report.py: data/sales.csv}")
    _edit(manifest, "    sales.csv: {generator:", "    sales_report.py: {generator:")
    assert _errors(pack) == [f"{manifest}:{line}:28: run/stage/sales_report.py: the staged file would replace "
                             "the submitted file sales_report.py in the run's folder: give it another name"]


def _warnings(folder: Path) -> list[str]:
    _, problems = check_pack(folder)
    return [p.format() for p in problems if p.severity == "warning"]


def test_a_case_no_check_judges_and_generated_cases_no_check_selects_are_warned_about(pack):
    manifest = pack / "slugify" / "task.yaml"
    assert _warnings(pack) == []
    _edit(manifest, "{labels: [simple, accents, edges, cut, empty]}", "{labels: [simple, accents, edges, cut]}")
    _edit(manifest, "{labels: [not_text, bad_length]}", "{labels: [not_text]}")
    _edit(manifest, "use: cases.equal, with: {labels: [perturbed]}", "use: cases.equal, with: {labels: [simple]}")
    found = _warnings(pack)
    assert any(":20:" in w and "case 'empty' is judged by no check: add its label to a cases.equal" in w for w in found)
    assert any(":22:" in w and "case 'bad_length' is judged by no check: add its label to a cases.raises" in w
               for w in found)
    assert any("perturb: warning: the generated cases are judged by no check" in w for w in found)
    assert len(found) == 3
    # a cases.equal without labels judges every case that expects a value, generated ones included
    _edit(manifest, "use: cases.equal, with: {labels: [simple]}", "use: cases.equal")
    assert [w for w in _warnings(pack) if "bad_length" not in w] == []


def test_every_unquoted_yaml11_boolean_is_warned_about_where_it_stays_a_boolean(pack):
    manifest = pack / "slugify" / "task.yaml"
    line = _edit(manifest, '{label: empty,      args: [""],', '{label: empty,      args: [no],')
    (warning,) = _warnings(pack)
    assert warning.startswith(f"{manifest}:{line}:")
    assert warning.endswith("run/cases/4/args/0: warning: unquoted no is read as the boolean false (YAML 1.1; "
                            "YAML 1.2 reads it as text): write false for the boolean, or 'no' in quotes for the text")
    _edit(manifest, "args: [no],", "args: ['no'],")  # quoted: the text, no warning
    assert _warnings(pack) == []


def test_a_label_a_check_selects_that_names_no_case_is_an_error_at_the_label(pack):
    manifest = pack / "slugify" / "task.yaml"
    line = _edit(manifest, "{labels: [not_text, bad_length]}", "{labels: [not_text, bad_lenght]}")
    (error,) = _errors(pack)
    assert error.startswith(f"{manifest}:{line}:")
    assert "checks/5/with/labels/1: 'bad_lenght' names no case of this task (its cases: accents, bad_length," in error
    script = pack / "sales_report" / "task.yaml"
    text = script.read_text(encoding="utf-8")
    assert "use: exec.exit_zero, with: {runs: [fixture]}" in text
    _edit(manifest, "bad_lenght", "bad_length")
    _edit(script, "use: exec.exit_zero, with: {runs: [fixture]}", "use: exec.exit_zero, with: {runs: [perturbed, fixtrue]}")
    (error,) = _errors(pack)
    assert "'fixtrue' names no run of this task (its runs: fixture, perturbed, perturbed_1" in error
