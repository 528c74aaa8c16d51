"""Where sandbox folders are made: a memory file system when the run gets a private root.

With the private root (``benchmark/harness/mounts.py``) the host's sandbox folder is only a
staging area: the grader writes the submission and fixtures there, the child copies them
into a tmpfs of its own, mounted over that folder in its own mount namespace, and never
writes to the host's folder at all. Staging on a tmpfs then saves the disk file system's
inode and journal work (on ext4 with discard, creating, filling and removing a folder cost
about 1 ms of the grader's CPU per run; on tmpfs 0.15 ms) and changes nothing the child sees.

Without a private root (``--unsafe``, or a kernel without it) the child writes into the
folder itself, so it stays in the default temporary folder (``tempfile``: ``TMPDIR``, /tmp).
"""

from __future__ import annotations

import functools
import os
import stat

SHM = "/dev/shm"
MIN_FREE_MB = 256  # a tmpfs with less room left is not used (the staged files must fit)


def _mount_type(path: str, mountinfo: str = "/proc/self/mountinfo") -> str | None:
    """The file system type of the mount whose mount point is exactly ``path``, or None."""
    found = None
    try:
        with open(mountinfo, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                before, _, after = line.partition(" - ")
                fields = before.split()
                if len(fields) > 4 and fields[4] == path and after:
                    found = after.split()[0]  # the last mount at a point is the visible one
    except OSError:
        return None
    return found


def usable_tmpfs(path: str, min_free_mb: int = MIN_FREE_MB,
                 mountinfo: str = "/proc/self/mountinfo") -> bool:
    """``path`` is a tmpfs mount point this process may make private folders in: a real
    directory (not a link), writable and searchable, sticky when others may write to it
    (so no other user can remove or replace our folder), with ``min_free_mb`` free."""
    if _mount_type(path, mountinfo) != "tmpfs":
        return False
    try:
        info = os.lstat(path)
        free = os.statvfs(path)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or not os.access(path, os.W_OK | os.X_OK):
        return False
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not info.st_mode & stat.S_ISVTX:
        return False
    return free.f_bavail * free.f_frsize >= min_free_mb * 1024 * 1024


@functools.lru_cache(maxsize=1)
def tmpfs_base() -> str | None:
    """``/dev/shm`` when it is usable (see ``usable_tmpfs``), else None; once per process."""
    return SHM if usable_tmpfs(SHM) else None


def base(private_root: bool) -> str | None:
    """The ``dir`` for ``tempfile.mkdtemp`` of a sandbox folder: the tmpfs for runs with a
    private root, where there is one; None (the default temporary folder) otherwise."""
    return tmpfs_base() if private_root else None
