"""A local run's cache plan, made before it grades: every model keyed and looked up, and
whether the run measures its isolation or reports what an earlier run measured under the
same kernel profile (``LocalPlan.measured``). ``benchmark.commands`` re-exports both names
(``local_plan`` there as ``_local_plan``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .engine.cache import Measured, ResultCache, context_hash, kernel_profile
from .runner import BenchmarkRunner, ModelEntry, Plan
from .sandbox import loaded_spawner
from .types import RunConfig


class LocalPlan(NamedTuple):
    """A local run's cache plan, and how its isolation report is had: ``measured`` is the
    record of an earlier run this run reports instead of measuring (every model came from
    the cache, under keys holding that record's kernel profile), else None and ``kernel``
    is the profile this run detected (recorded with the report it measures)."""

    plan: Plan
    context: str  # cache.context_hash of the run's context but the kernel profile
    kernel: dict[str, Any] | None
    measured: Measured | None


def local_plan(config: RunConfig, runner: BenchmarkRunner, entries: list[ModelEntry],
               cache: ResultCache) -> LocalPlan:
    """Key and look up every model. When the last run of the same context recorded what it
    measured (``ResultCache.measured``) and every model is served under keys holding that
    kernel profile, nothing is detected or probed: this run grades nothing and reports that
    record, starts no zygote (``cli._may_be_served``) and ends unused one started already.
    Otherwise the zygote is started (if the command line has not), then the kernel is
    detected here, on the main thread before the run starts its threads (see
    ``cli._detect_first``; a ``--no-cache`` or ``--require-isolation`` run has detected
    already), and the keys hold what was detected."""
    base = runner.context_base()
    context = context_hash(base)
    measured = None
    if not (config.no_cache or config.unsafe or config.require_isolation):
        measured = cache.measured(context)
    if measured is not None:
        plan = runner.plan(entries, cache, kernel=measured.kernel, base=base)
        if not plan.todo:
            started = loaded_spawner()
            if started is not None:
                started.discard_unused()  # (the zygote prestarted in case a model had to be graded)
            return LocalPlan(plan, context, measured.kernel, measured)
    from .sandbox import spawner

    spawner.prestart()  # the run grades or measures: its zygote, unless the command line started it
    kernel = kernel_profile(runner.options)  # (None with --unsafe)
    if measured is None or kernel != measured.kernel:
        plan = runner.plan(entries, cache, refresh=config.no_cache, kernel=kernel, base=base)
    return LocalPlan(plan, context, kernel, None)
