"""SecureRunner: the only place RubricBench starts a process for submission code.

Every piece of submission code runs in a child process started here: harness runs in a
child forked by the zygote (``benchmark.sandbox.spawner``), ``run_python_sandboxed`` in a fresh
exec'd Python. Three layers apply:

- process (always): a fresh private folder (work dir, HOME and TMP of its own), an
  allow-listed environment, a new session, resource limits, captured output with a size cap,
  and a wall-clock timeout that kills the process group and sweeps every descendant;
- kernel (where ``benchmark.sandbox.isolation.detect()`` finds it, unless ``unsafe``): user, network
  and pid namespaces, Landlock and a seccomp deny list, applied in the child before the
  harness (or the exec'd Python) starts;
- guard (unless ``unsafe``): the harness's audit hook and a no-new-process seccomp filter in
  the worker that runs the submission; every denied attempt comes back as evidence.

The harness reports one JSON record over a private pipe; ``benchmark.sandbox.result_record``
checks its shape and nonce and hands it over as ``ExecResult.observation``.
``isolation_report()`` states what is applied, from detection, never from constants.
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any

from .sandbox import bandit_process, isolation, pids_cgroup, result_record, spawner, staging
from .sandbox import process_tools as pt
from .sandbox.limits import GUARD_OFF_ENV, address_space_mb, idle_child_mb, zygote_idle_mb  # noqa: F401
from .sandbox.result_record import MAX_INT_DIGITS  # noqa: F401  (public: re-exported)
from .types import ExecResult

HARNESS_DIR = Path(__file__).resolve().parent / "harness"
PIDS_MAX = 64  # tasks (processes and threads) of one run
pt.protect(spawner.protected_pids)  # our zygote and bandit process outlive every run
pt.protect(lambda: {bandit_process.pid()} - {None})
STDOUT_CAP = 1024 * 1024
STDERR_CAP = 256 * 1024
CHANNEL_CAP = 16 * 1024 * 1024
# The harness's supervisor ends the worker at the time-out and writes its record; the zygote
# kills the whole run this much later, when the supervisor itself has not (its record, with
# the evidence of what the run attempted, is then lost: ``result_record.validated``).
SUPERVISOR_GRACE_S = 2.0


_swept: set[tuple[int, str | None]] = set()  # (process, folder) pairs whose sweep has run


def _sweep_once(base: str | None) -> None:
    """Before this process's first sandbox in ``base``: remove the sandbox folders there of
    grader processes that are gone (killed before their clean-up ran)."""
    key = (os.getpid(), base)
    if key not in _swept:
        _swept.add(key)
        pt.sweep_dead_sandboxes(base)


def _check_staged_name(name: str) -> None:
    """``ValueError`` unless ``name`` is a relative path that stays in the run's folder: a
    staged name comes from a pack's manifest, and ``work / "/abs"`` is ``/abs`` on the host."""
    path = PurePosixPath(name)
    if not name or "\\" in name or "\x00" in name or path.is_absolute() or ".." in path.parts:
        raise ValueError(f"staged file name {name!r} is not a plain relative path inside the sandbox")


