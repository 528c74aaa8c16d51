"""``rubricbench pack validate|docs|list``: which pack a command line names. A folder holding
pack.yaml wins; else ``core`` is the built-in pack and another name an installed pack. The
built-in folder validates as the built-in pack; a user's pack claiming ``core`` does not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmark import cli
from benchmark.packs import loader
from benchmark.packs.compiled import CORE_DIR
from benchmark.packs.suite import SuiteError, find_pack, resolve_pack_folder

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "data_pack"


def test_pack_docs_core_documents_the_builtin_pack(capsys):
    assert cli.main(["pack", "docs", "core"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# RubricBench core prompts\n")
    assert "a model's files live in `<model>/` itself." in out
    assert "## prompt_1: Refactoring & Analysis" in out and "## prompt_4: " in out
    assert "- Results key: `prompt_3`" in out


@pytest.mark.parametrize("spec", ["core", str(CORE_DIR), "benchmark/packs/core"])
def test_the_builtin_pack_validates_by_id_and_by_its_folder(spec, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert cli.main(["pack", "validate", spec, "--no-behaviour"]) == 0
    out = capsys.readouterr().out
    assert out == f"{spec}: 0 error(s), 0 warning(s)\n"


def test_pack_validate_core_runs_the_gates_on_the_builtin_references(capsys):
    assert cli.main(["pack", "validate", "core"]) == 0
    out = capsys.readouterr().out
    assert "prompt_1: reference 25/25, empty files" in out and "prompt_3: reference 25/25" in out
    assert out.endswith("core: 0 error(s), 2 warning(s)\n")  # prompts 2 and 4 ship no reference folder


def test_a_copy_of_the_builtin_pack_elsewhere_may_not_claim_the_core_id(tmp_path, capsys):
    copy = tmp_path / "mine"
    shutil.copytree(CORE_DIR, copy)
    assert cli.main(["pack", "validate", str(copy), "--no-behaviour"]) == 1
    assert f"{copy}/pack.yaml:5:5: id: the id 'core' is reserved for the built-in pack" in capsys.readouterr().out
    assert cli.main(["pack", "docs", str(copy)]) == 1


def test_a_folder_named_like_a_pack_id_wins_over_the_id(tmp_path, capsys, monkeypatch):
    shutil.copytree(EXAMPLE, tmp_path / "core")
    monkeypatch.chdir(tmp_path)
    assert find_pack("core") == (Path("core"), False)
    assert cli.main(["pack", "docs", "core"]) == 0
    assert capsys.readouterr().out.startswith("# Example data tasks")


def test_a_folder_without_pack_yaml_does_not_hide_the_id(tmp_path, monkeypatch):
    (tmp_path / "core").mkdir()
    monkeypatch.chdir(tmp_path)
    assert find_pack("core") == (CORE_DIR, True)
    with pytest.raises(SuiteError, match="^nothing: no such folder"):
        find_pack("nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SuiteError, match="^empty: the folder holds no pack.yaml$"):
        find_pack("empty")


def test_an_installed_pack_is_found_by_its_entry_point_name(monkeypatch, capsys):
    installed = [loader.InstalledPack("acme_data", "acme-checks==1.2", EXAMPLE)]
    monkeypatch.setattr(loader, "discover_installed_packs", lambda: installed)
    assert cli.main(["pack", "validate", "acme_data", "--no-behaviour"]) == 0
    assert capsys.readouterr().out == "acme_data: 0 error(s), 0 warning(s)\n"
    assert resolve_pack_folder("acme_data") == EXAMPLE.resolve()


def test_an_unknown_pack_says_what_was_looked_for_on_stderr(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["pack", "docs", "no_such_pack"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == ("error: no_such_pack: no such folder, and no pack of that name "
                            "(the built-in pack: core; installed packs: none)\n")


@pytest.mark.parametrize("spec", ["core", str(CORE_DIR)])
def test_pack_option_refuses_the_builtin_pack_saying_it_is_graded_by_default(spec):
    with pytest.raises(SuiteError, match=r"^--pack .*: that is the built-in pack, graded unless --no-core"):
        resolve_pack_folder(spec)


def test_pack_list_names_the_builtin_pack(capsys):
    assert cli.main(["pack", "list"]) == 0
    assert f"built-in pack: core ({CORE_DIR}), graded unless --no-core\n" in capsys.readouterr().out
