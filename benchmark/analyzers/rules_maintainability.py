"""AST/radon maintainability rules behind ``MaintainabilityAnalyzer``; ``[(line, message)]``."""

from __future__ import annotations

import ast

from .memo import all_nodes
from . import astfacts
from .maintainability import CodeMetrics
from .normalize import iter_defs, strip_docstrings

Finding = tuple[int, str]
MAX_FUNCTION_LINES = 20
MAX_COMPLEXITY = 10
MAX_NESTING = 4
WINDOW = 3


def length_findings(data: CodeMetrics, limit: int = MAX_FUNCTION_LINES) -> list[Finding]:
    return [
        (item.line, f"function '{item.name}' is {item.length} lines long (limit {limit})")
        for item in data.functions
        if item.length > limit
    ]


_TRIVIAL = (ast.Import, ast.ImportFrom, ast.Pass, ast.Break, ast.Continue, ast.Return)


def _windows(tree: ast.Module):
    """(list id, index, window) for every run of WINDOW consecutive statements."""
    for node in all_nodes(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if not isinstance(body, list) or len(body) < WINDOW:
                continue
            for index in range(len(body) - WINDOW + 1):
                window = body[index:index + WINDOW]
                if not all(isinstance(stmt, _TRIVIAL) for stmt in window):
                    yield id(body), index, window


def duplication_findings(tree: ast.Module) -> list[Finding]:
    """Runs of >= 3 statements identical (``ast.dump``, docstrings stripped) to an earlier run.

    One finding per duplicated run, at its first line, naming the lines it repeats;
    overlapping windows of one statement list (``a; a; a; a``) are not duplicates.
    """
    first: dict[tuple[str, ...], tuple[int, int, list[ast.stmt]]] = {}
    repeats: dict[tuple[int, int], tuple[list[ast.stmt], list[ast.stmt]]] = {}
    for body_id, index, window in _windows(strip_docstrings(tree)):
        key = tuple(ast.dump(stmt) for stmt in window)
        seen = first.setdefault(key, (body_id, index, window))
        if seen[:2] != (body_id, index) and (seen[0] != body_id or index - seen[1] >= WINDOW):
            repeats[(body_id, index)] = (window, seen[2])
    return sorted(
        (window[0].lineno,
         f"repeats the statements at lines {original[0].lineno}-{original[-1].end_lineno}")
        for (body_id, index), (window, original) in repeats.items()
        if (body_id, index - 1) not in repeats  # later windows continue a reported run
    )


def _sub_bodies(stmt: ast.stmt) -> list[tuple[list[ast.stmt], bool]]:
    """(statement list, deeper?) pairs; an ``elif`` chain stays at the same depth."""
    if isinstance(stmt, ast.If):
        elif_chain = len(stmt.orelse) == 1 and isinstance(stmt.orelse[0], ast.If)
        return [(stmt.body, True), (stmt.orelse, not elif_chain)]
    bodies = [getattr(stmt, f, []) for f in ("body", "orelse", "finalbody")]
    bodies += [h.body for h in getattr(stmt, "handlers", [])]
    bodies += [case.body for case in getattr(stmt, "cases", [])]
    return [(body, True) for body in bodies]


def _deepest(body: list[ast.stmt], depth: int) -> tuple[int, int]:
    """(deepest block level, line of the block statement reaching it) within ``body``."""
    best = (depth, 0)
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue  # nested definitions are measured on their own
        for child, deeper in _sub_bodies(stmt):
            if not child:
                continue
            level = depth + 1 if deeper else depth
            if level > best[0]:
                best = (level, stmt.lineno)
            found = _deepest(child, level)
            if found[0] > best[0]:
                best = found
    return best


def nesting_depth(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
    """Deepest nesting of blocks (if/for/while/with/try/match) in a function and its line."""
    return _deepest(function.body, 0)


def complexity_findings(tree: ast.Module, data: CodeMetrics) -> list[Finding]:
    """Functions with radon complexity > 10 or blocks nested more than 4 deep."""
    findings = [
        (item.line, f"function '{item.name}' has cyclomatic complexity {item.complexity} "
                    f"(limit {MAX_COMPLEXITY})")
        for item in data.functions
        if item.complexity > MAX_COMPLEXITY
    ]
    for qualname, function in iter_defs(tree):
        depth, line = nesting_depth(function)
        if depth > MAX_NESTING:
            findings.append((line, f"'{qualname}' nests blocks {depth} deep "
                                   f"(limit {MAX_NESTING})"))
    return sorted(findings)


def naming_findings(tree: ast.Module) -> list[Finding]:
    """Poor names (:func:`astfacts.bad_names`) and rebound builtins."""
    findings = [(line, f"unclear or unconventional name '{name}'")
                for name, line in astfacts.bad_names(tree)]
    findings += [(line, f"'{name}' shadows a builtin")
                 for name, line in astfacts.shadowed_builtins(tree)]
    return sorted(findings)
