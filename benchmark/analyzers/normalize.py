"""Normalized source: the program with comments, docstrings and bare strings removed.

``ast.unparse`` also re-lays out every statement, so line counts measured on the normalized
source depend only on the program's structure: comments, docstrings, blank lines and how a
long call is wrapped never lengthen a function.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from dataclasses import dataclass

from .memo import per_tree

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_STATEMENT_LISTS = ("body", "orelse", "finalbody")
_NESTED = (*_STATEMENT_LISTS, "handlers", "cases")  # lists that may hold statements, deeper down
_NESTED_SET = frozenset(_NESTED)


@dataclass(frozen=True)
class FunctionSpan:
    """A function: ``line`` in the original source, ``length`` in normalized lines."""

    name: str
    qualname: str
    line: int
    length: int


def _is_bare_string(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, (str, bytes))
    )


def _may_be_empty(node: ast.AST, field: str) -> bool:
    return (isinstance(node, ast.Module) or field == "orelse"
            or (field == "finalbody" and bool(getattr(node, "handlers", None))))


def _stripped(node: ast.AST) -> ast.AST:
    """``node`` without bare string statements anywhere in its statement lists: ``node``
    itself when none is found below it, else a shallow copy holding new lists. A ``def`` or
    a bare string is a statement, so only statement lists (and except handlers, match
    cases) are walked; expressions are never visited and always shared."""
    changed: dict[str, list[ast.AST]] = {}
    for field in node._fields:
        items = getattr(node, field, None) if field in _NESTED_SET else None
        if not isinstance(items, list) or not items:
            continue
        kept = items
        if field in _STATEMENT_LISTS and isinstance(items[0], ast.stmt):
            kept = [stmt for stmt in items if not _is_bare_string(stmt)]
            if not kept and not _may_be_empty(node, field):
                kept = [ast.copy_location(ast.Pass(), items[0])]
        new = [_stripped(child) if isinstance(child, ast.AST) else child for child in kept]
        if len(new) != len(items) or any(a is not b for a, b in zip(new, items)):
            changed[field] = new
    if not changed:
        return node
    clone = copy.copy(node)
    for field, value in changed.items():
        setattr(clone, field, value)
    return clone


@per_tree
def strip_docstrings(tree: ast.Module) -> ast.Module:
    """The tree without docstrings or bare string statements (``pass`` fills empty bodies).

    Copy on write: a node is copied (shallowly) only when a statement list under it changes,
    and everything else is the original's own nodes. The result is shared between callers
    and shares nodes with ``tree``: treat both as read-only."""
    return _stripped(tree)


@per_tree
def normalized_source(tree: ast.Module) -> str:
    """``ast.unparse`` of :func:`strip_docstrings`: no comments, docstrings or bare strings."""
    return ast.unparse(strip_docstrings(tree))


@per_tree
def normalized_tree(tree: ast.Module) -> ast.Module:
    """:func:`normalized_source` parsed again (read-only, shared like the others)."""
    return ast.parse(normalized_source(tree))


def iter_defs(tree: ast.AST) -> Iterator[tuple[str, FunctionNode]]:
    """Every function/method in source (pre-)order with its ``__qualname__``-style name.

    A ``def`` is a statement, so only statement lists (and except handlers, match cases)
    are walked, in field order: the same pre-order as a walk of every node, without
    visiting the expressions, which are most of a tree."""
    todo: list[tuple[ast.AST, str]] = [(tree, "")]
    while todo:
        node, prefix = todo.pop()
        if isinstance(node, _DEFS):
            yield prefix + node.name, node
            inner = f"{prefix}{node.name}.<locals>."
        elif isinstance(node, ast.ClassDef):
            inner = f"{prefix}{node.name}."
        else:
            inner = prefix
        children = [child for field in node._fields if field in _NESTED_SET
                    for child in (getattr(node, field, None) or ()) if isinstance(child, ast.AST)]
        todo.extend((child, inner) for child in reversed(children))


@dataclass(frozen=True)
class NormalizedFunction:
    """One function seen twice: in the original tree and in the parsed normalized source."""

    qualname: str
    original: FunctionNode
    normalized: FunctionNode


@per_tree
def normalized_functions(tree: ast.Module) -> tuple[str, tuple[NormalizedFunction, ...]]:
    """The normalized source and each function paired with its normalized twin.

    Stripping keeps the tree's shape apart from removed strings, so the n-th function of
    the original is the n-th function of the re-parsed normalized source.
    """
    text = normalized_source(tree)
    originals = list(iter_defs(tree))
    twins = [node for _, node in iter_defs(normalized_tree(tree))]
    if len(originals) != len(twins):  # cannot happen for a tree ast.parse produced
        raise RuntimeError("normalized source lost or gained functions")
    pairs = tuple(NormalizedFunction(q, node, twin) for (q, node), twin in zip(originals, twins))
    return text, pairs


def span_length(node: FunctionNode) -> int:
    """Lines from ``def`` to the last line of the body (decorators not counted)."""
    return (node.end_lineno or node.lineno) - node.lineno + 1


def function_spans(tree: ast.Module) -> list[FunctionSpan]:
    """Every function with its original line and its length in normalized lines."""
    _, pairs = normalized_functions(tree)
    return [
        FunctionSpan(pair.original.name, pair.qualname, pair.original.lineno,
                     span_length(pair.normalized))
        for pair in pairs
    ]
