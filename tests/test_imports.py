"""Every module of the ``benchmark`` package imports first and alone, as a library user's
``import benchmark.packs.outputs`` does in a fresh interpreter: an import cycle that only
bites in one order (A -> B -> A with B's name not bound yet) fails here, naming the module.

One child process (``-I``: no user site, no environment) forks before each import, so each
module is imported into an interpreter that has imported nothing of ``benchmark`` (and none of
its third-party dependencies) before it. ``benchmark/harness/`` modules that the sandbox loads
by file path under private names (``harness/loader.py``: they import ``_rubricbench_loader``)
are not package modules by design; the rest of ``harness/`` is tested like everything else.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "benchmark"
LOADED_BY_PATH = "_rubricbench_loader"  # the name only harness/loader.py's loading defines

# The child: for each module name on stdin, fork; the grandchild imports the module and exits
# 0, or prints its error's last line and exits 1. Results go out as one JSON line per module.
DRIVER = textwrap.dedent("""
    import json, os, sys
    sys.path.insert(0, sys.argv[1])
    for name in json.loads(sys.stdin.read()):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            try:
                import importlib
                importlib.import_module(name)
                message = ""
            except BaseException as exc:
                message = f"{type(exc).__name__}: {exc}"
            os.write(write, message.encode("utf-8", "replace"))
            os._exit(1 if message else 0)
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            message = pipe.read().decode("utf-8", "replace")
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"module": name, "status": status, "error": message}), flush=True)
""")


def module_names() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def loaded_by_path_only(name: str) -> bool:
    """A harness module that needs the private names of the sandbox's loader."""
    if not name.startswith("benchmark.harness."):
        return False
    tree = ast.parse((ROOT / (name.replace(".", "/") + ".py")).read_text(encoding="utf-8"))
    return any(isinstance(node, ast.ImportFrom) and node.module == LOADED_BY_PATH
               or isinstance(node, ast.Import) and any(a.name == LOADED_BY_PATH for a in node.names)
               for node in tree.body)


def import_each_alone(names: list[str]) -> list[dict]:
    """Each of ``names`` imported first, in a fresh fork of a bare interpreter; the names are
    split over one driver per core (each import is still alone in its own fork), results in
    the order given."""
    drivers = max(1, min(len(names), os.cpu_count() or 1, 4))
    share = -(-len(names) // drivers)
    procs = [subprocess.Popen([sys.executable, "-I", "-c", DRIVER, str(ROOT)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
             for _ in range(drivers)]
    results = []
    for index, proc in enumerate(procs):  # (each writes its names at once; each reads them all first)
        proc.stdin.write(json.dumps(names[index * share:(index + 1) * share]))
        proc.stdin.close()
    for proc in procs:  # (a driver's output is a line per module: far less than a pipe holds)
        out, err = proc.stdout.read(), proc.stderr.read()
        assert proc.wait(timeout=120) == 0, err
        results += [json.loads(line) for line in out.splitlines()]
    return results


def test_every_benchmark_module_imports_first_and_alone_in_a_fresh_interpreter():
    names = [name for name in module_names() if not loaded_by_path_only(name)]
    assert len(names) > 150 and "benchmark.packs.outputs" in names and "benchmark.harness.guard" in names
    results = import_each_alone(names)
    assert [r["module"] for r in results] == names
    failed = [f"{r['module']}: {r['error'] or 'exit status ' + str(r['status'])}" for r in results if r["status"]]
    assert not failed, "cannot be imported first:\n" + "\n".join(failed)


def test_the_harness_modules_left_out_are_exactly_those_the_sandbox_loads_by_path():
    """The exclusion cannot hide a real failure: each excluded module fails for the loader's
    private name alone, and there are only the few the child's loader runs."""
    excluded = [name for name in module_names() if loaded_by_path_only(name)]
    assert excluded == ["benchmark.harness.modes", "benchmark.harness.run_start", "benchmark.harness.worker"]
    for result in import_each_alone(excluded):
        assert result["status"] and result["error"] == f"ModuleNotFoundError: No module named '{LOADED_BY_PATH}'"


def test_the_driver_names_the_module_that_cannot_be_imported_first(tmp_path):
    """A cycle that breaks in one order only: b first needs a, which needs b's VALUE before b
    has bound it; a first works. Only b is reported, with the reason."""
    package = tmp_path / "cyc"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .b import VALUE\nNAME = 'a'\n")
    (package / "b.py").write_text("from . import a\nVALUE = 1\n")
    done = subprocess.run([sys.executable, "-I", "-c", DRIVER, str(tmp_path)], input='["cyc.a", "cyc.b"]',
                          capture_output=True, text=True, timeout=60)
    results = {r["module"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert results["cyc.a"] == {"module": "cyc.a", "status": 0, "error": ""}
    assert results["cyc.b"]["status"] and "cannot import name 'VALUE'" in results["cyc.b"]["error"]