class SecureRunner:
    """Run submission code in isolated child processes (see module docstring)."""

    def __init__(self, model_name: str = "default", allow_network: bool = False, *,
                 memory_mb: int = 512, timeout_s: float = 30.0, unsafe: bool = False,
                 kernel: bool = True) -> None:
        self.model_name = model_name
        self.allow_network = allow_network
        self.memory_mb = memory_mb
        self.timeout_s = timeout_s
        self.unsafe = unsafe
        self.guard = not unsafe and os.environ.get(GUARD_OFF_ENV) != "1"
        self.support = None if unsafe or not kernel else isolation.detect()
        self._sandbox: Path | None = None
        pt.become_subreaper()

    # ---- sandbox directories -----------------------------------------------------------
    @contextmanager
    def sandbox(self) -> Iterator[Path]:
        """A private directory tree (work/, home/, tmp/) removed on exit, never following a link
        the child planted in it; raises ``process_tools.CleanupError`` (naming what remains)
        when it cannot be removed completely: a sandbox left behind is reported, not ignored.
        Made on a tmpfs when the runs get a private root (``benchmark.sandbox.staging``)."""
        safe_name = "".join(c if c.isascii() and c.isalnum() else "_" for c in self.model_name)[:40]
        base = staging.base(self.private_root)
        _sweep_once(base)
        root = Path(tempfile.mkdtemp(prefix=pt.sandbox_prefix(safe_name), dir=base)).resolve()
        for sub in ("work", "home", "tmp"):
            (root / sub).mkdir()
        previous, self._sandbox = self._sandbox, root
        try:
            yield root
        finally:
            self._sandbox = previous
            pt.remove_tree(root)

    def child_env(self, root: Path) -> dict[str, str]:
        return {
            **spawner.zygote_env(),
            "HOME": str(root / "home"), "TMPDIR": str(root / "tmp"), "TMP": str(root / "tmp"),
            "TEMP": str(root / "tmp"),
            "RUBRICBENCH_SANDBOX_ROOT": str(root), "AIBUGBENCH_SANDBOX_ROOT": str(root),
            "RUBRICBENCH_ALLOW_NETWORK": "1" if self.allow_network else "0",
        }

    # ---- policies ----------------------------------------------------------------------
    @property
    def private_root(self) -> bool:
        """The runs get a private root (``kernel_policy``): the child never writes to the
        host's sandbox folder, it only copies what was staged there."""
        support = self.support
        return bool(support is not None and support.any and support.user_namespaces
                    and support.private_root)

    def kernel_policy(self, root: Path, *, exec_rights: bool = True) -> isolation.KernelPolicy | None:
        """The kernel layer for a child in ``root``; ``exec_rights=False`` (the zygote's
        children, which never need to exec) leaves nothing executable."""
        support = self.support
        if support is None or not support.any:
            return None
        reads, execs = isolation.default_paths(root, HARNESS_DIR)
        namespaces = support.user_namespaces
        return isolation.KernelPolicy(
            deny_network=namespaces and support.network_namespace and not self.allow_network,
            pid_namespace=namespaces and support.pid_namespace,
            ipc_namespace=namespaces and support.ipc_namespace,
            private_root=self.private_root,
            pids_max=PIDS_MAX,
            landlock=support.landlock_abi > 0, seccomp=support.seccomp,
            read_paths=reads, exec_paths=execs if exec_rights else (), write_paths=(str(root),),
            deny_tcp=not self.allow_network)

    def guard_policy(self, root: Path) -> dict[str, Any] | None:
        if not self.guard:
            return None
        reads, _ = isolation.default_paths(root, HARNESS_DIR)
        return {"sandbox": str(root), "read_roots": list(reads), "allow_network": self.allow_network}

    @contextmanager
    def _pids_group(self, policy: isolation.KernelPolicy | None) -> Iterator[isolation.KernelPolicy | None]:
        """The policy with a cgroup of its own for the run (where one can be made), removed
        after the run."""
        groups = pids_cgroup.detect()[0] if policy and self.support and self.support.pids_cgroup else None
        if groups is None:
            yield policy
            return
        group = groups.new_run(policy.pids_max)
        try:
            yield dataclasses.replace(policy, pids_cgroup=str(group / "cgroup.procs"))
        finally:
            groups.remove(group)

    # ---- running -----------------------------------------------------------------------
    def run_harness(self, request: Mapping[str, Any], files: Mapping[str, bytes],
                    timeout: float | None = None, *, guard: bool = True) -> ExecResult:
        """Stage ``files`` in a fresh sandbox, run the harness on ``request``, validate its record."""
        for name in files:  # (before any folder is made: a bad name is the caller's bug)
            _check_staged_name(name)
        with self.sandbox() as root:
            work = root / "work"
            for name, data in files.items():
                target = work / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            nonce = secrets.token_hex(16)
            request_path = root / f"request-{nonce[:8]}.json"
            policy = self.kernel_policy(root, exec_rights=False)
            payload = {**request, "nonce": nonce, "guard": self.guard_policy(root) if guard else None,
                       "no_new_processes": bool(policy and policy.seccomp),
                       "deadline_s": float(timeout or self.timeout_s)}
            request_path.write_text(json.dumps(payload), encoding="utf-8")
            with self._pids_group(policy) as policy:
                result = self._spawn(request_path, work, self.child_env(root), timeout, policy=policy)
            _check_not_killed_from_outside(result, policy)
            return _relative_stderr(result_record.validated(result, request["mode"], nonce), work)

    def run_python_sandboxed(self, args: list[str], *, timeout: float = 10,
                             cwd: Path | None = None, memory_mb: int | None = None) -> ExecResult:
        """Run ``python -I -B <args>`` in the current sandbox (spec API; see ``sandbox()``).

        The process and kernel layers apply; the guard needs the harness, so it does not."""
        if self._sandbox is None:
            raise RuntimeError("run_python_sandboxed must be called inside 'with runner.sandbox()'")
        work = Path(cwd) if cwd else self._sandbox / "work"
        with self._pids_group(self.kernel_policy(self._sandbox)) as policy:
            return self._execute([sys.executable, "-I", "-B", *args], work,
                                 self.child_env(self._sandbox), timeout, channel=False,
                                 memory_mb=memory_mb, policy=policy)

    def _spawn(self, request_path: Path, cwd: Path, env: dict[str, str], timeout: float | None, *,
               policy: isolation.KernelPolicy | None) -> ExecResult:
        """Run the harness on ``request_path`` in a child forked by the zygote (see
        ``benchmark.sandbox.spawner``): the same process layer as an exec'd child, the kernel policy
        applied in the child before the harness starts."""
        timeout = float(timeout or self.timeout_s)
        zygote = spawner.get()
        zygote.wait_ready()
        limits = pt.limits(self.memory_mb + zygote_idle_mb(zygote), int(timeout) + 1)
        pipes = [os.pipe() for _ in range(3)]
        caps = (STDOUT_CAP, STDERR_CAP, CHANNEL_CAP)
        drain = pt.PipeDrain([(read_fd, cap) for (read_fd, _), cap in zip(pipes, caps)])
        drain.start()
        request = {"cwd": str(cwd), "env": env, "request": str(request_path),
                   "limits": {str(k): v for k, v in limits.items()},
                   "policy": policy.as_dict() if policy else None}
        before = pt.current_children()
        started = time.monotonic()
        try:
            status = zygote.run(request, tuple(w for _, w in pipes), timeout + SUPERVISOR_GRACE_S)
        except spawner.ZygoteError:
            pt.sweep_orphans(before)  # a dead zygote's leftovers are re-parented to us
            raise
        finally:
            for _, write_fd in pipes:
                os.close(write_fd)
        wall = time.monotonic() - started if status.wall_s is None else status.wall_s
        drain.join(timeout=2.0)
        if status.error:
            pt.sweep_orphans(before)
            raise spawner.ZygoteError(status.error)
        return _exec_result(drain.buffers, status.status, status.usage, status.timed_out, wall)

    def _execute(self, cmd: list[str], cwd: Path, env: dict[str, str], timeout: float | None, *,
                 channel: bool, memory_mb: int | None = None,
                 policy: isolation.KernelPolicy | None = None) -> ExecResult:
        timeout = float(timeout or self.timeout_s)
        limits = pt.limits(address_space_mb(memory_mb or self.memory_mb), int(timeout) + 1)
        read_fd = write_fd = None
        pass_fds: tuple[int, ...] = ()
        if channel:
            read_fd, write_fd = os.pipe()
            env = {**env, "RUBRICBENCH_CHANNEL_FD": str(write_fd)}
            pass_fds = (write_fd,)

        def preexec() -> None:
            pt.apply_limits(limits)
            if policy is not None:
                isolation.apply(policy)

        before = pt.current_children()
        started = time.monotonic()
        proc = subprocess.Popen(
            cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True, pass_fds=pass_fds,
            preexec_fn=preexec, close_fds=True,
        )
        readers = [pt.CappedReader(proc.stdout, STDOUT_CAP), pt.CappedReader(proc.stderr, STDERR_CAP)]
        if channel:
            os.close(write_fd)
            readers.append(pt.CappedReader(os.fdopen(read_fd, "rb"), CHANNEL_CAP))
        for reader in readers:
            reader.start()
        status, usage, timed_out = pt.wait(proc.pid, started + timeout)
        pt.kill_tree(proc.pid, set())  # leftovers in the group die with the run
        pt.sweep_orphans(before)  # and so do detached ones re-parented to us
        wall = time.monotonic() - started
        for reader in readers:
            reader.join(timeout=2.0)
        proc.returncode = pt.returncode(status)
        usage_tuple = (usage.ru_utime, usage.ru_stime, usage.ru_maxrss) if usage else None
        return _exec_result(readers, status, usage_tuple, timed_out, wall)

    def isolation_report(self) -> dict[str, Any]:
        """What this runner applies, layer by layer (see ``benchmark.sandbox.sandbox_report``)."""
        from .sandbox.sandbox_report import isolation_report

        return isolation_report(self)


