"""Which function (or the module) each node runs in, and per-scope name facts."""

from __future__ import annotations

import ast
from collections.abc import Callable

from .memo import nodes_of
from .bindings import target_names
from .resolve import scope_map

__all__ = ["mentions", "names_assigned", "scope_map"]


def names_assigned(
    tree: ast.Module, owner: dict[int, ast.AST], predicate: Callable[[ast.expr], bool]
) -> dict[int, set[str]]:
    """Per scope id: names assigned (plain ``=``/annotated) a value satisfying ``predicate``."""
    found: dict[int, set[str]] = {}
    for node in nodes_of(tree, ast.Assign, ast.AnnAssign):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        else:
            continue
        if predicate(node.value):
            names = {name.id for target in targets for name in target_names(target)}
            found.setdefault(id(owner[id(node)]), set()).update(names)
    return found


def mentions(node: ast.AST, names: set[str] | frozenset[str]) -> set[str]:
    """The ``names`` that appear as plain names anywhere inside ``node``."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in names}
