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


KINDS = '''
import os as o, sys
from a.b import c as d
async def f(x: int = 1, *a, k=2, **kw) -> None:
    async with o.open(x) as (h, *t):
        async for i in h:
            yield [j for j in i if j] or {k: v for k, v in kw.items()}
    try:
        del a[0:1], x.y
    except* (E, F) as g:
        pass
    match x:
        case {"k": [1, *rest], **more} | C(a=1) as m if m:
            print(f"{m!r:>{width}}", lambda q=1: q, -x, not x, x @ x)
class K(B, metaclass=M):
    n: int = 0
    global z
'''


def _sources():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "benchmark" / "analyzers"
    return [KINDS] + [path.read_text(encoding="utf-8") for path in sorted(root.glob("*.py"))]


def test_the_shared_walk_lists_what_ast_walk_and_iter_child_nodes_list():
    for source in _sources():
        tree = ast.parse(source)
        index = memo.node_index(tree)
        assert index is memo.node_index(tree) and memo.all_nodes(tree) is index.nodes
        assert index.nodes == tuple(ast.walk(tree))
        for node in index.nodes:
            assert index.children(node) == tuple(ast.iter_child_nodes(node))


def test_a_missing_field_is_skipped_as_ast_walk_skips_it():
    call = ast.Call(func=ast.Name("f", ast.Load()), args=[ast.Constant(1)])  # no keywords
    assert memo.all_nodes(call) == tuple(ast.walk(call))


def test_nodes_of_is_an_isinstance_filter_of_the_walk_abstract_kinds_too():
    tree = ast.parse(_sources()[0])
    for kinds in [(ast.Call,), (ast.Import, ast.ImportFrom), (ast.stmt,), (ast.expr, ast.arg),
                  (ast.comprehension, ast.For, ast.AsyncFor), (ast.Try,)]:
        expected = tuple(node for node in ast.walk(tree) if isinstance(node, kinds))
        assert memo.nodes_of(tree, *kinds) == expected, kinds


def test_scope_map_gives_each_node_its_innermost_def_or_lambda():
    from benchmark.analyzers.resolve import SCOPE_NODES, scope_map

    def expected(node, scope, found):
        found[id(node)] = scope
        inner = node if isinstance(node, SCOPE_NODES) else scope
        for child in ast.iter_child_nodes(node):
            expected(child, inner, found)
        return found

    for source in _sources():
        tree = ast.parse(source)
        walk = list(ast.walk(tree))
        shared = {id(node) for node in walk if walk.count(node) > 1}  # Load(), operators
        want, owner = expected(tree, tree, {}), scope_map(tree)
        assert owner.keys() == want.keys()
        assert all(owner[key] is want[key] for key in want if key not in shared)
