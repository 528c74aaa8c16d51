"""Loop facts: which loops and calls run inside another loop of the same scope.

A "loop" is a ``for``/``async for``/``while`` statement or one ``for`` clause of a
comprehension (an ``ast.comprehension`` node). :func:`walk_loops` yields every node with the
loops enclosing it, innermost last. Rules:

* a ``for`` loop's iterable is evaluated once, outside the loop; its body is inside; its
  ``else`` block is outside;
* a ``while`` loop's test runs every iteration, so it is inside;
* in a comprehension, the first clause's iterable is outside; every later clause, every
  ``if`` and the element are inside all preceding clauses;
* a ``def`` or ``lambda`` body starts a new scope (no enclosing loops); its decorators,
  defaults and annotations stay in the enclosing scope.
"""

from __future__ import annotations

import ast

from .memo import node_index, nodes_of, per_tree
from .resolve import ImportResolver, dotted_name, resolver_for

LOOP_STATEMENTS = (ast.For, ast.AsyncFor, ast.While)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
Loops = tuple[ast.AST, ...]


@per_tree
def walk_loops(tree: ast.AST) -> tuple[tuple[ast.AST, Loops], ...]:
    """``(node, enclosing_loops)`` for every node below and including ``tree``, in walk
    order; listed once per tree (several rules ask), read-only like every memoized answer."""
    return tuple(_walk_loops(tree))


def _walk_loops(tree: ast.AST) -> list[tuple[ast.AST, Loops]]:
    """Depth first over the tree's shared walk (:func:`.memo.node_index`); a node that
    opens or closes a loop or a scope (an exact class of ``_SPECIAL``, as ``ast.parse``
    makes them) places its children itself, any other passes its loops on to them."""
    index = node_index(tree)
    nodes, starts, position = index.nodes, index.starts, index.position
    found: list[tuple[ast.AST, Loops]] = []
    todo: list[tuple[ast.AST, Loops]] = [(tree, ())]
    while todo:
        node, loops = pair = todo.pop()
        found.append(pair)
        if type(node) in _SPECIAL:
            todo += _children(node, loops, index.children)
            continue
        at = position[id(node)]  # index.children(node), inline: most nodes pass here
        first, end = starts[at], starts[at + 1]
        if first != end:
            todo += [(child, loops) for child in nodes[first:end]]
    return found


def _children(node: ast.AST, loops: Loops, children) -> list[tuple[ast.AST, Loops]]:
    if isinstance(node, ast.comprehension):
        return []  # its parts are scheduled by the comprehension expression itself
    if isinstance(node, (ast.For, ast.AsyncFor)):
        inside = loops + (node,)
        return _pairs([node.target, node.iter, *node.orelse], loops) + _pairs(node.body, inside)
    if isinstance(node, ast.While):
        inside = loops + (node,)
        return _pairs([node.test, *node.body], inside) + _pairs(node.orelse, loops)
    if isinstance(node, COMPREHENSIONS):
        return _comprehension_children(node, loops)
    body = node.body if isinstance(node.body, list) else [node.body]  # a def or lambda
    body_ids = {id(child) for child in body}
    outer = [child for child in children(node) if id(child) not in body_ids]
    return _pairs(outer, loops) + _pairs(body, ())


_SPECIAL = frozenset({ast.comprehension, *LOOP_STATEMENTS, *COMPREHENSIONS,
                      ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda})


def _comprehension_children(node: ast.expr, loops: Loops) -> list[tuple[ast.AST, Loops]]:
    pairs: list[tuple[ast.AST, Loops]] = []
    current = loops
    for generator in node.generators:
        pairs += [(generator, current), (generator.iter, current)]
        current = current + (generator,)
        pairs += _pairs([generator.target, *generator.ifs], current)
    parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
    return pairs + _pairs(parts, current)


def _pairs(nodes, loops: Loops) -> list[tuple[ast.AST, Loops]]:
    return [(child, loops) for child in nodes]


