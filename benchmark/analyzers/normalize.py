"""Normalized source: the program with comments, docstrings and bare strings removed.

``ast.unparse`` also re-lays out every statement, so line counts measured on the normalized
source depend only on the program's structure: comments, docstrings, blank lines and how a
long call is wrapped never lengthen a function.
"""

from __future__ import annotations

import ast
import io
import pickle
from collections.abc import Iterator
from dataclasses import dataclass

from .memo import per_tree

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_STATEMENT_LISTS = ("body", "orelse", "finalbody")
_NESTED = (*_STATEMENT_LISTS, "handlers", "cases")  # lists that may hold statements, deeper down


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


def _strip_list(node: ast.AST, field: str) -> None:
    body = getattr(node, field, None)
    if not isinstance(body, list) or not body or not isinstance(body[0], ast.stmt):
        return
    kept = [stmt for stmt in body if not _is_bare_string(stmt)]
    may_be_empty = (
        isinstance(node, ast.Module)
        or field == "orelse"
        or (field == "finalbody" and bool(getattr(node, "handlers", None)))
    )
    if not kept and not may_be_empty:
        kept = [ast.copy_location(ast.Pass(), body[0])]
    setattr(node, field, kept)


# CPython's parser hands out one shared instance of each field-less node (every ``Load``
# context, every ``Add``...) to all trees, and other tools write attributes on them (bandit
# sets ``_bandit_parent``, which links to the whole tree it last scanned). A copy rebuilds
# them from their type alone, so it never drags another tree along.
_SHARED_NODE_TYPES = tuple(
    cls
    for base in (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)
    for cls in base.__subclasses__()
    if not cls._fields and not cls._attributes
)
_FRESH = {cls: (lambda node: (type(node), ())) for cls in _SHARED_NODE_TYPES}


def copy_tree(tree: ast.AST) -> ast.AST:
    """A deep copy of a syntax tree by a pickle round trip (C code, several times faster than
    ``copy.deepcopy``); field-less nodes such as ``Load`` are copied as bare fresh nodes."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _FRESH
    pickler.dump(tree)
    return pickle.loads(buffer.getvalue())


@per_tree
def strip_docstrings(tree: ast.Module) -> ast.Module:
    """A deep copy without docstrings or bare string statements (``pass`` fills empty bodies).

    The copy (:func:`copy_tree`) is shared between callers: treat it as read-only."""
    stripped = copy_tree(tree)
    todo: list[ast.AST] = [stripped]
    while todo:  # statements only occur in the statement lists of statements (and handlers, cases)
        node = todo.pop()
        for field in _STATEMENT_LISTS:
            _strip_list(node, field)
        for field in _NESTED:
            todo.extend(getattr(node, field, None) or ())
    return stripped


@per_tree
def normalized_source(tree: ast.Module) -> str:
    """``ast.unparse`` of :func:`strip_docstrings`: no comments, docstrings or bare strings."""
    return ast.unparse(strip_docstrings(tree))


@per_tree
def normalized_tree(tree: ast.Module) -> ast.Module:
    """:func:`normalized_source` parsed again (read-only, shared like the others)."""
    return ast.parse(normalized_source(tree))


def iter_defs(tree: ast.AST) -> Iterator[tuple[str, FunctionNode]]:
    """Every function/method in source (pre-)order with its ``__qualname__``-style name."""
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
        children = list(ast.iter_child_nodes(node))
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
