"""Check types that read the parsed source: ``compiles`` and the structural ``ast.*`` types.

Each reads ``file`` (default: the task's main file) through ``common.python_tree``; the
facts come from ``benchmark.analyzers.astfacts``, so comments never earn or cost points.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import Any

from ...analyzers import astfacts
from ...analyzers.memo import nodes_of
from ...analyzers.normalize import iter_defs
from ...prompts.base import CheckContext, Outcome, compiles
from ...types import Evidence
from ..registry import builtin_check
from .common import FILE_PARAM, RATIO_PARAM, file_name, listed, python_tree, share_with_floor

_NAMES = {"type": "array", "uniqueItems": True, "items": {"type": "string", "minLength": 1}}
_MODULES = {**_NAMES, "items": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"}}
ALLOW_ASYNC_PARAM = {"type": "boolean", "default": True,
                     "description": "false: an `async def` of the function fails the check (calling "
                                    "it returns a coroutine, not a result); default true"}


@builtin_check("compiles", method="ast", params={"file": FILE_PARAM})
def compiles_check(ctx: CheckContext, file: str | None = None) -> Outcome:
    """The file was read, parses and compiles.

    Parameters: ``file``. All or nothing: a missing or unreadable file, or a syntax error
    (its line is the evidence), earns nothing.
    """
    return compiles(ctx, file_name(ctx, file))


@builtin_check("ast.defines", method="ast", required=("function",), params={
    "file": FILE_PARAM,
    "function": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*$",
                 "description": "the function's name"},
    "class": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_.]*$",
              "description": "when given, the function must be a method of this class "
                             "(a dotted name for a nested class: Outer.Inner)"},
    "allow_async": ALLOW_ASYNC_PARAM,
})
def defines(ctx: CheckContext, function: str, file: str | None = None, allow_async: bool = True,
            **params: Any) -> Outcome:
    """The file defines the named function: at module level, or as a method of ``class``.

    Parameters: ``function`` (required), ``class``, ``allow_async`` (default true; false: an
    ``async def`` does not count, since calling it returns a coroutine, not a result),
    ``file``. All or nothing. A module-level def inside a top-level ``if``/``try`` block
    counts; one nested in another function does not.
    """
    name, tree, failed = python_tree(ctx, file)
    if failed:
        return failed
    owner = params.get("class")
    if owner:
        found = [node for qualname, node in iter_defs(tree) if qualname == f"{owner}.{function}"]
        node = found[-1] if found else None
        what = f"method {owner}.{function}"
    else:
        node = astfacts.find_function(tree, function)
        what = f"function {function}"
    if node is None:
        return Outcome.fail(f"{name} defines no {what}")
    if not allow_async and isinstance(node, ast.AsyncFunctionDef):
        return _is_async(name, what, node)
    return Outcome.ok(f"{name} defines {what} (line {node.lineno})", [Evidence(name, node.lineno)])


def _is_async(name: str, what: str, node: ast.AsyncFunctionDef) -> Outcome:
    """The fail of a type given ``allow_async: false`` for an ``async def``."""
    return Outcome.fail(f"{name} defines {what} as an `async def` (line {node.lineno}), not the plain "
                        "def required: calling it returns a coroutine, not a result",
                        [Evidence(name, node.lineno, "async def")])


def _split_parameters(node: ast.FunctionDef | ast.AsyncFunctionDef
                      ) -> tuple[list[str], list[str], list[str]]:
    """(required positional names, required keyword-only names, names with defaults) of a
    def; ``*args``/``**kwargs`` are none of them."""
    args = node.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    cut = len(positional) - len(args.defaults)
    keyword = [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]
    optional = positional[cut:] + [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return positional[:cut], keyword, optional


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[list[str], list[str]]:
    """(required names, names with defaults) of a def; ``*args``/``**kwargs`` are neither."""
    positional, keyword, optional = _split_parameters(node)
    return positional + keyword, optional


def _declared(ctx: CheckContext) -> Mapping[str, Any]:
    run = ctx.task.run if ctx.task is not None else {}
    signature = run.get("signature") if isinstance(run, Mapping) else None
    return signature if isinstance(signature, Mapping) else {}


@builtin_check("ast.signature", method="ast", params={
    "file": {**FILE_PARAM, "description": "the file to read (default: run.module, else the "
                                          "task's main file)"},
    "function": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*$",
                 "description": "the module-level function (default: run.function)"},
    "required": {**_NAMES, "description": "parameter names that must be required (no "
                                          "default); default: run.signature.required"},
    "optional": {**_NAMES, "description": "parameter names that must exist with a default; "
                                          "default: run.signature.optional"},
    "positional": {"type": "integer", "minimum": 0,
                   "description": "when given, the function must have exactly this many required "
                                  "parameters, all positional, whatever their names (a caller passes "
                                  "them by position), and no required keyword-only one; all or nothing"},
    "allow_async": ALLOW_ASYNC_PARAM,
})
def signature(ctx: CheckContext, file: str | None = None, function: str | None = None,
              required: Sequence[str] | None = None, optional: Sequence[str] | None = None,
              positional: int | None = None, allow_async: bool = True) -> Outcome:
    """The function takes exactly the stated required parameters, and the optional ones with defaults.

    Parameters: ``function``, ``required``, ``optional``, ``file`` (defaults from the task's
    ``run``: ``function``, ``module`` and ``signature: {required, optional}``). Partial
    credit: the share of met expectations, where each stated name is one expectation and
    each required parameter the function has but the contract does not name is one more,
    unmet (a caller following the contract could not call it).
    ``positional`` (a count; names free): the function must have exactly that many required
    parameters, all positional, and no required keyword-only one, or the check fails
    outright; further parameters with defaults, ``*args`` and ``**kwargs`` are fine, and
    ``required``/``optional`` may then be left out (given, they are judged as well).
    ``allow_async`` (default true): false fails an ``async def`` outright.
    """
    run = ctx.task.run if ctx.task is not None else {}
    function = function or run.get("function")
    required = list(required if required is not None else _declared(ctx).get("required", []))
    optional = list(optional if optional is not None else _declared(ctx).get("optional", []))
    if not function or not (required or optional or positional is not None):
        return Outcome.fail("no function or parameters were stated, so nothing can be checked")
    name, tree, failed = python_tree(ctx, file or run.get("module"))
    if failed:
        return failed
    node = astfacts.find_function(tree, function)
    if node is None:
        return Outcome.fail(f"{name} defines no module-level function {function}")
    if not allow_async and isinstance(node, ast.AsyncFunctionDef):
        return _is_async(name, f"function {function}", node)
    if positional is not None:
        wrong = _positional_problem(node, positional)
        if wrong:
            return Outcome.fail(f"{function} {wrong}", [Evidence(name, node.lineno)])
        if not (required or optional):
            names = ", ".join(a.arg for a in (node.args.posonlyargs + node.args.args)[:positional])
            return Outcome.ok(f"{function}({names}) takes exactly {positional} required "
                              "positional parameter(s), as stated", [Evidence(name, node.lineno)])
    has_required, has_optional = _parameters(node)
    problems = [f"{p} is not a required parameter" for p in required if p not in has_required]
    problems += [f"{p} is not a parameter with a default" for p in optional if p not in has_optional]
    extra = [p for p in has_required if p not in required and p not in optional]
    problems += [f"{p} is required but not in the contract" for p in extra]
    total = len(required) + len(optional) + len(extra)
    evidence = [Evidence(name, node.lineno, note) for note in problems[:10]]
    if not problems:
        return Outcome.ok(f"{function} has the stated signature", [Evidence(name, node.lineno)])
    return Outcome.ratio(total - len(problems), total,
                         f"{function}: {listed(problems)}", evidence)


def _positional_problem(node: ast.FunctionDef | ast.AsyncFunctionDef, count: int) -> str:
    """Why ``node`` does not take exactly ``count`` required positional parameters (and no
    required keyword-only one), or ''."""
    required, keyword, _ = _split_parameters(node)
    if len(required) == count and not keyword:
        return ""
    extra = f" and required keyword-only {', '.join(keyword)}" if keyword else ""
    return (f"has {len(required)} required positional parameter(s) ({', '.join(required) or 'none'})"
            f"{extra}; exactly {count} stated")


def _imported(tree: ast.Module) -> set[str]:
    """Every module name imported, with its parents (``import a.b`` gives a and a.b;
    ``from a import b`` gives a and a.b, since b may be a submodule). Relative imports skip."""
    found: set[str] = set()
    for node in nodes_of(tree, ast.Import, ast.ImportFrom):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for dotted in names:
            parts = dotted.split(".")
            found.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return found


@builtin_check("ast.imports", method="ast", params={
    "file": FILE_PARAM,
    "require": {**_MODULES, "description": "modules the file must import (anywhere)"},
    "forbid": {**_MODULES, "description": "modules the file must not import"},
})
def imports(ctx: CheckContext, file: str | None = None, require: Sequence[str] = (),
            forbid: Sequence[str] = ()) -> Outcome:
    """The file imports every module in ``require`` and none in ``forbid``.

    Parameters: ``require``, ``forbid`` (module names; ``os.path`` is met by ``import
    os.path`` or ``from os.path import ...`` or ``from os import path``), ``file``. Partial
    credit: the share of the listed modules that are as required. With both lists empty
    there is nothing to check: fail.
    """
    if not require and not forbid:
        return Outcome.fail("neither require nor forbid lists a module")
    name, tree, failed = python_tree(ctx, file)
    if failed:
        return failed
    found = _imported(tree)
    problems = [f"does not import {m}" for m in require if m not in found]
    problems += [f"imports {m}" for m in forbid if m in found]
    total = len(require) + len(forbid)
    if not problems:
        return Outcome.ok(f"{name}: imports as required ({total} module(s) checked)")
    return Outcome.ratio(total - len(problems), total, f"{name}: {listed(problems)}",
                         [Evidence(name, None, note) for note in problems[:10]])


@builtin_check("ast.type_hints", method="ast", params={"file": FILE_PARAM, "min_ratio": RATIO_PARAM})
def type_hints(ctx: CheckContext, file: str | None = None, min_ratio: float = 1.0) -> Outcome:
    """Parameters and return values are annotated.

    Slots are every parameter (not a method's leading ``self``/``cls``) plus each return.
    Parameters: ``min_ratio`` (default 1.0), ``file``. Partial credit: the annotated share
    divided by ``min_ratio``, capped at 1. A file without functions fails.
    """
    name, tree, failed = python_tree(ctx, file)
    if failed:
        return failed
    annotated, total = astfacts.annotation_ratio(tree)
    if total == 0:
        return Outcome.fail(f"{name} defines no functions to annotate")
    return Outcome(share_with_floor(annotated, total, min_ratio),
                   f"{name}: {annotated}/{total} parameters and returns annotated "
                   f"(full credit from {min_ratio:.0%})")


@builtin_check("ast.main_guard", method="ast", params={"file": FILE_PARAM})
def main_guard(ctx: CheckContext, file: str | None = None) -> Outcome:
    """The file has a top-level ``if __name__ == "__main__":`` guard.

    Parameters: ``file``. All or nothing.
    """
    name, tree, failed = python_tree(ctx, file)
    if failed:
        return failed
    guard = next((n for n in tree.body if isinstance(n, ast.If) and astfacts.has_main_guard(
        ast.Module(body=[n], type_ignores=[]))), None)
    if guard is None:
        return Outcome.fail(f'{name} has no top-level `if __name__ == "__main__":` guard')
    return Outcome.ok(f"{name} has a main guard (line {guard.lineno})", [Evidence(name, guard.lineno)])


def _public_definitions(tree: ast.Module) -> list[ast.AST]:
    """Functions and classes whose name and every enclosing class name have no leading
    underscore, outside any function body (nested helpers are private by nature)."""
    found: list[ast.AST] = []
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name.startswith("_"):
                continue
            found.append(node)
            if isinstance(node, ast.ClassDef):
                todo.extend(node.body)
        elif isinstance(node, (ast.If, ast.Try)):
            todo.extend([*node.body, *node.orelse, *getattr(node, "finalbody", [])])
    return found


@builtin_check("ast.docstrings", method="ast", params={"file": FILE_PARAM, "min_ratio": RATIO_PARAM})
def docstrings(ctx: CheckContext, file: str | None = None, min_ratio: float = 1.0) -> Outcome:
    """Public functions and classes have docstrings.

    Public: a module-level or class-level def/class whose name (and whose class's name) does
    not start with ``_``; functions nested in functions are not counted. This is the one
    check type that reads docstrings: what they say is never judged, only that they exist
    and are not blank. Parameters: ``min_ratio`` (default 1.0), ``file``. Partial credit:
    the documented share divided by ``min_ratio``, capped at 1. No public definitions: fail.
    """
    name, tree, failed = python_tree(ctx, file)
    if failed:
        return failed
    public = _public_definitions(tree)
    if not public:
        return Outcome.fail(f"{name} has no public functions or classes")
    missing = [node for node in public if not (ast.get_docstring(node) or "").strip()]
    done = len(public) - len(missing)
    return Outcome(share_with_floor(done, len(public), min_ratio),
                   f"{name}: {done}/{len(public)} public definitions documented"
                   + (f"; missing: {listed([n.name for n in missing])}" if missing else ""),
                   tuple(Evidence(name, n.lineno, f"{n.name} has no docstring") for n in missing[:10]))
