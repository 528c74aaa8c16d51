"""Removing a sandbox tree the submission wrote into, without trusting anything in it.

``remove_tree`` never follows a symbolic link and never changes the mode of anything but a
directory it opened itself: every entry is reached relative to its parent's descriptor
(``dir_fd``) and opened with ``O_NOFOLLOW``, so a link planted in the tree is removed as a
link and the file it names is never touched. A directory the submission made unreadable or
read-only (mode 000, 0500) is made usable through its own ``O_PATH`` descriptor (``chmod`` of
``/proc/self/fd/N``, which names that directory, never a link). Read-only files need no
change (removing one needs write access to its directory only). The walk is iterative, with
at most two descriptors open at a time, so no chain is too deep. A failure raises
``CleanupError`` naming what remains: the caller reports it.

Only the standard library is imported, so the module also runs on its own (its tests run it
as an unprivileged user).
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
from pathlib import Path

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_DIR_PATH = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_USABLE = stat.S_IRWXU  # what the owner needs to list, enter and empty a directory


class CleanupError(OSError):
    """A tree could not be removed completely; the message names the entry that failed."""


def remove_tree(path: str | os.PathLike[str]) -> None:
    """Remove ``path`` and everything below it (see the module docstring). A missing
    ``path`` is not an error; anything left behind raises ``CleanupError``."""
    path = Path(path)
    try:
        top = os.open(path.parent, _DIR)
    except FileNotFoundError:
        return
    try:
        info = os.stat(path.name, dir_fd=top, follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            _remove_directory(top, path.name, path)
        else:
            os.unlink(path.name, dir_fd=top)
    except FileNotFoundError:
        return
    except CleanupError:
        raise
    except OSError as exc:
        raise CleanupError(exc.errno, f"could not remove {path}: {exc.strerror}") from exc
    finally:
        os.close(top)


def pid_namespace() -> int:
    """The inode of this process's pid namespace: pids mean something only inside it."""
    return os.stat("/proc/self/ns/pid").st_ino


def owner() -> str:
    """This process as a folder name may hold it: ``<pid>n<pid namespace>``. A grader that is
    pid 1 of a container sees none of the host's processes; with the namespace in the name,
    it never takes another namespace's folder for a dead process's (it left the live folders
    of graders outside it without their scans and sandboxes)."""
    return f"{os.getpid()}n{pid_namespace()}"


def owned_name(head: str) -> str:
    """A temporary folder prefix that names this process, for ``sweep_dead_owners(head)``:
    ``<head><pid>n<pid namespace>-`` (``mkdtemp`` adds the rest)."""
    return f"{head}{owner()}-"


def sweep_dead_owners(head: str) -> list[Path]:
    """Remove the folders of the temporary folder named ``<head><pid>-...`` whose process is
    gone: one killed (SIGKILL, a cluster nanny, a test) never ran the clean-up that removes
    its own. Only this user's folders, only of dead processes (a reused pid keeps a folder
    until a later sweep), never through a link. Returns what was removed."""
    found = Path(tempfile.gettempdir()).glob(f"{head}*-*")
    return [path for path in sorted(found)
            if _remove_if_orphaned(path, path.name[len(head):].partition("-")[0])]


def sandbox_prefix(name: str) -> str:
    """The ``mkdtemp`` prefix of a sandbox folder of this process for the run of ``name``
    (a model's name made safe: letters, digits and ``_``): ``rubricbench-<name>-p<owner>-``,
    which ``sweep_dead_sandboxes`` recognises once this process is gone."""
    return f"rubricbench-{name}-p{owner()}-"


_SANDBOX_NAME = re.compile(r"rubricbench-[A-Za-z0-9_]{1,40}-p([0-9]+(?:n[0-9]+)?)-[^/]*")


