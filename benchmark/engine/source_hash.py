"""The hash of the grader's own source that every cache key holds, remembered between runs.

Hashing the package's 180-odd source files (about 1.4 MB) takes 4 to 8 ms a run, as much as
reading 50 results back from the cache. The hash is therefore remembered, with a signature
of the files it was computed from: for each file (in the order hashed) its relative path,
size, modification and change times in nanoseconds, inode and device. Python decides that a
``.pyc`` is current from the source's modification time and size; the change time is added
because no program can set it (any write, ``touch -d`` or ``cp -p`` included, moves it to
now), so a file whose bytes changed always has another signature. A run whose files have the
remembered signature uses the remembered hash; any other run hashes the bytes and remembers
the result.

The memo lives in the private per-user folder of ``benchmark.engine.memo`` (mode 0700,
ours, not a link); without one, or with a memo that is not what this module writes, the
bytes are hashed as before. It never changes the hash.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from .memo import private_folder, remembered

PACKAGE = Path(__file__).resolve().parent.parent  # the whole ``benchmark`` package
SOURCE_SUFFIXES = (".py", ".json", ".j2", ".css", ".md")
_HASH = re.compile(r"[0-9a-f]{16}")
_SOURCE_HASH: str | None = None


def _source_files(folder: str, parts: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], str]]:
    """(relative path parts, path) of every file under ``folder`` with a source suffix, as
    ``Path.rglob("*")`` finds them (a linked file counts, a linked folder is not entered),
    with one ``scandir`` per folder instead of a ``stat`` per path (half the hash's time)."""
    found: list[tuple[tuple[str, ...], str]] = []
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir() and not entry.is_symlink():
                found += _source_files(entry.path, (*parts, entry.name))
            elif os.path.splitext(entry.name)[1] in SOURCE_SUFFIXES and entry.is_file():
                found.append(((*parts, entry.name), entry.path))
    return found


def _hash_files(files: list[tuple[tuple[str, ...], str]]) -> str:
    digest = hashlib.sha256()
    for parts, path in files:
        with open(path, "rb") as handle:
            digest.update("/".join(parts).encode() + b"\0" + handle.read())
    return digest.hexdigest()[:16]


def _signature(files: list[tuple[tuple[str, ...], str]]) -> str:
    """What the memo is valid for (see the module's note); a linked file's target is stat'ed,
    as its bytes are what is hashed."""
    rows = []
    for parts, path in files:
        info = os.stat(path)
        rows.append(["/".join(parts), info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev])
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


def source_tree_hash(folder: Path, memo: Path | None = None) -> str:
    """Each source file's path relative to ``folder``, a NUL and its bytes, hashed in
    ``sorted(Path)`` order; with ``memo`` (a private folder, see ``memo.private_folder``), the
    hash remembered there for the same files is used when their signature is unchanged."""
    files = sorted(_source_files(str(folder)))
    if memo is None:
        return _hash_files(files)
    try:
        signature = _signature(files)
    except OSError:  # (a file gone since it was listed: hashing says what is wrong)
        return _hash_files(files)
    name = f"source-{hashlib.sha256(str(folder).encode()).hexdigest()[:16]}"
    return remembered(name, signature, lambda: _hash_files(files),
                      lambda value: isinstance(value, str) and bool(_HASH.fullmatch(value)), memo)


def grader_source_hash() -> str:
    """A hash of the grader's own code and templates (once per process; remembered between
    runs while the files are unchanged)."""
    global _SOURCE_HASH
    if _SOURCE_HASH is None:
        _SOURCE_HASH = source_tree_hash(PACKAGE, private_folder())
    return _SOURCE_HASH
