"""``rubricbench pack docs`` and ``pack catalogue``: Markdown from the manifests and the registry."""

from __future__ import annotations

from pathlib import Path

from benchmark import cli
from benchmark.packs import registry
from benchmark.packs.docs import catalogue, first_line

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "data_pack"


def test_pack_docs_lists_each_task_with_its_checks(capsys):
    assert cli.main(["pack", "docs", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "## sales_report: Sales report CLI" in out and "## slugify: Slugify titles" in out
    assert "- Run mode: call: `slugify` in `slug.py`" in out
    doc = first_line(registry.CHECK_TYPES["output.json_equal"].doc)
    assert f"| `report_matches` | execution | 6 | `output.json_equal` | {doc} |" in out


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
