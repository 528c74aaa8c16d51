"""Loading one submission file safely: every bad input becomes a reason, never a crash."""

from __future__ import annotations

import ast
import codecs
import hashlib
from dataclasses import dataclass
from pathlib import Path

from .decoding import decode_for
from .files import FileRefused, read_regular
from .diagnosis import explained

MAX_FILE_BYTES = 512 * 1024


@dataclass(frozen=True)
class SourceFile:
    """One submission file. ``text`` is None when it could not be read; ``error`` says why.

    ``data`` holds the exact bytes that were read (``sha256`` is theirs, ``text`` is decoded
    from them, and they are what a child runs), None when nothing was read. For Python files
    ``tree`` holds the parsed module, or None with ``syntax_error`` set.
    """

    name: str
    path: Path
    text: str | None
    error: str | None
    sha256: str | None
    tree: ast.Module | None = None
    syntax_error: str | None = None
    syntax_line: int | None = None
    data: bytes | None = None

    @property
    def usable(self) -> bool:
        return self.text is not None and self.error is None

    @property
    def parsed(self) -> bool:
        return self.tree is not None


def read_bytes(path: Path, max_bytes: int = MAX_FILE_BYTES) -> tuple[bytes | None, str | None]:
    """Return (data, error). Errors: symbolic link, missing, not a regular file, too large.
    One file, opened once (``files.read_regular``): these bytes are graded and run."""
    try:
        return read_regular(path, max_bytes, follow_links=False), None
    except FileRefused as exc:
        return None, str(exc)


def read_source(path: Path, *, python: bool, max_bytes: int = MAX_FILE_BYTES
                ) -> tuple[str | None, str | None, str | None, bytes | None]:
    """Return (text, error, sha256, data): ``read_bytes`` errors, then empty (nothing but
    whitespace, after a UTF-8 byte order mark), then the decoding errors of
    ``benchmark.decoding.decode_for`` (binary, encoding, ...)."""
    data, error = read_bytes(path, max_bytes)
    if data is None:
        return None, error, None, None
    digest = hashlib.sha256(data).hexdigest()
    if not data.removeprefix(codecs.BOM_UTF8).strip():  # (an editor's "UTF-8 with BOM" of nothing)
        return None, "file is empty", digest, data
    text, error = decode_for(path.name, data, python=python)
    return text, error, digest, data


def read_text(path: Path, max_bytes: int = MAX_FILE_BYTES) -> tuple[str | None, str | None, str | None]:
    """Return (text, error, sha256), decoded as the grader decodes it: ``.py`` files as CPython
    does, other files by their format's rules (see ``read_source``)."""
    text, error, digest, _ = read_source(path, python=path.suffix == ".py", max_bytes=max_bytes)
    return text, error, digest


def load_source(path: Path, *, python: bool) -> SourceFile:
    text, error, digest, data = read_source(path, python=python)
    if text is None or not python:
        return SourceFile(path.name, path, text, error, digest, data=data)
    try:
        tree = ast.parse(text, filename=path.name)
        compile(tree, path.name, "exec")
    except SyntaxError as exc:  # a chat reply (fences, prose) is named as such: same score
        message = explained(text, exc.lineno, "Python", exc.msg) or \
            f"syntax error: {exc.msg} (line {exc.lineno})"
        return SourceFile(path.name, path, text, None, digest, None, message, exc.lineno, data)
    except (ValueError, RecursionError, MemoryError) as exc:
        message = f"cannot compile: {type(exc).__name__}"
        return SourceFile(path.name, path, text, None, digest, None, message, None, data)
    return SourceFile(path.name, path, text, None, digest, tree, data=data)
