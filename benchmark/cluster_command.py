"""The command-line side of a cluster run (``--cluster``, ``--scheduler``, ``--scheduler-file``):
connect, admit the workers, show who was admitted and who was refused and why, and the
manifest's cluster facts. Imported by ``benchmark.commands`` only when a cluster flag is given;
the engine side is ``benchmark.cluster`` (which never prints).
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

from .console import EXIT_ERROR, _error, _say, _warn
from .sample_names import SAMPLES
from .types import RunConfig
from .untrusted import text

PER_WORKER = ("address", "hostname", "admitted", "reason", "idle_child_mb")
# Present only when they apply: units graded and failed there, a quarantine's reason, a worker
# that joined after admission, a worker that left during the run.
PER_WORKER_IF_ANY = ("graded", "failed", "quarantined", "joined_late", "left")


def spec_of(config: RunConfig):
    """The run's ``ClusterSpec``, or None when no cluster flag was given (nothing imported)."""
    if not (config.cluster or config.scheduler or config.scheduler_file):
        return None
    from .cluster.spec import ClusterSpec, parse_local

    return ClusterSpec(local_workers=parse_local(config.cluster) if config.cluster else None,
                       address=config.scheduler, scheduler_file=config.scheduler_file,
                       tls_ca=config.tls_ca, tls_cert=config.tls_cert, tls_key=config.tls_key)


def refused_options(config: RunConfig) -> str | None:
    """Why these options cannot run on a cluster: the sandbox's network namespace is what keeps
    a submission away from the worker's Dask port, so neither layer may be dropped."""
    if config.unsafe:
        return "--unsafe cannot be used with a cluster (a submission could reach the Dask comm)"
    if config.allow_network:
        return "--allow-network cannot be used with a cluster (a submission could reach the Dask comm)"
    return None


def _state(row: dict[str, Any]) -> tuple[str, str, str]:
    """(the mark, the verdict, the worker and why) of one worker: admitted, refused or
    quarantined."""
    where = f"{text(str(row['address']))} ({text(str(row.get('hostname') or '?'))})"
    where += " (joined during the run)" if row.get("joined_late") else ""
    if row.get("quarantined"):
        return "⛔", "quarantined", f"{where}: {text(str(row['quarantined']))}"
    if row["admitted"]:
        return "✅", "admitted", where
    return "❌", "refused", f"{where}: {text(str(row.get('reason')))}"


def format_admission(rows: list[dict[str, Any]]) -> str:
    """One line per worker: admitted, or refused with the reason."""
    lines = [f"🖧 Cluster workers: {sum(r['admitted'] for r in rows)} admitted, "
             f"{sum(not r['admitted'] for r in rows)} refused"]
    return "\n".join(lines + ["  {} {:<8} {}".format(*_state(row)) for row in rows])


def show_worker(config: RunConfig, row: dict[str, Any]) -> None:
    """One worker's state, said during the run (a joiner, a quarantine) or with -q: a refusal
    or a quarantine goes to stderr even with -q (it changes who grades); an admission is
    printed only without -q."""
    mark, verdict, where = _state(row)
    if verdict == "admitted":
        _say(config, f"{mark} cluster worker admitted {where}")
    else:
        _warn(f"cluster worker {verdict} {where}")


def open_admitted(config: RunConfig, spec, runner, stack: ExitStack):
    """An admitted ``ClusterSession`` (closed by ``stack``), or the exit code after saying why
    there is none: Dask not installed, an address refused, no worker admitted, or admitted
    workers that differ in kernel profile."""
    try:
        from .cluster.session import ClusterSession, shared_profile
        from .cluster.spec import ClusterConfigError
    except ImportError as exc:
        _error(f"a cluster flag needs Dask: pip install 'rubricbench[dask]' ({exc})")
        return EXIT_ERROR
    try:
        session = stack.enter_context(ClusterSession(spec))
        suite = runner.suite() if runner.extended else None
        rows = session.admit(runner.test_data, runner.options, suite, runner.core)
    except ClusterConfigError as exc:
        _error(str(exc))
        return EXIT_ERROR
    except (OSError, TimeoutError, ValueError) as exc:
        _error(f"cannot use the cluster: {type(exc).__name__}: {exc}")
        return EXIT_ERROR
    _say(config, format_admission(rows))
    _, problem = shared_profile(rows)
    if problem or config.quiet:  # (with -q, the refusals are all that is said)
        for row in rows:
            if not row["admitted"]:
                show_worker(config, row)
    if problem:
        _error(f"{problem}; nothing was graded")
        return EXIT_ERROR
    session.on_worker = lambda row: show_worker(config, row)
    return session


def isolation_of(session) -> dict[str, Any]:
    """The layer report (with its network probe) of the first admitted worker: what grading
    applied, since every admitted worker shares its kernel profile."""
    return next(row["isolation"] for row in session.rows if row["admitted"])


def metadata(session) -> dict[str, Any]:
    """``_metadata`` additions: the kernel profile the workers share, and the facts of every
    worker that took part (present at the start or joined later; admitted, refused or
    quarantined; the units it graded and failed)."""
    return {"kernel_profile": session.kernel_profile,
            "workers": [{**{name: row.get(name) for name in PER_WORKER},
                         **{name: row[name] for name in PER_WORKER_IF_ANY if row.get(name)}}
                        for row in session.rows]}


def mark_graded_by(doc: dict[str, Any], session) -> None:
    """Each model record graded in this run says which worker graded it (``graded_by``); a
    model of samples, each sample's record."""
    for name, where in session.graded_by.items():
        model, _, sample = name.partition(f"/{SAMPLES}/")  # (no model name holds a "/")
        record = doc["models"].get(model)
        if record is not None and sample:
            record = (record.get("samples") or {}).get(sample)
        if record is not None:
            record["graded_by"] = {"address": text(str(where.get("address")), 200),
                                   "hostname": text(str(where.get("hostname")), 200)}
