"""SecureRunner: the only place RubricBench starts a process.

Every piece of submission code runs in a child Python started here, in a fresh private
directory (work dir, HOME and TMP of its own), with an allow-listed environment, a new
session, POSIX resource limits and a wall-clock timeout that kills the whole process group
and sweeps any descendant that escaped it. Output is captured with a size cap. The harness
in the child reports one JSON record over a private pipe; this module checks that record's
shape and nonce and hands it to the caller as ``ExecResult.observation``.

What is applied is measured and reported by ``isolation_report()``; nothing is claimed that
was not set up.
"""

from __future__ import annotations

import json
import os
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil

from .types import ExecResult

HARNESS = Path(__file__).resolve().parent / "harness" / "child.py"
STDOUT_CAP = 1024 * 1024
STDERR_CAP = 256 * 1024
CHANNEL_CAP = 16 * 1024 * 1024
FILE_SIZE_LIMIT = 32 * 1024 * 1024
OPEN_FILES_LIMIT = 256
ENV_PASSTHROUGH = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT")
THREAD_PINS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


class _CappedReader(threading.Thread):
    """Drains a pipe, keeping at most ``cap`` bytes and discarding the rest."""

    def __init__(self, stream, cap: int) -> None:
        super().__init__(daemon=True)
        self.stream, self.cap = stream, cap
        self.chunks: list[bytes] = []
        self.size = 0
        self.truncated = False

    def run(self) -> None:
        with self.stream:
            while chunk := self.stream.read(65536):
                room = self.cap - self.size
                if room > 0:
                    self.chunks.append(chunk[:room])
                    self.size += min(room, len(chunk))
                if len(chunk) > max(room, 0):
                    self.truncated = True

    def data(self) -> bytes:
        return b"".join(self.chunks)


def _limits(memory_mb: int, cpu_s: int) -> dict[int, int]:
    return {
        resource.RLIMIT_AS: memory_mb * 1024 * 1024,
        resource.RLIMIT_CPU: cpu_s,
        resource.RLIMIT_FSIZE: FILE_SIZE_LIMIT,
        resource.RLIMIT_NOFILE: OPEN_FILES_LIMIT,
        resource.RLIMIT_CORE: 0,
    }


def _apply_limits(limits: dict[int, int]) -> None:
    """Runs in the child between fork and exec."""
    for which, value in limits.items():
        soft, hard = resource.getrlimit(which)
        cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(which, (cap, cap))


def _kill_tree(pid: int, known: set[int]) -> int:
    """Kill the child's process group and every descendant seen; return how many were killed."""
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


def _remove_tree(path: Path) -> None:
    def make_writable(func, target, _exc):
        try:
            os.chmod(target, 0o700)
            func(target)
        except OSError:
            pass

    shutil.rmtree(path, onerror=make_writable)


