"""What runs on a Dask worker: the admission plugin, ``grade_unit`` and ``quarantine``.

Dask runs tasks on a worker even when a plugin's ``setup`` raised (it is only logged), so
admission is explicit: ``Admission`` materialises the fixtures and packs, runs the preflight
(``preflight.run_preflight``), compares the worker's kernel profile with the one the run's
workers share once the client has published it (a late joiner on another kernel is refused
there), and only when all of that passes grants the worker the resource every unit requires.
``grade_unit`` checks again that this worker was admitted for this grader identity and kernel
profile; it never raises: what went wrong on this worker comes back as a ``failure`` naming
the worker, so that the client can try the unit on another one (``session``).
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import tempfile
from pathlib import Path
from typing import Any

from distributed import WorkerPlugin, get_worker
from distributed.core import Status

from ..engine.grading import grade_model
from ..engine.options import GradeOptions
from ..packs.suite import load_suite
from ..reporting.results_json import model_to_dict
from ..sandbox.cleanup import owned_name, sweep_dead_owners
from .preflight import kernel_profile, run_preflight
from .units import materialise, safe_relative, write_tree

STATE = "rubricbench_admission"  # the worker attribute: {resource: facts}
UNIT_HEAD = "rb-unit-p"  # a unit's private folder: rb-unit-p<pid>-...
FAILURE_LIMIT = 500  # characters of a failure's text sent back


def profile_key(resource: str) -> list[str]:
    """The scheduler metadata key under which the client publishes the kernel profile the
    run's admitted workers share (``Client.set_metadata``)."""
    return ["rubricbench", resource, "kernel_profile"]


class IsolationRefused(Exception):
    """This worker may not grade this unit (not admitted, or its profile no longer matches)."""


def sweep_stale_fixtures(resource: str) -> list[Path]:
    """Remove the fixture folders of ``resource`` that worker processes now gone left behind
    (a worker killed by a unit, or by its nanny, never runs its plugin's teardown): each
    folder names the pid of the process that made it (``cleanup.sweep_dead_owners``)."""
    return sweep_dead_owners(f"rb-fixtures-{resource}-p")


def _admit_here(identity: dict[str, Any], files: dict[str, bytes], resource: str, core: bool,
                memory_mb: int) -> dict[str, Any]:
    """Materialise the bundle, run the preflight; the facts (with the folders) either way.
    The folder's name holds this process's pid, for ``sweep_stale_fixtures``."""
    root = None
    try:
        sweep_stale_fixtures(resource)
        root = materialise(files, owned_name(f"rb-fixtures-{resource}-p"))
        packs = sorted((p for p in (root / "packs").iterdir()), key=lambda p: int(p.name)) \
            if (root / "packs").is_dir() else []
        facts = run_preflight(identity, root / "fixtures", packs, core, memory_mb)
        facts.update(root=str(root), fixtures=str(root / "fixtures"), packs=[str(p) for p in packs])
        return facts
    except Exception as exc:  # a preflight that cannot run refuses the worker, saying why
        return {"admitted": False, "reason": f"preflight failed: {type(exc).__name__}: {exc}",
                "kernel": None, "isolation": None, "hostname": socket.gethostname(),
                "root": str(root) if root else None}


class Admission(WorkerPlugin):
    """Admit a worker for one grader identity: the resource ``resource`` only after the
    preflight passed. Registered by the client; runs on every current and future worker."""

    def __init__(self, identity: dict[str, Any], files: dict[str, bytes], resource: str,
                 core: bool, memory_mb: int) -> None:
        self.identity, self.files, self.resource = identity, files, resource
        self.core, self.memory_mb = core, memory_mb
        self.name = f"{resource}-admission"

    async def setup(self, worker) -> None:
        # Paused while the preflight runs, so nothing is sent here meanwhile; resuming makes
        # the scheduler look again at units no worker could run (granting a resource alone
        # does not: a unit whose admitted workers had all died would wait for ever).
        resume = worker.status == Status.running
        if resume:
            worker.status = Status.paused
        try:
            loop = asyncio.get_running_loop()
            facts = await loop.run_in_executor(None, _admit_here, self.identity, self.files,
                                               self.resource, self.core, self.memory_mb)
            if facts["admitted"]:
                await _compare_profile(worker, self.resource, facts)
            if not hasattr(worker, STATE):
                setattr(worker, STATE, {})
            getattr(worker, STATE)[self.resource] = facts
            if facts["admitted"]:
                await worker.set_resources(**{self.resource: 1})
        finally:
            if resume and worker.status == Status.paused:
                worker.status = Status.running

    def teardown(self, worker) -> None:
        facts = getattr(worker, STATE, {}).pop(self.resource, None)
        if facts and facts.get("root"):
            shutil.rmtree(facts["root"], ignore_errors=True)


