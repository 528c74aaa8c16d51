#!/usr/bin/env python3
"""Start a RubricBench grading cluster over SSH with ``distributed.SSHCluster``: mutual TLS
only, the scheduler on one address, each worker on one network interface, no dashboard, one
thread per worker process. See docs/cluster-recipes.md.

    python deploy/cluster/ssh_cluster.py --scheduler-host sched.internal --scheduler-ip 10.0.0.5 \
        --worker-host w1.internal --worker-host w2.internal --worker-interface eth1 \
        --certs ~/rb-client-certs --remote-certs /etc/rubricbench/certs \
        --remote-python /opt/rubricbench/venv/bin/python --nworkers 8

It keeps running until Ctrl-C (SIGINT) or SIGTERM, then stops the remote processes. Grade with
``rubricbench --scheduler tls://10.0.0.5:8786 --tls-ca ... --tls-cert ... --tls-key ...``.

How TLS reaches the remote processes: ``SSHCluster(security=...)`` secures only this
process's own connection to the scheduler. The remote scheduler and workers are started with
``python -m distributed.cli.dask_spec`` and this process's Dask configuration (passed in the
``DASK_INTERNAL_INHERIT_CONFIG`` variable on their command line), so :func:`remote_config`
puts the policy and the certificate *paths* there. Never put PEM text in that configuration:
it would be visible in ``ps`` on every host. Each remote host holds its own files at
``--remote-certs``: the scheduler host ca.pem, scheduler.pem and scheduler.key; each worker
host ca.pem, worker.pem and worker.key. This host (the client) holds client.pem and client.key.

Needs ``asyncssh`` on this host (``pip install asyncssh``), and ``rubricbench[dask]`` (the same
wheel as here) in ``--remote-python``'s venv on every host. SSH host keys are checked against
``~/.ssh/known_hosts`` (asyncssh's default); do not turn that off.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from typing import Any

HTTP_LOOPBACK = "127.0.0.1:0"  # Dask always opens an HTTP port: loopback only, and no routes


def client_security(certs: str | Path):
    """The ``Security`` of this process (the client): its CA, client certificate and key."""
    from distributed.security import Security

    certs = Path(certs)
    return Security(tls_ca_file=str(certs / "ca.pem"), tls_client_cert=str(certs / "client.pem"),
                    tls_client_key=str(certs / "client.key"), require_encryption=True)


def remote_config(remote_certs: str) -> dict[str, Any]:
    """The Dask configuration the remote scheduler and workers inherit: mutual TLS required,
    certificate paths on the remote hosts, no HTTP routes."""
    base = remote_certs.rstrip("/")
    return {
        "distributed.comm.require-encryption": True,
        "distributed.comm.tls.min-version": 1.3,
        "distributed.comm.tls.ca-file": f"{base}/ca.pem",
        "distributed.comm.tls.scheduler.cert": f"{base}/scheduler.pem",
        "distributed.comm.tls.scheduler.key": f"{base}/scheduler.key",
        "distributed.comm.tls.worker.cert": f"{base}/worker.pem",
        "distributed.comm.tls.worker.key": f"{base}/worker.key",
        "distributed.scheduler.http.routes": [],
        "distributed.worker.http.routes": [],
    }


def ssh_cluster_kwargs(*, scheduler_host: str, scheduler_ip: str, worker_hosts: list[str],
                       worker_interface: str, certs: str | Path, remote_python: str,
                       port: int = 8786, nworkers: int = 1,
                       connect_options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The keyword arguments of ``distributed.SSHCluster`` for this recipe.

    ``scheduler_host`` / ``worker_hosts``: SSH destinations. ``scheduler_ip``: the one address
    the scheduler binds (not 0.0.0.0). ``worker_interface``: the network interface the workers
    bind on every worker host (the same name everywhere, e.g. the private network's).
    """
    if not worker_hosts:
        raise ValueError("give at least one worker host")
    if scheduler_ip in ("", "0.0.0.0", "::", "[::]"):
        raise ValueError("scheduler_ip: give the one address the scheduler listens on")
    if not worker_interface:
        raise ValueError("worker_interface: give the network interface the workers listen on")
    return {
        "hosts": [scheduler_host, *worker_hosts],  # the first one runs the scheduler
        "connect_options": dict(connect_options or {}),
        "remote_python": remote_python,
        "scheduler_options": {"protocol": "tls", "host": scheduler_ip, "port": port,
                              "dashboard": False, "dashboard_address": HTTP_LOOPBACK},
        "worker_options": {"n_workers": nworkers, "nthreads": 1, "protocol": "tls",
                           "interface": worker_interface,
                           "dashboard": False, "dashboard_address": HTTP_LOOPBACK},
        "worker_class": "distributed.Nanny",
        "security": client_security(certs),
    }


def start(kwargs: dict[str, Any], remote_certs: str):
    """Start the cluster (a ``SpecCluster``) with the remote configuration in force."""
    import dask
    from distributed import SSHCluster

    with dask.config.set(remote_config(remote_certs)):
        return SSHCluster(**kwargs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Start a mutual-TLS RubricBench cluster over SSH.")
    parser.add_argument("--scheduler-host", required=True, help="SSH destination of the scheduler")
    parser.add_argument("--scheduler-ip", required=True, help="the one address the scheduler listens on")
    parser.add_argument("--worker-host", action="append", required=True, help="SSH destination of a worker host (repeat)")
    parser.add_argument("--worker-interface", required=True, help="network interface the workers listen on, e.g. eth1")
    parser.add_argument("--certs", required=True, help="local folder with ca.pem, client.pem, client.key")
    parser.add_argument("--remote-certs", required=True, help="folder on every remote host with its own certificate")
    parser.add_argument("--remote-python", required=True, help="the Python of the venv holding rubricbench[dask]")
    parser.add_argument("--port", type=int, default=8786)
    parser.add_argument("--nworkers", type=int, default=1, help="worker processes per host (one thread each)")
    args = parser.parse_args(argv)
    try:
        kwargs = ssh_cluster_kwargs(scheduler_host=args.scheduler_host, scheduler_ip=args.scheduler_ip,
                                    worker_hosts=args.worker_host, worker_interface=args.worker_interface,
                                    certs=args.certs, remote_python=args.remote_python, port=args.port,
                                    nworkers=args.nworkers)
    except ValueError as exc:
        parser.error(str(exc))
    cluster = start(kwargs, args.remote_certs)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    try:
        print(f"scheduler at {cluster.scheduler_address}; grade with:\n  rubricbench --scheduler "
              f"{cluster.scheduler_address} --tls-ca {args.certs}/ca.pem --tls-cert {args.certs}/client.pem "
              f"--tls-key {args.certs}/client.key", flush=True)
        stop.wait()
    finally:
        cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
