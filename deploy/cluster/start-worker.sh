#!/usr/bin/env bash
# Start RubricBench grading workers on this host: mutual TLS only, one listen address, no
# dashboard, one thread per worker process. See docs/cluster-recipes.md.
#
#   RB_SCHEDULER=tls://10.0.0.5:8786 RB_HOST=10.0.0.21 RB_CERTS=/etc/rubricbench/worker \
#       RB_NWORKERS=-1 deploy/cluster/start-worker.sh
#
# Environment:
#   RB_SCHEDULER       the scheduler's tls:// address, or
#   RB_SCHEDULER_FILE  the file the scheduler wrote (start-scheduler.sh RB_SCHEDULER_FILE).
#   RB_HOST            required: the IP address of this host that the scheduler and the other
#                      workers reach. Only that address is bound; 0.0.0.0 is refused.
#   RB_CERTS           required: a folder with ca.pem, worker.pem and worker.key (0600).
#   RB_NWORKERS        worker processes on this host (default 1; -1: one per CPU). Each has
#                      one thread: the grader runs one unit at a time per process.
#   RB_WORKER_PORT     optional: a port range for the workers, e.g. 9000:9063 (for a firewall).
#   RB_NANNY_PORT      optional: a port range for their nannies, e.g. 9100:9163.
#   RB_DASK            the `dask` command of the venv holding rubricbench[dask], the same
#                      wheel as the client's (default: dask).
#   RB_DASK_CONFIG     a Dask config folder to use instead of deploy/cluster/dask-config.
#
# The process is exec'd: stop it with SIGTERM (or Ctrl-C) to its PID.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

rb_check_host "${RB_HOST:-}"
rb_check_certs "${RB_CERTS:-}" worker

if [ -n "${RB_SCHEDULER_FILE:-}" ]; then
    where=(--scheduler-file "$RB_SCHEDULER_FILE")
else
    case "${RB_SCHEDULER:-}" in
        tls://*) where=("$RB_SCHEDULER") ;;
        *) rb_fail "set RB_SCHEDULER to the scheduler's tls:// address (or RB_SCHEDULER_FILE)" ;;
    esac
fi

args=(
    worker "${where[@]}"
    --protocol tls --host "$RB_HOST"
    --nthreads 1 --nworkers "${RB_NWORKERS:-1}"
    --tls-ca-file "$RB_CERTS/ca.pem"
    --tls-cert "$RB_CERTS/worker.pem"
    --tls-key "$RB_CERTS/worker.key"
    # No dashboard. Dask still opens an HTTP port: keep it on loopback (it has no routes).
    --no-dashboard --dashboard-address 127.0.0.1:0
)
if [ -n "${RB_WORKER_PORT:-}" ]; then
    args+=(--worker-port "$RB_WORKER_PORT")
fi
if [ -n "${RB_NANNY_PORT:-}" ]; then
    args+=(--nanny-port "$RB_NANNY_PORT")
fi
exec "${RB_DASK:-dask}" "${args[@]}"
