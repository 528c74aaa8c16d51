"""Prompt 1's source checks that no library check type expresses, judged on the parsed source
with ``ast``: error handling around reading and parsing, file handling and safe YAML loading.

Comments, docstrings and string contents never change a result. The other static checks of
the prompt (syntax, imports, type hints, logging, main guard, built-in names, exception
handlers, loops, bandit, radon, names) are library check types named in its ``task.yaml``.
The registry created here is shared: ``p1_refactoring_behaviour`` adds the execution checks.
"""

from __future__ import annotations

import ast

from ..analyzers.memo import nodes_of
from ..analyzers import astfacts
from ..types import Evidence
from .base import CheckContext, Outcome, make_registry

MAIN = "prompt_1_solution.py"
CHECKS, check = make_registry()

_PARSE_ATTRS = frozenset({"load", "loads", "safe_load", "safe_load_all", "fromisoformat",
                          "strptime", "read", "read_text", "open"})
_PARSE_NAMES = frozenset({"open", "int", "float"})
_FILE_METHODS = frozenset({"open", "read_text", "write_text", "read_bytes", "write_bytes"})
_SAFE_LOADERS = frozenset({"SafeLoader", "CSafeLoader", "BaseLoader", "CBaseLoader"})
_SAFE_CALLS = ("yaml.safe_load", "yaml.safe_load_all")
_LOADER_CALLS = ("yaml.load", "yaml.load_all")
_UNSAFE_CALLS = ("yaml.unsafe_load", "yaml.full_load", "yaml.unsafe_load_all",
                 "yaml.full_load_all")


def main_tree(ctx: CheckContext) -> ast.Module | None:
    source = ctx.files.get(MAIN)
    return source.tree if source is not None else None


def line_evidence(lines: list[int], note: str) -> list[Evidence]:
    return [Evidence(MAIN, line, note) for line in lines[:10]]


# ---- structure -----------------------------------------------------------------------


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
    """Specific handlers around reading/parsing and no bare except: full; otherwise half.

    Full credit: no bare ``except:`` and at least one ``try`` whose body reads or parses (a
    call of ``open``/``int``/``float`` or of a method such as ``load``, ``read_text``,
    ``strptime``) catching a specific exception type; handlers short of that earn half, no
    handler at all nothing. Not a library type: ``ast.specific_exceptions`` judges each
    handler's width, not whether the reading and parsing is what a specific handler guards."""
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


# ---- quality -------------------------------------------------------------------------


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
    """Share of file operations that are closed by `with`/pathlib and name an encoding.

    Counted: ``open(...)``, ``<x>.open(...)``, pathlib's ``read_text``/``write_text``/
    ``read_bytes``/``write_bytes``, and calls that make one of them for the code (an
    ``asyncio.to_thread(path.read_text, ...)``); no file operation at all earns nothing. Not a
    library type: ``ast.context_managers`` counts only ``open()`` calls and never the encoding."""
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


# ---- security ------------------------------------------------------------------------


def _last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def _safe_loader_names(tree: ast.Module) -> frozenset[str]:
    """PyYAML's safe loaders, as redefined by module classes (a class deriving from a safe
    loader is safe; a module class reusing a safe loader's name for anything else is not)."""
    classes = {node.name: [_last_name(base) for base in node.bases]
               for node in nodes_of(tree, ast.ClassDef)}
    safe = set(_SAFE_LOADERS - set(classes))
    for _ in range(len(classes)):
        safe |= {name for name, bases in classes.items() if safe.intersection(bases)}
    return frozenset(safe)


def _loader_is_safe(call: ast.Call, safe: frozenset[str]) -> bool:
    given = [kw.value for kw in call.keywords if kw.arg == "Loader"] + call.args[1:2]
    return bool(given) and _last_name(given[0]) in safe


@check("safe_yaml_loading")
def safe_yaml_loading(ctx: CheckContext) -> Outcome:
    """The config is loaded with a safe YAML loader, and YAML is never loaded unsafely.

    All or nothing: full credit when there is at least one ``yaml.safe_load``/
    ``safe_load_all`` (called or handed over as a function) or ``yaml.load`` with a safe
    ``Loader`` (a module class deriving from one counts; one merely reusing its name does not),
    and no ``yaml.load`` without one, ``full_load``, ``unsafe_load`` or the like. Not a library
    type: ``bandit.forbid`` (B506) passes a program that loads no YAML at all, and flags
    neither ``unsafe_load``/``full_load`` nor a loader handed over uncalled."""
    tree = main_tree(ctx)
    if tree is None:
        return Outcome.fail("no parsed source")
    safe_names = _safe_loader_names(tree)
    safe = [line for name in _SAFE_CALLS for line in astfacts.calls_to(tree, name)]
    unsafe = [line for name in _UNSAFE_CALLS for line in astfacts.calls_to(tree, name)]
    # a loader handed over as a function (``read(path, yaml.safe_load)``) loads as it does
    # called; ``yaml.load`` so handed names no loader where it is named: not safe
    safe += [line for name in _SAFE_CALLS for line in astfacts.references_to(tree, name)]
    unsafe += [line for name in (*_UNSAFE_CALLS, *_LOADER_CALLS)
               for line in astfacts.references_to(tree, name)]
    for name in _LOADER_CALLS:
        for call in astfacts.call_nodes(tree, name):
            (safe if _loader_is_safe(call, safe_names) else unsafe).append(call.lineno)
    if unsafe:
        return Outcome.fail(f"{len(unsafe)} unsafe YAML load call(s)",
                            line_evidence(sorted(unsafe), "YAML loaded without a safe loader"))
    if not safe:
        return Outcome.fail("the config is never loaded with a YAML loader")
    return Outcome.ok(f"{len(safe)} YAML load call(s), all with a safe loader",
                      line_evidence(sorted(safe), "safe YAML load"))
