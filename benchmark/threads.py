"""One lock for Python work on the grader's threads.

A model's prompts are graded on threads so that one prompt's analysis overlaps another's
sandboxed children; the warm-up thread loads libraries meanwhile. Python 3.11's compiler is
not safe to call from two threads at once (``ast.parse``, ``compile`` and so bandit, radon,
Jinja2 and imports from source can fail with "AST constructor recursion depth mismatch"), and
the GIL runs one thread's Python at a time anyway. So these threads do their Python work
holding ``PYTHON_WORK`` and let go of it only while they wait for a child (``released``) or
for the bandit process (``released_while_waiting``): they overlap with other processes,
never with each other.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

class WorkLock:
    """A lock that knows which thread holds it, so code deep in a call (bandit's wait for its
    own process) can let go of it only when its caller took it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner: int | None = None

    def acquire(self) -> None:
        self._lock.acquire()
        self._owner = threading.get_ident()

    def release(self) -> None:
        self._owner = None
        self._lock.release()

    def held(self) -> bool:
        """Held by the calling thread."""
        return self._owner == threading.get_ident()

    def __enter__(self) -> WorkLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


PYTHON_WORK = WorkLock()


@contextmanager
def released(lock: WorkLock = PYTHON_WORK) -> Iterator[None]:
    """Let go of ``lock`` (held by this thread) for the block, then take it back."""
    lock.release()
    try:
        yield
    finally:
        lock.acquire()


@contextmanager
def released_while_waiting(lock: WorkLock = PYTHON_WORK) -> Iterator[None]:
    """Let go of ``lock`` for a wait on another process when this thread holds it (a grading
    thread); otherwise (a library caller) do nothing."""
    if not lock.held():
        yield
        return
    with released(lock):
        yield
