"""Per-tree memoization: one computation per tree, never an answer from another tree."""

import ast
import gc

from benchmark.analyzers import memo
from benchmark.analyzers.maintainability import metrics
from benchmark.analyzers.normalize import normalized_source, strip_docstrings


def test_computed_once_per_tree_and_argument():
    calls = []

    @memo.per_tree
    def count(tree, name):
        calls.append(name)
        return sum(isinstance(n, ast.Name) and n.id == name for n in ast.walk(tree))

    tree = ast.parse("a = b + b\nc = a")
    assert count(tree, "b") == 2 and count(tree, "b") == 2 and count(tree, "a") == 2
    assert calls == ["b", "a"]


def test_equal_sources_parsed_twice_do_not_share_answers():
    first, second = ast.parse("x = 1\n"), ast.parse("x = 1\n")
    second.body.append(ast.parse("y = 2").body[0])  # the same text, but another tree by now
    assert normalized_source(first) == "x = 1" and metrics(first).sloc == 1
    assert normalized_source(second) == "x = 1\ny = 2" and metrics(second).sloc == 2


def test_answers_go_with_their_tree():
    tree = ast.parse('def f():\n    "doc"\n    return 1\n')
    stripped = strip_docstrings(tree)
    assert stripped is strip_docstrings(tree) and stripped is not tree
    assert ast.get_docstring(tree.body[0]) == "doc"  # the original is untouched
    held = len(memo._answers)
    del tree, stripped
    gc.collect()
    assert len(memo._answers) < held
