"""Loading one submission file safely: every bad input becomes a reason, never a crash."""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass
from pathlib import Path

MAX_FILE_BYTES = 512 * 1024


@dataclass(frozen=True)
class SourceFile:
    """One submission file. ``text`` is None when it could not be read; ``error`` says why.

    For Python files ``tree`` holds the parsed module, or None with ``syntax_error`` set.
    """

    name: str
    path: Path
    text: str | None
    error: str | None
    sha256: str | None
    tree: ast.Module | None = None
    syntax_error: str | None = None
    syntax_line: int | None = None

    @property
    def usable(self) -> bool:
        return self.text is not None and self.error is None

    @property
    def parsed(self) -> bool:
        return self.tree is not None


def read_text(path: Path, max_bytes: int = MAX_FILE_BYTES) -> tuple[str | None, str | None, str | None]:
    """Return (text, error, sha256). Errors: missing, not a file, empty, too large, binary, non-UTF-8."""
    if path.is_symlink():
        return None, "is a symbolic link (not followed)", None
    if not path.exists():
        return None, "file not found", None
    if not path.is_file():
        return None, "not a regular file", None
    size = path.stat().st_size
    if size > max_bytes:
        return None, f"file too large ({size} bytes, limit {max_bytes})", None
    data = path.read_bytes()[: max_bytes + 1]
    digest = hashlib.sha256(data).hexdigest()
    if not data.strip():
        return None, "file is empty", digest
    if b"\x00" in data:
        return None, "binary file (contains NUL bytes)", digest
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return None, f"not valid UTF-8 (byte {exc.start})", digest
    return text, None, digest


def load_source(path: Path, *, python: bool) -> SourceFile:
    text, error, digest = read_text(path)
    if text is None or not python:
        return SourceFile(path.name, path, text, error, digest)
    try:
        tree = ast.parse(text, filename=path.name)
        compile(tree, path.name, "exec")
    except SyntaxError as exc:
        message = f"syntax error: {exc.msg} (line {exc.lineno})"
        return SourceFile(path.name, path, text, None, digest, None, message, exc.lineno)
    except (ValueError, RecursionError, MemoryError) as exc:
        message = f"cannot compile: {type(exc).__name__}"
        return SourceFile(path.name, path, text, None, digest, None, message, None)
    return SourceFile(path.name, path, text, None, digest, tree)
