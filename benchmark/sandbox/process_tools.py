"""Process plumbing for SecureRunner: capped pipe readers, resource limits, reaping, killing
(and ``remove_tree`` from ``benchmark.sandbox.cleanup``, for the sandbox folders).

Nothing here starts a process; ``benchmark.secure_runner`` is the only module that does.
"""

from __future__ import annotations

import os
import resource
import select
import signal
import threading
import time
from pathlib import Path
from collections.abc import Callable
from typing import Any

from .cleanup import (CleanupError, remove_tree, sandbox_prefix,  # noqa: F401 (SecureRunner's
                      sweep_dead_sandboxes)  # sandbox folders)
from ..harness import confine

FILE_SIZE_LIMIT = 32 * 1024 * 1024
OPEN_FILES_LIMIT = 256


class CappedBuffer:
    """The first ``cap`` bytes of a stream, and whether there were more (``truncated``)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.chunks: list[bytes] = []
        self.size = 0
        self.truncated = False

    def add(self, chunk: bytes) -> None:
        room = self.cap - self.size
        if room > 0:
            self.chunks.append(chunk[:room])
            self.size += min(room, len(chunk))
        if len(chunk) > max(room, 0):
            self.truncated = True

    def data(self) -> bytes:
        return b"".join(self.chunks)


class CappedReader(CappedBuffer, threading.Thread):
    """Drains a pipe, keeping at most ``cap`` bytes and discarding the rest."""

    def __init__(self, stream, cap: int) -> None:
        CappedBuffer.__init__(self, cap)
        threading.Thread.__init__(self, daemon=True)
        self.stream = stream

    def run(self) -> None:
        with self.stream:
            while chunk := self.stream.read(65536):
                self.add(chunk)


class PipeDrain(threading.Thread):
    """Drains several pipes (read descriptors, each closed at its end of file) in one thread,
    keeping at most each one's cap: ``buffers``, in the order given. One thread per run
    instead of one per pipe."""

    def __init__(self, pipes: list[tuple[int, int]]) -> None:
        super().__init__(daemon=True)
        self.pipes = pipes
        self.buffers = [CappedBuffer(cap) for _, cap in pipes]

    def run(self) -> None:
        poller = select.poll()
        live = {}
        for (fd, _), buffer in zip(self.pipes, self.buffers):
            poller.register(fd, select.POLLIN)
            live[fd] = buffer
        while live:
            for fd, _ in poller.poll():
                try:
                    chunk = os.read(fd, 65536)  # readable or hung up: it does not block
                except OSError:
                    chunk = b""
                if chunk:
                    live[fd].add(chunk)
                    continue
                poller.unregister(fd)
                del live[fd]
                os.close(fd)


def limits(memory_mb: int, cpu_s: int) -> dict[int, int]:
    return {
        resource.RLIMIT_AS: memory_mb * 1024 * 1024,
        resource.RLIMIT_CPU: cpu_s,
        resource.RLIMIT_FSIZE: FILE_SIZE_LIMIT,
        resource.RLIMIT_NOFILE: OPEN_FILES_LIMIT,
        resource.RLIMIT_CORE: 0,
    }


apply_limits = confine.apply_limits  # runs in the child between fork and exec


def _psutil() -> Any:
    """psutil, imported on first use: only killing and the fallback listing of children need
    it, and a run served wholly from the cache does neither (its import is ~5 ms)."""
    import psutil

    return psutil


def kill_tree(pid: int, known: set[int]) -> int:
    """Kill the child's process group and every descendant seen; return how many were killed."""
    psutil = _psutil()
    victims: set[int] = set(known)
    try:
        victims.update(p.pid for p in psutil.Process(pid).children(recursive=True))
    except psutil.Error:
        pass
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    killed = 0
    for victim in victims - {pid}:
        try:
            psutil.Process(victim).kill()
            killed += 1
        except psutil.Error:
            pass
    return killed


def wait(pid: int, deadline: float) -> tuple[int | None, Any, bool]:
    """Reap ``pid`` with rusage, killing its tree at the deadline. Returns (status, usage, timed_out)."""
    delay = 0.0005
    while True:
        try:
            reaped, status, usage = os.wait4(pid, os.WNOHANG)
        except ChildProcessError:
            return None, None, False
        if reaped:
            return status, usage, False
        if time.monotonic() >= deadline:
            kill_tree(pid, set())
            _, status, usage = os.wait4(pid, 0)
            return status, usage, True
        time.sleep(delay)
        delay = min(delay * 2, 0.02)


def returncode(status: int | None) -> int | None:
    if status is None:
        return None
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def signal_name(status: int | None) -> str | None:
    if status is not None and os.WIFSIGNALED(status):
        return f"signal:{signal.Signals(os.WTERMSIG(status)).name}"
    return None


PR_SET_CHILD_SUBREAPER = 36
_SUBREAPER = False


def become_subreaper() -> bool:
    """Make this process the reaper of orphaned descendants, so a daemon a submission
    detaches (setsid, double fork) is re-parented here and can be swept."""
    global _SUBREAPER
    if not _SUBREAPER:
        import ctypes

        try:
            _SUBREAPER = ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            _SUBREAPER = False
    return _SUBREAPER


def current_children() -> set[int]:
    """This process's children: from each thread's ``/proc/self/task/<tid>/children`` (a
    few small reads), or where the kernel lacks those files, psutil's scan of every process.
    The main thread's file is read last: the children of a thread that ends while we read
    move to the first live thread of the group, the main thread, so a child moved after its
    old thread's file was read is still found there."""
    found: set[int] = set()
    own, leader = str(threading.get_native_id()), str(os.getpid())
    try:
        tids = [t for t in os.listdir("/proc/self/task") if t != leader] + [leader]
        for tid in tids:  # our own thread's file must exist
            try:
                with open(f"/proc/self/task/{tid}/children", "rb") as handle:
                    found.update(int(pid) for pid in handle.read().split())
            except FileNotFoundError:
                if tid == own:
                    raise
                continue  # a thread that has just ended
    except OSError:
        return {child.pid for child in _psutil().Process().children()}
    return found


_PROTECTED: list[Callable[[], set[int]]] = []


def protect(pids: Callable[[], set[int]]) -> None:
    """Register a source of pids that an orphan sweep must spare (the layers above that start
    long-lived helpers register here: this module imports none of them)."""
    _PROTECTED.append(pids)


def sweep_orphans(before: set[int]) -> int:
    """Kill (and reap) children of this process that were not there before the run: with
    the subreaper flag, those are what a finished run left behind."""
    leftovers = current_children() - before
    # our zygote and bandit process are no leftovers: asked after the listing, so one that
    # (re)started in between is spared too
    for spared in _PROTECTED:
        leftovers -= spared()
    killed = 0
    psutil = _psutil() if leftovers else None
    for pid in leftovers:
        try:
            child = psutil.Process(pid)
            child.kill()
            child.wait(timeout=2)
            killed += 1
        except (psutil.Error, psutil.TimeoutExpired):
            continue
    return killed