def loop_line(node: ast.AST) -> int:
    """The line of a loop statement or of a comprehension clause (its target's line)."""
    if isinstance(node, ast.comprehension):
        return node.target.lineno
    return node.lineno


def is_loop(node: ast.AST) -> bool:
    return isinstance(node, LOOP_STATEMENTS + (ast.comprehension,))


def nested_loops(tree: ast.Module) -> list[int]:
    """Lines of loops nested inside another loop of the same scope; one entry per loop."""
    return sorted(loop_line(node) for node, loops in walk_loops(tree) if loops and is_loop(node))


# I/O judged by name, documented in io_in_loops.
_IO_METHODS = frozenset({"open", "read_text", "write_text", "read_bytes", "write_bytes"})
_IO_FUNCTIONS = frozenset(
    {"open", "builtins.open", "io.open", "json.load", "json.dump", "pickle.load", "pickle.dump",
     "urllib.request.urlopen", "urllib.request.urlretrieve"}
    | {f"yaml.{name}" for name in ("load", "safe_load", "full_load", "unsafe_load", "load_all",
                                   "safe_load_all", "dump", "safe_dump", "dump_all")}
)
_IO_PACKAGES = ("requests.", "httpx.", "aiohttp.")
_SESSION_VERBS = frozenset({"get", "post", "put", "patch", "delete", "head", "request"})


def is_io_call(call: ast.Call, resolver: ImportResolver) -> bool:
    """Whether a call does file or network I/O (see :func:`io_in_loops` for the list)."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in _IO_METHODS:
        return True
    names = resolver.resolve(func)
    if names & _IO_FUNCTIONS or any(name.startswith(_IO_PACKAGES) for name in names):
        return True
    if isinstance(func, ast.Attribute) and func.attr in _SESSION_VERBS:
        receiver = dotted_name(func.value) or ""
        return "session" in receiver.rsplit(".", 1)[-1].lower()
    return False


def io_in_loops(tree: ast.Module) -> list[int]:
    """Lines of file/network I/O calls that run inside a loop body.

    Counted as I/O: builtin/``io`` ``open``; any ``.open``, ``.read_text``, ``.write_text``,
    ``.read_bytes``, ``.write_bytes`` method; ``json.load``/``json.dump``;
    ``pickle.load``/``pickle.dump``; ``yaml`` load/dump functions (``load``, ``safe_load``,
    ``full_load``, ``unsafe_load``, ``load_all``, ``safe_load_all``, ``dump``,
    ``safe_dump``, ``dump_all``); anything under ``requests``, ``httpx`` or ``aiohttp``;
    ``urllib.request.urlopen``/``urlretrieve``; and ``.get/.post/.put/.patch/.delete/
    .head/.request`` on a receiver whose last name contains "session" (any case).
    ``json.loads``/``dumps`` work on strings and are not I/O. Aliases are resolved.
    """
    resolver = resolver_for(tree)
    return sorted(
        node.lineno
        for node, loops in walk_loops(tree)
        if loops and isinstance(node, ast.Call) and is_io_call(node, resolver)
    )


def _is_range_len(node: ast.expr) -> bool:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return False
    if node.func.id != "range" or node.keywords or not 1 <= len(node.args) <= 2:
        return False
    if len(node.args) == 2:
        start = node.args[0]
        if not (isinstance(start, ast.Constant) and start.value == 0):
            return False
    arg = node.args[-1]
    return (
        isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "len"
        and len(arg.args) == 1 and not arg.keywords
    )


def range_len_loops(tree: ast.Module) -> list[int]:
    """Lines of ``for i in range(len(x))`` (or ``range(0, len(x))``), comprehension clauses too."""
    return sorted(
        loop_line(node)
        for node in nodes_of(tree, ast.For, ast.AsyncFor, ast.comprehension)
        if _is_range_len(node.iter)
    )
