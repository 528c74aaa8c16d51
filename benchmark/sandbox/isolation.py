"""The kernel isolation layer: namespaces, Landlock and seccomp, detected and then applied.

Detection and the policy live here; applying it is grader-free code in
``benchmark/harness/confine.py`` (with ``landlock.py`` and ``seccomp.py``), run in a zygote's
forked child before the harness starts, or before exec for ``run_python_sandboxed``; the
submission never sees this module. Each mechanism is first
*detected* by ``detect()`` (a probe in a throw-away forked process, all of them side by side,
cached per grader process); only what was detected is applied, and ``KernelSupport.report()`` says which.

- user + network namespaces: the child has no network interface but a downed loopback;
- a pid namespace: the harness is pid 1 of its own namespace, so every process a submission
  starts dies with it;
- IPC and UTS namespaces: SysV shared memory, semaphores and message queues of its own,
  gone with the run;
- a mount namespace with a private root (``harness/mounts.py``): only the interpreter, the
  system libraries and the harness (read-only) and the sandbox, a size-limited tmpfs, and a
  small /dev/shm of the run's own (named semaphores);
- a pids limit: a cgroup per run where this process may make one (``benchmark.sandbox.pids_cgroup``),
  and ``RLIMIT_NPROC`` counted in the run's own user namespace;
- Landlock: writes only inside the sandbox folder; reads only of the interpreter, the system
  libraries and the sandbox (the grader, other models, answer keys and results are out of
  reach); nothing executable in a zygote's child, only the interpreter before an exec;
- seccomp: a deny list (namespaces, mounts, tracing, kernel modules, bpf, keyrings, io_uring,
  SysV IPC, every socket family but IPv4/IPv6, x32 calls; see ``harness/seccomp.py``).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from . import pids_cgroup
from .kernel_support import KernelSupport  # noqa: F401 (re-exported: detect() makes it)
from ..harness import confine, landlock, mounts, seccomp

enter_namespaces = confine.enter_namespaces


@dataclass(frozen=True)
class KernelPolicy:
    """What to apply in the child. Paths are absolute."""

    deny_network: bool = True
    pid_namespace: bool = True
    ipc_namespace: bool = True
    private_root: bool = True
    tmpfs_mb: int = 64
    pids_max: int = 64
    pids_cgroup: str | None = None
    landlock: bool = True
    seccomp: bool = True
    read_paths: tuple[str, ...] = ()
    exec_paths: tuple[str, ...] = ()
    write_paths: tuple[str, ...] = ()
    deny_tcp: bool = True

    def as_dict(self) -> dict[str, object]:
        """The plain form ``benchmark.harness.confine.apply`` takes (and the zygote receives)."""
        return {field.name: list(value) if isinstance(value, tuple) else value
                for field in dataclasses.fields(self)
                for value in (getattr(self, field.name),)}


def apply(policy: KernelPolicy) -> None:
    """Run in the child before exec (order matters: see ``confine.apply``)."""
    confine.apply(policy.as_dict())


# ---- detection ---------------------------------------------------------------------------


def _probe(action) -> str | None:
    """Run ``action`` in a forked process; None when it worked, else the reason."""
    return _probe_answer(*_probe_start(action))


def _probe_start(action) -> tuple[int, int]:
    """Fork a process that runs ``action`` and reports on a pipe: (its pid, the pipe's read end)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        try:
            action()
            os.write(write_fd, b"ok")
        except BaseException as exc:  # report any failure to the parent
            os.write(write_fd, f"{type(exc).__name__}: {exc}".encode()[:300])
        os._exit(0)
    os.close(write_fd)  # (before the next probe forks: its end of file is this child's alone)
    return pid, read_fd


def _probe_answer(pid: int, read_fd: int) -> str | None:
    """Wait for a probe :func:`_probe_start` forked; None when its action worked, else the reason."""
    with os.fdopen(read_fd, "rb") as reader:
        answer = reader.read().decode(errors="replace")
    os.waitpid(pid, 0)
    return None if answer == "ok" else (answer or "probe died")


def _probe_private_root() -> None:
    """A private root over a throw-away sandbox: the staged file is there, the grader's own
    code is not, and the sandbox is writable."""
    with tempfile.TemporaryDirectory(prefix="rubricbench-probe-") as sandbox:
        Path(sandbox, "staged").write_text("ok")
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.chdir(sandbox)  # as a run's child is (the root keeps the working folder's path)
                enter_namespaces(network=False, pid=False, mount=True)
                reads, _ = default_paths(Path(sandbox), Path(__file__).resolve().parents[1] / "harness")
                mounts.private_root(sandbox, list(reads), 1)
                Path(sandbox, "written").write_text("x")
                seen = Path(sandbox, "staged").read_text() == "ok"
                code = 0 if seen and not os.path.exists(__file__) else 2
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise OSError(f"the private root was not as built (probe exit {os.waitstatus_to_exitcode(status)})")


def _probe_pid_namespace() -> None:
    enter_namespaces(network=False, pid=True)
    child = os.fork()
    if child == 0:
        os._exit(0 if os.getpid() == 1 else 1)
    _, status = os.waitpid(child, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise OSError("the first child of the new pid namespace is not pid 1")


_SUPPORT: KernelSupport | None = None
_DETECTING = threading.Lock()  # threads that ask at once share one round of probes


def detect() -> KernelSupport:
    """Probe each mechanism once per process (cached)."""
    if _SUPPORT is not None:
        return _SUPPORT
    with _DETECTING:
        return _SUPPORT if _SUPPORT is not None else _detect()


def _detect() -> KernelSupport:
    global _SUPPORT
    reasons: dict[str, str] = {}
    if sys.platform != "linux":
        reasons["all"] = f"not Linux ({sys.platform})"
        _SUPPORT = KernelSupport(False, False, False, 0, False, reasons)
        return _SUPPORT
    checks = {
        "user_namespaces": lambda: enter_namespaces(network=False, pid=False),
        "network_namespace": lambda: enter_namespaces(network=True, pid=False),
        "pid_namespace": _probe_pid_namespace,
        "ipc_namespace": lambda: enter_namespaces(network=False, pid=False, ipc=True),
        "private_root": _probe_private_root,
        "seccomp": seccomp.probe,
    }
    # Every probe is forked first and runs beside the others (each in a process of its own,
    # touching nothing another uses); the answers are read in the same order as before.
    started = {name: _probe_start(action) for name, action in checks.items()}
    abi = landlock.abi_version()
    groups, why = pids_cgroup.detect()
    found = {}
    for name, probe in started.items():
        problem = _probe_answer(*probe)
        found[name] = problem is None
        if problem:
            reasons[name] = problem
    if abi <= 0:
        reasons["landlock"] = "Landlock is not available in this kernel"
    if groups is None:
        reasons["pids_cgroup"] = why or "unavailable"
    _SUPPORT = KernelSupport(found["user_namespaces"], found["network_namespace"],
                             found["pid_namespace"], max(abi, 0), found["seccomp"], reasons,
                             ipc_namespace=found["ipc_namespace"],
                             private_root=found["private_root"], pids_cgroup=groups is not None)
    return _SUPPORT


def default_paths(sandbox: Path, harness_dir: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(read paths, exec paths) a child Python needs; everything else stays unreadable."""
    before, after, execs = _existing_paths(str(harness_dir))
    sandbox = str(sandbox)
    if not os.path.exists(sandbox) or sandbox in before:
        return before + after, execs
    return (*before, sandbox, *(p for p in after if p != sandbox)), execs


@functools.lru_cache(maxsize=4)
def _existing_paths(harness_dir: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(the read paths before the sandbox's place, those after it, the exec paths): which of
    them exist is looked up once per process, not twice per run."""
    interpreter, system, execs = _interpreter_paths()
    before = tuple(p for p in dict.fromkeys([*interpreter, harness_dir]) if os.path.exists(p))
    after = tuple(p for p in dict.fromkeys(system) if p not in before and os.path.exists(p))
    return before, after, execs


@functools.lru_cache(maxsize=1)
def _interpreter_paths() -> tuple[list[str], list[str], tuple[str, ...]]:
    """(interpreter folders, system paths, exec paths): the same for every child of this
    process, so worked out once rather than on every run."""
    prefixes = sorted({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                                      sys.base_exec_prefix)})
    exe_dir = os.path.dirname(os.path.realpath(sys.executable))
    system = ["/usr", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache", "/etc/localtime",
              "/dev/null", "/dev/urandom", "/dev/zero"]
    execs = tuple(dict.fromkeys([*prefixes, exe_dir, *_dynamic_loaders()]))
    return [*prefixes, exe_dir], system, execs


def _dynamic_loaders() -> list[str]:
    """The ELF interpreter(s): execve opens them with execute rights."""
    found = []
    for folder in ("/lib64", "/lib", "/usr/lib64", "/usr/lib"):
        if os.path.isdir(folder):
            found += [os.path.realpath(os.path.join(folder, name)) for name in os.listdir(folder)
                      if name.startswith("ld-linux") or name.startswith("ld-musl")]
    return sorted(set(found))
