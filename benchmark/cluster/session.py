"""The client side of a cluster run: connect (or own a ``LocalCluster``), admit workers,
submit the units the cache did not serve, collect their results.

The engine never prints: ``admit`` returns the workers' facts, ``grade`` reports through
callbacks, and the command line shows both. A unit's task key is ``rubricbench-<cache key>``,
so two clients on one scheduler share one computation of the same model.
"""

from __future__ import annotations

import logging

import time
from collections.abc import Callable
from contextlib import suppress
from typing import Any

import dask
from distributed import Client, LocalCluster, as_completed
from distributed.scheduler import KilledWorker
from distributed.security import Security

from ..types import INTERNAL_ERROR
from .spec import ClusterConfigError, ClusterSpec, address_problem, scheduler_file_address
from .units import bundle, expected, identity, identity_digest
from .worker import Admission, IsolationRefused, grade_unit, worker_facts

OWNED_ALLOWED_FAILURES = 2  # a unit whose worker died 3 times is recorded as an internal error
WAIT_FOR_WORKERS_S = 60.0
POLL_S = 0.2


def _tls_configured(spec: ClusterSpec) -> bool:
    if spec.tls_files:
        return True
    return all(dask.config.get(name, None) for name in (
        "distributed.comm.tls.ca-file", "distributed.comm.tls.client.cert", "distributed.comm.tls.client.key"))


def _security(spec: ClusterSpec) -> Security | None:
    if spec.tls_files:
        return Security(tls_ca_file=spec.tls_ca, tls_client_cert=spec.tls_cert,
                        tls_client_key=spec.tls_key, require_encryption=True)
    return None  # Dask's own configuration (or loopback tcp://)


def shared_profile(rows: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, str | None]:
    """(the kernel profile every admitted worker reports, None) or (None, why there is none)."""
    admitted = [row for row in rows if row["admitted"]]
    if not admitted:
        return None, "no worker was admitted"
    profiles = {repr(sorted(row["kernel"].items())) for row in admitted}
    if len(profiles) > 1:
        return None, "admitted workers differ in kernel profile: " + "; ".join(
            f"{row['address']}: {row['kernel']}" for row in admitted)
    return admitted[0]["kernel"], None


