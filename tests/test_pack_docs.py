"""``rubricbench pack docs`` and ``pack catalogue``: Markdown from the manifests and the registry."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmark import cli
from benchmark.packs import registry
from benchmark.packs.docs import catalogue, first_line

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "data_pack"


def test_pack_docs_lists_each_task_with_its_checks(capsys):
    assert cli.main(["pack", "docs", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "## sales_report: Sales report CLI" in out and "## slugify: Slugify titles" in out
    assert "- Run mode: call: `slugify` in `slug.py`" in out
    doc = first_line(registry.CHECK_TYPES["output.json_equal"].doc)
    assert (f'| `report_matches` | execution | 6 | `output.json_equal` (runs: ["fixture"], compare: "numeric", '
            f'float_tol: 1e-06, partial: "top_level_items") | {doc} |') in out
    complexity = first_line(registry.CHECK_TYPES["radon.max_complexity"].doc)
    assert f"| `complexity` | maintainability | 1 | `radon.max_complexity` (limit: 8) | {complexity} |" in out


def test_pack_docs_tells_two_rows_of_one_type_apart_by_their_parameters(capsys):
    assert cli.main(["pack", "docs", str(ROOT / "benchmark" / "packs" / "core")]) == 0
    out = capsys.readouterr().out
    assert '| `yaml_import` | structure | 0.5 | `ast.imports` (require: ["yaml"]) |' in out
    assert '| `json_import` | structure | 0.5 | `ast.imports` (require: ["json"]) |' in out


def test_pack_docs_of_a_broken_pack_prints_its_problems(tmp_path, capsys):
    (tmp_path / "pack.yaml").write_text("schema_version: 1\n")
    assert cli.main(["pack", "docs", str(tmp_path)]) == 1
    assert "pack.yaml" in capsys.readouterr().out


def test_the_catalogue_shows_every_builtin_with_its_parameters_and_whole_docstring(capsys):
    text = catalogue()
    for name in list(registry.CHECK_TYPES) + list(registry.GENERATORS):
        assert f"### `{name}`" in text
    assert "| `against` | string | required |" in text  # parse.equivalent
    assert "| `if_none` | string: \"pass\", \"fail\" | `\"fail\"` |" in text
    assert registry.GENERATORS["builtin.csv_rows"].fn.__doc__.splitlines()[-2].strip() in text
    assert cli.main(["pack", "catalogue"]) == 0
    assert capsys.readouterr().out == text  # each line printed as generated


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("command", [["catalogue"], ["docs", str(EXAMPLE)]])
def test_a_document_that_cannot_be_written_is_an_error_but_a_reader_leaving_is_not(command):
    """Output that is the command's product: a full disk is exit 1 and says so; ``| head``
    (the reader leaves) is the reader's choice, exit 0, no traceback either way."""
    cmd = [sys.executable, str(ROOT / "run_benchmark.py"), "pack", *command]
    with open("/dev/full", "w", encoding="utf-8") as full:
        lost = subprocess.run(cmd, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert lost.returncode == 1
    assert "error: cannot write the output: No space left on device" in lost.stderr
    assert "Traceback" not in lost.stderr
    reader = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert reader.stdout.readline().startswith("# ")
    reader.stdout.close()  # the reader leaves after the first line
    stderr = reader.stderr.read()
    assert reader.wait(timeout=120) == 0 and "Traceback" not in stderr and "error" not in stderr
