"""BenchmarkRunner: the result cache and scheduling, over the models ``discovery`` finds.

The units of work are models, or the samples of a model that holds several (``ModelEntry.unit``
names each; ``discovery.scan_samples``). With ``workers > 1`` they are graded in a process pool whose workers
share no mutable state with each other or with this process: each grades a unit exactly as
``--workers 1`` does (``grading.grade_model``: its prompts side by side on threads, while one
waits for its sandboxed children another analyses source) and returns a frozen
``ModelResult`` (a sample's carries its id, ``ModelResult.sample``). Results are sorted by
unit name, so a run's results do not depend on the worker count.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import socket
from collections.abc import Callable
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .discovery import (LINKED, MAX_NAME, SAMPLES, TEMPLATE_TIER, TIERS, DiscoveryError,  # noqa: F401 (re-exported)
                        ModelEntry, RejectedModel, discover_models, expand_samples, model_name_problem,
                        scan_models, unit_name)
from .engine.cache import ResultCache, base_context, file_hashes, graded_as_keyed, model_key, run_context
from .engine.options import GradeOptions, cacheable, default_test_data
from .rubric import RUBRIC
from .types import GradingStopped, ModelResult

if TYPE_CHECKING:
    from .sandbox.kernel_support import KernelSupport


class PoolBroken(GradingStopped):
    """A ``--workers N`` pool lost a worker mid-run (killed from outside): the grader's
    failure; the models it finished before are in the cache."""


def _all_files() -> list[str]:
    """Every file a model submits for the core pack, from the rubric (the grading engine is
    not needed to key a model: a core run served wholly from the cache never imports it)."""
    return [name for prompt in RUBRIC for name in prompt.files]


# ---- pool workers -----------------------------------------------------------------------------


def _await_manager(manager: Any, timeout_s: float = 10.0) -> None:
    """Let a stopped pool's manager thread finish closing its wake-up pipe before the
    interpreter exits. ``shutdown(wait=False)`` forgets that thread, and Python 3.11's exit
    hook (``concurrent.futures.process._python_exit``) writes to the pipe while the thread
    may be closing it: a race that printed "Exception ignored ... Bad file descriptor" with
    a traceback after a worker was killed. The thread ends promptly once the workers are
    told to stop; the wait is bounded all the same."""
    if manager is not None and manager.is_alive():
        manager.join(timeout_s)


def _init_worker(support: KernelSupport | None, idle_mb: int,
                 door: socket.socket | None, grader: int | None = None) -> None:
    """Hand each worker what the parent already measured, so no worker probes again, and
    the door to the parent's zygote: the worker attaches to it (a connection of its own)
    instead of starting a zygote. ``grader``: the parent's pid; the worker stops when it ends."""
    from .sandbox import abort_on, bandit_process, isolation, limits, spawner

    if support is not None:
        isolation._SUPPORT = support
    limits._IDLE_VM_MB = idle_mb
    if door is not None:
        spawner.use_door(door)
    # A terminal's Ctrl-C reaches the whole process group: the parent alone decides; it ends
    # its workers with SIGTERM, which here stops this worker's runs and unwinds its grading
    # (so every sandbox folder is removed) before the worker exits.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from .engine.pool_server import stop_on_sigterm, stop_when_gone

    abort_on(signal.SIGTERM, "the grading pool was stopped", SystemExit)
    stop_on_sigterm(signal.getsignal(signal.SIGTERM))
    if grader is not None:
        stop_when_gone(grader)
    spawner.prestart()
    bandit_process.prestart()  # its import of bandit overlaps the worker's first model
    import multiprocessing.util

    multiprocessing.util.Finalize(None, bandit_process.shutdown, exitpriority=0)  # no atexit here


def result_unit(result: ModelResult) -> str:
    """The unit a result is of (``ModelEntry.unit``)."""
    return unit_name(result.model, result.sample)


def as_unit(entry: ModelEntry, result: ModelResult) -> ModelResult:
    """``result`` named for ``entry``'s unit: a sample's folder is named by its id, and its
    result is the model's, with the sample's id."""
    if result.model == entry.name and result.sample == entry.sample:
        return result
    return dataclasses.replace(result, model=entry.name, sample=entry.sample)


def grade_entry(entry: ModelEntry, test_data: Path, options: GradeOptions, suite=None) -> ModelResult:
    """Grade one unit (a model, or one of its samples) on this process."""
    from .engine.grading import grade_model

    return as_unit(entry, grade_model(entry.path, entry.tier, test_data=test_data, options=options,
                                      suite=suite))


def _grade_unit(entry: ModelEntry, test_data: Path, options: GradeOptions,
                packs: tuple[str, ...] = (), core: bool = True) -> ModelResult:
    from .packs.suite import load_suite

    suite = load_suite(packs, core=core) if packs or not core else None  # loaded once a worker
    return grade_entry(entry, test_data, options, suite)


