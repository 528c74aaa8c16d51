"""Prompt 1's structure and quality checks, judged on the parsed source with ``ast``.

Comments, docstrings and string contents never change a result. The registry created here
is shared: ``p1_refactoring_metrics`` adds the security, performance and maintainability
checks, ``p1_refactoring_behaviour`` the execution checks, and ``p1_refactoring`` (which
re-exports it) the syntax check.
"""

from __future__ import annotations

import ast

from ..analyzers.memo import nodes_of
from ..analyzers import astfacts
from ..types import Evidence
from .base import CheckContext, Outcome, make_registry

MAIN = "prompt_1_solution.py"
CHECKS, check = make_registry(sandboxed=True)

_PARSE_ATTRS = frozenset({"load", "loads", "safe_load", "safe_load_all", "fromisoformat",
                          "strptime", "read", "read_text", "open"})
_PARSE_NAMES = frozenset({"open", "int", "float"})
_FILE_METHODS = frozenset({"open", "read_text", "write_text", "read_bytes", "write_bytes"})
_LOGGING_CALLS = tuple(f"logging.{name}" for name in (
    "getLogger", "basicConfig", "debug", "info", "warning", "warn", "error", "exception",
    "critical", "log", "Logger", "StreamHandler", "FileHandler", "captureWarnings",
    "config.dictConfig", "config.fileConfig"))


def main_tree(ctx: CheckContext) -> ast.Module | None:
    source = ctx.files.get(MAIN)
    return source.tree if source is not None else None


def line_evidence(lines: list[int], note: str) -> list[Evidence]:
    return [Evidence(MAIN, line, note) for line in lines[:10]]


def per_finding(found: list[int], what: str, note: str) -> Outcome:
    """Full credit for no findings; each finding costs a quarter."""
    if not found:
        return Outcome.ok(f"no {what}")
    lines = ", ".join(map(str, found[:8]))
    return Outcome.ratio(4 - len(found), 4, f"{len(found)} {what} (line {lines})",
                         line_evidence(found, note))


# ---- structure -----------------------------------------------------------------------


def _imports(ctx: CheckContext, module: str) -> Outcome:
    tree = main_tree(ctx)
    if tree is not None and module in astfacts.imported_modules(tree):
        return Outcome.ok(f"imports {module}")
    return Outcome.fail(f"does not import {module}")


@check("yaml_import")
def yaml_import(ctx: CheckContext) -> Outcome:
    return _imports(ctx, "yaml")


@check("json_import")
def json_import(ctx: CheckContext) -> Outcome:
    return _imports(ctx, "json")


def _is_parse_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr in _PARSE_ATTRS
    return isinstance(func, ast.Name) and func.id in _PARSE_NAMES


def _guarded_io_lines(tree: ast.Module) -> list[int]:
    """Lines of try statements whose body reads or parses and that catch specific types."""
    kinds = {info.line: info.kind for info in astfacts.handlers(tree)}
    found = []
    for node in nodes_of(tree, ast.Try, ast.TryStar):
        specific = any(kinds.get(handler.lineno) == "specific" for handler in node.handlers)
        body_nodes = (inner for stmt in node.body for inner in ast.walk(stmt))
        if specific and any(map(_is_parse_call, body_nodes)):
            found.append(node.lineno)
    return sorted(found)


@check("error_handling")
def error_handling(ctx: CheckContext) -> Outcome:
    """Specific handlers around reading/parsing and no bare except: full; otherwise half."""
    tree = main_tree(ctx)
    infos = astfacts.handlers(tree) if tree is not None else []
    if not infos:
        return Outcome.fail("no exception handlers: unreadable input would crash the program")
    bare = [info.line for info in infos if info.kind == "bare"]
    guarded = _guarded_io_lines(tree)
    if bare:
        return Outcome(0.5, f"{len(infos)} handlers, but {len(bare)} bare except",
                       tuple(line_evidence(bare, "bare except")))
    if not guarded:
        return Outcome(0.5, f"{len(infos)} handlers, none catches specific errors around "
                            "file reading or parsing")
    return Outcome.ok(f"{len(infos)} handlers, none bare; {len(guarded)} try blocks catch "
                      "specific errors around I/O or parsing",
                      line_evidence(guarded, "guarded I/O"))


@check("type_hints")
def type_hints(ctx: CheckContext) -> Outcome:
    tree = main_tree(ctx)
    annotated, total = astfacts.annotation_ratio(tree) if tree is not None else (0, 0)
    if total == 0:
        return Outcome.fail("no functions to annotate")
    return Outcome.ratio(annotated, total, f"{annotated}/{total} parameters and returns annotated")


def _is_stderr(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "stderr") or (
        isinstance(node, ast.Name) and node.id == "stderr")


def _diagnostics(tree: ast.Module) -> tuple[bool, bool]:
    """(calls into the logging module, writes to sys.stderr)."""
    uses_logging = any(astfacts.calls_to(tree, name) for name in _LOGGING_CALLS)
    printed = [kw.get("file") for _, kw in astfacts.call_keywords(tree, "print")]
    writes = [call.func.value for call in nodes_of(tree, ast.Call)
              if isinstance(call.func, ast.Attribute) and call.func.attr == "write"]
    writes_stderr = any(node is not None and _is_stderr(node) for node in printed + writes)
    return uses_logging, writes_stderr


