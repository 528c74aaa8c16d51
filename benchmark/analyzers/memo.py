"""Per-tree memoization: each analysis of a parsed module is computed once.

Checks of one prompt ask the same questions of the same tree many times (its normalized
source, its import resolver, radon's metrics). ``per_tree`` keeps each answer beside the tree
it was computed from, in a weak mapping, so an answer lives exactly as long as its tree and
two trees never share one. Memoized functions must be pure functions of the tree (and of
hashable extra arguments) and return values callers treat as read-only.

The tree's nodes are walked once (:func:`node_index`): every analysis that wants all nodes
(:func:`all_nodes`), the nodes of some classes (:func:`nodes_of`) or each node's children
reads that one walk instead of walking the tree again with ``ast.walk``.
"""

from __future__ import annotations

from ast import AST
import functools
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_answers: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], Any]] = weakref.WeakKeyDictionary()


def per_tree(fn: F) -> F:
    """Memoize ``fn(tree, *args)`` on the identity of ``tree`` (see module docstring)."""

    @functools.wraps(fn)
    def wrapper(tree, *args):
        answers = _answers.get(tree)
        if answers is None:
            answers = _answers[tree] = {}
        key = (fn, *args)
        if key not in answers:
            answers[key] = fn(tree, *args)
        return answers[key]

    return wrapper  # type: ignore[return-value]


@dataclass(frozen=True)
class NodeIndex:
    """One walk of a tree: ``nodes`` in ``ast.walk``'s order (breadth first), so each
    node's children sit side by side in it, from ``starts[i]`` to ``starts[i + 1]`` for
    ``nodes[i]``. Positions are plain integers (no container per node for the collector to
    track). A node that ``ast.parse`` shares between places (``Load()``, operators) has no
    children, so whichever of its places ``position`` keeps gives the same answer."""

    nodes: tuple[Any, ...]
    starts: tuple[int, ...]
    position: dict[int, int]

    def children(self, node: Any) -> tuple[Any, ...]:
        """``tuple(ast.iter_child_nodes(node))`` for a node of this tree."""
        at = self.position[id(node)]
        return self.nodes[self.starts[at]:self.starts[at + 1]]


@per_tree
def node_index(tree) -> NodeIndex:
    """The tree walked once, as ``ast.walk`` and ``ast.iter_child_nodes`` would (a missing
    field is skipped, as ``ast.iter_fields`` skips it); every analysis that wants all of a
    tree's nodes or each node's children reads this one walk instead of walking again."""
    nodes: list[Any] = [tree]
    starts: list[int] = []
    for node in nodes:  # grows while it is read: breadth first, as ast.walk's queue
        starts.append(len(nodes))
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, AST):
                nodes.append(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, AST):
                        nodes.append(item)
    starts.append(len(nodes))
    position = {id(node): at for at, node in enumerate(nodes)}
    return NodeIndex(tuple(nodes), tuple(starts), position)


def all_nodes(tree) -> tuple[Any, ...]:
    """``tuple(ast.walk(tree))``, in ``ast.walk``'s order, listed once per tree."""
    return node_index(tree).nodes


@per_tree
def nodes_of(tree, *kinds: type) -> tuple[Any, ...]:
    """The nodes of ``tree`` that are instances of ``kinds``, in ``ast.walk``'s order: one
    filtered read of :func:`all_nodes` per tree and ``kinds``, which checks each node's
    class once (``kinds`` are node classes, abstract ones such as ``ast.stmt`` included)."""
    nodes = all_nodes(tree)
    wanted = {cls for cls in {type(node) for node in nodes} if issubclass(cls, kinds)}
    return tuple(node for node in nodes if type(node) in wanted)
