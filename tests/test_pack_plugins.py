"""Plugins from installed distributions (entry points): found lazily, named in the results,
never shadowing a built-in, and two offers of one name are an error naming both."""

from __future__ import annotations

import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from benchmark.engine.grading import grade_task
from benchmark.packs import registry
from benchmark.packs.loader import check_pack
from benchmark.packs.suite import build_suite

ROOT = Path(__file__).resolve().parent.parent
PACK = ROOT / "examples" / "data_pack"

PLUGIN = '''
from benchmark.api import Outcome, check_type, generator


@check_type(method="ast", params={"max_lines": {"type": "integer", "minimum": 1}})
def short_module(ctx, max_lines=50):
    """The main file has at most max_lines lines."""
    source = ctx.files[ctx.task.main]
    lines = len(source.text.splitlines()) if source.text else 0
    return Outcome.ratio(1 if lines <= max_lines else 0, 1, f"{lines} lines (limit {max_lines})")


@generator(kind="cases", params={})
def titles(rng, count):
    """Random two-word titles."""
    words = ["alpha", "Beta", "Gämma", "delta"]
    return [{"args": [f"{rng.choice(words)} {rng.choice(words)}"]} for _ in range(count)]
'''


def _distribution(site: Path, name: str, module: str, entries: str) -> None:
    (site / f"{module}.py").write_text(PLUGIN, encoding="utf-8")
    info = site / f"{name}-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.2\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(textwrap.dedent(entries), encoding="utf-8")


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A folder on sys.path that holds installed distributions; the entry-point scan forgotten."""
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setattr(registry, "_PLUGINS", {})
    yield folder
    for name in [m for m in sys.modules if m.startswith("acme_")]:
        del sys.modules[name]


def _pack_using(tmp_path: Path, check: str, generator: str | None = None) -> Path:
    pack = tmp_path / "data_pack"
    shutil.copytree(PACK, pack)
    manifest = pack / "slugify" / "task.yaml"
    text = manifest.read_text(encoding="utf-8").replace(
        "use: radon.max_complexity, with: {limit: 8}", f"use: {check}, with: {{max_lines: 40}}")
    if generator:
        text = text.replace("generator: builtin.cases_grid", f"generator: {generator}").replace(
            "  with:\n    args:", "  with: {}\n  unused:\n    args:")
        text = "\n".join(line for line in text.splitlines()
                         if not line.startswith(("  unused:", "    args:", "    kwargs:")))
    manifest.write_text(text, encoding="utf-8")
    return pack


def test_a_check_type_and_generator_from_an_installed_distribution_grade_and_are_recorded(site, tmp_path):
    _distribution(site, "acme-checks", "acme_checks", """
        [rubricbench.checks]
        acme.short_module = acme_checks:short_module
        [rubricbench.generators]
        acme.titles = acme_checks:titles
    """)
    pack, problems = check_pack(_pack_using(tmp_path, "acme.short_module", "acme.titles"))
    assert [p for p in problems if p.severity == "error"] == [] and pack is not None
    assert any(p.startswith("acme-checks==1.2 sha256:") for p in pack.plugins)
    assert build_suite([pack], core=False).describe()[0]["plugins"] == list(pack.plugins)
    model = tmp_path / "model"
    (model / "data_pack").mkdir(parents=True)
    shutil.copyfile(PACK / "slugify" / "reference" / "slug.py", model / "data_pack" / "slug.py")
    result = grade_task(pack.task("slugify"), model, test_data=ROOT / "test_data")
    checks = {c.id: c for cat in result.categories for c in cat.checks}
    assert checks["complexity"].status == "pass" and "lines (limit 40)" in checks["complexity"].rationale
    assert checks["generated_cases"].status == "pass" and result.score == 25


def test_a_name_offered_by_two_distributions_is_an_error_naming_both(site, tmp_path):
    for name, module in (("acme-checks", "acme_one"), ("other-checks", "acme_two")):
        _distribution(site, name, module, f"""
            [rubricbench.checks]
            acme.short_module = {module}:short_module
        """)
    _, problems = check_pack(_pack_using(tmp_path, "acme.short_module"))
    message = next(p.message for p in problems if p.path.endswith("use"))
    assert "acme-checks==1.2" in message and "other-checks==1.2" in message


def test_a_plugin_cannot_take_a_built_in_name(site, tmp_path):
    _distribution(site, "sneaky", "acme_sneaky", """
        [rubricbench.checks]
        ast.short_module = acme_sneaky:short_module
    """)
    _, problems = check_pack(_pack_using(tmp_path, "ast.short_module"))
    message = next(p.message for p in problems if p.path.endswith("use"))
    assert "prefix is reserved for built-ins" in message


def test_a_core_pack_run_never_scans_entry_points(monkeypatch):
    from benchmark.packs.suite import core_pack

    monkeypatch.setattr(registry, "_PLUGINS", {})
    assert core_pack().tasks and registry._PLUGINS == {}
