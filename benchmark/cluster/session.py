"""The client side of a cluster run: connect (or own a ``LocalCluster``), admit workers,
submit the units the cache did not serve, collect their results, and keep the run honest when
the cluster misbehaves.

The engine never prints: ``admit`` returns the workers' facts, ``grade`` reports through
callbacks (``on_status``, ``on_worker``), and the command line shows them. A unit's first task
key is ``rubricbench-<cache key>``, so two clients on one scheduler share one computation of
the same model.

Faults (``docs/cluster.md``, "Faults"):

- A unit that fails for a reason of its worker's (``grade_unit`` reports a failure, its result
  has an internal error, it is past its deadline there) is tried again on an admitted worker
  it has not failed on, up to ``MAX_TRIES`` distinct workers; only a failure that follows it
  to every worker it was tried on is the model's error. A worker that Dask saw die holding a
  unit is Dask's to reschedule (``allowed-failures``); a unit that killed that many workers is
  the model's error at once.
- A worker on which ``QUARANTINE_AFTER`` units failed that then passed elsewhere is
  quarantined: its resource goes to 0 and it is named (``on_worker``). Only a failure that
  another worker did not repeat counts, so no submission can get a healthy worker quarantined.
- Workers that join during the run are admitted by the same plugin, which also compares their
  kernel profile with the one published for the run; each is reported once (``on_worker``).
- Losing the scheduler, or having no admitted worker for ``wait_s``, raises ``ClusterLost``:
  the run writes nothing; what was graded is in the cache already.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import dask
from distributed import Client, LocalCluster
from distributed.scheduler import KilledWorker
from distributed.security import Security

from ..sample_names import unit_name
from ..engine.options import has_internal_error
from ..types import INTERNAL_ERROR, GradingStopped, ModelResult
from .spec import ClusterConfigError, ClusterSpec, address_problem, scheduler_file_address
from .units import bundle, expected, identity, identity_digest, to_result
from .worker import Admission, grade_unit, profile_key, quarantine, worker_facts

OWNED_ALLOWED_FAILURES = 2  # a unit whose worker died 3 times is recorded as an internal error
WAIT_FOR_WORKERS_S = 60.0  # to connect; and how long a run may go on with no admitted worker
POLL_S = 0.2
WATCH_S = 1.0  # how often the workers present are looked at (joiners, leavers)
MAX_TRIES = 3  # distinct workers a unit is tried on before its failure is its own
QUARANTINE_AFTER = 2  # failed units, each of which then passed on another worker
REASON_LIMIT = 300  # characters of each worker's failure kept in a model's error
# While grading, each question to the scheduler is bounded (Dask's own calls wait up to its
# connect time-out, 30 s, for a scheduler that has just gone) and asked only while connected.
ASK_S = 5.0
RESULT_S = 60.0  # fetching one finished unit's result (a model record: KBs)
# An owned cluster serves nothing over HTTP: Dask starts its HTTP server even without a
# dashboard (worker lists, task keys, logs, metrics), and anyone on the machine could read it.
NO_HTTP_ROUTES = {"distributed.scheduler.http.routes": [], "distributed.worker.http.routes": []}


class ClusterLost(GradingStopped):
    """The scheduler, or every admitted worker, was lost mid-run."""


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


def owned_security() -> Security:
    """The TLS of an owned ``local:N`` cluster: a key and self-signed certificate made now,
    held in this process's memory and handed to its scheduler and worker processes only; no
    other process can join or connect, whoever runs it."""
    try:
        return Security.temporary()
    except ImportError as exc:  # (the [dask] extra pins cryptography)
        raise ClusterConfigError(f"--cluster local:N needs the cryptography package for its TLS "
                                 f"(pip install 'rubricbench[dask]'): {exc}") from None


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


@dataclass
class _Job:
    """One unit through its tries: the current future, the workers it failed on and why."""

    unit: dict[str, Any]
    future: Any = None
    allowed: list[str] | None = None  # the workers the current try may run on (None: any)
    failed: list[tuple[str | None, str]] = field(default_factory=list)
    last: ModelResult | None = None  # the last try's result, when it had an internal error

    def tried(self) -> set[str | None]:
        return {address for address, _ in self.failed}


class ClusterSession:
    """One connection to a cluster (an owned ``LocalCluster`` for ``local:N``); use ``with``.

    ``rows`` holds one row per worker that took part (admitted, refused, joined late, left,
    quarantined), with its counts of units graded and failed; ``graded_by`` maps each unit (a
    model, or ``<model>/samples/<id>``) graded here to the worker that graded it (``address``, ``hostname``)."""

    def __init__(self, spec: ClusterSpec, *, wait_s: float = WAIT_FOR_WORKERS_S) -> None:
        self.spec = spec
        self.wait_s = wait_s
        self.cluster: LocalCluster | None = None
        self.client: Client | None = None
        self.expected: dict[str, Any] | None = None
        self.rows: list[dict[str, Any]] = []
        self.submitted = 0  # units submitted by this session (the acceptance check counts them)
        self.retried = 0  # tries after a unit's first, on another worker
        self.graded_by: dict[str, dict[str, Any]] = {}
        self.on_status: Callable[[int, int], None] | None = None  # hears (in flight, waiting)
        self.on_worker: Callable[[dict[str, Any]], None] | None = None  # hears a joiner or a quarantine
        self._strikes: dict[str, int] = {}
        self._quarantined: dict[str, str] = {}
        self._present: set[str] = set()
        self._watched = 0.0
        self._alone_since: float | None = None

    def __enter__(self) -> ClusterSession:
        try:
            self.client = self._connect()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def address(self) -> str:
        return self.client.scheduler.address if self.client is not None else "?"

    def _connect(self) -> Client:
        spec = self.spec
        if spec.local_workers:
            security = owned_security()
            with dask.config.set({"distributed.scheduler.allowed-failures": OWNED_ALLOWED_FAILURES,
                                  **NO_HTTP_ROUTES}):
                self.cluster = LocalCluster(n_workers=spec.local_workers, threads_per_worker=1,
                                            processes=True, host="127.0.0.1", protocol="tls://",
                                            security=security, dashboard_address=None,
                                            silence_logs=logging.ERROR)  # (resuming after admission)
            client = Client(self.cluster, security=security, set_as_default=False)
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
        """Close the client (and an owned cluster). Dask's own log is muted meanwhile: after a
        lost scheduler, closing cancels the client's attempts to reconnect, and Dask would log
        each as a traceback after the one message that says what happened."""
        muted = [logging.getLogger(name) for name in ["distributed", *logging.root.manager.loggerDict]
                 if name.split(".")[0] == "distributed"]
        was = [logger.disabled for logger in muted]
        for logger in muted:
            logger.disabled = True
        try:
            for thing in (self.client, self.cluster):
                if thing is not None:
                    with suppress(Exception):
                        thing.close()
        finally:
            for logger, disabled in zip(muted, was):
                logger.disabled = disabled
        self.client = self.cluster = None

    # ---- admission ------------------------------------------------------------------------
    def admit(self, test_data, options, suite=None, core: bool = True) -> list[dict[str, Any]]:
        """Register the admission plugin for this grader identity on every current and future
        worker and return one row per worker: ``address``, ``admitted``, ``reason``, ``kernel``,
        ``isolation``, ``hostname``, ``idle_child_mb``. Sets ``expected`` when the admitted
        workers share one kernel profile (see :func:`shared_profile`), and publishes that
        profile, against which the plugin checks every worker that joins later."""
        described = suite.describe() if suite is not None else None
        ident = identity(test_data, described)
        resource = f"rubricbench-{identity_digest(ident)}"
        folders = [p.folder for p in suite.packs if p.id != "core"] if suite is not None else []
        plugin = Admission(ident, bundle(test_data, folders), resource, core, options.memory_mb)
        self.client.set_metadata(profile_key(resource), None)  # (an earlier run's is not this one's)
        self.client.register_plugin(plugin)
        facts = self.client.run(worker_facts, resource=resource)
        self.rows = [_row(address, found) for address, found in sorted(facts.items())]
        self._present = {row["address"] for row in self.rows}
        self._strikes, self._quarantined = {}, {}
        kernel, _ = shared_profile(self.rows)
        self.expected = expected(ident, options, core, kernel, resource) if kernel else None
        if kernel:
            self.client.set_metadata(profile_key(resource), kernel)
        return self.rows

    @property
    def kernel_profile(self) -> dict[str, Any] | None:
        return self.expected["kernel_profile"] if self.expected else None

    def _row_of(self, address: str) -> dict[str, Any] | None:
        return next((row for row in self.rows if row["address"] == address), None)

    def admitted_now(self) -> int:
        """How many admitted, unquarantined workers are present (as last looked at)."""
        return len(self._healthy())

    def _healthy(self) -> list[str]:
        """The workers present now that are admitted and not quarantined."""
        return sorted(row["address"] for row in self.rows
                      if row["admitted"] and row["address"] in self._present
                      and row["address"] not in self._quarantined)

    # ---- grading --------------------------------------------------------------------------
    def grade(self, units: list[dict[str, Any]], *, deadline_s: float,
              on_result: Callable[[dict[str, Any], ModelResult], None],
              suite: list[dict[str, Any]] | None = None,
              task: Callable[..., dict[str, Any]] = grade_unit) -> None:
        """Submit ``units`` and hand each one's ``ModelResult`` to ``on_result(unit, result)``
        (``units.to_result`` of what came back; ``suite``: ``Suite.describe()``). A try that
        fails on its worker is made again on another (see the module's docstring); a unit
        whose failure followed it is an error record saying, per worker, why. Raises
        ``ClusterLost`` when the scheduler or every admitted worker is lost. ``task`` is
        ``grade_unit`` (tests substitute one that, say, kills its worker)."""
        if self.expected is None:
            raise RuntimeError("no admitted workers: call admit() first")
        run = _Grading(self, task, on_result, suite, len(units))
        for unit in units:
            run.submit(_Job(unit), None)
            self.submitted += 1
        while run.live:
            self._check_connected(run.done, run.total)
            for future, job in list(run.live.items()):
                if future.status in ("finished", "error", "cancelled"):
                    del run.live[future]
                    run.settle(job, future)
            for job in self._watch(run.live, run.done, run.total):
                run.submit(job, [a for a in self._healthy() if a not in job.tried()] or None)
            self._expire(run, deadline_s)
            if self.on_status:
                self.on_status(sum(1 for f in run.live if f.key in run.started), len(run.live))
            if run.live:
                time.sleep(POLL_S)

    def _strike(self, address: str, reason: str) -> None:
        """A failure on ``address`` of a unit that then passed elsewhere: the worker's."""
        self._strikes[address] = self._strikes.get(address, 0) + 1
        if self._strikes[address] >= QUARANTINE_AFTER:
            self._quarantine(address, f"{self._strikes[address]} units failed there and then passed "
                                      f"on another worker (last: {reason})")

    def _quarantine(self, address: str, why: str) -> None:
        if address in self._quarantined:
            return
        self._quarantined[address] = why
        with suppress(Exception):  # (a worker that is gone keeps nothing anyway)
            self._ask_workers(quarantine, [address], reason=why)
        row = self._row_of(address)
        if row is not None:
            row["quarantined"] = why
            if self.on_worker:
                self.on_worker(row)

    def _ask(self, name: str, **kwargs: Any) -> Any:
        """The scheduler's answer to ``name`` (``identity``, ``processing``) within ``ASK_S``;
        raises when the client is not connected or no answer came in time."""
        if self.client.status != "running":
            raise ConnectionError("not connected to the scheduler")
        return self.client.sync(getattr(self.client.scheduler, name), callback_timeout=ASK_S, **kwargs)

    def _ask_workers(self, function: Callable[..., Any], addresses: list[str], **kwargs: Any) -> dict[str, Any]:
        """``function(dask_worker, resource=..., **kwargs)`` on ``addresses`` (``Client.run``),
        within ``ASK_S``; a worker that raised maps to its exception."""
        if self.client.status != "running":
            raise ConnectionError("not connected to the scheduler")
        # (Client.run's own coroutine, run here with a bound: Client.run takes none; distributed is pinned)
        return self.client.sync(self.client._run, function, workers=addresses, wait=True, nanny=False,
                                on_error="return", resource=self.expected["resource"], callback_timeout=ASK_S,
                                **kwargs)

    def _check_connected(self, done: int, total: int) -> None:
        if self.client.status != "running":
            raise ClusterLost(f"the connection to the scheduler {self.address} was lost after "
                              f"{done} of {total} model(s) were graded")

    def _watch(self, live: dict[Any, _Job], done: int, total: int) -> list[_Job]:
        """Every ``WATCH_S``: read which workers are present, report and record joiners (once
        their admission is decided) and leavers, give up after ``wait_s`` with no admitted
        worker, and return the jobs whose try may run only on workers now gone (cancelled: to
        be tried again elsewhere)."""
        now = time.monotonic()
        if now - self._watched < WATCH_S:
            return []
        self._watched = now
        try:
            present = set(self._ask("identity", n_workers=-1)["workers"])
        except Exception:  # (the next check of the connection says what happened)
            return []
        for row in self.rows:
            if row["address"] not in present and row["address"] in self._present:
                row["left"] = True
        self._present = present
        known = {row["address"] for row in self.rows}
        if present - known:
            self._joined(sorted(present - known))
        healthy = self._healthy()
        if healthy:
            self._alone_since = None
        elif self._alone_since is None:
            self._alone_since = now
        elif now - self._alone_since > self.wait_s:
            raise ClusterLost(f"no admitted worker for {self.wait_s:g} s (every admitted worker left "
                              f"or was quarantined) after {done} of {total} model(s) were graded")
        moved = []
        for future, job in list(live.items()):
            if job.allowed and not set(job.allowed) & set(healthy):
                del live[future]
                future.cancel()
                moved.append(job)
        return moved

    def _joined(self, addresses: list[str]) -> None:
        with suppress(Exception):
            facts = self._ask_workers(worker_facts, addresses)
            for address in addresses:
                found = facts.get(address)
                if not isinstance(found, dict):  # its preflight is still running: next time
                    continue
                row = _row(address, found, joined=True)
                if row["admitted"] and row["kernel"] != self.expected["kernel_profile"]:
                    row["admitted"] = False  # (the plugin refuses it: this is the second wall)
                    row["reason"] = "kernel profile differs from the one the run's workers share"
                    with suppress(Exception):
                        self._ask_workers(quarantine, [address], reason=row["reason"])
                self.rows.append(row)
                if self.on_worker:
                    self.on_worker(row)

    def _expire(self, run: _Grading, deadline_s: float) -> None:
        """Start each try's clock when the scheduler first shows it processing; cancel a try
        past its deadline and count it its worker's failure (a wedged worker cannot hang the
        run; the unit is tried on another)."""
        now = time.monotonic()
        where: dict[str, str] = {}
        with suppress(Exception):
            where = {key: worker for worker, keys in self._ask("processing").items() for key in keys}
        for future in run.live:
            if future.key in where:
                run.started.setdefault(future.key, now)
        late = [f for f in run.live if f.key in run.started and now - run.started[f.key] > deadline_s]
        for future in late:
            job = run.live.pop(future)
            future.cancel(force=True)
            run.failed(job, where.get(future.key), f"no result within {deadline_s:g} s of starting on a "
                                                   f"worker (cancelled)")


class _Grading:
    """One ``ClusterSession.grade`` call: the tries in flight, and what each outcome means."""

    def __init__(self, session: ClusterSession, task, on_result, suite, total: int) -> None:
        self.session, self.task, self.on_result, self.suite = session, task, on_result, suite
        self.live: dict[Any, _Job] = {}  # future -> its unit
        self.started: dict[str, float] = {}  # task key -> when it was first seen processing
        self.total, self.done = total, 0

    def submit(self, job: _Job, workers: list[str] | None) -> None:
        """A try of ``job`` on ``workers`` (None: any admitted worker)."""
        expected = self.session.expected
        key = f"rubricbench-{job.unit['key']}" + (f"-try{len(job.failed)}" if job.failed else "")
        job.allowed = workers
        job.future = self.session.client.submit(self.task, job.unit, expected, key=key,
                                                resources={expected["resource"]: 1}, retries=0,
                                                pure=False, workers=workers, allow_other_workers=False)
        self.live[job.future] = job

    def finish(self, job: _Job, result: ModelResult, where: dict[str, Any] | None) -> None:
        self.done += 1
        if where is not None:
            self.session.graded_by[unit_name(job.unit["name"], job.unit.get("sample"))] = where
        self.on_result(job.unit, result)

    def failed(self, job: _Job, address: str | None, reason: str, result: ModelResult | None = None) -> None:
        """A try failed on its worker (``address``, when known): try another, or, when the
        failure followed the unit to ``MAX_TRIES`` workers or every admitted one, finish it
        with the last result (it had an internal error) or an error record."""
        session = self.session
        job.failed.append((address, reason[:REASON_LIMIT]))
        job.last = result
        if address and (row := session._row_of(address)):
            row["failed"] = row.get("failed", 0) + 1
        healthy = session._healthy()
        fresh = [a for a in healthy if a not in job.tried()]
        if len(job.failed) >= MAX_TRIES or (healthy and not fresh):
            tries = "; ".join(f"{where or 'a worker'}: {why}" for where, why in job.failed)
            self.finish(job, job.last or to_result(job.unit, f"{INTERNAL_ERROR}: cluster: failed on "
                                                             f"{len(job.failed)} worker(s): {tries}",
                                                   self.suite), None)
            return
        session.retried += 1
        self.submit(job, fresh or None)  # (no admitted worker now: whichever is admitted next)

    def passed(self, job: _Job, result: ModelResult, where: dict[str, Any]) -> None:
        if row := self.session._row_of(where["address"]):
            row["graded"] = row.get("graded", 0) + 1
        for address, reason in job.failed:  # those failures were their workers'
            if address:
                self.session._strike(address, reason)
        self.finish(job, result, where)

    def settle(self, job: _Job, future) -> None:
        """What one finished try means: a result, a failure of its worker's, or the unit's own."""
        if future.status == "cancelled":
            self.session._check_connected(self.done, self.total)  # (the client cancels every future when it loses the scheduler)
            self.finish(job, to_result(job.unit, f"{INTERNAL_ERROR}: cluster: unit cancelled", self.suite), None)
            return
        if future.status == "error":
            exc = future.exception()
            if isinstance(exc, KilledWorker):  # Dask already moved it after each death
                self.finish(job, to_result(job.unit, f"{INTERNAL_ERROR}: cluster: worker lost: {exc}",
                                           self.suite), None)
            else:
                self.failed(job, None, f"the task raised {type(exc).__name__}: {exc}")
            return
        try:
            value = future.result(timeout=RESULT_S)
        except Exception as exc:  # (lost between states): tried again
            self.failed(job, None, f"result unavailable: {type(exc).__name__}: {exc}")
            return
        where = value.get("worker") if isinstance(value, dict) else None
        if not isinstance(where, dict) or not isinstance(where.get("address"), str):
            self.failed(job, None, "the worker sent back no result of the grader's shape")
        elif "failure" in value:
            self.failed(job, where["address"], str(value["failure"]))
        else:
            result = to_result(job.unit, value.get("result"), self.suite)
            if has_internal_error(result):
                self.failed(job, where["address"], "its grading had an internal error", result)
            else:
                self.passed(job, result, where)


def _row(address: str, found: dict[str, Any] | None, *, joined: bool = False) -> dict[str, Any]:
    row = {"address": address, **(found or {"admitted": False, "kernel": None,
                                            "reason": "its preflight did not run"})}
    if joined:
        row["joined_late"] = True
    return row
