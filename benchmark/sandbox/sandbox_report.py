"""What the sandbox applies, layer by layer, and a network probe made from inside it.

Everything reported here comes from detection (``isolation.detect()``) and from the runner's
own settings, plus, for the network, a real connection attempt made by a child in the
sandbox to a listener the grader opened on 127.0.0.1 (no traffic leaves the machine).
"""

from __future__ import annotations

import copy
import os
import socket
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..harness import landlock, mounts
from ..harness import seccomp
from .process_tools import FILE_SIZE_LIMIT, OPEN_FILES_LIMIT
from .limits import GUARD_OFF_ENV, address_space_mb, idle_child_mb

PROBE = textwrap.dedent("""
    import socket, sys
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2).close()
        print("reachable")
    except OSError as exc:
        print(f"blocked: {exc}")
""")


def _kernel(runner) -> dict[str, Any]:
    if runner.unsafe:
        return {"status": "off", "reason": "--unsafe"}
    support = runner.support
    if support is None:
        return {"status": "off", "reason": "disabled for this runner"}
    if not support.any:
        return {"status": "unavailable", "reasons": dict(support.reasons)}
    userns = support.user_namespaces
    policy = runner.kernel_policy(Path("/sandbox"))
    shm_writes = f" and the run's own {mounts.SHM}" if policy and policy.private_root else ""
    return {
        "status": "applied",
        "network_namespace": userns and support.network_namespace and not runner.allow_network,
        "pid_namespace": userns and support.pid_namespace,
        "ipc_namespace": bool(policy and policy.ipc_namespace),
        "private_root": (f"only the interpreter, system libraries and harness (read-only), "
                         f"the sandbox (tmpfs, {policy.tmpfs_mb} MB) and a {mounts.SHM} of its own "
                         f"(tmpfs, {mounts.SHM_MB} MB)")
        if policy and policy.private_root else False,
        "sandbox_tmpfs_mb": policy.tmpfs_mb if policy and policy.private_root else 0,
        "pids_limit": _pids_limit(support, policy),
        "landlock_abi": support.landlock_abi,
        "filesystem": (f"Landlock: writes only in the sandbox{shm_writes}; reads only "
                       "interpreter, system libraries and the sandbox")
        if support.landlock_abi else "not confined",
        "seccomp": _seccomp_summary() if support.seccomp else False,
        "unavailable": dict(support.reasons),
    }


def _seccomp_summary() -> str:
    """What the machine's seccomp filter denies (detected as applied, so it has a table)."""
    table = seccomp.arch()
    return (f"deny list of {len(table.denied)} calls, sockets but IPv4/IPv6, "
            f"{'x32 calls' if table.x32 else 'other ABIs'}; no new processes in the worker")


def _pids_limit(support, policy) -> str | bool:
    if not policy or not policy.pids_max:
        return False
    rlimit = os.geteuid() != 0 and support.user_namespaces  # root is exempt from RLIMIT_NPROC
    if support.pids_cgroup:
        return f"{policy.pids_max} tasks per run (cgroup pids.max{' and RLIMIT_NPROC' if rlimit else ''})"
    if os.geteuid() == 0 or not support.user_namespaces:
        return False  # RLIMIT_NPROC does not bind root and needs the run's own user namespace
    return f"{policy.pids_max} tasks per run (RLIMIT_NPROC in the run's user namespace)"


def _guard(runner) -> dict[str, Any]:
    if runner.unsafe:
        return {"status": "off", "reason": "--unsafe"}
    if not runner.guard:
        return {"status": "off", "reason": f"{GUARD_OFF_ENV}=1 (test-only switch)"}
    return {"status": "applied",
            "audit_hook": "network, processes, native libraries, changes to the guard's own "
                          "functions, writes and reads outside the sandbox are denied and "
                          "reported"}


def isolation_report(runner) -> dict[str, Any]:
    kernel = _kernel(runner)
    network = "allowed (--allow-network)" if runner.allow_network else (
        "blocked by the kernel and the guard" if kernel.get("network_namespace")
        else "blocked by the guard only" if not runner.unsafe else "not blocked (--unsafe)")
    return {
        "process": {
            "status": "applied",
            "new_session": True,
            "timeout_s": runner.timeout_s,
            "kill": "process group + descendant sweep",
            "rlimits": {"address_space_mb": address_space_mb(runner.memory_mb),
                        "memory_mb": runner.memory_mb, "idle_child_mb": idle_child_mb(),
                        "cpu_s": "timeout + 1",
                        "file_size_mb": FILE_SIZE_LIMIT // (1024 * 1024),
                        "open_files": OPEN_FILES_LIMIT, "core_dumps": 0},
            "environment": "allow-list",
            "private_dirs": ["work", "home", "tmp"],
        },
        "kernel": kernel,
        "guard": _guard(runner),
        "network": network,
        "unsafe": runner.unsafe,
        "landlock_kernel_abi": max(landlock.abi_version(), 0),
    }


def probe_network(runner) -> dict[str, str]:
    """Connect from inside the sandbox to a loopback listener opened here: kernel layer alone
    (guard off) and with the guard. Returns each outcome as text."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        port = str(listener.getsockname()[1])

        def attempt(guard: bool) -> str:
            # a runner of its own per thread: a runner's current sandbox is per-instance state
            result = copy.copy(runner).run_harness(
                {"mode": "script", "module": "probe.py", "argv": [port]},
                {"probe.py": PROBE.encode()}, timeout=10, guard=guard)
            text = result.stdout.strip() or result.stderr.strip().splitlines()[-1:] or ["no answer"]
            return text if isinstance(text, str) else text[0]

        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="net-probe") as pool:
            kernel_only, guarded = pool.map(attempt, (False, True))
    return {"kernel_layer": kernel_only, "with_guard": guarded}


def measured_isolation(probe_runner) -> dict[str, Any]:
    """The runner's layer report plus a network probe made from inside the sandbox."""
    report = probe_runner.isolation_report()
    report["network_probe"] = probe_network(probe_runner)
    return report


def missing_layers(isolation: dict[str, Any]) -> list[str]:
    missing = [f"{layer} layer ({isolation[layer].get('reason') or isolation[layer].get('status')})"
               for layer in ("kernel", "guard") if isolation[layer].get("status") != "applied"]
    kernel = isolation["kernel"]
    if kernel.get("status") == "applied":
        missing += [f"kernel: {name}" for name in ("network_namespace", "pid_namespace", "ipc_namespace",
                                                   "private_root", "pids_limit", "landlock_abi",
                                                   "seccomp") if not kernel.get(name)
                    and not (name == "network_namespace" and isolation["network"].startswith("allowed"))]
    return missing
