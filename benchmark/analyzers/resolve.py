"""Dotted names and import-alias resolution, so ``calls_to(tree, "yaml.load")`` sees aliases.

Imports are scoped like Python scopes them: an import inside a function applies within
that function (and functions nested in it); a module-level import applies everywhere it is
not re-imported. A name may resolve to several targets when one scope imports it more than
once; a call matches when any resolution does. A name no visible import binds resolves to
itself, so a bare builtin such as ``eval`` resolves to ``"eval"``.
"""

from __future__ import annotations

import ast

from .memo import node_index, nodes_of, per_tree

SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@per_tree
def scope_map(tree: ast.Module) -> dict[int, ast.AST]:
    """``id(node) -> the innermost def/lambda (or module) whose body contains it``.

    A def node itself belongs to the enclosing scope; its body belongs to the def. Read in
    the shared walk's breadth-first order, where a node's owner is known before its children
    are reached; a node ``ast.parse`` shares between places (``Load()``, an operator) gets
    the owner of one of them (no analysis asks for it).
    """
    index = node_index(tree)
    nodes, starts = index.nodes, index.starts
    owner: dict[int, ast.AST] = {id(tree): tree}
    for at, node in enumerate(nodes):
        inner = node if isinstance(node, SCOPE_NODES) else owner[id(node)]
        for child in nodes[starts[at]:starts[at + 1]]:
            owner[id(child)] = inner
    return owner


def dotted_name(node: ast.AST) -> str | None:
    """``a.b.c`` for attributes on a name; None for anything else (calls, subscripts)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _imported(node: ast.AST) -> list[tuple[str, str]]:
    """(bound name, dotted target) pairs of one absolute import statement."""
    if isinstance(node, ast.Import):
        pairs = []
        for alias in node.names:
            head = alias.name.split(".")[0]
            pairs.append((alias.asname, alias.name) if alias.asname else (head, head))
        return pairs
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [
            (alias.asname or alias.name, f"{node.module}.{alias.name}")
            for alias in node.names
            if alias.name != "*"
        ]
    return []


class ImportResolver:
    """Resolves names in one module through the imports visible where they are used."""

    def __init__(self, tree: ast.Module) -> None:
        self._tree = tree
        self._owner = scope_map(tree)
        self._tables: dict[int, dict[str, set[str]]] = {}
        for node in nodes_of(tree, ast.Import, ast.ImportFrom):
            for name, target in _imported(node):
                table = self._tables.setdefault(id(self._owner[id(node)]), {})
                table.setdefault(name, set()).add(target)

    def targets(self, name: ast.Name) -> frozenset[str] | None:
        """What an imported name stands for at its use site; None if no visible import binds it."""
        scope = self._owner.get(id(name), self._tree)
        while True:
            table = self._tables.get(id(scope), {})
            if name.id in table:
                return frozenset(table[name.id])
            if scope is self._tree:
                return None
            scope = self._owner.get(id(scope), self._tree)

    def resolve(self, node: ast.AST) -> frozenset[str]:
        """Every dotted name ``node`` may stand for; empty if it is not a name chain."""
        dotted = dotted_name(node)
        if dotted is None:
            return frozenset()
        head_node = node
        while isinstance(head_node, ast.Attribute):
            head_node = head_node.value
        _, dot, rest = dotted.partition(".")
        found = self.targets(head_node)
        if found is None:
            return frozenset({dotted})
        return frozenset(target + dot + rest for target in found)


def wanted_names(dotted: str) -> frozenset[str]:
    """The resolutions that count as ``dotted``: a bare name also matches ``builtins.<name>``."""
    if "." in dotted:
        return frozenset({dotted})
    return frozenset({dotted, f"builtins.{dotted}"})


@per_tree
def resolver_for(tree: ast.Module) -> ImportResolver:
    """The (shared) resolver of ``tree``."""
    return ImportResolver(tree)


@per_tree
def _resolved_calls(tree: ast.Module) -> tuple[tuple[ast.Call, frozenset[str]], ...]:
    """Every call in source order with what its callee may stand for."""
    resolver = resolver_for(tree)
    calls = sorted(nodes_of(tree, ast.Call),
                   key=lambda node: (node.lineno, node.col_offset))
    return tuple((node, resolver.resolve(node.func)) for node in calls)


@per_tree
def _calls_by_name(tree: ast.Module) -> dict[str, tuple[int, ...]]:
    """``dotted name -> positions in _resolved_calls(tree)`` of the calls that may stand for it."""
    index: dict[str, list[int]] = {}
    for position, (_, names) in enumerate(_resolved_calls(tree)):
        for name in names:
            index.setdefault(name, []).append(position)
    return {name: tuple(positions) for name, positions in index.items()}


def find_calls(tree: ast.Module, dotted: str) -> list[ast.Call]:
    """Calls to ``dotted`` (aliases resolved), in source order (each once)."""
    calls, index = _resolved_calls(tree), _calls_by_name(tree)
    positions = {p for name in wanted_names(dotted) for p in index.get(name, ())}
    return [calls[p][0] for p in sorted(positions)]


@per_tree
def _references_by_name(tree: ast.Module) -> dict[str, tuple[tuple[tuple[int, int, int], ast.expr], ...]]:
    """``dotted name -> ((line, column, walk position), node)`` of every name or attribute
    used as a value, not as a callee, that may stand for it: each node resolved once per tree
    (``find_references`` asks for several names of one tree)."""
    callees = {id(call.func) for call, _ in _resolved_calls(tree)}
    resolver = resolver_for(tree)
    index: dict[str, list[tuple[tuple[int, int, int], ast.expr]]] = {}
    for position, node in enumerate(nodes_of(tree, ast.Attribute, ast.Name)):
        if isinstance(node.ctx, ast.Load) and id(node) not in callees:
            for name in resolver.resolve(node):
                index.setdefault(name, []).append(((node.lineno, node.col_offset, position), node))
    return {name: tuple(entries) for name, entries in index.items()}


def find_references(tree: ast.Module, dotted: str) -> list[ast.expr]:
    """Uses of ``dotted`` (aliases resolved) as a value, not as the callee of a call:
    ``parse(path, yaml.safe_load)``, ``loader = yaml.load``. In source order (nodes at one
    place in ``ast.walk``'s order), each once."""
    index = _references_by_name(tree)
    found = {entry[0]: entry[1] for name in wanted_names(dotted) for entry in index.get(name, ())}
    return [found[place] for place in sorted(found)]
