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


ALIASES = '''
import yaml
import yaml as y
from yaml import load as L, safe_load
import builtins
def f(p):
    import json as yaml
    yaml.load(p); L(p); eval(p); builtins.eval(p)
    return [y.load(q) for q in p] + [safe_load(p), open(p).read()]
def g(p):
    from yaml import load
    from json import load
    return load(p), yaml.load(p), print(eval)
'''


def test_the_call_index_answers_as_a_scan_of_every_call_does():
    """``find_calls`` looks names up in a per-tree index; the answer is the one a scan of every
    resolved call gives, in source order, each call once (a name imported twice, builtins)."""
    from benchmark.analyzers.resolve import _resolved_calls, find_calls, wanted_names

    tree = ast.parse(ALIASES)
    names = {name for _, found in _resolved_calls(tree) for name in found}
    names |= {"eval", "print", "open", "nothing.here", "yaml.dump"}
    for dotted in sorted(names):
        wanted = wanted_names(dotted)
        scanned = [node for node, found in _resolved_calls(tree) if not wanted.isdisjoint(found)]
        assert find_calls(tree, dotted) == scanned, dotted
    assert [c.lineno for c in find_calls(tree, "yaml.load")] == [8, 9, 13, 13]
    assert len(find_calls(tree, "eval")) == 2


def test_loop_facts_are_listed_once_per_tree_as_the_walk_yields_them():
    from benchmark.analyzers.loops import _walk_loops, walk_loops

    tree = ast.parse("for a in b:\n    while c:\n        [x for x in a for y in x if y]\n"
                     "def f(d):\n    for e in d:\n        yield e\n")
    listed = walk_loops(tree)
    assert listed is walk_loops(tree) and listed == tuple(_walk_loops(tree))
    assert len(listed) == sum(1 for _ in ast.walk(tree))  # every node once


def test_bindings_are_listed_once_per_tree_and_as_computed_afresh():
    from benchmark.analyzers.bindings import bindings

    tree = ast.parse(ALIASES)
    listed = bindings(tree)
    assert listed is bindings(tree) and listed == tuple(bindings.__wrapped__(tree))
    assert [b.name for b in listed][:3] == ["yaml", "y", "L"] and isinstance(listed, tuple)
