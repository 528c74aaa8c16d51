"""Check types for habits read from the parsed source: exception handling, names, files,
logging and loops. Facts come from ``benchmark.analyzers.astfacts``; each finding-counting
type costs ``cost`` per finding (default a quarter)."""

from __future__ import annotations

import ast

from ...analyzers import astfacts
from ...analyzers.memo import nodes_of
from ...analyzers.opens import is_open_call
from ...analyzers.resolve import resolver_for
from ...prompts.base import CheckContext, Outcome
from ...types import Evidence
from ..registry import builtin_check
from .common import COST_PARAM, FILE_PARAM, IF_NONE_PARAM, listed, per_finding, python_tree

LOGGING_CALLS = tuple(f"logging.{name}" for name in (
    "getLogger", "basicConfig", "debug", "info", "warning", "warn", "error", "exception",
    "critical", "log", "config.dictConfig", "config.fileConfig"))
_FINDING_PARAMS = {"file": FILE_PARAM, "cost": COST_PARAM}


def _nothing(name: str, if_none: str, what: str) -> Outcome:
    if if_none == "pass":
        return Outcome.ok(f"{name} has no {what}, so none is wrong")
    return Outcome.fail(f"{name} has no {what} to judge")


@builtin_check("ast.specific_exceptions", method="ast",
               params={"file": FILE_PARAM, "if_none": IF_NONE_PARAM})
def specific_exceptions(ctx: CheckContext, file: str | None = None, if_none: str = "fail") -> Outcome:
    """Exception handlers catch specific exceptions or handle what they catch.

    A handler counts against when it is bare (``except:``), or catches ``Exception``/
    ``BaseException`` and swallows it (its body only ``pass``, ``...``, ``continue``, a
    constant or ``return None``). Parameters: ``if_none`` (verdict for a file without
    handlers, default fail), ``file``. Partial credit: the share of good handlers.
    """
    name, tree, failed = python_tree(ctx, file)
    if failed:
        return failed
    infos = astfacts.handlers(tree)
    if not infos:
        return _nothing(name, if_none, "exception handlers")
    bad = [info for info in infos if info.hides_errors]
    fine = len(infos) - len(bad)
    notes = [f"{info.kind} handler (line {info.line})" for info in bad]
    return Outcome.ratio(fine, len(infos), f"{name}: {fine}/{len(infos)} handlers are specific "
                         "or handle what they catch" + (f"; {listed(notes)}" if bad else ""),
                         [Evidence(name, info.line, f"{info.kind} handler") for info in bad[:10]])


@builtin_check("ast.no_builtin_shadowing", method="ast", params=_FINDING_PARAMS)
def no_builtin_shadowing(ctx: CheckContext, file: str | None = None, cost: float = 0.25) -> Outcome:
    """No built-in name (``list``, ``id``, ``type``...) is rebound.

    Counted: assignments, loop/with/except/comprehension targets, parameters, def/class
    names and import-as names; names in a class body shadow nothing. Parameters: ``cost``
    per rebinding (default 0.25), ``file``.
    """
    name, tree, failed = python_tree(ctx, file)
    if failed:
        return failed
    found = [(line, f"{builtin} rebound") for builtin, line in astfacts.shadowed_builtins(tree)]
    return per_finding(name, found, cost, "rebindings of built-in names")


@builtin_check("ast.context_managers", method="ast",
               params={"file": FILE_PARAM, "if_none": IF_NONE_PARAM})
def context_managers(ctx: CheckContext, file: str | None = None, if_none: str = "fail") -> Outcome:
    """Files are opened in ``with`` statements.

    An ``open()``/``.open()`` call is managed when it is directly a ``with`` item or handed
    straight to ``ExitStack.enter_context``/``contextlib.closing``. ``Path.read_text`` and
    friends close by themselves and are not counted. Parameters: ``if_none`` (verdict for a
    file that opens nothing, default fail), ``file``. Partial credit: the managed share.
    """
    name, tree, failed = python_tree(ctx, file)
    if failed:
        return failed
    unmanaged = astfacts.unmanaged_opens(tree)
    resolver = resolver_for(tree)
    total = sum(is_open_call(node, resolver) for node in nodes_of(tree, ast.Call))
    if total == 0:
        return _nothing(name, if_none, "open() calls")
    lines = ", ".join(map(str, unmanaged[:10]))
    return Outcome.ratio(total - len(unmanaged), total,
                         f"{name}: {total - len(unmanaged)}/{total} opens managed by `with`"
                         + (f"; outside `with` at line {lines}" if unmanaged else ""),
                         [Evidence(name, line, "open outside `with`") for line in unmanaged[:10]])


