#!/usr/bin/env bash
# Start the scheduler of a RubricBench grading cluster: mutual TLS only, one listen address,
# no dashboard. See docs/cluster-recipes.md.
#
#   RB_HOST=10.0.0.5 RB_CERTS=/etc/rubricbench/scheduler deploy/cluster/start-scheduler.sh
#
# Environment:
#   RB_HOST            required: the IP address (or host name) of this host that workers and
#                      clients reach. Only that address is bound; 0.0.0.0 is refused.
#                      IPv6 goes in brackets: [fd00::5].
#   RB_CERTS           required: a folder with ca.pem, scheduler.pem and scheduler.key (0600)
#                      from scripts/make_cluster_certs.py. No other key belongs on this host.
#   RB_PORT            the TLS port (default 8786).
#   RB_SCHEDULER_FILE  optional: write the scheduler's address to this file, for
#                      `dask worker --scheduler-file` and `rubricbench --scheduler-file`.
#   RB_DASK            the `dask` command of the venv holding rubricbench[dask] (default: dask).
#   RB_DASK_CONFIG     a Dask config folder to use instead of deploy/cluster/dask-config.
#
# The process is exec'd: stop it with SIGTERM (or Ctrl-C) to its PID.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

rb_check_host "${RB_HOST:-}"
rb_check_certs "${RB_CERTS:-}" scheduler

args=(
    scheduler
    --protocol tls --host "$RB_HOST" --port "${RB_PORT:-8786}"
    --tls-ca-file "$RB_CERTS/ca.pem"
    --tls-cert "$RB_CERTS/scheduler.pem"
    --tls-key "$RB_CERTS/scheduler.key"
    # No dashboard. Dask still opens an HTTP port: keep it on loopback (it has no routes).
    --no-dashboard --dashboard-address 127.0.0.1:0
)
if [ -n "${RB_SCHEDULER_FILE:-}" ]; then
    args+=(--scheduler-file "$RB_SCHEDULER_FILE")
fi
exec "${RB_DASK:-dask}" "${args[@]}"
