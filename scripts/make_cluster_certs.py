#!/usr/bin/env python3
"""Make a fresh certificate authority and the certificates of one Dask grading cluster.

    python scripts/make_cluster_certs.py --host 10.0.0.5 --host sched.internal --out certs/

writes, into a new folder (mode 0700), a CA and three certificates it signed, each with its
private key (mode 0600):

    ca.pem         ca-key.pem       the cluster's own CA (keep ca-key.pem offline)
    scheduler.pem  scheduler.key    the scheduler: server and client use; its host names and
                                    IPs (--host) as SubjectAlternativeNames
    worker.pem     worker.key       every worker: server and client use (workers and the
                                    scheduler connect to each other); --worker-host adds SANs
    client.pem     client.key       the grading client (rubricbench --tls-cert/--tls-key):
                                    client use only

Keys are EC P-256, signatures SHA-256. No file is ever overwritten. Dask checks only that a
peer's certificate chains to the CA, not its host name: anyone who holds ANY key signed by
this CA can run code on the whole cluster (docs/cluster-recipes.md). Use one CA per cluster.

Importable: ``parse_hosts``, ``make_ca``, ``make_leaf``, ``write_cluster_certs``.
Needs the ``cryptography`` package (in the ``[dask]`` extra).
"""

from __future__ import annotations

import argparse
import datetime
import ipaddress
import os
import re
import stat
import sys
from pathlib import Path

MAX_DAYS = 825  # the longest life a TLS certificate should have; rotate the whole set
DEFAULT_DAYS = 90
DEFAULT_NAME = "rubricbench-cluster"
ROLES = ("scheduler", "worker", "client")
FILES = {"ca": ("ca.pem", "ca-key.pem"), **{role: (f"{role}.pem", f"{role}.key") for role in ROLES}}
_LABEL = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")


class CertError(Exception):
    """Input we refuse or a file we will not write; the message is one line for the user."""


def _crypto():
    """The ``cryptography`` modules, or a CertError that says how to install them."""
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    except ImportError:
        raise CertError("the 'cryptography' package is missing: pip install 'rubricbench[dask]'") from None
    return x509, hashes, serialization, ec, ExtendedKeyUsageOID, NameOID


def parse_hosts(values: list[str]) -> tuple[list[ipaddress.IPv4Address | ipaddress.IPv6Address], list[str]]:
    """(IP addresses, DNS names) from host names and IPs, in order and without repeats.
    Raises CertError for anything that is neither (a URL, a port, a wildcard, a bad label)."""
    ips: list = []
    names: list[str] = []
    for raw in values:
        value = raw.strip()
        if not value:
            raise CertError("empty host: give a host name or an IP address")
        if "://" in value or "/" in value:
            raise CertError(f"host {raw!r}: give a bare host name or IP, not a URL or a network")
        try:
            ip = ipaddress.ip_address(value[1:-1] if value.startswith("[") and value.endswith("]") else value)
        except ValueError:
            ip = None
        if ip is not None:
            if getattr(ip, "scope_id", None):
                raise CertError(f"host {raw!r}: an IPv6 address with a zone (%...) cannot be a SAN")
            if ip not in ips:
                ips.append(ip)
            continue
        if ":" in value:
            raise CertError(f"host {raw!r}: not an IP address, and a host name has no port")
        name = value.rstrip(".").lower()
        if not name.isascii():
            raise CertError(f"host {raw!r}: use the ASCII (xn--) form of an international name")
        labels = name.split(".")
        if len(name) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
            raise CertError(f"host {raw!r}: not a valid host name (letters, digits, '-' and dots; "
                            f"no wildcards)")
        if labels[-1].isdigit():
            raise CertError(f"host {raw!r}: not a valid IP address or host name")
        if name not in names:
            names.append(name)
    return ips, names


def _check_days(days: int) -> int:
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_DAYS:
        raise CertError(f"--days {days!r}: give a whole number of days from 1 to {MAX_DAYS}")
    return days


def _window(days: int) -> tuple[datetime.datetime, datetime.datetime]:
    now = datetime.datetime.now(datetime.timezone.utc)
    return now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=days)  # (clock skew)


def make_ca(name: str = DEFAULT_NAME, days: int = DEFAULT_DAYS):
    """A new self-signed CA that may sign leaf certificates only: (private key, certificate)."""
    x509, hashes, _, ec, _, NameOID = _crypto()
    _check_days(days)
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, name),
                         x509.NameAttribute(NameOID.COMMON_NAME, f"{name} CA")])
    start, end = _window(days)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(end)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False,
                                         encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    return key, cert


def make_leaf(ca_key, ca_cert, role: str, hosts: list[str] | None = None, days: int = DEFAULT_DAYS,
              name: str = DEFAULT_NAME):
    """A certificate for ``role`` (scheduler, worker or client) signed by the CA: (key, cert).
    Scheduler and worker: server and client auth; client: client auth only. ``hosts`` become
    SubjectAlternativeNames (IPs as IP entries, names as DNS entries)."""
    x509, hashes, _, ec, EKU, NameOID = _crypto()
    if role not in ROLES:
        raise CertError(f"role {role!r}: expected one of {', '.join(ROLES)}")
    _check_days(days)
    ips, names = parse_hosts(list(hosts or []))
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, name),
                         x509.NameAttribute(NameOID.COMMON_NAME, f"{name} {role}")])
    usages = [EKU.CLIENT_AUTH] if role == "client" else [EKU.SERVER_AUTH, EKU.CLIENT_AUTH]
    start, end = _window(days)
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(ca_cert.subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(start).not_valid_after(min(end, ca_cert.not_valid_after_utc))
               .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=False, crl_sign=False,
                                            content_commitment=False, key_encipherment=False,
                                            data_encipherment=False, key_agreement=False,
                                            encipher_only=False, decipher_only=False), critical=True)
               .add_extension(x509.ExtendedKeyUsage(usages), critical=False)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
               .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                              critical=False))
    if ips or names:
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ip) for ip in ips] + [x509.DNSName(n) for n in names]), critical=False)
    return key, builder.sign(ca_key, hashes.SHA256())


