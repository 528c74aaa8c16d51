"""The process pool's forkserver, with the grader preloaded (``benchmark.pool_preload.py``).

Light to import, so the command line can start the server before it imports the grader
itself when it already knows a pool will grade (``--workers N`` with ``--no-cache``): the
server's imports then overlap the command's own start-up instead of following it.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.forkserver
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
