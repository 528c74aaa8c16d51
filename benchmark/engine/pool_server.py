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
from multiprocessing.context import BaseContext

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


GONE_GRACE_S = 5.0  # how long a worker whose grader is gone has to unwind before it exits


def stop_when_gone(grader: int) -> None:
    """In a pool worker: stop this worker once process ``grader`` has ended. A grader killed
    outright (SIGKILL) cannot stop its workers, and nothing else would: a worker waits on a
    queue it holds both ends of, and the forkserver lives as long as a worker does, each
    keeping the grader's output open. The worker's SIGTERM (its runs stop, its grading unwinds
    and its sandboxes are removed) comes first; since a unit's exception is only sent back
    as its result and the worker then waits again, it exits ``GONE_GRACE_S`` later."""
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
        time.sleep(GONE_GRACE_S)
        os._exit(1)  # (no one is left to read a result)

    threading.Thread(target=watch, name="grader-watch", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True