class SecureRunner:
    """Run submission code in isolated child processes (see module docstring)."""

    def __init__(self, model_name: str = "default", allow_network: bool = False, *,
                 memory_mb: int = 512, timeout_s: float = 30.0, unsafe: bool = False) -> None:
        self.model_name = model_name
        self.allow_network = allow_network
        self.memory_mb = memory_mb
        self.timeout_s = timeout_s
        self.unsafe = unsafe
        self._sandbox: Path | None = None

    # ---- sandbox directories -----------------------------------------------------------
    @contextmanager
    def sandbox(self) -> Iterator[Path]:
        """A private directory tree (work/, home/, tmp/) removed on exit."""
        safe_name = "".join(c if c.isalnum() else "_" for c in self.model_name)[:40]
        root = Path(tempfile.mkdtemp(prefix=f"rubricbench-{safe_name}-"))
        for sub in ("work", "home", "tmp"):
            (root / sub).mkdir()
        previous, self._sandbox = self._sandbox, root
        try:
            yield root
        finally:
            self._sandbox = previous
            _remove_tree(root)

    def child_env(self, root: Path) -> dict[str, str]:
        env = {key: os.environ[key] for key in ENV_PASSTHROUGH if key in os.environ}
        env.setdefault("PATH", "/usr/bin:/bin")
        env.update({
            "HOME": str(root / "home"),
            "TMPDIR": str(root / "tmp"),
            "TMP": str(root / "tmp"),
            "TEMP": str(root / "tmp"),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONIOENCODING": "utf-8",
            "PYTHONHASHSEED": "0",
            "RUBRICBENCH_SANDBOX_ROOT": str(root),
            "AIBUGBENCH_SANDBOX_ROOT": str(root),
            "RUBRICBENCH_ALLOW_NETWORK": "1" if self.allow_network else "0",
        })
        env.update({key: "1" for key in THREAD_PINS})
        return env

    # ---- running -----------------------------------------------------------------------
    def run_harness(self, request: Mapping[str, Any], files: Mapping[str, bytes],
                    timeout: float | None = None) -> ExecResult:
        """Stage ``files`` in a fresh sandbox, run the harness on ``request``, validate its record."""
        with self.sandbox() as root:
            work = root / "work"
            for name, data in files.items():
                target = work / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            nonce = secrets.token_hex(16)
            request_path = root / f"request-{nonce[:8]}.json"
            request_path.write_text(json.dumps({**request, "nonce": nonce}), encoding="utf-8")
            cmd = [sys.executable, "-I", "-B", str(HARNESS), str(request_path)]
            result = self._execute(cmd, work, self.child_env(root), timeout, channel=True)
            return _validated(result, request["mode"], nonce)

    def run_python_sandboxed(self, args: list[str], *, timeout: float = 10,
                             cwd: Path | None = None, memory_mb: int | None = None) -> ExecResult:
        """Run ``python -I -B <args>`` in the current sandbox (spec API; see ``sandbox()``)."""
        if self._sandbox is None:
            raise RuntimeError("run_python_sandboxed must be called inside 'with runner.sandbox()'")
        work = Path(cwd) if cwd else self._sandbox / "work"
        return self._execute([sys.executable, "-I", "-B", *args], work,
                             self.child_env(self._sandbox), timeout, channel=False,
                             memory_mb=memory_mb)

    def _execute(self, cmd: list[str], cwd: Path, env: dict[str, str],
                 timeout: float | None, *, channel: bool, memory_mb: int | None = None) -> ExecResult:
        timeout = float(timeout or self.timeout_s)
        limits = _limits(memory_mb or self.memory_mb, int(timeout) + 1)
        read_fd = write_fd = None
        pass_fds: tuple[int, ...] = ()
        if channel:
            read_fd, write_fd = os.pipe()
            env = {**env, "RUBRICBENCH_CHANNEL_FD": str(write_fd)}
            pass_fds = (write_fd,)
        started = time.monotonic()
        proc = subprocess.Popen(
            cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True, pass_fds=pass_fds,
            preexec_fn=lambda: _apply_limits(limits), close_fds=True,
        )
        readers = [_CappedReader(proc.stdout, STDOUT_CAP), _CappedReader(proc.stderr, STDERR_CAP)]
        if channel:
            os.close(write_fd)
            readers.append(_CappedReader(os.fdopen(read_fd, "rb"), CHANNEL_CAP))
        for reader in readers:
            reader.start()
        status, usage, timed_out = _wait(proc.pid, started + timeout)
        _kill_tree(proc.pid, set())  # leftovers in the group die with the run
        wall = time.monotonic() - started
        for reader in readers:
            reader.join(timeout=2.0)
        proc.returncode = _returncode(status)
        return ExecResult(
            returncode=proc.returncode,
            stdout=readers[0].data().decode("utf-8", "replace"),
            stderr=readers[1].data().decode("utf-8", "replace"),
            timed_out=timed_out,
            killed_by="timeout" if timed_out else _signal_name(status),
            wall_s=round(wall, 4),
            cpu_s=round(usage.ru_utime + usage.ru_stime, 4) if usage else 0.0,
            peak_rss_mb=round(usage.ru_maxrss / 1024, 1) if usage else 0.0,
            observation={"_raw": readers[2].data()} if channel else None,
            output_truncated=readers[0].truncated or readers[1].truncated,
        )

    def isolation_report(self) -> dict[str, Any]:
        """What this runner applies, layer by layer (all process-layer items are always set)."""
        return {
            "process": {
                "status": "applied",
                "new_session": True,
                "timeout_s": self.timeout_s,
                "kill": "process group + descendant sweep",
                "rlimits": {"address_space_mb": self.memory_mb, "cpu_s": "timeout + 1",
                            "file_size_mb": FILE_SIZE_LIMIT // (1024 * 1024),
                            "open_files": OPEN_FILES_LIMIT, "core_dumps": 0},
                "output_cap_bytes": {"stdout": STDOUT_CAP, "stderr": STDERR_CAP},
                "environment": "allow-list",
                "private_dirs": ["work", "home", "tmp"],
            },
            "kernel": {"status": "not applied",
                       "reason": "network/filesystem/pid namespaces are not implemented yet"},
            "guard": {"status": "not applied",
                      "reason": "in-child audit hooks are not implemented yet"},
            "network": "allowed" if self.allow_network else "not blocked by a kernel layer",
            "unsafe": self.unsafe,
        }


def _wait(pid: int, deadline: float) -> tuple[int | None, Any, bool]:
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
            _kill_tree(pid, set())
            _, status, usage = os.wait4(pid, 0)
            return status, usage, True
        time.sleep(delay)
        delay = min(delay * 2, 0.02)


def _returncode(status: int | None) -> int | None:
    if status is None:
        return None
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def _signal_name(status: int | None) -> str | None:
    if status is not None and os.WIFSIGNALED(status):
        return f"signal:{signal.Signals(os.WTERMSIG(status)).name}"
    return None


def _validated(result: ExecResult, mode: str, nonce: str) -> ExecResult:
    """Replace the raw channel bytes with the parsed record, or say why there is none."""
    raw = (result.observation or {}).get("_raw", b"")
    record, problem = None, None
    if result.timed_out:
        problem = "the child was killed at the wall-clock timeout"
    elif not raw:
        problem = "the child sent no result record (it exited before the harness finished)"
    else:
        try:
            record = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            problem = "the result record was not valid JSON"
        if record is not None and not (isinstance(record, dict) and record.get("nonce") == nonce
                                       and record.get("mode") == mode):
            record, problem = None, "the result record failed validation (nonce or mode)"
    if record is not None:
        record.pop("nonce", None)
    return ExecResult(**{**result.__dict__, "observation": record, "channel_error": problem})