def sweep_dead_sandboxes(folder: str | None = None) -> list[Path]:
    """``sweep_dead_owners`` for the sandbox folders ``sandbox_prefix`` names, of any model,
    in the temporary folder (or ``folder``: the tmpfs of runs with a private root)."""
    removed = []
    for path in sorted(Path(folder or tempfile.gettempdir()).glob("rubricbench-*-p*-*")):
        match = _SANDBOX_NAME.fullmatch(path.name)
        if match and _remove_if_orphaned(path, match.group(1)):
            removed.append(path)
    return removed


def _remove_if_orphaned(path: Path, owner_text: str) -> bool:
    """Remove ``path`` if it is this user's folder (not a link) and its owner (``owner()``;
    the older names hold the pid alone) is gone; True when it was removed. A folder of another
    pid namespace's process is left alone: that process cannot be seen from here."""
    pid_text, _, namespace = owner_text.partition("n")
    try:
        if (not pid_text.isdigit() or (namespace and namespace != str(pid_namespace()))
                or path.is_symlink() or path.stat().st_uid != os.getuid()):
            return False
        os.kill(int(pid_text), 0)
        return False  # alive
    except ProcessLookupError:
        try:
            remove_tree(path)
        except OSError:
            return False
        return True
    except OSError:
        return False  # alive under another user, or unreadable: left alone


def open_directory(parent_fd: int, name: str) -> int:
    """A read descriptor of the directory ``name`` in ``parent_fd`` (never through a link),
    after giving its owner rwx on it when it lacked them."""
    handle = os.open(name, _DIR_PATH, dir_fd=parent_fd)
    try:
        mode = os.fstat(handle).st_mode
        if mode & _USABLE != _USABLE:  # the magic link names this directory, never a symlink
            os.chmod(f"/proc/self/fd/{handle}", stat.S_IMODE(mode) | _USABLE)
        return os.open(".", _DIR, dir_fd=handle)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, name) from exc  # name the folder, not its fd
    finally:
        os.close(handle)


def _identity(fd: int) -> tuple[int, int]:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


def _clear_files(fd: int) -> list[str]:
    """Unlink every entry of the directory ``fd`` that is not a directory (links included,
    as links); return the names of its subdirectories."""
    with os.scandir(fd) as entries:
        listed = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
    for name, _ in (item for item in listed if not item[1]):
        os.unlink(name, dir_fd=fd)
    return [name for name, is_dir in listed if is_dir]


def _entry(exc: OSError) -> str:
    """The entry an error names, when it is a name in the current folder ("" otherwise)."""
    name = exc.filename
    return name if isinstance(name, str) and "/" not in name and name not in (".", "..") else ""


def _parent(fd: int, expected: tuple[int, int]) -> int:
    """The directory above ``fd``, checked to be the one the walk came down from."""
    parent = os.open("..", _DIR, dir_fd=fd)
    if _identity(parent) != expected:
        os.close(parent)
        raise OSError(errno.ESTALE, "the tree was moved during removal")
    return parent


def _remove_directory(top: int, name: str, shown: Path) -> None:
    """Depth first, without recursion: each level keeps its name, identity and the
    subdirectories still to remove; going up opens ``..`` and checks its identity."""
    fd = open_directory(top, name)
    levels: list[tuple[str, tuple[int, int], list[str]]] = []
    try:
        levels.append((name, _identity(fd), _clear_files(fd)))
        while levels:
            pending = levels[-1][2]
            if pending:
                child = open_directory(fd, pending[-1])
                os.close(fd)
                fd = child
                levels.append((pending.pop(), _identity(fd), _clear_files(fd)))
                continue
            parent = _parent(fd, levels[-2][1]) if len(levels) > 1 else top
            os.close(fd)
            fd = parent
            os.rmdir(levels.pop()[0], dir_fd=parent)
    except OSError as exc:
        where = shown.joinpath(*(level[0] for level in levels[1:]), _entry(exc))
        raise CleanupError(exc.errno, f"could not remove {where}: {exc.strerror}") from exc
    finally:
        if fd != top:
            os.close(fd)
