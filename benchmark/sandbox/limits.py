"""Limits a sandboxed child gets that depend on this machine, and the guard's test switch.

Both ``secure_runner`` (which applies them) and ``sandbox_report`` (which states them) read
them here, so neither imports the other at module level.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from . import spawner

GUARD_OFF_ENV = "RUBRICBENCH_TEST_GUARD_OFF"  # test-only: prove the kernel layer alone

_IDLE_VM_MB: int | None = None


def zygote_idle_mb(zygote: spawner.Zygote) -> int:
    """The address space a child starts with, in MB: the zygote's peak after its imports
    (a pool worker uses the figure its parent measured, so every worker sets the same limit)."""
    global _IDLE_VM_MB
    if _IDLE_VM_MB is None:
        zygote.wait_ready()
        _IDLE_VM_MB = zygote.vm_peak_kb // 1024 + 1
    return _IDLE_VM_MB


def idle_child_mb() -> int:
    """Address space an idle child maps after importing the harness's libraries (measured
    once per process, by the zygote)."""
    if _IDLE_VM_MB is not None:
        return _IDLE_VM_MB
    from . import spawner  # (light to import without it: the result cache reads GUARD_OFF_ENV)

    return zygote_idle_mb(spawner.get())


def address_space_mb(memory_mb: int) -> int:
    """The RLIMIT_AS given to a child: ``--mem`` on top of what an idle child needs."""
    return memory_mb + idle_child_mb()
