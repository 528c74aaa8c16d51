#!/usr/bin/env python3
"""Start a RubricBench grading cluster on Slurm with dask-jobqueue's ``SLURMCluster``: the
scheduler runs in this process on one address of this host (the login or submit node), the
workers run as Slurm jobs; mutual TLS only, no dashboard, one thread per worker process.
See docs/cluster-recipes.md.

    python deploy/cluster/slurm_cluster.py --certs /shared/rb-certs --scheduler-host 10.0.0.5 \
        --worker-interface ib0 --python /shared/rb-venv/bin/python --jobs 4 --processes 8 \
        --scheduler-file /shared/rb-sched.json --account grading

It keeps running until Ctrl-C (SIGINT) or SIGTERM, then cancels the jobs. Grade with
``rubricbench --scheduler-file /shared/rb-sched.json --tls-ca ... --tls-cert ... --tls-key ...``.

``--certs`` holds ca.pem, scheduler.pem/.key, worker.pem/.key and client.pem/.key on a file
system the compute nodes share, readable by this user only (the jobs run as this user). The
job script names only the CA, worker.pem and worker.key. Needs ``pip install
'rubricbench[dask,recipes]'`` here and ``rubricbench[dask]`` in ``--python``'s venv.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from typing import Any

HTTP_LOOPBACK = "127.0.0.1:0"  # Dask always opens an HTTP port: loopback only, and no routes

# Dask configuration of this process (the scheduler runs here) ...
SCHEDULER_CONFIG = {
    "distributed.comm.require-encryption": True,
    "distributed.comm.tls.min-version": 1.3,
    "distributed.scheduler.http.routes": [],
}
# ... and of each worker job, as environment variables in the job script (they win over
# every Dask YAML file on the compute node).
WORKER_PROLOGUE = [
    "umask 077",
    "export DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION=True",
    "export DASK_DISTRIBUTED__COMM__TLS__MIN_VERSION=1.3",
    "export DASK_DISTRIBUTED__WORKER__HTTP__ROUTES='[]'",
]


def cluster_security(certs: str | Path):
    """The ``Security`` of the cluster: the scheduler's certificate for the scheduler here,
    the worker's for the jobs (passed as --tls-* flags), the client's for this process's own
    connection to the scheduler; encryption required."""
    from distributed.security import Security

    certs = Path(certs)
    return Security(tls_ca_file=str(certs / "ca.pem"),
                    tls_scheduler_cert=str(certs / "scheduler.pem"),
                    tls_scheduler_key=str(certs / "scheduler.key"),
                    tls_worker_cert=str(certs / "worker.pem"), tls_worker_key=str(certs / "worker.key"),
                    tls_client_cert=str(certs / "client.pem"), tls_client_key=str(certs / "client.key"),
                    require_encryption=True)


def slurm_cluster_kwargs(*, certs: str | Path, scheduler_host: str, worker_interface: str, python: str,
                         processes: int = 1, memory: str = "4GB", walltime: str = "02:00:00",
                         port: int = 8786, scheduler_file: str | None = None,
                         account: str | None = None, queue: str | None = None,
                         job_extra_directives: list[str] | None = None) -> dict[str, Any]:
    """The keyword arguments of ``dask_jobqueue.SLURMCluster`` for this recipe.

    ``scheduler_host``: the one address of this host the scheduler binds (not 0.0.0.0).
    ``worker_interface``: the interface the workers bind on the compute nodes (e.g. ib0).
    ``processes``: worker processes per job, each with one thread (``--nthreads 1``).
    """
    if scheduler_host in ("", "0.0.0.0", "::", "[::]"):
        raise ValueError("scheduler_host: give the one address the scheduler listens on")
    if not worker_interface:
        raise ValueError("worker_interface: give the network interface the workers listen on")
    if processes < 1:
        raise ValueError("processes: at least 1 worker process per job")
    scheduler_options: dict[str, Any] = {"host": scheduler_host, "port": port, "dashboard": False,
                                         "dashboard_address": HTTP_LOOPBACK}
    if scheduler_file:
        scheduler_options["scheduler_file"] = scheduler_file
    return {
        "cores": processes, "processes": processes,  # so --nthreads is cores / processes = 1
        "memory": memory, "walltime": walltime, "account": account, "queue": queue,
        "python": python,
        "interface": worker_interface,  # the workers' (the scheduler's host is set above)
        "protocol": "tls://",
        "security": cluster_security(certs),
        "scheduler_options": scheduler_options,
        "worker_extra_args": ["--no-dashboard", "--dashboard-address", HTTP_LOOPBACK],
        "job_script_prologue": list(WORKER_PROLOGUE),
        "job_extra_directives": list(job_extra_directives or []),
    }


def start(kwargs: dict[str, Any]):
    """The ``SLURMCluster`` (its scheduler starts here; no job is submitted until ``scale``)."""
    import dask
    from dask_jobqueue import SLURMCluster

    with dask.config.set(SCHEDULER_CONFIG):
        return SLURMCluster(**kwargs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Start a mutual-TLS RubricBench cluster on Slurm.")
    parser.add_argument("--certs", required=True, help="shared folder with the cluster's certificates")
    parser.add_argument("--scheduler-host", required=True, help="the one address of this host to listen on")
    parser.add_argument("--worker-interface", required=True, help="network interface of the compute nodes, e.g. ib0")
    parser.add_argument("--python", required=True, help="the Python of the venv holding rubricbench[dask]")
    parser.add_argument("--jobs", type=int, default=1, help="Slurm jobs to submit")
    parser.add_argument("--processes", type=int, default=1, help="worker processes per job (one thread each)")
    parser.add_argument("--memory", default="4GB", help="memory per job")
    parser.add_argument("--walltime", default="02:00:00")
    parser.add_argument("--port", type=int, default=8786)
    parser.add_argument("--scheduler-file", help="write the scheduler's address here (for --scheduler-file)")
    parser.add_argument("--account")
    parser.add_argument("--queue")
    parser.add_argument("--job-extra", action="append", default=[], help="an extra #SBATCH directive (repeat)")
    parser.add_argument("--print-job-script", action="store_true", help="print the job script and exit")
    args = parser.parse_args(argv)
    try:
        kwargs = slurm_cluster_kwargs(certs=args.certs, scheduler_host=args.scheduler_host,
                                      worker_interface=args.worker_interface, python=args.python,
                                      processes=args.processes, memory=args.memory, walltime=args.walltime,
                                      port=args.port, scheduler_file=args.scheduler_file,
                                      account=args.account, queue=args.queue,
                                      job_extra_directives=args.job_extra)
    except ValueError as exc:
        parser.error(str(exc))
    cluster = start(kwargs)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    try:
        if args.print_job_script:
            print(cluster.job_script())
            return 0
        cluster.scale(jobs=args.jobs)
        print(f"scheduler at {cluster.scheduler_address}; {args.jobs} job(s) submitted", flush=True)
        stop.wait()
    finally:
        cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