async def _compare_profile(worker, resource: str, facts: dict[str, Any]) -> None:
    """Refuse (in ``facts``) a worker whose kernel profile differs from the one the client
    published for this run; nothing is compared before the client has published one."""
    try:
        wanted = await worker.scheduler.get_metadata(keys=profile_key(resource), default=None)
    except Exception as exc:  # (the scheduler could not be asked): refused, saying why
        facts.update(admitted=False, reason=f"could not read the run's kernel profile: {type(exc).__name__}")
        return
    if wanted is not None and wanted != facts["kernel"]:
        changed = sorted(k for k in set(wanted) | set(facts["kernel"]) if wanted.get(k) != facts["kernel"].get(k))
        facts.update(admitted=False, reason=f"kernel profile differs from the one the run's workers "
                                            f"share ({', '.join(changed)})")


async def quarantine(dask_worker, resource: str, reason: str) -> bool:
    """For ``client.run``: take this worker's admission for ``resource`` back (its resource
    goes to 0, so the scheduler sends it no more units, and ``grade_unit`` refuses here)."""
    facts = getattr(dask_worker, STATE, {}).get(resource)
    if facts is not None:
        facts.update(admitted=False, reason=f"quarantined: {reason}")
    await dask_worker.set_resources(**{resource: 0})
    return True


def worker_facts(dask_worker, resource: str) -> dict[str, Any] | None:
    """For ``client.run``: this worker's admission facts for ``resource`` (None: no preflight ran)."""
    facts = getattr(dask_worker, STATE, {}).get(resource)
    return None if facts is None else {k: v for k, v in facts.items() if k not in ("root", "packs")}


def _admitted_facts(expected: dict[str, Any]) -> dict[str, Any]:
    facts = getattr(get_worker(), STATE, {}).get(expected["resource"])
    if not facts or not facts.get("admitted"):
        raise IsolationRefused("this worker was not admitted for this grader identity")
    if facts["kernel"] != expected["kernel_profile"] or kernel_profile() != facts["kernel"]:
        raise IsolationRefused("this worker's kernel profile differs from the one the run expects")
    return facts


def grade_unit(unit: dict[str, Any], expected: dict[str, Any]) -> dict[str, Any]:
    """Grade one model on this worker, in a private temporary folder, with the same engine as
    a local run (``grade_model``: threads and this process's zygote, no process pool).
    Returns ``{"worker": {"address", "hostname"}, "result": model_to_dict(...)}`` (plain JSON
    data), or ``{"worker": ..., "failure": why}`` when anything here raised (not admitted, a
    full disk, a sandbox that could not start): never raises, so the client knows where it
    failed."""
    where = {"address": get_worker().address, "hostname": socket.gethostname()}
    try:
        facts = _admitted_facts(expected)
        packs = facts["packs"]
        suite = load_suite(packs, core=expected["core"]) if packs or not expected["core"] else None
        sweep_dead_owners(UNIT_HEAD)  # the submissions of units whose worker was killed
        with tempfile.TemporaryDirectory(prefix=owned_name(UNIT_HEAD)) as folder:
            model_dir = Path(folder, *safe_relative(f"{unit['tier']}/{unit['name']}").parts)
            model_dir.mkdir(parents=True)
            write_tree(model_dir, unit["files"])
            result = grade_model(model_dir, unit["tier"], test_data=Path(facts["fixtures"]),
                                 options=GradeOptions(**expected["options"]), suite=suite)
        return {"worker": where, "result": model_to_dict(result)}
    except Exception as exc:  # this worker's failure: the client tries another worker
        kind = "refused on the worker" if isinstance(exc, IsolationRefused) else "raised on the worker"
        return {"worker": where, "failure": f"{kind}: {type(exc).__name__}: {exc}"[:FAILURE_LIMIT]}
