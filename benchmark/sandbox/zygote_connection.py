"""One connection to the sandbox zygote (``benchmark/harness/zygote.py``): the zygote started
(or attached to through a door), its runs sent over a socket pair, and a reader thread that
routes each answer to its run. If the zygote dies, every waiting run fails with a reason.

Which zygote this process uses, and when it starts or stops, is ``spawner``'s (it re-exports
every public name here).
"""

from __future__ import annotations

import itertools
import json
import os
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ZYGOTE = Path(__file__).resolve().parents[1] / "harness" / "zygote.py"
START_TIMEOUT_S = 60.0
KILL_GRACE_S = 10.0
# The zygote ends a run at its deadline; the grader waits this much longer before it decides
# the zygote is wedged (a backstop: a grader thread starved of the GIL may see the answer late).
BACKSTOP_S = 30.0
ENV_PASSTHROUGH = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
THREAD_PINS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
# glibc gives each thread that allocates a malloc arena of its own, up to 8 per core, each a
# 64 MB reservation of address space: under RLIMIT_AS (``--mem``) those reservations, not
# memory used, stopped honest code at its ninth thread with the default 512 MB. Two arenas
# (read by glibc when the zygote starts, inherited by every run it forks) leave the limit to
# what a run really maps; a thread then costs its stack.
MALLOC_ARENAS = "2"


class ZygoteError(RuntimeError):
    """The zygote could not start a run or went away during one."""


class SandboxKilled(RuntimeError):
    """A run's first process, pid 1 of its pid namespace, died of a signal before it reported
    and not at the time-out: something outside the sandbox killed it (an operator, the OOM
    killer), since nothing inside can. The grader's failure, never the submission's result."""


@dataclass
class RunStatus:
    """A run as the zygote reported it: ``wall_s`` and ``timed_out`` are the zygote's own
    measure (it forked the run and ended it at its deadline)."""

    pid: int | None = None
    status: int | None = None
    usage: tuple[float, float, int] | None = None
    error: str | None = None
    wall_s: float | None = None
    timed_out: bool = False
    killed: bool = False


class _Run:
    def __init__(self) -> None:
        self.started, self.finished = threading.Event(), threading.Event()
        self.result = RunStatus()


def zygote_env() -> dict[str, str]:
    """The allow-listed environment of the zygote, and the base of every child's
    (``SecureRunner.child_env``): no grader secret is ever in it. The hash seed is fixed
    because every child inherits the zygote's; numeric libraries get one thread; glibc's malloc
    gets ``MALLOC_ARENAS`` arenas."""
    env = {key: os.environ[key] for key in ENV_PASSTHROUGH if key in os.environ}
    env.setdefault("PATH", "/usr/bin:/bin")
    env.update({"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"})
    env.update({key: "1" for key in THREAD_PINS})
    env["MALLOC_ARENA_MAX"] = MALLOC_ARENAS
    return env


class Zygote:
    """A zygote this process started, or one it attached to (``Zygote(door=...)``), and the
    reader thread that routes its answers."""

    def __init__(self, door: socket.socket | None = None) -> None:
        self._sock, remote = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.process: subprocess.Popen | None = None
        self.door: socket.socket | None = None  # for pool workers to attach through
        try:
            if door is not None:  # raises OSError when that zygote is gone
                socket.send_fds(door, [b"attach"], [remote.fileno()])
            else:
                self.door, door_remote = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                try:
                    fds = (remote.fileno(), door_remote.fileno())
                    self.process = subprocess.Popen(
                        [sys.executable, "-I", "-B", str(ZYGOTE), *map(str, fds)],
                        env=zygote_env(), cwd="/", stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL, pass_fds=fds, start_new_session=True)
                finally:
                    door_remote.close()
        except BaseException:
            self._sock.close()
            if self.door is not None:
                self.door.close()
            raise
        finally:
            remote.close()
        self.pid: int | None = self.process.pid if self.process else None
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._runs: dict[int, _Run] = {}
        self._hello = threading.Event()
        self.vm_peak_kb = 0
        self.closed: str | None = None
        self.used = False  # a run was started through it (``run``): see ``discard_unused``
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
                self.pid = int(message["hello"])
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
                run.result.wall_s = message.get("wall_s")
                run.result.timed_out = bool(message.get("timed_out"))
                run.result.killed = bool(message.get("killed"))
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
            run.result.error = run.result.error or self.closed
            run.started.set()
            run.finished.set()
        self._hello.set()
        if self.process is None:
            return
        try:  # once it is reaped, what it left is re-parented here, for the caller to sweep
            self.process.wait(timeout=KILL_GRACE_S)
        except subprocess.TimeoutExpired:
            pass

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> None:
        if not self._hello.wait(timeout) or self.closed:
            raise ZygoteError(self.closed or "the sandbox zygote did not start in time")

    # ---- runs ----------------------------------------------------------------------------
    def run(self, request: dict[str, Any], fds: tuple[int, int, int], timeout: float) -> RunStatus:
        """Start one run (``request`` as in the zygote's protocol, without op, id and
        deadline) with (stdout, stderr, channel) attached; the zygote ends it ``timeout``
        seconds after it started it and says so (``RunStatus.timed_out``). Raises
        ZygoteError when the zygote fails, or has not ended the run ``BACKSTOP_S`` later."""
        self.wait_ready()
        run = _Run()
        with self._lock:
            if self.closed:
                raise ZygoteError(self.closed)
            run_id = next(self._ids)
            self.used = True
            self._runs[run_id] = run
        try:
            payload = json.dumps({**request, "op": "run", "id": run_id, "deadline_s": timeout}).encode()
            socket.send_fds(self._sock, [payload], list(fds))
            if not run.finished.wait(timeout + BACKSTOP_S):
                self._sock.send(json.dumps({"op": "kill", "id": run_id}).encode())
                run.finished.wait(KILL_GRACE_S)  # an answer already on its way is read too
        except OSError as exc:
            raise ZygoteError(f"the sandbox zygote is unreachable: {exc}") from exc
        finally:
            with self._lock:
                self._runs.pop(run_id, None)
        if not run.finished.is_set() or run.result.killed:
            raise ZygoteError(f"the sandbox zygote did not end a run at its {timeout:g} s deadline")
        return run.result

    @property
    def alive(self) -> bool:
        return not self.closed and (self.process is None or self.process.poll() is None)

    def disconnect(self) -> None:
        """Shut our connection and close the door (``close`` without waiting for the zygote)."""
        self.closed = self.closed or "closed by the grader"
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
        if self.door is not None:
            self.door.close()

    def close(self) -> None:
        """End our connection: shutting the socket down (a plain close would wait for the
        reader thread's pending recv) is the end of file that makes the zygote kill our runs
        (and, for the zygote this process started, exit)."""
        try:
            self.disconnect()
        finally:
            if self.process is not None:
                try:
                    self.process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()


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
