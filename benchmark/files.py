"""Bounded reads of one regular file: how the grader reads a path it was given (a submission
file, a reply to import, a saved results file).

A device, a FIFO or a socket is never opened (it may never end, never answer, or act on being
opened): the path is checked with ``stat`` first, and the descriptor with ``fstat`` once
open, so a swap in between is caught too. At most ``max_bytes`` + 1 bytes are read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


class FileRefused(OSError):
    """The file was not read; ``str(exc)`` says why, in words for people; ``missing`` is True
    when there is nothing at the path."""

    def __init__(self, reason: str, *, missing: bool = False) -> None:
        super().__init__(reason)
        self.missing = missing

    def __str__(self) -> str:
        return str(self.args[0])


def read_regular(path: str | os.PathLike[str], max_bytes: int, *, follow_links: bool = True) -> bytes:
    """The bytes of the regular file at ``path`` (at most ``max_bytes``), read through one
    non-blocking descriptor. Raises ``FileRefused``: "is a symbolic link (not followed)"
    (``follow_links=False``), "file not found", "not a regular file", "cannot be read (...)",
    "file too large (N bytes, limit M)"."""
    path = Path(path)
    try:
        status = os.stat(path, follow_symlinks=follow_links)
    except FileNotFoundError:
        raise FileRefused("file not found", missing=True) from None
    except OSError as exc:
        raise FileRefused(f"cannot be read ({exc.strerror})") from None
    if stat.S_ISLNK(status.st_mode):
        raise FileRefused("is a symbolic link (not followed)")
    if not stat.S_ISREG(status.st_mode):
        raise FileRefused("not a regular file")
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise FileRefused(f"cannot be read ({exc.strerror})") from None
    with open(fd, "rb") as handle:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):  # (replaced since the check above)
            raise FileRefused("not a regular file")
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileRefused(f"file too large ({max(status.st_size, len(data))} bytes, limit {max_bytes})")
    return data