class ClusterSession:
    """One connection to a cluster (an owned ``LocalCluster`` for ``local:N``); use ``with``."""

    def __init__(self, spec: ClusterSpec) -> None:
        self.spec = spec
        self.cluster: LocalCluster | None = None
        self.client: Client | None = None
        self.expected: dict[str, Any] | None = None
        self.rows: list[dict[str, Any]] = []
        self.submitted = 0  # units submitted by this session (the acceptance check counts them)
        self.on_status: Callable[[int, int], None] | None = None  # hears (in flight, waiting)

    def __enter__(self) -> ClusterSession:
        try:
            self.client = self._connect()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _connect(self) -> Client:
        spec = self.spec
        if spec.local_workers:
            with dask.config.set({"distributed.scheduler.allowed-failures": OWNED_ALLOWED_FAILURES}):
                self.cluster = LocalCluster(n_workers=spec.local_workers, threads_per_worker=1,
                                            processes=True, host="127.0.0.1", dashboard_address=None,
                                            silence_logs=logging.ERROR)  # (resuming after admission)
            client = Client(self.cluster, set_as_default=False)
            client.wait_for_workers(spec.local_workers, timeout=WAIT_FOR_WORKERS_S)
            return client
        address = spec.address or scheduler_file_address(spec.scheduler_file or "")
        problem = address_problem(address, _tls_configured(spec))
        if problem:
            raise ClusterConfigError(problem)
        client = Client(address, security=_security(spec), set_as_default=False,
                        timeout=WAIT_FOR_WORKERS_S)
        client.wait_for_workers(1, timeout=WAIT_FOR_WORKERS_S)
        return client

    def close(self) -> None:
        for thing in (self.client, self.cluster):
            if thing is not None:
                with suppress(Exception):
                    thing.close()
        self.client = self.cluster = None

    # ---- admission ------------------------------------------------------------------------
    def admit(self, test_data, options, suite=None, core: bool = True) -> list[dict[str, Any]]:
        """Register the admission plugin for this grader identity on every current and future
        worker and return one row per worker: ``address``, ``admitted``, ``reason``, ``kernel``,
        ``isolation``, ``hostname``, ``idle_child_mb``. Sets ``expected`` when the admitted
        workers share one kernel profile (see :func:`shared_profile`)."""
        described = suite.describe() if suite is not None else None
        ident = identity(test_data, described)
        resource = f"rubricbench-{identity_digest(ident)}"
        folders = [p.folder for p in suite.packs if p.id != "core"] if suite is not None else []
        plugin = Admission(ident, bundle(test_data, folders), resource, core, options.memory_mb)
        self.client.register_plugin(plugin)
        facts = self.client.run(worker_facts, resource=resource)
        self.rows = [{"address": address, **(found or {"admitted": False, "kernel": None,
                                                        "reason": "its preflight did not run"})}
                     for address, found in sorted(facts.items())]
        kernel, _ = shared_profile(self.rows)
        self.expected = expected(ident, options, core, kernel, resource) if kernel else None
        return self.rows

    @property
    def kernel_profile(self) -> dict[str, Any] | None:
        return self.expected["kernel_profile"] if self.expected else None

    # ---- grading --------------------------------------------------------------------------
    def grade(self, units: list[dict[str, Any]], *, deadline_s: float,
              on_result: Callable[[dict[str, Any], dict[str, Any] | str], None],
              task: Callable[..., dict[str, Any]] = grade_unit) -> None:
        """Submit ``units`` and hand each outcome to ``on_result(unit, outcome)``: the result
        dict, or the internal-error reason (a lost worker, a refusal, an exception, a unit not
        done ``deadline_s`` after it started); ``on_status(in flight, waiting)`` hears progress.
        ``task`` is ``grade_unit`` (tests substitute one that, say, kills its worker)."""
        if self.expected is None:
            raise RuntimeError("no admitted workers: call admit() first")
        resource = self.expected["resource"]
        pending = {self.client.submit(task, unit, self.expected, key=f"rubricbench-{unit['key']}",
                                      resources={resource: 1}, retries=0, pure=False): unit
                   for unit in units}
        self.submitted += len(pending)
        started: dict[str, float] = {}
        finished = as_completed(list(pending), loop=self.client.loop)
        while pending:
            for future in finished.next_batch(block=False):
                if future in pending and future.status in ("lost", "pending"):
                    finished.add(future)  # its worker died holding the result: recomputed
                elif future in pending:
                    on_result(pending.pop(future), _outcome(future))
            self._expire(pending, started, deadline_s, on_result)
            if self.on_status:
                self.on_status(sum(1 for f in pending if f.key in started), len(pending))
            if pending:
                time.sleep(POLL_S)

    def _expire(self, pending, started, deadline_s, on_result) -> None:
        """Start each unit's clock when the scheduler first shows it processing; cancel any
        unit past its deadline and record it (a wedged worker cannot hang the run)."""
        now = time.monotonic()
        with suppress(Exception):
            processing = {key for keys in self.client.processing().values() for key in keys}
            for future in pending:
                if future.key in processing:
                    started.setdefault(future.key, now)
        late = [f for f in pending if f.key in started and now - started[f.key] > deadline_s]
        for future in late:
            unit = pending.pop(future)
            future.cancel(force=True)
            on_result(unit, f"{INTERNAL_ERROR}: cluster: no result within {deadline_s:g} s of "
                            f"starting on a worker (cancelled)")


def _outcome(future) -> dict[str, Any] | str:
    """A finished unit's result dict, or the internal-error reason."""
    if future.status == "finished":
        try:
            result = future.result()
        except Exception as exc:  # (lost between states): recorded, the run goes on
            return f"{INTERNAL_ERROR}: cluster: result unavailable: {type(exc).__name__}: {exc}"
        return result if isinstance(result, dict) else f"{INTERNAL_ERROR}: cluster: not a result"
    if future.status != "error":
        return f"{INTERNAL_ERROR}: cluster: unit {future.status}"
    exc = future.exception()
    if isinstance(exc, KilledWorker):
        return f"{INTERNAL_ERROR}: cluster: worker lost: {exc}"
    if isinstance(exc, IsolationRefused):
        return f"{INTERNAL_ERROR}: cluster: refused on the worker: {exc}"
    return f"{INTERNAL_ERROR}: cluster: grading raised {type(exc).__name__}: {exc}"
