"""A pids limit per sandboxed run through the cgroup ``pids`` controller, where this process
may create cgroups (a root grader, or a delegated cgroup v2 subtree).

One folder per grader process (``rubricbench-<pid>-<pid namespace>-<start time>``) beside or below its own cgroup, and one
group per run inside it whose ``pids.max`` bounds every task (process or thread) of the run;
the child moves itself into its group before it confines itself (``confine.join_cgroup``).
Where no such group can be made, ``detect()`` says why; the runs then rely on
``RLIMIT_NPROC``, which the kernel counts per user namespace, so per run, for any grader but
root.
"""

from __future__ import annotations

import atexit
import errno
import itertools
import os
import threading
import time
from pathlib import Path

from .cleanup import pid_namespace

CGROUP_ROOT = Path("/sys/fs/cgroup")


def _own_folder() -> Path:
    """The pids hierarchy folder of this process's cgroup (v1 ``pids`` line, else v2)."""
    lines = Path("/proc/self/cgroup").read_text(encoding="ascii", errors="replace").splitlines()
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "pids" in controllers.split(","):
            return CGROUP_ROOT / "pids" / path.lstrip("/")
    for line in lines:
        if line.startswith("0::"):
            own = CGROUP_ROOT / line[3:].lstrip("/")
            if "pids" not in (own / "cgroup.controllers").read_text().split():
                raise OSError("cgroup v2: the pids controller is not enabled for this cgroup")
            return own
    raise OSError("no pids cgroup in /proc/self/cgroup")


class PidsGroups:
    """This process's folder of per-run groups."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._numbers = itertools.count()

    def new_run(self, limit: int) -> Path:
        """A run's group with ``pids.max`` = ``limit`` (this process's folder is made again if
        another grader's sweep took it for a dead one's)."""
        _make_folder(self.folder)
        group = self.folder / f"run-{next(self._numbers)}"
        group.mkdir()
        try:
            (group / "pids.max").write_text(str(limit), encoding="ascii")
        except OSError:
            group.rmdir()
            raise
        return group

    @staticmethod
    def remove(group: Path) -> None:
        """Remove a run's group once its tasks are gone (they are being reaped: brief retries)."""
        for _ in range(50):
            try:
                group.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError as exc:
                if exc.errno != errno.EBUSY:
                    raise
            time.sleep(0.01)
        raise OSError(errno.EBUSY, f"the cgroup {group} still has tasks")

    def close(self) -> None:
        try:
            self.folder.rmdir()
        except OSError:
            pass


def _start_of(pid: int | str) -> str | None:
    """A process's start time (``/proc/<pid>/stat`` field 22, clock ticks since boot), or None
    when there is no such process here."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()  # (the name in parentheses may hold spaces)
    return fields[19] if len(fields) > 19 else None


def _folder_name() -> str:
    """``rubricbench-<pid>-<pid namespace>-<start time>``: unique to this process, also where
    the same pid was another grader's (a container restarted, a grader that was pid 1 of a pid
    namespace killed before it cleaned up), so a folder left behind is never taken for ours."""
    return f"rubricbench-{os.getpid()}-{pid_namespace()}-{_start_of('self')}"


def _gone(name: str, namespace: int) -> bool:
    """Whether the grader process a folder was named for (``_folder_name``) has ended. One of
    another pid namespace cannot be seen from here and is left to its own namespace's sweep."""
    parts = name.split("-")[1:]
    if len(parts) == 1 and parts[0].isdigit():  # (the older name: the pid alone)
        return not Path(f"/proc/{parts[0]}").exists()
    if len(parts) != 3 or not all(part.isdigit() for part in parts) or int(parts[1]) != namespace:
        return False
    return _start_of(parts[0]) != parts[2]


def _sweep(own: Path) -> None:
    """Remove the (empty) folders of grader processes that are gone: a pool worker ends
    with ``os._exit``, so its own clean-up at exit never runs."""
    namespace = pid_namespace()
    for folder in own.glob("rubricbench-*"):
        if not _gone(folder.name, namespace):
            continue
        for group in folder.glob("run-*"):
            try:
                group.rmdir()
            except OSError:
                pass
        try:
            folder.rmdir()
        except OSError:
            pass


def sweep() -> None:
    """Remove what grader processes that are gone left (after a pool's workers have ended)."""
    try:
        _sweep(_own_folder())
    except (OSError, ValueError):
        pass


def _make_folder(folder: Path) -> None:
    if folder.is_dir():
        return
    folder.mkdir(exist_ok=True)
    if (folder.parent / "cgroup.subtree_control").exists():  # v2: the controller must reach the runs
        try:
            (folder / "cgroup.subtree_control").write_text("+pids", encoding="ascii")
        except OSError:
            folder.rmdir()
            raise


def _create() -> PidsGroups:
    own = _own_folder()
    _sweep(own)
    folder = own / _folder_name()
    _make_folder(folder)
    groups = PidsGroups(folder)
    groups.remove(groups.new_run(1))  # can we make, limit and remove a run's group?
    atexit.register(groups.close)
    return groups


_STATE: dict[int, tuple[PidsGroups | None, str | None]] = {}
_LOCK = threading.Lock()


def detect() -> tuple[PidsGroups | None, str | None]:
    """(this process's groups, None) or (None, why there are none); once per process."""
    with _LOCK:
        pid = os.getpid()  # a pool worker makes a folder of its own
        if pid not in _STATE:
            try:
                _STATE[pid] = (_create(), None)
            except (OSError, ValueError) as exc:
                _STATE[pid] = (None, f"{type(exc).__name__}: {exc}")
        return _STATE[pid]
