"""The process pool's forkserver, with the grader preloaded (``benchmark.pool_preload.py``).

Light to import, so the command line can start the server before it imports the grader
itself when it already knows a pool will grade (``--workers N`` with ``--no-cache``): the
server's imports then overlap the command's own start-up instead of following it.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.forkserver
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from multiprocessing.context import BaseContext
from typing import Any

PRELOAD = ["benchmark.engine.pool_preload"]


def context() -> BaseContext:
    """The forkserver context, its server set to preload the grader."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


def prestart() -> BaseContext:
    """Start the server now (a no-op when it is running already); returns :func:`context`."""
    ctx = context()
    multiprocessing.forkserver.ensure_running()
    return ctx


STOP_GRACE_S = 5.0  # how long a stopped pool worker has to unwind before it exits


def stop_on_sigterm(stop: Callable[[int, Any], None]) -> None:
    """In a pool worker: SIGTERM calls ``stop`` (``sandbox.abort_on``'s handler: the worker's
    runs stop and SystemExit unwinds its grading, removing its sandboxes), and the worker
    exits ``STOP_GRACE_S`` later at the latest. The pool's worker loop takes a unit's
    exception as that unit's result and waits for the next unit, so without this a worker
    told to stop while grading waited on, and a pool broken by another worker's death (whose
    clean-up joins every worker after its SIGTERM) waited for it forever."""
    def handler(signum: int, frame: Any) -> None:
        threading.Thread(target=_exit_later, name="stop-grace", daemon=True).start()
        stop(signum, frame)

    signal.signal(signal.SIGTERM, handler)


def _exit_later() -> None:
    time.sleep(STOP_GRACE_S)
    os._exit(1)  # (no one reads a stopped worker's result)


def stop_when_gone(grader: int) -> None:
    """In a pool worker: stop this worker (its SIGTERM, see :func:`stop_on_sigterm`) once
    process ``grader`` has ended. A grader killed outright (SIGKILL) cannot stop its workers,
    and nothing else would: a worker waits on a queue it holds both ends of, and the
    forkserver lives as long as a worker does, each keeping the grader's output open."""
    def watch() -> None:
        try:
            ready = os.pidfd_open(grader)
        except ProcessLookupError:
            ready = None  # (gone already)
        except OSError:  # no pidfd (an old kernel): look once a second
            while _alive(grader):
                time.sleep(1.0)
            ready = None
        if ready is not None:
            select.select([ready], [], [])
        signal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)  # (its wait ends: EINTR)

    threading.Thread(target=watch, name="grader-watch", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True
