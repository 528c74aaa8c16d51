"""The cluster flags, and which scheduler addresses we will talk to (no Dask import here).

The Dask comm is a code-execution channel: any peer that can speak to a scheduler or worker
can run code on the workers. So a scheduler that is not on this machine's loopback must be
reached over ``tls://`` with a CA, a client certificate and a key (mutual TLS); plain
``tcp://`` is accepted only on loopback. Everything else is refused before connecting.
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass
from pathlib import Path

LOCAL = re.compile(r"local:([1-9][0-9]{0,2})")
SCHEMES = ("tcp", "tls")


class ClusterConfigError(Exception):
    """Cluster flags we refuse (a bad spec, an insecure address, an unreadable scheduler file)."""


@dataclass(frozen=True)
class ClusterSpec:
    """``local_workers`` (``--cluster local:N``), ``address`` (``--scheduler``) or
    ``scheduler_file`` (``--scheduler-file``): exactly one; TLS files for a remote scheduler."""

    local_workers: int | None = None
    address: str | None = None
    scheduler_file: str | None = None
    tls_ca: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None

    @property
    def tls_files(self) -> bool:
        return bool(self.tls_ca and self.tls_cert and self.tls_key)

    def describe(self) -> dict[str, object]:
        """The flags given, for the run's manifest (``config.cluster``)."""
        given = {"cluster": f"local:{self.local_workers}" if self.local_workers else None,
                 "scheduler": self.address, "scheduler_file": self.scheduler_file,
                 "tls_ca": self.tls_ca, "tls_cert": self.tls_cert, "tls_key": self.tls_key}
        return {name: value for name, value in given.items() if value is not None}


def parse_local(value: str) -> int:
    """``local:N`` -> N (1 to 999); raises ClusterConfigError otherwise."""
    match = LOCAL.fullmatch(value.strip())
    if not match:
        raise ClusterConfigError(f"--cluster {value!r}: expected local:N with N a worker count, "
                                 f"e.g. local:4 (use --scheduler for an existing cluster)")
    return int(match.group(1))


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 or ``localhost``; a name is never resolved (DNS could say anything)."""
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def split_address(address: str) -> tuple[str, str]:
    """(scheme, host) of a Dask address; ``host:port`` alone is ``tcp``, as Dask reads it."""
    scheme, _, rest = address.partition("://") if "://" in address else ("tcp", "", address)
    host = rest.rsplit(":", 1)[0] if rest.count(":") == 1 or rest.startswith("[") else rest
    return scheme.lower(), host


def address_problem(address: str, tls_configured: bool) -> str | None:
    """Why we refuse to connect to ``address``, or None. ``tls_configured``: a CA, a client
    certificate and a key are given (flags or Dask's ``distributed.comm.tls`` config)."""
    scheme, host = split_address(address)
    if scheme not in SCHEMES:
        return f"scheduler {address}: only tcp:// (loopback) and tls:// are accepted"
    if scheme == "tls":
        return None if tls_configured else (
            f"scheduler {address}: tls:// needs --tls-ca, --tls-cert and --tls-key (or Dask's "
            f"distributed.comm.tls configuration) for mutual TLS")
    if is_loopback(host):
        return None
    return (f"scheduler {address}: plain tcp:// is accepted only on loopback; anyone who can "
            f"reach an unauthenticated Dask scheduler can run code on its workers, so a remote "
            f"scheduler must be tls:// with --tls-ca/--tls-cert/--tls-key (docs/cluster.md)")


def scheduler_file_address(path: str) -> str:
    """The ``address`` a ``dask scheduler --scheduler-file`` wrote; ClusterConfigError otherwise."""
    try:
        address = json.loads(Path(path).read_text(encoding="utf-8"))["address"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ClusterConfigError(f"--scheduler-file {path}: no scheduler address in it "
                                 f"({type(exc).__name__}: {exc})") from None
    if not isinstance(address, str) or not address:
        raise ClusterConfigError(f"--scheduler-file {path}: its address is not a string")
    return address
