"""The sandbox: everything ``benchmark.secure_runner`` (its front door, kept at the top level
for the spec) needs to start a child and confine it: the zygote's client (``spawner``),
kernel-layer detection and policy (``isolation``, ``pids_cgroup``), limits, reaping and
clean-up (``limits``, ``process_tools``, ``staging``, ``cleanup``), the child's result record
(``result_record``), the measured layer report and the ``--self-check`` canaries
(``sandbox_report``, ``self_check``), and the bandit process (``bandit_process``). It may
import ``benchmark.harness`` (the code that runs inside the child, loaded there by file
path), ``benchmark.secure_runner``, ``benchmark.types``, ``benchmark.bigint`` and the
standard library; never the engine, reporting, packs, analyzers or prompts that call it
(``tests/test_layers.py`` checks this). Importing this package loads nothing of it: it holds
only ``abort_on`` and ``loaded_spawner``, which work before (and without) the spawner.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any


def loaded_spawner() -> ModuleType | None:
    """``spawner`` if this process has imported it, else None: a zygote is started only through
    it, so before it is loaded there is no zygote and no run (a run served wholly from the cache
    never loads it)."""
    return sys.modules.get(f"{__name__}.spawner")


def abort_on(signum: int, reason: str, then: type[BaseException] = KeyboardInterrupt) -> Any:
    """From now on, signal ``signum`` aborts this process's runs (``spawner.abort_soon``: on a
    thread of its own, as the handler may have interrupted the main thread while it holds a
    lock ``abort`` needs) and raises ``then`` in the main thread, whose clean-up then finds
    every run failing at once instead of waiting for each to reach its deadline. The spawner is
    not imported for it (see :func:`loaded_spawner`). Returns the handler it replaced."""
    import signal

    def handler(_signum: int, _frame: Any) -> None:
        spawner = loaded_spawner()
        if spawner is not None:
            spawner.abort_soon(reason)
        raise then(reason)

    return signal.signal(signum, handler)
