"""AST performance rules behind ``PerformanceAnalyzer``; each returns ``[(line, message)]``."""

from __future__ import annotations

import ast

from .bindings import target_names
from .loops import LOOP_STATEMENTS, is_loop, loop_line, nested_loops, range_len_loops, walk_loops
from .scopes import names_assigned, scope_map

Finding = tuple[int, str]


def nested_loop_findings(tree: ast.Module) -> list[Finding]:
    return [(line, "loop nested inside another loop") for line in nested_loops(tree)]


def _is_text(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str"


def _is_list_value(node: ast.expr) -> bool:
    if isinstance(node, (ast.List, ast.ListComp)):
        return True
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "list")


def _string_concat(node: ast.AST, strings: set[str]) -> bool:
    if not (isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add)):
        return False
    if not isinstance(node.target, ast.Name):
        return False
    return node.target.id in strings or _is_text(node.value)


def _list_lookup(node: ast.AST, lists: set[str]) -> str | None:
    if isinstance(node, ast.Compare):
        for op, right in zip(node.ops, node.comparators):
            if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, ast.Name):
                if right.id in lists:
                    return f"membership test on list '{right.id}' inside a loop; use a set"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        receiver = node.func.value
        if node.func.attr == "index" and isinstance(receiver, ast.Name) and receiver.id in lists:
            return f"list.index() on '{receiver.id}' inside a loop; use a dict"
    return None


def inefficient_findings(tree: ast.Module) -> list[Finding]:
    """String ``+=`` in loops, ``range(len(x))`` loops, list lookups inside loops.

    A string ``+=`` is one whose value is a string/f-string/``str()`` or whose target was
    assigned a string in the same scope; a list is a name assigned a list literal,
    comprehension or ``list(...)`` in the same scope.
    """
    owner = scope_map(tree)
    strings = names_assigned(tree, owner, _is_text)
    lists = names_assigned(tree, owner, _is_list_value)
    findings = [(line, "range(len(...)) loop; iterate directly or use enumerate()")
                for line in range_len_loops(tree)]
    for node, loops in walk_loops(tree):
        if not loops:
            continue
        scope = id(owner[id(node)])
        if _string_concat(node, strings.get(scope, set())):
            findings.append((node.lineno, "string built with += in a loop; use ''.join()"))
        message = _list_lookup(node, lists.get(scope, set()))
        if message:
            findings.append((node.lineno, message))
    return sorted(findings)


_LAZY_ITERABLES = frozenset({"map", "filter", "zip", "range", "enumerate", "reversed"})


def _materialized_iterable(loop: ast.AST) -> bool:
    iterable = getattr(loop, "iter", None)
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)):
        return False
    if iterable.func.id != "list" or len(iterable.args) != 1:
        return False
    inner = iterable.args[0]
    if isinstance(inner, ast.GeneratorExp):
        return True
    return (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
            and inner.func.id in _LAZY_ITERABLES)


def _method_call(node: ast.AST, name: str) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == name)


def memory_findings(tree: ast.Module) -> list[Finding]:
    """``.readlines()``, ``for x in list(<lazy iterable>)``, whole-file ``.read()`` in loops."""
    findings = []
    for node, loops in walk_loops(tree):
        if _method_call(node, "readlines"):
            findings.append((node.lineno, "readlines() loads the whole file; iterate the file"))
        elif is_loop(node) and _materialized_iterable(node):
            findings.append((loop_line(node), "list() materializes an iterable only to loop"))
        elif loops and _method_call(node, "read") and not node.args and not node.keywords:
            findings.append((node.lineno, "whole-file read() inside a loop"))
    return sorted(findings)


def _sort_subject(node: ast.AST) -> ast.expr | None:
    if _method_call(node, "sort"):
        return node.func.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
        return node.args[0] if node.func.id == "sorted" else None
    return None


def _loop_targets(loops) -> set[str]:
    return {
        name.id
        for loop in loops
        if not isinstance(loop, ast.While)
        for name in target_names(loop.target)
    }


def algorithm_findings(tree: ast.Module) -> list[Finding]:
    """Sorting inside a loop (of something the loop does not bind) and loops nested over
    the same iterable as an enclosing loop (all pairs, O(n^2))."""
    findings = []
    for node, loops in walk_loops(tree):
        if not loops:
            continue
        subject = _sort_subject(node)
        if subject is not None and not (
            isinstance(subject, ast.Name) and subject.id in _loop_targets(loops)
        ):
            findings.append((node.lineno, "sorting inside a loop; sort once outside it"))
        if isinstance(node, LOOP_STATEMENTS + (ast.comprehension,)) and hasattr(node, "iter"):
            outer = [ast.dump(loop.iter) for loop in loops if hasattr(loop, "iter")]
            if ast.dump(node.iter) in outer:
                findings.append((loop_line(node), "nested loop over the same iterable (O(n^2))"))
    return sorted(findings)
