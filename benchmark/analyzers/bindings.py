"""Every name a module binds, with how it was bound; the base of naming and shadowing facts."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from .memo import nodes_of, per_tree

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Binding:
    """One bound name. ``kind``: assign, for, comp, with, def, class, param, lambda, import,
    except, match. ``in_class_body``: bound directly in a class body (a method or attribute).
    """

    name: str
    line: int
    kind: str
    in_class_body: bool
    node: ast.AST


def target_names(target: ast.AST) -> Iterator[ast.Name]:
    """Plain names in an assignment target (tuples, lists and starred unpacked)."""
    if isinstance(target, ast.Name):
        yield target
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from target_names(element)
    elif isinstance(target, ast.Starred):
        yield from target_names(target.value)


def class_body_ids(tree: ast.AST) -> set[int]:
    """ids of statements that sit directly in a class body."""
    return {
        id(statement)
        for node in nodes_of(tree, ast.ClassDef)
        for statement in node.body
    }


def _arguments(args: ast.arguments) -> list[ast.arg]:
    extra = [arg for arg in (args.vararg, args.kwarg) if arg is not None]
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *extra]


def _targets(node: ast.AST) -> tuple[str, list[ast.AST]] | None:
    if isinstance(node, ast.Assign):
        return "assign", node.targets
    if isinstance(node, (ast.AnnAssign, ast.NamedExpr)):  # ``x += 1`` rebinds, binds nothing new
        return "assign", [node.target]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return "for", [node.target]
    if isinstance(node, ast.comprehension):
        return "comp", [node.target]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return "with", [item.optional_vars for item in node.items if item.optional_vars]
    return None


def _simple(node: ast.AST) -> Iterator[tuple[str, int, str]]:
    """(name, line, kind) for bindings that are not assignment-like targets."""
    if isinstance(node, _DEFS):
        yield node.name, node.lineno, "def"
        for arg in _arguments(node.args):
            yield arg.arg, arg.lineno, "param"
    elif isinstance(node, ast.Lambda):
        for arg in _arguments(node.args):
            yield arg.arg, arg.lineno, "lambda"
    elif isinstance(node, ast.ClassDef):
        yield node.name, node.lineno, "class"
    elif isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.asname or alias.name.split(".")[0], node.lineno, "import"
    elif isinstance(node, ast.ImportFrom):
        for alias in node.names:
            if alias.name != "*":
                yield alias.asname or alias.name, node.lineno, "import"
    elif isinstance(node, ast.ExceptHandler) and node.name:
        yield node.name, node.lineno, "except"
    elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
        yield node.name, node.lineno, "match"
    elif isinstance(node, ast.MatchMapping) and node.rest:
        yield node.rest, node.lineno, "match"


_BINDERS = (ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.comprehension,
            ast.With, ast.AsyncWith, *_DEFS, ast.Lambda, ast.ClassDef, ast.Import, ast.ImportFrom,
            ast.ExceptHandler, ast.MatchAs, ast.MatchStar, ast.MatchMapping)


@per_tree
def bindings(tree: ast.Module) -> tuple[Binding, ...]:
    """All bindings in the module, sorted by (line, name); listed once per tree (read-only)."""
    in_class = class_body_ids(tree)
    found: list[Binding] = []
    for node in nodes_of(tree, *_BINDERS):  # the nodes _targets or _simple answer for
        direct = id(node) in in_class
        targets = _targets(node)
        if targets is not None:
            kind, parts = targets
            for part in parts:
                found += [Binding(n.id, n.lineno, kind, direct, node) for n in target_names(part)]
        for name, line, kind in _simple(node):
            class_level = direct and kind not in ("param", "lambda")
            found.append(Binding(name, line, kind, class_level, node))
    return tuple(sorted(found, key=lambda b: (b.line, b.name)))
