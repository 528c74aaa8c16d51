# Shared checks of start-scheduler.sh and start-worker.sh (sourced, not run).

rb_fail() { echo "$(basename "$0"): error: $*" >&2; exit 2; }

# The one address to listen on: refuse the wildcard addresses Dask would bind to every interface.
rb_check_host() {
    case "$1" in
        "" ) rb_fail "set RB_HOST to the one IP address (or host name) to listen on" ;;
        0.0.0.0|::|"[::]"|"*"|*://*) rb_fail "RB_HOST=$1: give one address of this host, not a wildcard or a URL" ;;
    esac
}

# The CA, a certificate and its key must be there, and the key must be private (0600 or 0400).
rb_check_certs() {  # folder role
    local folder=$1 role=$2 file mode
    [ -n "$folder" ] || rb_fail "set RB_CERTS to the folder of ca.pem, $role.pem and $role.key"
    [ -d "$folder" ] || rb_fail "RB_CERTS=$folder: no such folder (make it with scripts/make_cluster_certs.py)"
    for file in ca.pem "$role.pem" "$role.key"; do
        [ -r "$folder/$file" ] || rb_fail "$folder/$file: missing or unreadable"
    done
    mode=$(stat -c %a "$folder/$role.key")
    case "$mode" in
        600|400) ;;
        *) rb_fail "$folder/$role.key: mode $mode lets others read the key; chmod 600 it" ;;
    esac
}

# The Dask configuration of the recipe (require-encryption, no HTTP routes), unless the
# operator gives a folder of their own in RB_DASK_CONFIG.
rb_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export DASK_CONFIG="${RB_DASK_CONFIG:-$rb_here/dask-config}"
# Belt and braces: environment variables win over every YAML file Dask reads.
export DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION=True
umask 077  # the workers' scratch space and logs are for this user only