def _error_prints(tree: ast.Module) -> list[int]:
    """Lines of ``print(...)`` calls without ``file=`` inside an ``except`` handler body."""
    found: set[int] = set()
    for handler in nodes_of(tree, ast.ExceptHandler):
        for node in (inner for stmt in handler.body for inner in ast.walk(stmt)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "print" and not any(k.arg == "file" for k in node.keywords)):
                found.add(node.lineno)
    return sorted(found)


@builtin_check("ast.logging", method="ast", params={"file": FILE_PARAM})
def logging_check(ctx: CheckContext, file: str | None = None) -> Outcome:
    """The file reports through the ``logging`` module, not bare prints in error handlers.

    Uses logging: calls ``logging.getLogger``/``basicConfig``/``debug``/``info``/
    ``warning``/``error``/``exception``/``critical``/``log`` (aliases resolved). A bare
    print for an error: ``print(...)`` without ``file=`` inside an ``except`` block.
    Parameters: ``file``. Credit: no logging calls earn nothing; logging with no bare error
    prints earns all; logging alongside bare error prints earns half.
    """
    name, tree, failed = python_tree(ctx, file)
    if failed:
        return failed
    calls = sorted(line for dotted in LOGGING_CALLS for line in astfacts.calls_to(tree, dotted))
    if not calls:
        return Outcome.fail(f"{name} never calls the logging module")
    prints = _error_prints(tree)
    if prints:
        return Outcome(0.5, f"{name} uses logging, but prints errors to stdout at line "
                            f"{', '.join(map(str, prints[:10]))}",
                       tuple(Evidence(name, line, "print in an except block") for line in prints[:10]))
    return Outcome.ok(f"{name} uses logging ({len(calls)} call(s)) and prints no errors",
                      [Evidence(name, calls[0], "logging call")])


@builtin_check("ast.good_naming", method="ast", params=_FINDING_PARAMS)
def good_naming(ctx: CheckContext, file: str | None = None, cost: float = 0.25) -> Outcome:
    """Names follow PEP 8: snake_case functions, CapWords classes, no cryptic one-letter names.

    One-letter names other than ``_ i j k n x y e f`` count against (lambda parameters are
    exempt), as do functions that are not snake_case (dunders and framework hooks such as
    ``setUp``/``visit_Name`` are fine) and classes that are not CapWords. Parameters:
    ``cost`` per poor name (default 0.25), ``file``.
    """
    name, tree, failed = python_tree(ctx, file)
    if failed:
        return failed
    found = [(line, f"poor name {bad!r}") for bad, line in astfacts.bad_names(tree)]
    return per_finding(name, found, cost, "poorly named bindings")


@builtin_check("ast.no_nested_loops", method="ast", params={**_FINDING_PARAMS, "credit": {
    "type": "string", "enum": ["per_finding", "share"], "default": "per_finding",
    "description": "per_finding: each nested loop costs cost (default); share: credit is the "
                   "share of the file's loops not nested in another (cost unused)"}})
def no_nested_loops(ctx: CheckContext, file: str | None = None, cost: float = 0.25,
                    credit: str = "per_finding") -> Outcome:
    """No loop runs inside another loop of the same function.

    Loops are ``for``/``while`` statements and comprehension clauses; a nested function
    starts afresh. Parameters: ``cost`` per nested loop (default 0.25), ``credit``
    (``per_finding``, the default, or ``share``: the share of all the file's loops that are
    not nested, so one nested loop among many costs little), ``file``.
    """
    name, tree, failed = python_tree(ctx, file)
    if failed:
        return failed
    found = [(line, "loop inside a loop") for line in astfacts.nested_loops(tree)]
    if credit != "share" or not found:
        return per_finding(name, found, cost, "loops nested in another loop")
    loops = len(nodes_of(tree, ast.For, ast.AsyncFor, ast.While, ast.comprehension))
    return Outcome.ratio(loops - len(found), loops,
                         f"{name}: {len(found)} of {loops} loops are nested in another loop "
                         f"(line {listed([str(line) for line, _ in found])})",
                         [Evidence(name, line, note) for line, note in found[:10]])


@builtin_check("ast.no_io_in_loops", method="ast", params=_FINDING_PARAMS)
def no_io_in_loops(ctx: CheckContext, file: str | None = None, cost: float = 0.25) -> Outcome:
    """No file or network I/O call runs inside a loop body.

    I/O as ``benchmark.analyzers.loops.io_in_loops`` lists it (``open``, pathlib reads and
    writes, json/pickle/yaml load and dump, requests/httpx/aiohttp, urllib, session verbs).
    Parameters: ``cost`` per call (default 0.25), ``file``.
    """
    name, tree, failed = python_tree(ctx, file)
    if failed:
        return failed
    found = [(line, "I/O inside a loop") for line in astfacts.io_in_loops(tree)]
    return per_finding(name, found, cost, "I/O calls inside loops")
