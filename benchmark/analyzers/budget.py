"""The analysis budget: what bandit would scan, measured from the syntax tree before it runs.

Bandit's B608 (``hardcoded_sql_expressions``) searches strings with a regular expression that
backtracks (``select\\s.*from\\s`` with DOTALL): its time grows with the square of a string's
length. The strings it searches are not the literals alone: for every string constant inside
binary operations (``+``, ``%``, ...) it joins every string constant of the whole expression,
once per constant; for an f-string, its constant parts; for ``"...".format``/``.replace``,
the literal. One 500 kB literal in ``"..." + name`` took 74 s; a chain of a few hundred short
literals costs as much. Bandit runs only when both limits below hold, so its scan stays
within about a second per file: the longest string it would search, and the total it would
search. Past a limit, the checks that use bandit are ``error`` with the reason; ordinary
literals (docstrings, constants) are never searched and never count.
"""

from __future__ import annotations

import ast

from .memo import nodes_of, per_tree

MAX_STRING_CHARS = 20_000
MAX_TOTAL_CHARS = 500_000
_FORMATTERS = frozenset({"format", "replace"})


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _expression_strings(root: ast.BinOp) -> list[ast.Constant]:
    """The string constants bandit joins for a tree of binary operations (it descends
    through ``BinOp`` nodes only)."""
    found, todo = [], [root]
    while todo:
        node = todo.pop()
        for side in (node.left, node.right):
            if isinstance(side, ast.BinOp):
                todo.append(side)
            elif _is_str(side):
                found.append(side)
    return found


def _scanned(tree: ast.Module):
    """Yield (line, length of one string bandit would search, how many times it searches it)."""
    inner = {id(side) for node in nodes_of(tree, ast.BinOp)
             for side in (node.left, node.right) if isinstance(side, ast.BinOp)}
    for node in nodes_of(tree, ast.BinOp, ast.JoinedStr, ast.Attribute):
        if isinstance(node, ast.BinOp) and id(node) not in inner:
            parts = _expression_strings(node)
            if parts:  # each part's search joins at most all of them, with a space between
                yield node.lineno, sum(len(p.value) for p in parts) + len(parts) - 1, len(parts)
        elif isinstance(node, ast.JoinedStr):
            parts = [p for p in node.values if _is_str(p)]
            if parts:
                yield node.lineno, sum(len(p.value) for p in parts), 1
        elif isinstance(node, ast.Attribute) and node.attr in _FORMATTERS and _is_str(node.value):
            yield node.lineno, len(node.value.value), 1


@per_tree
def bandit_budget_problem(tree: ast.Module) -> str | None:
    """Why bandit must not scan this module (the longest or the total string it would search
    is over its limit), or None. E.g. "string expression of 500003 characters (line 3)
    exceeds the analysis limit of 20000"."""
    total = 0
    for line, length, times in _scanned(tree):
        if length > MAX_STRING_CHARS:
            return (f"string expression of {length} characters (line {line}) exceeds the "
                    f"analysis limit of {MAX_STRING_CHARS}")
        total += length * times
    if total > MAX_TOTAL_CHARS:
        return (f"string expressions bandit would search total {total} characters, over the "
                f"analysis limit of {MAX_TOTAL_CHARS}")
    return None
