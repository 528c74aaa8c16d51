"""``rubricbench pack new``: every mode scaffolds a task that validates, gates included."""

from __future__ import annotations

import shutil

import pytest

from benchmark import cli
from benchmark.engine.pack_gates import run_gates
from benchmark.packs.loader import check_pack
from benchmark.packs import scaffold as scaffold_module
from benchmark.packs.scaffold import ScaffoldError, scaffold
from benchmark.packs.schema_check import SCHEMA_DIR


@pytest.mark.parametrize("mode", ["script", "call", "parse"])
def test_every_mode_scaffolds_a_pack_that_validates_and_passes_the_gates(tmp_path, mode):
    folder = tmp_path / "my_pack"
    scaffold(folder, "first", mode)
    pack, problems = check_pack(folder)
    assert problems == [] and pack is not None and pack.id == "my_pack"
    (result,) = run_gates(pack)
    assert result.problems == ()
    assert result.reference.score == 25
    assert result.empty.score <= 0.15 * 25


def _first_line(path):
    return path.read_text().splitlines()[0]


def test_a_pack_outside_this_tree_names_the_schemas_by_id_and_leaks_no_path(tmp_path):
    scaffold(tmp_path / "p", "first", "call", "demo")
    pack_line, task_line = _first_line(tmp_path / "p" / "pack.yaml"), _first_line(tmp_path / "p" / "first" / "task.yaml")
    assert pack_line == ("# JSON Schema: https://rubricbench.invalid/schema/pack-1.json "
                         "(RubricBench's benchmark/schema/pack.schema.json)")
    assert task_line == ("# JSON Schema: https://rubricbench.invalid/schema/task-1.json "
                         "(RubricBench's benchmark/schema/task.schema.json)")
    for line in (pack_line, task_line):
        assert "$schema=" not in line and str(SCHEMA_DIR) not in line and str(tmp_path) not in line


def test_a_pack_in_this_tree_gets_a_schema_path_relative_to_each_manifest(tmp_path, monkeypatch):
    tree = tmp_path / "checkout"  # stands in for the folder holding benchmark/ (a checkout)
    shutil.copytree(SCHEMA_DIR, tree / "benchmark" / "schema")
    monkeypatch.setattr(scaffold_module, "SCHEMA_DIR", tree / "benchmark" / "schema")
    monkeypatch.setattr(scaffold_module, "PACKAGE_ROOT", tree)
    folder = tree / "packs" / "demo"
    scaffold(folder, "first", "parse")
    assert _first_line(folder / "pack.yaml") == "# yaml-language-server: $schema=../../benchmark/schema/pack.schema.json"
    task_line = _first_line(folder / "first" / "task.yaml")
    assert task_line == "# yaml-language-server: $schema=../../../benchmark/schema/task.schema.json"
    target = (folder / "first" / task_line.split("=", 1)[1]).resolve()
    assert target == (tree / "benchmark" / "schema" / "task.schema.json").resolve() and target.is_file()
    assert check_pack(folder)[1] == []


def test_the_example_packs_use_the_same_relative_form():
    root = SCHEMA_DIR.parent.parent
    for manifest in [*root.glob("examples/*/pack.yaml"), *root.glob("examples/*/*/task.yaml")]:
        line = _first_line(manifest)
        assert line.startswith("# yaml-language-server: $schema=../"), manifest
        assert (manifest.parent / line.split("=", 1)[1]).resolve().is_file(), manifest


def test_a_second_task_is_added_to_a_flow_tasks_list_keeping_the_other_lines(tmp_path):
    folder = tmp_path / "demo"
    scaffold(folder, "first", "script")
    before = (folder / "pack.yaml").read_text()
    scaffold(folder, "second", "parse")
    after = (folder / "pack.yaml").read_text()
    assert after == before.replace("tasks: [first]", "tasks: [first, second]")
    pack, problems = check_pack(folder)
    assert problems == [] and [t.id for t in pack.tasks] == ["first", "second"]


def test_a_task_is_added_to_a_block_tasks_list(tmp_path):
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "pack.yaml").write_text("schema_version: 1\nid: demo\nversion: 1\ntitle: D\n"
                                      "tasks:\n  - first   # the first\ndefaults: {points: 25}\n")
    scaffold(folder, "first", "call")
    scaffold(folder, "second", "call")
    assert "tasks:\n  - first   # the first\n  - second\ndefaults:" in (folder / "pack.yaml").read_text()
    assert check_pack(folder)[1] == []


def test_an_existing_task_folder_is_never_overwritten(tmp_path):
    scaffold(tmp_path / "demo", "first", "parse")
    prompt = tmp_path / "demo" / "first" / "prompt.md"
    prompt.write_text("mine")
    with pytest.raises(ScaffoldError, match="exists already"):
        scaffold(tmp_path / "demo", "first", "script")
    assert prompt.read_text() == "mine"


def test_pack_new_from_the_command_line(tmp_path, capsys):
    folder = tmp_path / "Some-Pack"
    assert cli.main(["pack", "new", str(folder), "--task", "tally", "--mode", "script", "--id", "tallies"]) == 0
    assert "wrote " in capsys.readouterr().out
    assert check_pack(folder)[0].id == "tallies"
    assert cli.main(["pack", "new", str(folder), "--task", "tally", "--mode", "call"]) == 1
    assert "exists already" in capsys.readouterr().out


def test_pack_new_where_nothing_can_be_written_is_an_error_naming_the_folder(tmp_path, capsys):
    taken = tmp_path / "taken"
    taken.write_text("a file where the pack's folder would go")
    assert cli.main(["pack", "new", str(taken / "pack"), "--task", "tally", "--mode", "call"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"error: cannot write the task into {taken / 'pack'}: ") and out.count("\n") == 1