@check("logging")
def logging_check(ctx: CheckContext) -> Outcome:
    tree = main_tree(ctx)
    if tree is None:
        return Outcome.fail("no parsed source")
    uses_logging, writes_stderr = _diagnostics(tree)
    if uses_logging:
        return Outcome.ok("uses the logging module")
    if writes_stderr:
        return Outcome.ok("writes diagnostics to sys.stderr")
    if "logging" in astfacts.imported_modules(tree):
        return Outcome(0.5, "imports logging but never calls it")
    return Outcome.fail("no logging and no diagnostics on stderr")


# ---- quality -------------------------------------------------------------------------


@check("has_main_guard")
def has_main_guard(ctx: CheckContext) -> Outcome:
    tree = main_tree(ctx)
    if tree is not None and astfacts.has_main_guard(tree):
        return Outcome.ok('has an `if __name__ == "__main__":` guard')
    return Outcome.fail("no `if __name__ == \"__main__\":` guard; importing it would run it")


def _is_file_function(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "open") or (
        isinstance(node, ast.Attribute) and node.attr in _FILE_METHODS)


def _handed_over(tree: ast.Module) -> tuple[list[int], list[int]]:
    """(lines, lines without an encoding) of file functions handed to another call that
    makes the call for them: ``asyncio.to_thread(path.read_text, encoding="utf-8")``,
    ``functools.partial(open, p, encoding=...)``, ``loop.run_in_executor(None, path.read_text)``.
    The encoding is judged on the forwarding call: its ``encoding`` keyword (or a
    ``**mapping`` that may carry one); a binary read needs none."""
    lines, bare = [], []
    for call in nodes_of(tree, ast.Call):
        handed = [arg for arg in call.args if _is_file_function(arg)]
        if not handed:
            continue
        lines.append(call.lineno)
        binary = all(isinstance(arg, ast.Attribute) and arg.attr.endswith("_bytes") for arg in handed)
        if not binary and not any(item.arg in ("encoding", None) for item in call.keywords):
            bare.append(call.lineno)
    return lines, bare


def _file_operations(tree: ast.Module, handed: list[int]) -> list[int]:
    """Lines of ``open(...)``, ``<x>.open(...)`` and pathlib read/write calls, and ``handed``:
    those of calls that make one of them for the code (``_handed_over``)."""
    made = [node.lineno for node in nodes_of(tree, ast.Call) if _is_file_function(node.func)]
    return sorted(made + handed)


@check("proper_file_handling")
def proper_file_handling(ctx: CheckContext) -> Outcome:
    """Share of file operations that are closed by `with`/pathlib and name an encoding."""
    tree = main_tree(ctx)
    handed, handed_bare = _handed_over(tree) if tree is not None else ([], [])
    operations = _file_operations(tree, handed) if tree is not None else []
    if not operations:
        return Outcome.fail("no file is opened or read (the config and records must be read)")
    unmanaged = set(astfacts.unmanaged_opens(tree))
    no_encoding = set(astfacts.opens_without_encoding(tree)) | set(handed_bare)
    bad = [line for line in operations if line in unmanaged or line in no_encoding]
    good = len(operations) - len(bad)
    evidence = line_evidence([line for line in bad if line in unmanaged], "open outside `with`")
    evidence += line_evidence([line for line in bad if line in no_encoding],
                              "text open without encoding")
    return Outcome.ratio(good, len(operations), f"{good}/{len(operations)} file operations "
                         f"managed and encoded ({len(unmanaged)} outside `with`, "
                         f"{len(no_encoding)} without encoding)", evidence)


@check("no_builtin_shadowing")
def no_builtin_shadowing(ctx: CheckContext) -> Outcome:
    tree = main_tree(ctx)
    if tree is None:
        return Outcome.fail("no parsed source")
    found = astfacts.shadowed_builtins(tree)
    names = sorted({name for name, _ in found})
    outcome = per_finding([line for _, line in found], "rebindings of built-in names",
                           "built-in name shadowed")
    if found:
        return Outcome(outcome.fraction, f"{outcome.rationale}: {', '.join(names)}",
                       outcome.evidence)
    return outcome


@check("specific_exceptions")
def specific_exceptions(ctx: CheckContext) -> Outcome:
    """Share of handlers that are neither bare nor broad-and-silent."""
    tree = main_tree(ctx)
    infos = astfacts.handlers(tree) if tree is not None else []
    if not infos:
        return Outcome.fail("no exception handlers at all")
    bad = [i.line for i in infos if i.hides_errors]
    fine = len(infos) - len(bad)
    return Outcome.ratio(fine, len(infos), f"{fine}/{len(infos)} handlers catch specific "
                         "exceptions or handle what they catch",
                         line_evidence(bad, "bare or swallowed"))
