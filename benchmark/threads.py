"""One lock for Python work on the grader's threads.

A model's prompts are graded on threads so that one prompt's analysis overlaps another's
sandboxed children; the warm-up thread loads libraries meanwhile. Python 3.11's compiler is
not safe to call from two threads at once (``ast.parse``, ``compile`` and so bandit, radon,
Jinja2 and imports from source can fail with "AST constructor recursion depth mismatch"), and
the GIL runs one thread's Python at a time anyway. So these threads do their Python work
holding ``PYTHON_WORK`` and let go of it only while they wait for a child (``released``):
they overlap with children, never with each other.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

PYTHON_WORK = threading.Lock()


@contextmanager
def released(lock: threading.Lock = PYTHON_WORK) -> Iterator[None]:
    """Let go of ``lock`` (held by this thread) for the block, then take it back."""
    lock.release()
    try:
        yield
    finally:
        lock.acquire()
