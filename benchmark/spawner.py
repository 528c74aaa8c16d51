"""The grader's side of the zygote (``benchmark/harness/zygote.py``): start it, send it runs.

One zygote per grader process (pool workers each start their own), started on first use or
early with :func:`prestart` so its imports overlap the grader's own start-up. Runs may be
sent from several threads at once: a reader thread routes each answer to its run. If the
zygote dies, every waiting run fails with a reason and the next run starts a new zygote.
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ZYGOTE = Path(__file__).resolve().parent / "harness" / "zygote.py"
START_TIMEOUT_S = 60.0
KILL_GRACE_S = 10.0
ENV_PASSTHROUGH = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
THREAD_PINS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


class ZygoteError(RuntimeError):
    """The zygote could not start a run or went away during one."""


@dataclass
class RunStatus:
    pid: int | None = None
    status: int | None = None
    usage: tuple[float, float, int] | None = None
    error: str | None = None


class _Run:
    def __init__(self) -> None:
        self.started, self.finished = threading.Event(), threading.Event()
        self.result = RunStatus()


def zygote_env() -> dict[str, str]:
    """The allow-listed environment of the zygote, and the base of every child's
    (``SecureRunner.child_env``): no grader secret is ever in it. The hash seed is fixed
    because every child inherits the zygote's; numeric libraries get one thread."""
    env = {key: os.environ[key] for key in ENV_PASSTHROUGH if key in os.environ}
    env.setdefault("PATH", "/usr/bin:/bin")
    env.update({"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"})
    env.update({key: "1" for key in THREAD_PINS})
    return env


class Zygote:
    """A running zygote and the reader thread that routes its answers."""

    def __init__(self) -> None:
        self._sock, remote = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-B", str(ZYGOTE), str(remote.fileno())],
                env=zygote_env(), cwd="/", stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                pass_fds=(remote.fileno(),), start_new_session=True)
        finally:
            remote.close()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._runs: dict[int, _Run] = {}
        self._hello = threading.Event()
        self.vm_peak_kb = 0
        self.closed: str | None = None
        threading.Thread(target=self._read, name="zygote-reader", daemon=True).start()

    # ---- answers -------------------------------------------------------------------------
    def _read(self) -> None:
        while True:
            try:
                data = self._sock.recv(1 << 16)
            except OSError:
                data = b""
            if not data:
                break
            message = json.loads(data)
            if "hello" in message:
                self.vm_peak_kb = int(message["vm_peak_kb"])
                self._hello.set()
                continue
            with self._lock:
                run = self._runs.get(message["id"])
            if run is None:
                continue
            if "pid" in message:
                run.result.pid = message["pid"]
                run.started.set()
            elif "error" in message:
                run.result.error = message["error"]
                run.started.set()
                run.finished.set()
            else:
                run.result.status = message["status"]
                run.result.usage = tuple(message["usage"])
                run.finished.set()
        self._fail_all("the sandbox zygote exited")

    def _fail_all(self, reason: str) -> None:
        """The zygote is gone: kill what it had started for us (its children also get
        SIGKILL from the kernel when it dies), reap it, and fail every waiting run."""
        with self._lock:
            self.closed = self.closed or reason
            runs, self._runs = list(self._runs.values()), {}
        for run in runs:
            if run.result.pid and run.result.status is None:
                _kill_orphaned_run(run.result.pid)
            run.result.error = run.result.error or reason
            run.started.set()
            run.finished.set()
        self._hello.set()
        try:  # once it is reaped, what it left is re-parented here, for the caller to sweep
            self.process.wait(timeout=KILL_GRACE_S)
        except subprocess.TimeoutExpired:
            pass

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> None:
        if not self._hello.wait(timeout) or self.closed:
            raise ZygoteError(self.closed or "the sandbox zygote did not start in time")

    # ---- runs ----------------------------------------------------------------------------
    def run(self, request: dict[str, Any], fds: tuple[int, int, int], deadline: float) -> tuple[RunStatus, bool]:
        """Start one run (``request`` as in the zygote's protocol, without op and id) with
        (stdout, stderr, channel) attached; wait for it until ``deadline`` (monotonic), then
        have it killed. Returns (its status, whether it was killed at the deadline)."""
        self.wait_ready()
        run = _Run()
        with self._lock:
            if self.closed:
                raise ZygoteError(self.closed)
            run_id = next(self._ids)
            self._runs[run_id] = run
        try:
            payload = json.dumps({**request, "op": "run", "id": run_id}).encode()
            socket.send_fds(self._sock, [payload], list(fds))
            timed_out = not run.finished.wait(max(0.0, deadline - time.monotonic()))
            if timed_out:
                self._sock.send(json.dumps({"op": "kill", "id": run_id}).encode())
                if not run.finished.wait(KILL_GRACE_S):
                    raise ZygoteError("the sandbox zygote did not end a timed-out run")
        except OSError as exc:
            raise ZygoteError(f"the sandbox zygote is unreachable: {exc}") from exc
        finally:
            with self._lock:
                self._runs.pop(run_id, None)
        return run.result, timed_out

    @property
    def alive(self) -> bool:
        return not self.closed and self.process.poll() is None

    def close(self) -> None:
        """End the zygote: shutting the socket down (a plain close would wait for the reader
        thread's pending recv) is the end of file that makes it kill its runs and exit."""
        self.closed = self.closed or "closed by the grader"
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self._sock.close()
        finally:
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


_current: Zygote | None = None
_current_pid: int | None = None
_start_lock = threading.Lock()


def get() -> Zygote:
    """This process's zygote, started if there is none or the last one has gone."""
    global _current, _current_pid
    with _start_lock:
        if _current is None or _current_pid != os.getpid() or not _current.alive:
            _current, _current_pid = Zygote(), os.getpid()
        return _current


def prestart() -> None:
    """Start the zygote now (its imports then overlap whatever the grader does next)."""
    get()


def protected_pids() -> set[int]:
    """Pids an orphan sweep of the grader must leave alone (this process's zygote)."""
    if _current is not None and _current_pid == os.getpid() and _current.alive:
        return {_current.process.pid}
    return set()


def _kill_orphaned_run(pid: int) -> None:
    """SIGKILL a run whose zygote died, its group and descendants; reap it if it was
    re-parented to this process (a child subreaper). Its pid cannot have been reused: nobody
    has reaped it."""
    from .process_tools import kill_tree

    kill_tree(pid, set())
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass  # re-parented to init, which reaps it


@atexit.register
def _shutdown() -> None:
    if _current is not None and _current_pid == os.getpid():
        _current.close()
