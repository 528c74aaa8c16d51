"""``make setup`` leaves bytecode for the whole package (scripts/check_bytecode.py), and a
zygote (``python -I -B``, harness files loaded by path) reads it instead of compiling."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import check_bytecode  # noqa: E402

# The zygote's way of loading a harness file (``harness/zygote.py``, ``child._load_by_path``),
# counting how many sources the loader had to compile because no usable .pyc was there.
LOAD_LIKE_THE_ZYGOTE = """
import importlib.util, importlib.machinery, os, sys
compiled = []
real = importlib.machinery.SourceFileLoader.source_to_code
def counting(self, data, path, *args, **kwargs):
    compiled.append(os.path.basename(path))
    return real(self, data, path, *args, **kwargs)
importlib.machinery.SourceFileLoader.source_to_code = counting
here = sys.argv[1]
for name in ("child", "run_clock", "confine", "proc_tree", "run_start"):
    spec = importlib.util.spec_from_file_location("_probe_" + name, os.path.join(here, name + ".py"))
    spec.loader.get_code(spec.name)
print(",".join(compiled))
"""


@pytest.fixture
def package(tmp_path):
    """A copy of the real package, without any bytecode."""
    copy = tmp_path / "benchmark"
    shutil.copytree(ROOT / "benchmark", copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _zygote_compiles(harness: Path) -> list[str]:
    out = subprocess.run([sys.executable, "-I", "-B", "-c", LOAD_LIKE_THE_ZYGOTE, str(harness)],
                         capture_output=True, text=True, check=True, env={"PYTHONDONTWRITEBYTECODE": "1"})
    return [name for name in out.stdout.strip().split(",") if name]


def test_every_module_of_an_uncompiled_package_is_reported_harness_included(package):
    stale = check_bytecode.stale_modules(package)
    assert package / "harness" / "child.py" in stale and package / "cli.py" in stale
    assert len(stale) == len([p for p in package.rglob("*.py")])
    assert check_bytecode.main([str(package)]) == 1


def test_compiled_package_has_current_bytecode_and_the_zygote_reads_it(package):
    assert _zygote_compiles(package / "harness") == ["child.py", "run_clock.py", "confine.py",
                                                    "proc_tree.py", "run_start.py"]
    assert check_bytecode.main(["--compile", str(package)]) == 0
    assert check_bytecode.stale_modules(package) == []
    assert _zygote_compiles(package / "harness") == []


def test_a_source_changed_after_compiling_is_stale_again(package):
    check_bytecode.compile_package(package)
    source = package / "harness" / "run_clock.py"
    stat = source.stat()
    source.write_text(source.read_text() + "\n# edited\n")
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    assert check_bytecode.stale_modules(package) == [source]
    assert _zygote_compiles(package / "harness") == ["run_clock.py"]


def test_make_setup_compiles_and_checks_the_package():
    recipe = subprocess.run(["make", "-n", "setup"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "scripts/check_bytecode.py --compile" in recipe.stdout
