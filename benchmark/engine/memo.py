"""Facts a run would otherwise work out again each time, remembered between runs.

Each fact is kept with a signature of what it was worked out from, and used only while the
signature is the same: the grader's source hash (``source_hash``: the files' sizes and
times), the platform string (``platform.platform()`` runs ``uname -p``; its signature is
``os.uname()``, the interpreter and the C library's version) and the checkout's commit
(``git rev-parse`` is a process of its own; its signature is the bytes of ``HEAD`` and of the
ref it names, and the state of ``packed-refs``). Together about 15 ms a run. And the
manifest's dependency versions (``manifest.dependency_versions``; its signature is
``sys.path`` and each of its folders' identity and modification time), about 8 ms.

They live in a private per-user folder (``$XDG_CACHE_HOME/rubricbench``, else
``~/.cache/rubricbench``), used only when it is a real folder (not a link) owned by this user
and closed to everyone else (mode 0700, which it is created with), as Jinja2 does with its
bytecode cache. A folder that fails that, an entry that is not what this module writes, or a
write that fails costs only the work; it never changes a fact.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any


def private_folder() -> Path | None:
    """The private per-user folder (created 0700) for these facts and the result cache's tag
    key (``entry_tags._tag_key``), or None when there is no usable one."""
    base = os.environ.get("XDG_CACHE_HOME") or ""
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    folder = root / "rubricbench"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
    except (OSError, RuntimeError):  # (RuntimeError: no home folder)
        return None
    return folder if stat.S_ISDIR(info.st_mode) and owned_privately(info) else None


def owned_privately(info: os.stat_result) -> bool:
    """Whether a file (its ``lstat``/``fstat``) is this user's and no one else may use it."""
    return info.st_uid == os.getuid() and not info.st_mode & 0o077


def recall(path: Path, signature: str) -> Any:
    """The value remembered at ``path`` under ``signature``, else None."""
    try:
        item = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if isinstance(item, dict) and item.get("signature") == signature:
        return item.get("value")
    return None


def remember(path: Path, signature: str, value: Any) -> None:
    """Keep ``value`` at ``path`` under ``signature`` (written beside and renamed into place)."""
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".memo-", suffix=".tmp")
        try:
            with os.fdopen(handle, "w") as out:
                json.dump({"signature": signature, "value": value}, out)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass


def remembered(name: str, signature: str | None, work: Any, valid: Any = None,
               folder: Path | None = None) -> Any:
    """``work()``'s answer, remembered as ``name`` in ``folder`` (default: the private folder)
    under ``signature`` (None: not remembered); ``valid`` says whether a remembered value has
    the right shape."""
    if signature is None:
        return work()
    folder = folder if folder is not None else private_folder()
    if folder is None:
        return work()
    path = folder / f"{name}.json"
    value = recall(path, signature)
    if value is not None and (valid is None or valid(value)):
        return value
    value = work()
    if value is not None:
        remember(path, signature, value)
    return value
