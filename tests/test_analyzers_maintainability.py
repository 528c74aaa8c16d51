"""Tests for benchmark.analyzers.maintainability (radon on the normalized source)."""

from __future__ import annotations

import ast
import textwrap

import pytest
from radon.complexity import cc_visit

from benchmark.analyzers import maintainability as M
from benchmark.analyzers.astfacts import normalized_source

SOURCE = textwrap.dedent('''
    def simple(x):
        return x + 1


    def branchy(items, limit):
        total = 0
        for item in items:
            if item > limit:
                total += item
            elif item < 0:
                total -= item
            else:
                total += 1
        return total


    class Shape:
        def area(self, kind):
            if kind == "square":
                return 1
            return 2

        def outer(self):
            def helper(v):
                return v if v else 0
            return helper(1)


    def factory():
        class Local:
            def method(self, a, b):
                if a and b:
                    return 1
                return 0
        return Local
''')


def test_per_function_metrics_names_lines_and_complexity():
    data = M.metrics(ast.parse(SOURCE))
    by_name = {f.name: f for f in data.functions}
    assert list(by_name) == [
        "simple", "branchy", "Shape.area", "Shape.outer", "Shape.outer.<locals>.helper",
        "factory", "factory.<locals>.Local.method",
    ]
    assert by_name["simple"].complexity == 1
    assert by_name["branchy"].complexity == 4  # for, if, elif
    assert by_name["Shape.area"].complexity == 2
    assert by_name["Shape.outer.<locals>.helper"].complexity == 2  # conditional expression
    assert by_name["factory.<locals>.Local.method"].complexity == 3  # if + `and`
    assert by_name["simple"].line == 2 and by_name["branchy"].line == 6
    assert by_name["simple"].length == 2 and by_name["branchy"].length == 10
    assert data.max_complexity == 4
    assert data.mean_complexity == pytest.approx(sum(f.complexity for f in data.functions) / 7)


def test_complexities_match_radon_for_top_level_functions_and_methods():
    data = {f.name: f.complexity for f in M.metrics(ast.parse(SOURCE)).functions}
    radon = {}
    for block in cc_visit(SOURCE):
        for item in getattr(block, "methods", [block]):
            radon[item.fullname] = item.complexity
    assert {"simple", "branchy", "Shape.area", "Shape.outer", "factory"} <= set(radon)
    for name, value in radon.items():
        assert data[name] == value, name


def test_mi_and_sloc_are_on_normalized_source():
    data = M.metrics(ast.parse(SOURCE))
    assert 0.0 <= data.mi <= 100.0
    normalized = normalized_source(ast.parse(SOURCE))
    assert data.sloc == sum(1 for line in normalized.splitlines() if line.strip())


def test_comments_and_docstrings_change_no_metric():
    documented = SOURCE.replace(
        "def branchy(items, limit):\n",
        "def branchy(items, limit):  # yaml.safe_load logging pathlib type hints\n"
        '    """Sum items.\n\n    Uses eval? never. if/elif/else and for loops: O(n).\n    """\n'
        "    # if x: for y in z: while True: and or\n",
    ).replace("class Shape:\n", 'class Shape:\n    """Mentions eval(), exec(), open()."""\n')
    assert documented != SOURCE
    before, after = M.metrics(ast.parse(SOURCE)), M.metrics(ast.parse(documented))
    assert [(f.name, f.length, f.complexity) for f in before.functions] == [
        (f.name, f.length, f.complexity) for f in after.functions
    ]
    assert (before.mi, before.sloc, before.max_complexity) == (after.mi, after.sloc,
                                                               after.max_complexity)


def test_empty_and_function_free_modules():
    empty = M.metrics(ast.parse(""))
    assert empty.functions == () and empty.max_complexity == 0 and empty.mean_complexity == 0.0
    assert empty.sloc == 0
    flat = M.metrics(ast.parse("x = 1\nprint(x)\n"))
    assert flat.functions == () and flat.sloc == 2


def test_frozen():
    data = M.metrics(ast.parse(SOURCE))
    with pytest.raises(Exception):
        data.mi = 1.0


def test_fraction_within():
    assert M.fraction_within([], 10) == 1.0
    assert M.fraction_within([5, 10, 11, 30], 10) == 0.5
    assert M.fraction_within((x for x in [1, 2]), 0) == 0.0


def _python_corpus() -> list[str]:
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    texts = [SOURCE]
    for path in sorted(p for folder in ("tests", "submissions", "benchmark")
                       for p in (root / folder).rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            ast.parse(text)
        except SyntaxError:
            continue
        texts.append(text)
    return texts


def test_each_function_complexity_is_radons_for_that_function_alone():
    """The complexities taken from radon's one walk of the module are what radon gives each
    function measured on its own (closures, methods, nested and local classes, async), on
    every Python file of the repository."""
    from benchmark.analyzers.normalize import normalized_functions

    checked = fallback = 0
    for text in _python_corpus():
        tree = ast.parse(text)
        _, pairs = normalized_functions(tree)
        from_walk = [f.complexity for f in M.metrics(tree).functions]
        alone = [M._complexity(pair.normalized) for pair in pairs]
        assert from_walk == alone
        measured = M._measured(M.ComplexityVisitor.from_ast(M.normalized_tree(tree)))
        fallback += sum((p.normalized.lineno, p.normalized.col_offset) not in measured for p in pairs)
        checked += len(pairs)
    assert checked > 1000 and 0 < fallback < checked / 10  # both paths are exercised


def test_function_metrics_are_those_of_metrics_without_the_maintainability_index(monkeypatch):
    calls = []
    monkeypatch.setattr(M, "_raw", lambda text: calls.append(text) or M.analyze(text))
    tree = ast.parse(SOURCE)
    functions = M.function_metrics(tree)
    assert calls == []  # the raw token metrics (MI's input) are not computed for functions alone
    full = M.metrics(tree)
    assert len(calls) == 1
    assert functions.functions == full.functions
    assert [f.name for f in functions.functions][-1] == "factory.<locals>.Local.method"
    assert M.metrics(ast.parse(SOURCE)).mi == full.mi  # the same index whichever is asked first
