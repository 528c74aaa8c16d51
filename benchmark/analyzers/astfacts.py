"""Facts from ``ast``: every function takes a parsed ``ast.Module`` and returns plain data.

Lines are 1-based lines of the original source. Comments never reach the tree, and no fact
here reads docstrings or string contents (except where a fact is about strings), so
commenting or documenting a program changes no result.

Loop facts live in :mod:`.loops`, file-opening facts in :mod:`.opens`, normalization in
:mod:`.normalize` and import-alias resolution in :mod:`.resolve`; they are re-exported here
so callers need only this module.
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass
from typing import Literal

from .memo import nodes_of
from .bindings import bindings, class_body_ids
from .loops import io_in_loops, nested_loops, range_len_loops
from .normalize import FunctionNode, FunctionSpan, function_spans, iter_defs
from .normalize import normalized_source, strip_docstrings
from .opens import opens_without_encoding, unmanaged_opens
from .resolve import find_calls, find_references

__all__ = [
    "FunctionSpan", "HandlerInfo", "annotation_ratio", "bad_names", "call_keywords",
    "call_nodes", "calls_to", "find_function", "function_spans", "functions", "handlers",
    "has_main_guard", "imported_modules", "io_in_loops", "module_side_effects",
    "nested_loops", "normalized_source", "opens_without_encoding", "range_len_loops",
    "shadowed_builtins", "strip_docstrings", "unmanaged_opens",
]

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def imported_modules(tree: ast.Module) -> set[str]:
    """Top-level package names imported anywhere; relative imports are ignored."""
    found: set[str] = set()
    for node in nodes_of(tree, ast.Import, ast.ImportFrom):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def _module_scope(tree: ast.Module):
    """Statements run in module scope: the body and blocks of if/try/with/for at top level."""
    todo = list(reversed(tree.body))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (*_DEFS, ast.ClassDef)):
            inner = [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt)]
            todo.extend(reversed(inner))


def find_function(tree: ast.Module, name: str) -> FunctionNode | None:
    """The module-level def called ``name`` (the last one when redefined), else None."""
    found = [node for node in _module_scope(tree) if isinstance(node, _DEFS) and node.name == name]
    return max(found, key=lambda node: node.lineno) if found else None


def functions(tree: ast.Module) -> list[FunctionNode]:
    """Every def, including methods and nested functions, in source order."""
    return [node for _, node in iter_defs(tree)]


def _is_staticmethod(node: FunctionNode) -> bool:
    return any(
        isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list
    )


def annotation_ratio(tree: ast.Module) -> tuple[int, int]:
    """(annotated slots, slots): every parameter (not a method's leading self/cls) + return."""
    methods = class_body_ids(tree)
    annotated = total = 0
    for node in functions(tree):
        args = node.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        params += [arg for arg in (args.vararg, args.kwarg) if arg is not None]
        positional = [*args.posonlyargs, *args.args]
        if id(node) in methods and not _is_staticmethod(node) and positional:
            if positional[0].arg in ("self", "cls"):
                params.remove(positional[0])
        annotated += sum(arg.annotation is not None for arg in params)
        annotated += node.returns is not None
        total += len(params) + 1
    return annotated, total


def _is_main_test(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    if not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    mains = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(mains) == 1


def has_main_guard(tree: ast.Module) -> bool:
    """Whether the module has a top-level ``if __name__ == "__main__":`` (either order)."""
    return any(isinstance(node, ast.If) and _is_main_test(node.test) for node in tree.body)


@dataclass(frozen=True)
class HandlerInfo:
    """One ``except`` clause: its line, how wide it catches, and whether it swallows."""

    line: int
    kind: Literal["bare", "broad", "specific"]
    swallowed: bool

    @property
    def hides_errors(self) -> bool:
        """Bare, or broad and silent: the handlers the prompts' quality checks count against."""
        return self.kind == "bare" or (self.kind == "broad" and self.swallowed)


_BROAD = frozenset({"Exception", "BaseException", "builtins.Exception", "builtins.BaseException"})


def _handler_kind(handler: ast.ExceptHandler) -> str:
    if handler.type is None:
        return "bare"
    caught = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    names = {ast.unparse(item) for item in caught}
    return "broad" if names & _BROAD else "specific"


def _does_nothing(statement: ast.stmt) -> bool:
    if isinstance(statement, (ast.Pass, ast.Continue)):
        return True
    if isinstance(statement, ast.Expr):
        return isinstance(statement.value, ast.Constant)
    if isinstance(statement, ast.Return):
        value = statement.value
        return value is None or (isinstance(value, ast.Constant) and value.value is None)
    return False


def handlers(tree: ast.Module) -> list[HandlerInfo]:
    """Every except clause; swallowed = body only pass/.../continue/constant/return None."""
    found = [
        HandlerInfo(node.lineno, _handler_kind(node), all(map(_does_nothing, node.body)))
        for node in nodes_of(tree, ast.ExceptHandler)
    ]
    return sorted(found, key=lambda info: info.line)


# Interactive helpers added by ``site`` (and ``_``) are harmless to rebind.
_HARMLESS = frozenset({"_", "copyright", "credits", "license", "exit", "quit", "help"})
BUILTIN_NAMES = frozenset(
    name for name in dir(builtins) if not name.startswith("__") and name not in _HARMLESS
)


def shadowed_builtins(tree: ast.Module) -> list[tuple[str, int]]:
    """(name, line) of builtins rebound anywhere, sorted by line.

    Counted: assignment, for, with-as, comprehension, except-as and match targets,
    def/class names, parameters (lambda ones too) and import-as names. Names bound directly
    in a class body (methods, class attributes such as a dataclass field ``type``) live in
    the class namespace and shadow nothing, so they are not reported.
    """
    found = {
        (b.name, b.line)
        for b in bindings(tree)
        if b.name in BUILTIN_NAMES and not b.in_class_body
    }
    return sorted(found, key=lambda item: (item[1], item[0]))


def calls_to(tree: ast.Module, dotted: str) -> list[int]:
    """Lines of calls to ``dotted``, resolving import aliases (``from yaml import load as L``)."""
    return [call.lineno for call in find_calls(tree, dotted)]


def references_to(tree: ast.Module, dotted: str) -> list[int]:
    """Lines where ``dotted`` is used as a value rather than called (aliases resolved): a
    function handed to another, ``read(path, yaml.safe_load)``, or bound to a name."""
    return [node.lineno for node in find_references(tree, dotted)]


def call_nodes(tree: ast.Module, dotted: str) -> list[ast.Call]:
    """The call nodes behind :func:`calls_to`, for callers that inspect positional args."""
    return find_calls(tree, dotted)


def call_keywords(tree: ast.Module, dotted: str) -> list[tuple[int, dict[str, ast.expr]]]:
    """(line, keyword arguments) per call to ``dotted``; a ``**mapping`` appears as ``"**"``."""
    return [
        (call.lineno, {item.arg or "**": item.value for item in call.keywords})
        for call in find_calls(tree, dotted)
    ]


_CONVENTIONAL = frozenset("_ijknxyef")
_SNAKE = re.compile(r"^_*[a-z][a-z0-9_]*$")
_DUNDER = re.compile(r"^__[A-Za-z0-9_]+__$")
_CAPWORDS = re.compile(r"^_*[A-Z][A-Za-z0-9]*$")
# Names frameworks dictate (unittest hooks, ast.NodeVisitor / http.server handlers).
_HOOKS = frozenset({"setUp", "tearDown", "setUpClass", "tearDownClass", "asyncSetUp",
                    "asyncTearDown", "setUpModule", "tearDownModule"})
_HOOK_PREFIX = re.compile(r"^(visit|depart|do)_\w+$")
_NAMED_KINDS = frozenset({"assign", "param", "for", "comp", "with", "def", "class"})


def _badly_named(name: str, kind: str) -> bool:
    if len(name) == 1 and name not in _CONVENTIONAL:
        return True
    if kind == "def":
        allowed = _SNAKE.match(name) or _DUNDER.match(name) or name in _HOOKS
        return not (allowed or _HOOK_PREFIX.match(name))
    if kind == "class":
        return not _CAPWORDS.match(name)
    return False


def bad_names(tree: ast.Module) -> list[tuple[str, int]]:
    """(name, line) of poor names, sorted by line and de-duplicated.

    Single-letter names bound by assignment, parameter, for/comprehension target, with-as or
    def/class (except ``_ i j k n x y e f``; lambda parameters are exempt), functions that
    are not snake_case (dunders and framework hooks such as ``setUp``/``visit_Name`` are
    fine) and classes that are not CapWords.
    """
    found = {
        (b.name, b.line)
        for b in bindings(tree)
        if b.kind in _NAMED_KINDS and _badly_named(b.name, b.kind)
    }
    return sorted(found, key=lambda item: (item[1], item[0]))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


_IMPORTS = (ast.Import, ast.ImportFrom)
_QUIET = (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Pass)


def _is_import_fallback(node: ast.Try) -> bool:
    handler_bodies = [stmt for handler in node.handlers for stmt in handler.body]
    return (
        all(isinstance(stmt, _IMPORTS) for stmt in node.body)
        and all(isinstance(stmt, _QUIET) for stmt in handler_bodies + node.orelse + node.finalbody)
    )


def _adds_a_null_handler(value: ast.expr) -> bool:
    """``<logger>.addHandler(logging.NullHandler())``: what the logging HOWTO advises a library
    module to do with its own logger (it prints nothing and configures nothing else)."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr == "addHandler" and len(value.args) == 1 and not value.keywords):
        return False
    handler = value.args[0]
    if not (isinstance(handler, ast.Call) and not handler.args and not handler.keywords):
        return False
    made = handler.func
    return (isinstance(made, ast.Name) and made.id == "NullHandler") or (
        isinstance(made, ast.Attribute) and made.attr == "NullHandler")


def _is_quiet_statement(node: ast.stmt) -> bool:
    if isinstance(node, (*_IMPORTS, *_DEFS, ast.ClassDef, ast.Assign, ast.AnnAssign,
                         ast.AugAssign, ast.Pass)):
        return True
    if isinstance(node, ast.Expr):
        return isinstance(node.value, ast.Constant) or _adds_a_null_handler(node.value)
    if isinstance(node, ast.If):
        return _is_main_test(node.test) or _is_type_checking(node.test)
    if isinstance(node, ast.Try):
        return _is_import_fallback(node)
    return False


def module_side_effects(tree: ast.Module) -> list[int]:
    """Lines of top-level statements that do something when the module is imported.

    Quiet: constants/docstrings, imports, defs, classes, (annotated/augmented) assignments,
    ``pass``, the ``__main__`` guard, ``if TYPE_CHECKING:``, ``try`` blocks that only
    import (handlers/else/finally: imports, assignments, pass) and a logger given a
    ``NullHandler`` (the logging HOWTO's advice for libraries). Everything else is reported,
    module-level calls such as ``print()``, ``main()`` and ``logging.basicConfig()`` included.
    """
    return [node.lineno for node in tree.body if not _is_quiet_statement(node)]
