"""The grader's work lock: let go of it only for a wait, and only when the caller holds it."""

from __future__ import annotations

import threading

from benchmark.threads import WorkLock, released_while_waiting


def _another_thread_can_take(lock: WorkLock) -> bool:
    took = []

    def attempt() -> None:
        if lock._lock.acquire(timeout=0.5):
            took.append(True)
            lock._lock.release()

    thread = threading.Thread(target=attempt)
    thread.start()
    thread.join()
    return bool(took)


def test_a_holder_lets_go_for_the_wait_and_takes_the_lock_back():
    lock = WorkLock()
    with lock:
        assert lock.held() and not _another_thread_can_take(lock)
        with released_while_waiting(lock):
            assert not lock.held() and _another_thread_can_take(lock)
        assert lock.held()
    assert not lock.held()


def test_a_caller_that_does_not_hold_it_changes_nothing():
    lock = WorkLock()
    with released_while_waiting(lock):  # a library caller: no error, nothing released
        assert not lock.held()
    holder_ready, done = threading.Event(), threading.Event()

    def hold() -> None:
        with lock:
            holder_ready.set()
            done.wait(5)

    thread = threading.Thread(target=hold)
    thread.start()
    holder_ready.wait(5)
    with released_while_waiting(lock):  # held by another thread: not ours to release
        assert not lock.held() and lock._lock.locked()
    done.set()
    thread.join()
