"""Do-nothing stubs of a reference solution, for ``pack validate``'s do-nothing gate: the
reference's own functions and classes with every body replaced, so a check that pays for the
right names and signatures without the work is caught (ARCHITECTURE principle 5).

Three kinds: every function returns ``None``, returns the constant ``0``, or raises
``NotImplementedError``. A stub keeps the module's imports, its classes (with their
annotated and literal fields, so dataclasses keep their shape) and each function's name,
decorators and parameters; it drops every other top-level statement (a ``__main__`` block,
computed constants), so it does nothing when imported or run. Top-level constants and type
aliases that only declare stay (a parameter's default or an annotation may name one).
"""

from __future__ import annotations

import ast

STUB_KINDS = {"none": "returns None", "constant": "returns 0", "raises": "raises NotImplementedError"}
_BODIES = {"none": "return None", "constant": "return 0", "raises": "raise NotImplementedError"}


def _declares(node: ast.AST) -> bool:
    """A value that only declares: a literal, or names, subscripts and operators of them (a
    type alias such as ``Row = dict[str, int | None]``), nothing that calls or computes."""
    return not any(isinstance(n, (ast.Call, ast.Lambda, ast.comprehension, ast.Await, ast.Yield,
                                  ast.YieldFrom, ast.NamedExpr)) for n in ast.walk(node))


def _is_literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


class _Stubber(ast.NodeTransformer):
    def __init__(self, kind: str) -> None:
        self.body = ast.parse(_BODIES[kind]).body

    def _function(self, node):
        node.body = [*self.body]  # the signature stays, annotations and decorators included
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:
        kept = []
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                kept.append(self._function(item))
            elif isinstance(item, ast.ClassDef):
                kept.append(self.visit_ClassDef(item))
            elif isinstance(item, ast.AnnAssign) and (item.value is None or _is_literal(item.value)):
                kept.append(item)
            elif isinstance(item, ast.Assign) and _is_literal(item.value):
                kept.append(item)
        node.body = kept or [ast.Pass()]
        return node


def stub_source(source: str, kind: str) -> str | None:
    """``source`` (a reference solution's Python file) as a stub of ``kind`` (``STUB_KINDS``), or
    None when it does not parse or defines no function to stub."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    stubber = _Stubber(kind)
    body = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            body.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body.append(stubber.visit(node))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and _declares(node.value):
            body.append(node)
    if not any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in body):
        return None
    return ast.unparse(ast.Module(body=body, type_ignores=[])) + "\n"
