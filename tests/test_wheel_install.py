"""A plain (non-editable) ``pip install .`` gives a working grader: the wheel carries the
fixtures (setup.py copies ``test_data/`` in as ``benchmark/test_data/``) and the core pack, and
the grader installed from it grades the reference model from a folder that has no checkout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


BUILT_FROM = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "benchmark", "test_data")


def test_a_built_wheel_carries_its_fixtures_and_grades_from_a_folder_without_a_checkout(tmp_path):
    source = tmp_path / "source"  # (a copy: pip builds in the tree, and the checkout stays clean)
    for name in BUILT_FROM:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q",
                            "-w", str(tmp_path / "wheels")], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (tmp_path / "wheels").glob("rubricbench-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    fixtures = {p.relative_to(ROOT).as_posix() for p in (ROOT / "test_data").rglob("*")
                if p.is_file() and "__pycache__" not in p.parts}
    assert fixtures and {f"benchmark/{name}" for name in fixtures} <= names
    assert any(name.startswith("benchmark/packs/core/") for name in names)
    site = tmp_path / "site"
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                                str(site), str(wheel)], capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr[-3000:]
    elsewhere = tmp_path / "elsewhere"  # no test_data/ here, and no checkout above the package
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    env.pop("RUBRICBENCH_TEST_DATA", None)
    code = ("import sys, benchmark; from benchmark.cli import main; print(benchmark.__file__, flush=True); "
            "raise SystemExit(main(sys.argv[1:]))")
    run = subprocess.run([sys.executable, "-c", code, "-q", "--model", "example_model", "--submissions-dir",
                          str(ROOT / "submissions"), "--results-dir", str(tmp_path / "results")],
                         cwd=elsewhere, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.splitlines()[0].startswith(str(site)), run.stdout  # the wheel's grader ran
    doc = json.loads((tmp_path / "results" / "latest_results.json").read_text())
    assert doc["models"]["example_model"]["percentage"] == 100.0
