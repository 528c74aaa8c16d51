"""The package's import graph has no cycle: no module imports (even inside a function) from a
module that imports it. ``benchmark/harness`` is excluded: it runs inside the sandboxed child
and imports nothing from the grader."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "benchmark"


def _name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    return (PACKAGE.parent / (name.replace(".", "/") + ".py")).is_file()


def _targets(node: ast.ImportFrom | ast.Import, package: str) -> set[str]:
    if isinstance(node, ast.Import):
        return {a.name for a in node.names}
    base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
    module = ".".join(base + ([node.module] if node.module else []))
    return {f"{module}.{a.name}" if _is_module(f"{module}.{a.name}") else module for a in node.names}


def import_graph() -> dict[str, set[str]]:
    """Module -> the benchmark modules (not packages) it imports anywhere in its source."""
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if "harness" in path.parts or path.name == "__init__.py":
            continue
        name = _name(path)
        package = name.rsplit(".", 1)[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found |= {t for t in _targets(node, package) if t.startswith("benchmark.") and _is_module(t)}
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
    assert "benchmark.spawner" not in graph["benchmark.process_tools"]
    assert "benchmark.secure_runner" not in graph["benchmark.sandbox_report"]