def _check_not_killed_from_outside(result: ExecResult, policy: isolation.KernelPolicy | None) -> None:
    """``spawner.SandboxKilled`` when a run with a pid namespace died of a signal, not at its
    time-out, without a result record: its first process is pid 1 there, which no process of
    the namespace can kill (the kernel drops such a signal), so it was killed from outside.
    Without a pid namespace a submission can kill its own run, and that stays its result."""
    if (policy is not None and policy.pid_namespace and not result.timed_out
            and result.returncode is not None and result.returncode < 0
            and not (result.observation or {}).get("_raw")):
        raise spawner.SandboxKilled(
            f"the sandbox was killed from outside ({result.killed_by}) before it reported: "
            "not the submission's doing (an operator, the OOM killer, a stop of the grader)")


_INSTALL = str(Path(__file__).resolve().parent.parent)  # (the folder holding the benchmark package)


def _relative_stderr(result: ExecResult, work: Path) -> ExecResult:
    """``result`` with the machine's folders left out of the paths its stderr names: the run's
    folder (a traceback's ``File "/dev/shm/rubricbench-.../work/x.py"`` becomes ``File
    "x.py"``), the grader's install (``benchmark/harness/modes.py``), the environment's and the
    interpreter's (``<env>/...``, ``<python>/...``). The run's folder is new each run, and what a
    run's summary keeps of its stderr must not depend on the run or the machine's layout."""
    stderr = result.stderr
    folders = ((str(work), ""), (os.path.realpath(work), ""), (_INSTALL, ""),
               (sys.prefix, "<env>"), (sys.base_prefix, "<python>"))
    for folder, shown in sorted(folders, key=lambda item: -len(item[0])):  # (the longest first)
        stderr = stderr.replace(folder + "/", shown + "/" if shown else "")
    return result if stderr == result.stderr else dataclasses.replace(result, stderr=stderr)


def _exec_result(readers: list[pt.CappedBuffer], status: int | None,
                 usage: tuple[float, float, int] | None, timed_out: bool, wall: float) -> ExecResult:
    """An ExecResult from the finished readers (stdout, stderr and, when there is one, the
    result channel), the wait status and (user s, system s, maxrss kB)."""
    user, system, maxrss = usage or (0.0, 0.0, 0)
    return ExecResult(
        returncode=pt.returncode(status),
        stdout=readers[0].data().decode("utf-8", "replace"),
        stderr=readers[1].data().decode("utf-8", "replace"),
        timed_out=timed_out,
        killed_by="timeout" if timed_out else pt.signal_name(status),
        wall_s=round(wall, 4), cpu_s=round(user + system, 4),
        peak_rss_mb=round(maxrss / 1024, 1),
        observation={"_raw": readers[2].data()} if len(readers) > 2 else None,
        output_truncated=readers[0].truncated or readers[1].truncated,
    )
