"""The package's import graph has no cycle: no module imports (even inside a function) from a
module that imports it. A package's ``__init__`` is a node too: importing ``a.b.c`` runs
``a.b``'s ``__init__`` first, so it counts as importing ``a.b`` (unless the importer is inside
``a.b`` already). ``benchmark/harness`` is excluded: it runs inside the sandboxed child and
imports nothing from the grader. ``tests/test_imports.py`` imports every module alone."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "benchmark"


def _name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    """A module or a package of ``benchmark`` (a package is its ``__init__``)."""
    path = PACKAGE.parent / name.replace(".", "/")
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _with_packages(target: str, importer: str) -> set[str]:
    """``target`` and the packages its import initialises that do not hold ``importer``."""
    parts = target.split(".")
    outer = {".".join(parts[:n]) for n in range(2, len(parts))}
    return {target} | {p for p in outer if not (importer + ".").startswith(p + ".")}


def _targets(node: ast.ImportFrom | ast.Import, package: str) -> set[str]:
    if isinstance(node, ast.Import):
        return {a.name for a in node.names}
    base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
    module = ".".join(base + ([node.module] if node.module else []))
    return {f"{module}.{a.name}" if _is_module(f"{module}.{a.name}") else module for a in node.names}


def import_graph() -> dict[str, set[str]]:
    """Module or package -> the benchmark modules and packages it imports anywhere in its source."""
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if "harness" in path.parts or path == PACKAGE / "__init__.py":
            continue
        name = _name(path)
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(node, package):
                    if target.startswith("benchmark.") and _is_module(target):
                        found |= _with_packages(target, name)
        graph[name] = found - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, edges = work[-1]
            step = next((e for e in edges if e in graph), None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_module_imports_from_a_module_that_imports_it():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle_hidden_in_a_function():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_commands_never_import_the_command_line_that_calls_them():
    graph = import_graph()
    assert "benchmark.cli" not in graph["benchmark.commands"]
    assert "benchmark.sandbox.spawner" not in graph["benchmark.sandbox.process_tools"]
    assert "benchmark.secure_runner" not in graph["benchmark.sandbox.sandbox_report"]


def _imports_of(package: str, graph: dict[str, set[str]]) -> dict[str, set[str]]:
    return {name: targets for name, targets in graph.items() if name.startswith(package + ".")}


def _reaching(imports: dict[str, set[str]], layers: tuple[str, ...]) -> dict[str, set[str]]:
    """Each module's imports that fall in one of ``layers`` (modules or packages)."""
    found = {name: {t for t in targets if any(t == l or t.startswith(l + ".") for l in layers)}
             for name, targets in imports.items()}
    return {name: targets for name, targets in found.items() if targets}


def test_the_sandbox_never_imports_the_layers_that_call_it():
    sandbox = _imports_of("benchmark.sandbox", import_graph())
    assert {"benchmark.sandbox.spawner", "benchmark.sandbox.isolation"} <= set(sandbox)
    callers = ("benchmark.engine", "benchmark.reporting", "benchmark.packs", "benchmark.analyzers",
               "benchmark.prompts")
    assert _reaching(sandbox, callers) == {}


def test_the_layers_the_engine_calls_never_import_the_engine_or_the_command_line():
    graph = import_graph()
    above = ("benchmark.engine", "benchmark.runner", "benchmark.grading", "benchmark.cli",
             "benchmark.commands", "benchmark.console")
    for layer in ("benchmark.sandbox", "benchmark.reporting", "benchmark.packs",
                  "benchmark.analyzers", "benchmark.prompts"):
        imports = _imports_of(layer, graph)
        assert imports, layer
        assert _reaching(imports, above) == {}, layer


def test_the_engine_never_imports_the_command_line():
    engine = _imports_of("benchmark.engine", import_graph())
    assert _reaching(engine, ("benchmark.cli", "benchmark.commands", "benchmark.console")) == {}


def test_benchmark_grading_re_exports_the_engine_public_names():
    import benchmark.engine.grading as engine
    import benchmark.grading as public

    assert public.__all__ == engine.__all__
    assert {"GradeOptions", "grade_model", "grade_prompt", "grade_task"} <= set(public.__all__)
    assert all(getattr(public, name) is getattr(engine, name) for name in engine.__all__)


def test_the_module_names_and_paths_written_as_strings_still_resolve():
    """The forkserver ignores a preload name that fails to import, and the sandbox finds the
    harness, the zygote and the bandit server by file path: a move must not break them silently."""
    import importlib.util

    from benchmark import secure_runner
    from benchmark.engine import cache, pool_server
    from benchmark.sandbox import bandit_process, spawner

    assert all(importlib.util.find_spec(name) for name in pool_server.PRELOAD)
    assert bandit_process.SERVER.is_file() and spawner.ZYGOTE.is_file()
    assert spawner.ZYGOTE.parent == secure_runner.HARNESS_DIR == PACKAGE / "harness"
    assert cache.PACKAGE == PACKAGE
