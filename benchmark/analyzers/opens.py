"""File-opening facts: opens outside ``with`` and text-mode opens without ``encoding=``."""

from __future__ import annotations

import ast

from .memo import nodes_of
from .resolve import ImportResolver, resolver_for

# Receivers whose ``.open`` is not a file open.
_NOT_FILE_OPENERS = frozenset({"webbrowser"})
# Wrappers that take responsibility for closing what they are given.
_CLOSERS = frozenset({"enter_context", "closing", "contextlib.closing"})

# Signature of each text-capable opener: (mode position, encoding position, text by default).
# "<path>" is ``Path.open(mode, buffering, encoding)`` on any non-module receiver.
_OPENERS: dict[str, tuple[int, int, bool]] = {
    "open": (1, 3, True), "io": (1, 3, True), "codecs": (1, 2, True),
    "gzip": (1, 3, False), "bz2": (1, 3, False), "lzma": (1, 99, False),
    "<path>": (0, 2, True),
}


def is_open_call(node: ast.AST, resolver: ImportResolver) -> bool:
    """``open(...)`` or ``<x>.open(...)`` (except ``webbrowser.open``)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name):
        return func.id == "open"
    if isinstance(func, ast.Attribute) and func.attr == "open":
        return not resolver.resolve(func.value) & _NOT_FILE_OPENERS
    return False


def _managed_ids(tree: ast.AST, resolver: ImportResolver) -> set[int]:
    managed: set[int] = set()
    for node in nodes_of(tree, ast.With, ast.AsyncWith, ast.Call):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            managed.update(id(item.context_expr) for item in node.items)
        elif isinstance(node, ast.Call) and _is_closer(node, resolver):
            managed.update(id(arg) for arg in node.args)
    return managed


def _is_closer(call: ast.Call, resolver: ImportResolver) -> bool:
    if isinstance(call.func, ast.Attribute) and call.func.attr == "enter_context":
        return True
    return bool(resolver.resolve(call.func) & _CLOSERS)


def unmanaged_opens(tree: ast.Module) -> list[int]:
    """Lines of ``open()``/``.open()`` calls that are not directly a ``with`` item.

    An open handed straight to ``ExitStack.enter_context(...)`` or ``contextlib.closing(...)``
    counts as managed too. ``Path.read_text()``/``write_text()`` never appear here.
    """
    resolver = resolver_for(tree)
    managed = _managed_ids(tree, resolver)
    return sorted(
        node.lineno
        for node in nodes_of(tree, ast.Call)
        if is_open_call(node, resolver) and id(node) not in managed
    )


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    for item in call.keywords:
        if item.arg == keyword:
            return item.value
    return call.args[position] if len(call.args) > position else None


def _is_text_mode(mode: ast.expr | None, text_by_default: bool) -> bool:
    """True only when the mode is known to be text; a computed mode is not judged."""
    if mode is None:
        return text_by_default
    if not (isinstance(mode, ast.Constant) and isinstance(mode.value, str)):
        return False
    return "b" not in mode.value and (text_by_default or "t" in mode.value)


def _opener(call: ast.Call, resolver: ImportResolver) -> str | None:
    """Which ``_OPENERS`` row applies; None when the call is not a judged open."""
    func = call.func
    if isinstance(func, ast.Name) and func.id == "open":
        imported = resolver.targets(func)  # e.g. ``from gzip import open``
        module = min(t.rpartition(".")[0] for t in imported) if imported else "open"
    elif isinstance(func, ast.Attribute) and func.attr == "open":
        receiver = func.value
        imported = resolver.targets(receiver) if isinstance(receiver, ast.Name) else None
        module = min(imported) if imported else "<path>"
    else:
        return None
    return module if module in _OPENERS else None  # os, tarfile, ... have their own open


def _missing_encoding(call: ast.Call, resolver: ImportResolver) -> bool:
    if any(item.arg in ("encoding", None) for item in call.keywords):
        return False  # given, or possibly given through **kwargs
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "read_text":
        return not call.args
    if isinstance(func, ast.Attribute) and func.attr == "write_text":
        return len(call.args) < 2
    opener = _opener(call, resolver)
    if opener is None:
        return False
    mode_at, encoding_at, text_by_default = _OPENERS[opener]
    mode = _argument(call, mode_at, "mode")
    return _is_text_mode(mode, text_by_default) and len(call.args) <= encoding_at


def opens_without_encoding(tree: ast.Module) -> list[int]:
    """Lines of text-mode opens without an encoding (keyword or positional).

    Judged: builtin/``io``/``codecs`` ``open``; ``gzip``/``bz2``/``lzma`` ``open`` in "t"
    mode (their default is binary); ``.open()`` on any non-module receiver (taken as
    ``Path.open``); ``.read_text()``/``.write_text()``. A mode containing "b" is binary and
    a computed mode is not judged; ``**kwargs`` might carry the encoding, so it is not judged.
    """
    resolver = resolver_for(tree)
    return sorted(
        node.lineno
        for node in nodes_of(tree, ast.Call)
        if _missing_encoding(node, resolver)
    )
