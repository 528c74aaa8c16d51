"""This process's sandbox zygote (``benchmark/harness/zygote.py``): which one, started when.

One zygote per grader, started on first use or early with :func:`prestart` so its imports
overlap the grader's own start-up. Pool workers do not start their own: each attaches to the
main process's zygote through its door (:func:`use_door`), with a connection of its own.
Runs may be sent from several threads at once (``zygote_connection.Zygote``, re-exported
here with the connection's other names, routes each answer to its run). If the zygote dies,
every waiting run fails with a reason and the next run starts a new zygote (a worker whose
door is closed starts its own).
"""

from __future__ import annotations

import atexit
import os
import socket
import threading

from .zygote_connection import (BACKSTOP_S, ENV_PASSTHROUGH, KILL_GRACE_S,  # noqa: F401 (re-exported)
                                START_TIMEOUT_S, THREAD_PINS, ZYGOTE, RunStatus, SandboxKilled,
                                Zygote, ZygoteError, zygote_env)


_current: Zygote | None = None
_current_pid: int | None = None
_start_lock = threading.Lock()
_door: socket.socket | None = None  # a pool worker's way to its parent's zygote
_aborted: str | None = None  # set by abort(): no run starts in this process any more


def use_door(door: socket.socket) -> None:
    """Attach to the zygote behind ``door`` (``Zygote.door`` of the parent process) instead
    of starting one; while that zygote lives. Called in each pool worker."""
    global _door
    _door = door


def get() -> Zygote:
    """This process's zygote: attached through the door when there is one (a pool worker),
    else started, if there is none or the last one has gone."""
    global _current, _current_pid, _door
    with _start_lock:
        if _aborted is not None:
            raise ZygoteError(_aborted)
        if _current is None or _current_pid != os.getpid() or not _current.alive:
            zygote = None
            if _door is not None:
                try:
                    zygote = Zygote(door=_door)
                except OSError:  # that zygote is gone: from now on, one of our own
                    _door.close()
                    _door = None
            _current, _current_pid = zygote or Zygote(), os.getpid()
        return _current


def abort(reason: str) -> None:
    """Stop every run of this process now (Ctrl-C): the zygote kills the runs it has started
    for us (closing our connection is its signal), each waiting run fails with ``reason``, and
    from now on no run starts (``get`` raises), so a grading thread cannot start a new zygote
    and go on. For this process only, once; the runs' sandboxes are removed by their owners."""
    global _aborted
    with _start_lock:
        _aborted = _aborted or reason
        zygote = _current if _current_pid == os.getpid() else None
    if zygote is not None:
        zygote.closed = zygote.closed or reason
        zygote.close()


def abort_soon(reason: str) -> None:
    """``abort(reason)`` on a thread of its own (from a signal handler, which may have
    interrupted the main thread while it holds a lock ``abort`` needs; ``sandbox.abort_on``)."""
    threading.Thread(target=abort, args=(reason,), name="abort", daemon=True).start()


def prestart() -> None:
    """Start the zygote now (its imports then overlap whatever the grader does next)."""
    get()


def discard_unused() -> bool:
    """End the zygote this process started, at once, if no run was ever started through it
    (a run served wholly from the cache needs none): it is killed (and not waited for) rather
    than left to finish its imports before it sees the end of file, which the exit would wait for. It has no
    child and holds nothing, and a later ``get()`` starts another. Call it only while no
    pool worker can have its door. True when it was discarded."""
    zygote = _current
    if zygote is None or _current_pid != os.getpid() or zygote.process is None or zygote.used:
        return False
    with zygote._lock:  # (a run being started now would set ``used`` under this lock)
        if zygote.used:
            return False
        zygote.closed = "discarded unused"
    zygote.process.kill()
    zygote.disconnect()  # (not waited for: reaped at exit by ``_shutdown``, or by subprocess's clean-up)
    return True


def protected_pids() -> set[int]:
    """Pids an orphan sweep of the grader must leave alone (the zygote this process started)."""
    if (_current is not None and _current_pid == os.getpid() and _current.alive
            and _current.process is not None):
        return {_current.process.pid}
    return set()


@atexit.register
def _shutdown() -> None:
    if _current is not None and _current_pid == os.getpid():
        _current.close()
