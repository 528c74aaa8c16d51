"""A worker's isolation preflight: the checks a worker passes before it is admitted.

Run once per worker (``worker.Admission.setup``), never on the client. It checks, in order:
the test-only refusal switch; the grader identity (version, source hash, rubric hash, the
fixtures and packs as materialised on this worker, the versions of Python and of every package
the grader needs); the in-child guard; every kernel layer
(``isolation.detect()`` and the layer report, as ``--require-isolation`` reads it); the
loopback network probe made from inside a sandbox; and a few canaries. The first failure is
the reason the worker is refused. No Dask import here.
"""

from __future__ import annotations

import os
import socket
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..engine.options import GradeOptions
from ..packs.suite import load_suite
from ..sandbox import isolation, limits
from ..sandbox.sandbox_report import measured_isolation, missing_layers
from ..sandbox.self_check import quick_check
from ..secure_runner import GUARD_OFF_ENV
from .units import identity, identity_differences

# Test-only: a worker whose environment sets this to 1 refuses itself (tests/test_cluster.py
# proves that a refused worker gets no units). Like RUBRICBENCH_TEST_GUARD_OFF, never set it
# in production: it can only make a worker refuse, never admit one.
REFUSE_ENV = "RUBRICBENCH_TEST_REFUSE_WORKER"
# Test-only: a worker whose environment sets this reports a kernel profile no honest worker
# has (the value is added to it as ``test_tag``), as a host with another kernel would; it can
# only make the worker differ from the others, never admit one.
PROFILE_ENV = "RUBRICBENCH_TEST_PROFILE_TAG"

USERNS_SYSCTLS = (  # (file, sysctl name, the value that blocks unprivileged user namespaces)
    ("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "kernel.apparmor_restrict_unprivileged_userns", "1"),
    ("/proc/sys/kernel/unprivileged_userns_clone", "kernel.unprivileged_userns_clone", "0"),
    ("/proc/sys/user/max_user_namespaces", "user.max_user_namespaces", "0"),
)


def blocking_sysctls() -> list[str]:
    """The sysctls set to a value that blocks unprivileged user namespaces, as ``name=value``."""
    found = []
    for path, name, blocking in USERNS_SYSCTLS:
        try:
            value = Path(path).read_text(encoding="ascii").strip()
        except OSError:
            continue
        if value == blocking:
            found.append(f"{name}={value}")
    return found


def _kernel_reason(support: isolation.KernelSupport, missing: list[str]) -> str:
    reason = "isolation incomplete: " + "; ".join(missing)
    if not support.user_namespaces:
        sysctls = blocking_sysctls()
        reason += (f" (user namespaces blocked by {', '.join(sysctls)})" if sysctls
                   else f" (user namespaces: {support.reasons.get('user_namespaces', 'unavailable')})")
    return reason


def kernel_profile() -> dict[str, Any]:
    """This worker's kernel profile: ``asdict(isolation.detect())`` (see ``PROFILE_ENV``)."""
    profile = asdict(isolation.detect())
    if os.environ.get(PROFILE_ENV):
        profile["test_tag"] = os.environ[PROFILE_ENV]
    return profile


def _identity_problem(want: dict[str, Any], fixtures: Path, packs: list[Path], core: bool) -> str | None:
    suite = load_suite([str(p) for p in packs], core=core).describe() if packs or not core else None
    different = identity_differences(want, identity(fixtures, suite))
    if different:
        return (f"grader identity differs from the client's: {'; '.join(different)} (install the "
                f"same rubricbench wheel, with the same pinned dependencies, on every worker)")
    return None


def run_preflight(want: dict[str, Any], fixtures: Path, packs: list[Path], core: bool,
                  memory_mb: int) -> dict[str, Any]:
    """This worker's facts: ``admitted``, ``reason`` (None when admitted), ``kernel`` (the
    profile: ``asdict(isolation.detect())``), ``isolation`` (the layer report with the network
    probe), ``hostname``, ``pid`` and ``idle_child_mb``."""
    facts: dict[str, Any] = {"admitted": False, "reason": None, "kernel": None, "isolation": None,
                             "hostname": socket.gethostname(), "pid": os.getpid()}
    facts["reason"] = _check(facts, want, fixtures, packs, core, memory_mb)
    facts["admitted"] = facts["reason"] is None
    return facts


def _check(facts: dict[str, Any], want: dict[str, Any], fixtures: Path, packs: list[Path],
           core: bool, memory_mb: int) -> str | None:
    if os.environ.get(REFUSE_ENV) == "1":
        return f"refused by the test-only switch {REFUSE_ENV}=1"
    if os.environ.get(GUARD_OFF_ENV) == "1":
        return f"{GUARD_OFF_ENV}=1 is set on this worker (the in-child guard is off)"
    problem = _identity_problem(want, fixtures, packs, core)
    if problem:
        return problem
    support = isolation.detect()
    facts["kernel"] = kernel_profile()
    facts["idle_child_mb"] = limits.idle_child_mb()
    report = measured_isolation(GradeOptions(memory_mb=memory_mb).runner("preflight"))
    facts["isolation"] = report
    missing = missing_layers(report)
    if missing:
        return _kernel_reason(support, missing)
    probe = report["network_probe"]
    if not all(str(outcome).startswith("blocked") for outcome in probe.values()):
        return f"the network probe from inside the sandbox was not blocked: {probe}"
    opened = [row["canary"] for row in quick_check(memory_mb) if not row["all"]]
    if opened:
        return f"canaries not contained: {', '.join(opened)}"
    return None