def _prepare_folder(out: Path) -> None:
    """Create ``out`` with mode 0700, or accept an existing folder only others cannot enter."""
    if out.is_symlink():
        raise CertError(f"{out}: is a symbolic link; give a real folder")
    if out.exists():
        if not out.is_dir():
            raise CertError(f"{out}: exists and is not a folder")
        mode = stat.S_IMODE(out.stat().st_mode)
        if mode & 0o077:
            raise CertError(f"{out}: others can read this folder (mode {mode:o}); "
                            f"run chmod 700 on it or give a new folder")
        return
    try:
        out.mkdir(mode=0o700, parents=True)
        os.chmod(out, 0o700)  # (mkdir's mode is cut by the umask, never widened)
    except OSError as exc:
        raise CertError(f"{out}: cannot create the folder: {exc.strerror or exc}") from None


def _write_new(path: Path, data: bytes, mode: int) -> None:
    """Write a file that must not exist yet, with exactly ``mode``."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode)
    except FileExistsError:
        raise CertError(f"{path}: already exists; nothing is overwritten (use a new --out folder)") from None
    except OSError as exc:
        raise CertError(f"{path}: cannot write: {exc.strerror or exc}") from None
    with os.fdopen(handle, "wb") as stream:
        os.fchmod(stream.fileno(), mode)
        stream.write(data)


def write_cluster_certs(out: str | os.PathLike, hosts: list[str], days: int = DEFAULT_DAYS,
                        worker_hosts: list[str] | None = None, name: str = DEFAULT_NAME) -> dict[str, Path]:
    """Make a CA and the scheduler, worker and client certificates and write them into ``out``;
    returns {"ca": path, "ca-key": path, "scheduler": ..., "scheduler-key": ..., ...}.
    ``hosts``: the scheduler's host names and IPs (at least one). Refuses to overwrite."""
    if not hosts:
        raise CertError("give at least one --host: the scheduler's IP address or host name")
    parse_hosts(list(hosts))
    parse_hosts(list(worker_hosts or []))
    _check_days(days)
    if not name or not name.isprintable() or len(name) > 48:
        raise CertError(f"--name {name!r}: give a short printable name (up to 48 characters)")
    out = Path(out)
    targets = [out / file for pair in FILES.values() for file in pair]
    existing = [str(p) for p in targets if p.exists() or p.is_symlink()]
    if existing:
        raise CertError(f"{existing[0]}: already exists; nothing is overwritten (use a new --out folder)")
    _, _, serialization, _, _, _ = _crypto()
    ca_key, ca_cert = make_ca(name, days)
    made = {"ca": (ca_key, ca_cert)}
    made["scheduler"] = make_leaf(ca_key, ca_cert, "scheduler", hosts, days, name)
    made["worker"] = make_leaf(ca_key, ca_cert, "worker", worker_hosts, days, name)
    made["client"] = make_leaf(ca_key, ca_cert, "client", None, days, name)
    _prepare_folder(out)
    written: dict[str, Path] = {}
    for role, (key, cert) in made.items():
        cert_file, key_file = FILES[role]
        _write_new(out / cert_file, cert.public_bytes(serialization.Encoding.PEM), 0o644)
        _write_new(out / key_file, key.private_bytes(serialization.Encoding.PEM,
                                                     serialization.PrivateFormat.PKCS8,
                                                     serialization.NoEncryption()), 0o600)
        written[role], written[f"{role}-key"] = out / cert_file, out / key_file
    return written


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, no usage block
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="make_cluster_certs.py",
        description="Make a fresh CA and the scheduler, worker and client certificates of one "
                    "Dask grading cluster (EC P-256, SHA-256). See docs/cluster-recipes.md.")
    parser.add_argument("--host", action="append", default=[], metavar="NAME_OR_IP", required=True,
                        help="the scheduler's host name or IP address, as clients and workers reach it "
                             "(repeat for each; IPs become IP SANs, names DNS SANs)")
    parser.add_argument("--worker-host", action="append", default=[], metavar="NAME_OR_IP",
                        help="a worker host's name or IP for the worker certificate's SANs (optional: "
                             "Dask does not check host names)")
    parser.add_argument("--days", type=int, default=DEFAULT_DAYS,
                        help=f"validity in days, 1 to {MAX_DAYS} (default {DEFAULT_DAYS})")
    parser.add_argument("--out", default="cluster-certs", metavar="DIR",
                        help="output folder, created with mode 0700 (default ./cluster-certs); "
                             "existing files are never overwritten")
    parser.add_argument("--name", default=DEFAULT_NAME,
                        help=f"a name for this cluster, put in the certificates' subjects (default {DEFAULT_NAME})")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        written = write_cluster_certs(args.out, args.host, args.days, args.worker_host, args.name)
    except CertError as exc:
        print(f"make_cluster_certs.py: error: {exc}", file=sys.stderr)
        return 2
    for label, path in written.items():
        print(f"{label:14} {path}")
    print("Keep ca-key.pem offline; give each host only its own key (docs/cluster-recipes.md).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
