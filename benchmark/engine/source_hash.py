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

The memo lives in a private per-user folder (``$XDG_CACHE_HOME/rubricbench``, else
``~/.cache/rubricbench``), used only when it is a real folder (not a link) owned by this user
and closed to everyone else (mode 0700, which it is created with), as Jinja2 does with its
bytecode cache. A folder that fails that, a memo that is not what this module writes, or a
write that fails costs only the hashing; it never changes the hash.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tempfile
from pathlib import Path

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


def private_folder() -> Path | None:
    """The private per-user folder (created 0700) for the memo and the result cache's tag key
    (``cache._tag_key``), or None when there is no usable one."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    folder = root / "rubricbench"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
    except (OSError, RuntimeError):  # (RuntimeError: no home folder)
        return None
    private = stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077
    return folder if private else None


def _memo_path(folder: Path, memo: Path) -> Path:
    return memo / f"source-{hashlib.sha256(str(folder).encode()).hexdigest()[:16]}.json"


def _remembered(path: Path, signature: str) -> str | None:
    try:
        item = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if (isinstance(item, dict) and item.get("signature") == signature
            and isinstance(item.get("hash"), str) and _HASH.fullmatch(item["hash"])):
        return item["hash"]
    return None


def _remember(path: Path, signature: str, value: str) -> None:
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".source-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w") as out:
                json.dump({"signature": signature, "hash": value}, out)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass


def source_tree_hash(folder: Path, memo: Path | None = None) -> str:
    """Each source file's path relative to ``folder``, a NUL and its bytes, hashed in
    ``sorted(Path)`` order; with ``memo`` (a private folder, see :func:`private_folder`), the
    hash remembered there for the same files is used when their signature is unchanged."""
    files = sorted(_source_files(str(folder)))
    if memo is None:
        return _hash_files(files)
    try:
        signature = _signature(files)
    except OSError:  # (a file gone since it was listed: hashing says what is wrong)
        return _hash_files(files)
    path = _memo_path(Path(folder), memo)
    value = _remembered(path, signature)
    if value is None:
        value = _hash_files(files)
        _remember(path, signature, value)
    return value


def grader_source_hash() -> str:
    """A hash of the grader's own code and templates (once per process; remembered between
    runs while the files are unchanged)."""
    global _SOURCE_HASH
    if _SOURCE_HASH is None:
        _SOURCE_HASH = source_tree_hash(PACKAGE, private_folder())
    return _SOURCE_HASH