@dataclass(frozen=True)
class Plan:
    """A run's entries keyed and looked up in the cache (``BenchmarkRunner.plan``)."""

    keys: dict[str, str]  # unit name -> cache key (empty without a cache)
    hits: dict[str, ModelResult]  # the units served from the cache, by unit name
    todo: list[ModelEntry]  # the units to grade
    hashes: dict[str, dict[str, str | None]] = field(default_factory=dict)  # unit -> its keyed files


class BenchmarkRunner:
    """Grades models. ``BenchmarkRunner(model_name=..., results_dir=..., timeout=...)`` as in the spec."""

    def __init__(self, model_name: str | None = None, results_dir: str | Path = "results",
                 timeout: float = 30.0, *, submissions_dir: str | Path = "submissions",
                 test_data: str | Path | None = None, options: GradeOptions | None = None,
                 packs: tuple[str, ...] = (), core: bool = True) -> None:
        self.model_name = model_name
        self.packs, self.core = tuple(str(p) for p in packs), core  # the suite: see ``suite``
        self.results_dir = Path(results_dir)
        self.submissions_dir = Path(submissions_dir)
        self.test_data = Path(test_data) if test_data else default_test_data()
        self.options = options or GradeOptions(timeout_s=float(timeout))

    @property
    def extended(self) -> bool:
        """Whether the suite is anything but the core pack alone."""
        return bool(self.packs) or not self.core

    def suite(self):
        """The suite graded (``benchmark.packs.suite.Suite``), validated on first use."""
        from .packs.suite import load_suite

        return load_suite(self.packs, core=self.core)

    def discover(self) -> dict[str, ModelEntry]:
        return discover_models(self.submissions_dir)

    def scan(self) -> tuple[dict[str, ModelEntry], list[RejectedModel]]:
        return scan_models(self.submissions_dir)

    def context_base(self) -> dict[str, Any]:
        """This run's part of every cache key but the kernel profile (``cache.base_context``)."""
        suite = self.suite() if self.extended else None
        return base_context(self.test_data, self.options, suite.describe() if suite is not None else None)

    def plan(self, entries: list[ModelEntry], cache: ResultCache | None = None, *,
             refresh: bool = False, cluster: Any = None,
             kernel: dict[str, Any] | None = None, base: dict[str, Any] | None = None) -> Plan:
        """Key every entry and read the cache (nothing is graded). ``kernel``: the kernel
        profile the keys hold (default: this machine's, detected; a cluster's: its workers');
        ``base``: :meth:`context_base`, when already made."""
        keys: dict[str, str] = {}
        if cache is not None or cluster is not None:
            suite = self.suite() if self.extended else None
            if cluster is not None:
                kernel = cluster.kernel_profile
            context = run_context(self.test_data, self.options, kernel=kernel,
                                  base=base if base is not None else self.context_base())
            files = suite.model_files() if suite is not None else _all_files()
            hashes = {e.unit: file_hashes(e.path, files) for e in entries}
            keys = {e.unit: model_key(context, e.unit, e.tier, e.path, files, hashes[e.unit])
                    for e in entries}
        else:
            hashes = {}
        reading = cache if not refresh else None
        hits = {e.unit: as_unit(e, hit) for e in entries
                if reading and (hit := reading.get(keys[e.unit], e.name))}
        return Plan(keys, hits, [e for e in entries if e.unit not in hits], hashes)

    def grade(self, entries: list[ModelEntry], workers: int = 1,
              on_done: Callable[[ModelResult], None] | None = None,
              cache: ResultCache | None = None,
              on_plan: Callable[[int], None] | None = None,
              refresh: bool = False, cluster: Any = None,
              plan: Plan | None = None) -> tuple[list[ModelResult], set[str]]:
        """Grade entries (cached ones are not executed again). Returns the results sorted by
        unit name and the names of the units that came from the cache. ``on_plan`` hears,
        before any grading, how many models are not served from the cache. ``refresh``
        (``--no-cache``): read nothing from the cache, grade every model and store the results.
        Only a verified grading is stored (``options.cacheable``), as soon as it is back, so an
        interrupted run resumes where it stopped. ``cluster``: an admitted
        ``benchmark.cluster.session.ClusterSession`` grades the misses instead of this
        machine; the kernel profile its workers share is part of the keys. ``plan``: what
        :meth:`plan` answered for these entries and this cache, when already asked."""
        plan = plan or self.plan(entries, cache, refresh=refresh, cluster=cluster)
        keys, hits, todo = plan.keys, plan.hits, plan.todo
        results: list[ModelResult] = []
        for name in sorted(hits):
            results.append(hits[name])
            if on_done:
                on_done(hits[name])
        if on_plan:
            on_plan(len(todo))

        folders = {e.unit: e.path for e in entries}

        def finish(result: ModelResult) -> None:
            unit = result_unit(result)
            if (cache is not None and cacheable(result)
                    and graded_as_keyed(result, plan.hashes.get(unit))):
                stored = cache.put(keys[unit], result, folders.get(unit))
                if stored is not None:  # (the document reads the stored record back, excerpts and all)
                    result = dataclasses.replace(result, record=stored)
            results.append(result)
            if on_done:
                on_done(result)

        if cluster is not None:
            self._grade_cluster(todo, keys, cluster, finish)
        else:
            self._grade_fresh(todo, workers, finish)
        return sorted(results, key=result_unit), set(hits)

    def _grade_fresh(self, entries: list[ModelEntry], workers: int,
                     finish: Callable[[ModelResult], None]) -> None:
        if not entries:
            return
        if workers <= 1:
            suite = self.suite() if self.extended else None
            for entry in entries:
                finish(grade_entry(entry, self.test_data, self.options, suite))
            return
        self._grade_pool(entries, workers, finish)

    def _grade_pool(self, entries: list[ModelEntry], workers: int,
                    finish: Callable[[ModelResult], None]) -> None:
        from concurrent.futures import ProcessPoolExecutor  # (multiprocessing: only a pool needs it)
        from concurrent.futures.process import BrokenProcessPool

        from .engine import pool_server
        from .sandbox import isolation, limits, pids_cgroup, spawner

        context = pool_server.prestart()  # its imports overlap the waits for what workers inherit
        support = None if self.options.unsafe else isolation.detect()
        init_args = (support, limits.idle_child_mb(), spawner.get().door, os.getpid())
        try:
            with ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                     initializer=_init_worker, initargs=init_args) as pool:
                futures = [pool.submit(_grade_unit, entry, self.test_data, self.options,
                                       self.packs, self.core) for entry in entries]
                try:
                    for future in as_completed(futures):
                        finish(future.result())
                except BaseException as exc:  # Ctrl-C (or a failure): stop the other models now
                    manager = getattr(pool, "_executor_manager_thread", None)
                    pool.shutdown(wait=False, cancel_futures=True)
                    for process in list((getattr(pool, "_processes", None) or {}).values()):
                        process.terminate()  # each worker stops its runs and cleans up
                    _await_manager(manager)
                    if isinstance(exc, BrokenProcessPool):
                        raise PoolBroken("a grading worker process died (killed from outside: the "
                                         "OOM killer, an operator) while models were being graded") from exc
                    raise
        finally:
            if support is not None and support.pids_cgroup:
                pids_cgroup.sweep()  # the workers' folders: they end without their own clean-up

    def unit_deadline_s(self) -> float:
        """A cluster unit's deadline once it runs: 10 x the child time-out per task graded."""
        tasks = len(self.suite().tasks) if self.extended else len(RUBRIC)
        return 10 * self.options.timeout_s * max(1, tasks)

    def _grade_cluster(self, entries: list[ModelEntry], keys: dict[str, str], cluster: Any,
                       finish: Callable[[ModelResult], None]) -> None:
        """The misses as units on the cluster's admitted workers (see ``benchmark.cluster``)."""
        if not entries:
            return
        from .cluster.units import make_unit

        suite = self.suite() if self.extended else None
        files = suite.model_files() if suite is not None else _all_files()
        described = suite.describe() if suite is not None else None
        units = [make_unit(e.name, e.tier, keys[e.unit], e.path, files, e.sample) for e in entries]
        cluster.grade(units, deadline_s=self.unit_deadline_s(), suite=described,
                      on_result=lambda unit, result: finish(
                          dataclasses.replace(result, sample=unit.get("sample"))))

    # ---- the spec's convenience API ------------------------------------------------------
    def _entry(self) -> ModelEntry:
        if self.model_name is None:
            raise ValueError("no model_name: BenchmarkRunner(model_name=...) names the model to grade")
        models = self.discover()
        if self.model_name not in models:
            raise KeyError(f"model '{self.model_name}' not found under {self.submissions_dir}")
        return models[self.model_name]

    def run_all_tests(self) -> dict[str, Any]:
        """Grade ``model_name`` on every prompt; returns the model's results dict (a model of
        samples: the mean record, holding each sample's)."""
        from .reporting.results_json import model_to_dict
        from .sampling import combine

        units, refused = expand_samples([self._entry()])  # (a model of samples: each sample, then their mean)
        if not units:
            raise ValueError(f"model '{self.model_name}' has no sample to grade: {refused[-1].reason}")
        return model_to_dict(combine(self.grade(units)[0])[0])

    def run_test(self, test_name: str) -> dict[str, Any]:
        """Grade one task (``"prompt_1"``, ``"prompt_1_refactoring"`` or a pack's
        ``"<pack>.<task>"``); returns its dict."""
        from .engine.grading import grade_prompt
        from .reporting.results_json import prompt_to_dict

        key = test_name if "." in test_name else "_".join(test_name.split("_")[:2])
        entry, suite = self._entry(), self.suite()
        if key not in {task.key for task in suite.tasks}:
            raise KeyError(f"no task {key!r} in this suite: {', '.join(t.key for t in suite.tasks)}")
        result = grade_prompt(suite.task(key), entry.path, test_data=self.test_data, options=self.options)
        return prompt_to_dict(result)
