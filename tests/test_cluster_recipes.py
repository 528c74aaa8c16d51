"""The cluster recipes (deploy/cluster, docs/cluster-recipes.md) and the certificate script
(scripts/make_cluster_certs.py): the certificates chain and carry the stated names and usages;
the TLS shell recipe really starts a scheduler and a worker that bind 127.0.0.1 only, serve no
dashboard, refuse plain tcp:// and another CA's certificate, and grade; the Slurm recipe's
job script is TLS-only and its worker grades; the Kubernetes manifests and the SSH kwargs say
what the docs say. Every process started here is killed with its process group and reaped."""

from __future__ import annotations

import datetime
import importlib.util
import ipaddress
import json
import os
import signal
import socket
import ssl
import stat
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "deploy" / "cluster"
DASK = Path(sys.executable).parent / "dask"
sys.path.insert(0, str(ROOT / "scripts"))
import make_cluster_certs as certs_script  # noqa: E402

KEY_FILES = ("ca-key.pem", "scheduler.key", "worker.key", "client.key")
CERT_FILES = ("ca.pem", "scheduler.pem", "worker.pem", "client.pem")


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _make(folder: Path, hosts=("127.0.0.1", "localhost"), **kwargs) -> Path:
    pytest.importorskip("cryptography")
    certs_script.write_cluster_certs(folder, list(hosts), **kwargs)
    return folder


# ---- the certificate script -------------------------------------------------------------------
def test_the_certificates_chain_to_a_fresh_ca_with_the_stated_names_usages_and_keys(tmp_path):
    pytest.importorskip("cryptography")
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID as EKU
    from cryptography.x509.verification import PolicyBuilder, Store, VerificationError

    out = _make(tmp_path / "certs", ("10.0.0.5", "Sched.Example.", "::1", "10.0.0.5"), days=30,
                worker_hosts=["10.0.0.21"])
    other = _make(tmp_path / "other")
    load = lambda folder, name: x509.load_pem_x509_certificate((folder / name).read_bytes())  # noqa: E731
    ca, sched, worker, client = (load(out, name) for name in CERT_FILES)
    store = Store([ca])

    def verify(cert, subject, at_store=store):
        return PolicyBuilder().store(at_store).build_server_verifier(subject).verify(cert, [])

    ip = lambda text: x509.IPAddress(ipaddress.ip_address(text))  # noqa: E731
    assert verify(sched, ip("10.0.0.5"))[-1] == ca
    assert verify(sched, ip("::1"))[-1] == ca
    assert verify(sched, x509.DNSName("sched.example"))[-1] == ca
    assert verify(worker, ip("10.0.0.21"))[-1] == ca
    with pytest.raises(VerificationError):
        verify(sched, x509.DNSName("elsewhere.example"))
    with pytest.raises(VerificationError):  # a client certificate is no server's
        verify(client, ip("10.0.0.5"))
    with pytest.raises(VerificationError):  # another CA's scheduler is not ours
        verify(load(other, "scheduler.pem"), ip("127.0.0.1"))
    ca.public_key().verify(client.signature, client.tbs_certificate_bytes, ec.ECDSA(hashes.SHA256()))

    san = sched.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert san.get_values_for_type(x509.IPAddress) == [ipaddress.ip_address("10.0.0.5"), ipaddress.ip_address("::1")]
    assert san.get_values_for_type(x509.DNSName) == ["sched.example"]
    eku = lambda cert: set(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value)  # noqa: E731
    assert eku(sched) == eku(worker) == {EKU.SERVER_AUTH, EKU.CLIENT_AUTH}
    assert eku(client) == {EKU.CLIENT_AUTH}
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    for cert in (ca, sched, worker, client):
        assert isinstance(cert.public_key(), ec.EllipticCurvePublicKey)
        assert cert.public_key().curve.name == "secp256r1"
        assert isinstance(cert.signature_hash_algorithm, hashes.SHA256)
        life = cert.not_valid_after_utc - cert.not_valid_before_utc
        assert datetime.timedelta(days=30) <= life <= datetime.timedelta(days=30, minutes=6)
    for cert in (sched, worker, client):
        assert not cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca

    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    assert {p.name for p in out.iterdir()} == set(KEY_FILES + CERT_FILES)
    for name in KEY_FILES:
        assert stat.S_IMODE((out / name).stat().st_mode) == 0o600, name
    for name in CERT_FILES:
        assert stat.S_IMODE((out / name).stat().st_mode) == 0o644, name


def _handshake(server_ctx: ssl.SSLContext, client_ctx: ssl.SSLContext) -> str | None:
    """A TLS handshake between two sockets on 127.0.0.1: None, or the error either side saw."""
    errors: list[str] = []
    with socket.create_server(("127.0.0.1", 0)) as listener:
        def serve():
            conn, _ = listener.accept()
            try:
                with server_ctx.wrap_socket(conn, server_side=True) as tls:
                    tls.recv(1)
            except (ssl.SSLError, OSError) as exc:
                errors.append(f"server: {exc}")
        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        try:
            with socket.create_connection(listener.getsockname(), timeout=10) as raw, \
                    client_ctx.wrap_socket(raw) as tls:
                tls.sendall(b"x")
                tls.recv(1)  # the server's verdict on our certificate (TLS 1.3 sends it late)
        except (ssl.SSLError, OSError) as exc:
            errors.append(f"client: {exc}")
        thread.join(10)
    return "; ".join(errors) or None


def test_dask_tls_contexts_from_the_certificates_accept_the_cluster_and_refuse_others(tmp_path):
    """Dask's own SSL contexts (the scheduler's listener, a client's connector): a client of
    the cluster's CA is accepted; one of another CA is refused by the scheduler; a client
    certificate cannot serve (its usage is client auth only)."""
    pytest.importorskip("distributed")
    from distributed.security import Security

    out, other = _make(tmp_path / "certs"), _make(tmp_path / "other")

    def security(folder: Path, role: str, ca: Path | None = None) -> Security:
        ca = ca or folder
        return Security(tls_ca_file=str(ca / "ca.pem"), tls_scheduler_cert=str(folder / f"{role}.pem"),
                        tls_scheduler_key=str(folder / f"{role}.key"), tls_client_cert=str(folder / f"{role}.pem"),
                        tls_client_key=str(folder / f"{role}.key"), require_encryption=True)

    server = security(out, "scheduler").get_listen_args("scheduler")["ssl_context"]
    for role in ("client", "worker"):
        assert _handshake(server, security(out, role).get_connection_args("client")["ssl_context"]) is None
    stranger = security(other, "client", ca=out).get_connection_args("client")["ssl_context"]
    assert "server:" in (_handshake(server, stranger) or "")
    client_as_server = security(out, "client").get_listen_args("scheduler")["ssl_context"]
    refused = _handshake(client_as_server, security(out, "client").get_connection_args("client")["ssl_context"])
    assert refused and "unsuitable certificate purpose" in refused


def test_the_script_refuses_to_overwrite_and_writes_nothing_when_any_file_exists(tmp_path):
    out = _make(tmp_path / "certs")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(certs_script.CertError, match="already exists"):
        certs_script.write_cluster_certs(out, ["127.0.0.1"])
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before

    partial = tmp_path / "partial"
    partial.mkdir(mode=0o700)
    (partial / "worker.key").write_text("mine")
    with pytest.raises(certs_script.CertError, match="worker.key: already exists"):
        certs_script.write_cluster_certs(partial, ["127.0.0.1"])
    assert [p.name for p in partial.iterdir()] == ["worker.key"]

    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    with pytest.raises(certs_script.CertError, match="others can read this folder"):
        certs_script.write_cluster_certs(shared, ["127.0.0.1"])
    assert list(shared.iterdir()) == []


@pytest.mark.parametrize("host, message", [
    ("tls://10.0.0.5:8786", "not a URL"),
    ("10.0.0.0/8", "not a URL or a network"),
    ("sched:8786", "has no port"),
    ("*.example", "not a valid host name"),
    ("bad_name.example", "not a valid host name"),
    ("300.1.2.3", "not a valid IP address or host name"),
    ("", "empty host"),
    ("fe80::1%eth0", "zone"),
])
def test_a_bad_host_is_refused_with_a_clear_message(host, message):
    with pytest.raises(certs_script.CertError, match=message):
        certs_script.parse_hosts([host])


def test_the_cli_gives_one_line_errors_without_a_traceback_and_a_help(tmp_path):
    pytest.importorskip("cryptography")
    script = str(ROOT / "scripts" / "make_cluster_certs.py")
    for args in (["--host", "tls://sched:8786"], ["--host", "127.0.0.1", "--days", "0"],
                 ["--host", "127.0.0.1", "--days", "many"], []):
        run = subprocess.run([sys.executable, script, *args, "--out", str(tmp_path / "out")],
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 2, run
        assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
        assert run.stderr.startswith("make_cluster_certs.py: error: "), run.stderr
        assert not (tmp_path / "out").exists()
    helped = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "--host" in helped.stdout and "--days" in helped.stdout
    made = subprocess.run([sys.executable, script, "--host", "127.0.0.1", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "out" / "client.key").exists()


# ---- running recipes: processes, listeners, the grader ------------------------------------------
def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _start(cmd: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                cwd=log.parent, start_new_session=True)


def _wait_for(what: str, check, timeout: float, logs=()) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            tails = "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}" for p in logs if p.exists())
            pytest.fail(f"timed out waiting for {what}\n{tails}")
        time.sleep(0.1)


def _session_members(sessions: set[int]):
    import psutil

    found = []
    for proc in psutil.process_iter():
        try:
            if os.getsid(proc.pid) in sessions and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except (ProcessLookupError, PermissionError, psutil.Error):
            pass
    return found


def _stop(procs: list[subprocess.Popen]) -> None:
    """SIGTERM each process group, SIGKILL what is left after 10 s, reap, and check that no
    process is left: none of those sessions, and none of their descendants (the grader's
    zygote makes a session of its own)."""
    import psutil

    sessions = {p.pid for p in procs}
    tree: dict[int, psutil.Process] = {}
    for proc in procs:
        with _quiet():
            root = psutil.Process(proc.pid)
            tree.update({p.pid: p for p in [root, *root.children(recursive=True)]})

    def alive() -> list[psutil.Process]:
        found = {p.pid: p for p in _session_members(sessions)}
        for pid, p in tree.items():
            with _quiet():
                if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                    found[pid] = p
        return list(found.values())

    for proc in procs:
        with _quiet():
            os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    for member in alive():
        with _quiet():
            member.kill()
    for proc in procs:
        with _quiet():
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    psutil.wait_procs(alive(), timeout=5)
    left = alive()
    assert not left, f"processes left over: {[(p.pid, p.cmdline()[:3]) for p in left]}"


class _quiet:
    def __enter__(self):
        return self

    def __exit__(self, kind, *_):
        import psutil

        return kind is not None and issubclass(kind, (ProcessLookupError, psutil.NoSuchProcess, psutil.ZombieProcess))


def _listening(pid: int) -> dict[int, list[tuple[str, int]]]:
    """{pid: [(ip, port) it listens on]} for ``pid`` and its descendants."""
    import psutil

    root = psutil.Process(pid)
    return {p.pid: [(c.laddr.ip, c.laddr.port) for c in p.net_connections("inet") if c.status == psutil.CONN_LISTEN]
            for p in [root, *root.children(recursive=True)]}


def _http_status(port: int, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as answer:
            return answer.status
    except urllib.error.HTTPError as exc:
        return exc.code


DASHBOARD_PATHS = ("/", "/status", "/info/main/workers.html", "/metrics", "/health", "/json/counts.json",
                   "/proxy/8786/127.0.0.1/status", "/statics/")


def _assert_no_dashboard(ports: list[int]) -> None:
    """Dask's HTTP port (it always opens one) serves no page at all: no dashboard, info pages,
    metrics, health or proxy."""
    for port in ports:
        for path in DASHBOARD_PATHS:
            assert _http_status(port, path) == 404, (port, path)


def _grade(tmp_path: Path, *where: str, certs: Path) -> dict:
    results = tmp_path / "results"
    run = subprocess.run([sys.executable, str(ROOT / "run_benchmark.py"), "-q", *where,
                          "--tls-ca", str(certs / "ca.pem"), "--tls-cert", str(certs / "client.pem"),
                          "--tls-key", str(certs / "client.key"), "--model", "example_model",
                          "--results-dir", str(results)],
                         cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr[-3000:]
    doc = json.loads((results / "latest_results.json").read_text(encoding="utf-8"))
    assert "example_model" in doc["models"]
    assert [w["admitted"] for w in doc["_metadata"]["workers"]] == [True]
    return doc


def _refused(address: str, security) -> None:
    import distributed

    with pytest.raises((OSError, TimeoutError)):
        client = distributed.Client(address, security=security, timeout=3, set_as_default=False)
        client.close()


def test_the_tls_shell_recipe_binds_loopback_only_refuses_strangers_and_grades(tmp_path):
    pytest.importorskip("distributed")
    pytest.importorskip("psutil")
    from distributed.security import Security

    if not DASK.exists():
        pytest.skip(f"no dask command beside {sys.executable}")
    certs, other = _make(tmp_path / "certs"), _make(tmp_path / "other")
    port = _free_port()
    sched_file = tmp_path / "scheduler.json"
    env = {**os.environ, "RB_DASK": str(DASK), "RB_HOST": "127.0.0.1", "RB_CERTS": str(certs),
           "RB_PORT": str(port), "RB_SCHEDULER_FILE": str(sched_file)}
    env.pop("DASK_CONFIG", None)
    logs = [tmp_path / "scheduler.log", tmp_path / "worker.log"]
    procs: list[subprocess.Popen] = []
    try:
        procs.append(_start(["bash", str(RECIPES / "start-scheduler.sh")], env, logs[0]))
        _wait_for("the scheduler file", lambda: sched_file.exists() and sched_file.stat().st_size, 30, logs)
        address = json.loads(sched_file.read_text())["address"]
        assert address == f"tls://127.0.0.1:{port}"
        procs.append(_start(["bash", str(RECIPES / "start-worker.sh")], {**env, "RB_SCHEDULER": address}, logs[1]))
        _wait_for("the worker to register", lambda: b"Registered to:" in logs[1].read_bytes(), 30, logs)

        scheduler = _listening(procs[0].pid)[procs[0].pid]
        assert {ip for ip, _ in scheduler} == {"127.0.0.1"}, scheduler
        assert port in {p for _, p in scheduler} and len(scheduler) == 2, scheduler  # TLS + the HTTP port
        assert 8787 not in {p for _, p in scheduler}
        _assert_no_dashboard([p for _, p in scheduler if p != port])
        workers = [pair for pairs in _listening(procs[1].pid).values() for pair in pairs]
        assert workers and {ip for ip, _ in workers} == {"127.0.0.1"}, workers

        _refused(f"tcp://127.0.0.1:{port}", None)  # plain tcp://
        _refused(address, Security(tls_ca_file=str(certs / "ca.pem"), tls_client_cert=str(other / "client.pem"),
                                   tls_client_key=str(other / "client.key"), require_encryption=True))
        _refused(address, Security(tls_ca_file=str(other / "ca.pem"), tls_client_cert=str(other / "client.pem"),
                                   tls_client_key=str(other / "client.key"), require_encryption=True))

        _grade(tmp_path, "--scheduler", address, certs=certs)
    finally:
        _stop(procs)


def test_the_shell_recipes_refuse_a_wildcard_address_and_a_readable_key(tmp_path):
    certs = _make(tmp_path / "certs")
    base = {**os.environ, "RB_DASK": "/bin/false", "RB_CERTS": str(certs)}
    wild = subprocess.run(["bash", str(RECIPES / "start-scheduler.sh")], env={**base, "RB_HOST": "0.0.0.0"},
                          capture_output=True, text=True, timeout=30)
    assert wild.returncode == 2 and "not a wildcard" in wild.stderr
    (certs / "worker.key").chmod(0o644)
    readable = subprocess.run(["bash", str(RECIPES / "start-worker.sh")],
                              env={**base, "RB_HOST": "127.0.0.1", "RB_SCHEDULER": "tls://127.0.0.1:1"},
                              capture_output=True, text=True, timeout=30)
    assert readable.returncode == 2 and "lets others read the key" in readable.stderr
    (certs / "worker.key").chmod(0o600)
    plain = subprocess.run(["bash", str(RECIPES / "start-worker.sh")],
                           env={**base, "RB_HOST": "127.0.0.1", "RB_SCHEDULER": "tcp://127.0.0.1:1"},
                           capture_output=True, text=True, timeout=30)
    assert plain.returncode == 2 and "tls://" in plain.stderr
    config = (RECIPES / "dask-config" / "rubricbench-tls.yaml").read_text()
    import yaml

    loaded = yaml.safe_load(config)["distributed"]
    assert loaded["comm"]["require-encryption"] is True
    assert loaded["scheduler"]["http"]["routes"] == [] and loaded["worker"]["http"]["routes"] == []


# ---- dask-jobqueue (Slurm) -------------------------------------------------------------------------
def test_the_slurm_recipe_job_script_is_tls_only_and_its_worker_joins_and_grades(tmp_path):
    pytest.importorskip("dask_jobqueue")
    pytest.importorskip("psutil")
    from distributed.comm.utils import get_tcp_server_addresses

    recipe = _load(RECIPES / "slurm_cluster.py")
    certs = _make(tmp_path / "certs")
    sched_file = tmp_path / "scheduler.json"
    kwargs = recipe.slurm_cluster_kwargs(certs=certs, scheduler_host="127.0.0.1", worker_interface="lo",
                                         python=sys.executable, port=0, memory="2GB",
                                         scheduler_file=str(sched_file))
    assert kwargs["security"].require_encryption and kwargs["cores"] == kwargs["processes"] == 1
    procs: list[subprocess.Popen] = []
    cluster = recipe.start(kwargs)
    try:
        address = cluster.scheduler_address
        assert address.startswith("tls://127.0.0.1:")
        assert json.loads(sched_file.read_text())["address"] == address
        scheduler = cluster.scheduler
        assert [listener.listen_address for listener in scheduler.listeners] == [address]
        http = get_tcp_server_addresses(scheduler.http_server)
        assert {host for host, _ in http} == {"127.0.0.1"} and 8787 not in {p for _, p in http}
        _assert_no_dashboard([p for _, p in http])

        script = cluster.job_script()
        command = script.strip().splitlines()[-1]
        for flag in ("--nthreads 1", "--protocol tls://", "--interface lo", "--no-dashboard",
                     "--dashboard-address 127.0.0.1:0", f"--tls-ca-file {certs / 'ca.pem'}",
                     f"--tls-cert {certs / 'worker.pem'}", f"--tls-key {certs / 'worker.key'}"):
            assert flag in command, (flag, command)
        assert command.count("--dashboard-address") == 1 and address in command
        assert "export DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION=True" in script
        assert "scheduler.key" not in script and "client.key" not in script  # the job holds the worker's key only

        job = tmp_path / "job.sh"
        job.write_text(script)
        env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
        procs.append(_start(["bash", str(job)], env, tmp_path / "job.log"))
        _wait_for("the job's worker to join", lambda: len(scheduler.workers) >= 1, 30, [tmp_path / "job.log"])
        (worker,) = list(scheduler.workers.values())
        assert worker.address.startswith("tls://127.0.0.1:") and worker.nthreads == 1
        _grade(tmp_path, "--scheduler-file", str(sched_file), certs=certs)
    finally:
        try:
            _stop(procs)
        finally:
            cluster.close()


# ---- Kubernetes -----------------------------------------------------------------------------------
def test_the_kubernetes_manifests_are_tls_only_cluster_internal_and_mount_one_secret_each():
    import yaml

    recipe = _load(RECIPES / "kubernetes" / "render_manifests.py")
    objects = list(yaml.safe_load_all(yaml.safe_dump_all(recipe.render(
        image="registry.example/rubricbench:1", namespace="grading", workers=3, nworkers=2))))
    kinds = sorted(o["kind"] for o in objects)
    assert kinds == ["Deployment", "Deployment", "NetworkPolicy", "NetworkPolicy", "Service"]
    assert {o["metadata"]["namespace"] for o in objects} == {"grading"}
    text = yaml.safe_dump_all(objects)
    assert "8787" not in text and "client.key" not in text and "hostNetwork" not in text
    assert "NodePort" not in text and "LoadBalancer" not in text and "externalIPs" not in text

    (service,) = [o for o in objects if o["kind"] == "Service"]
    assert service["spec"]["type"] == "ClusterIP"
    assert [p["port"] for p in service["spec"]["ports"]] == [8786]

    deployments = {o["metadata"]["name"].rsplit("-", 1)[1]: o for o in objects if o["kind"] == "Deployment"}
    assert deployments["worker"]["spec"]["replicas"] == 3
    for role, deployment in deployments.items():
        pod = deployment["spec"]["template"]["spec"]
        (container,) = pod["containers"]
        command = container["command"]
        joined = " ".join(command)
        assert command[:2] == ["dask", role]
        assert "--no-dashboard --dashboard-address 127.0.0.1:0" in joined
        assert "--protocol tls" in joined
        for flag, name in (("--tls-ca-file", "ca.pem"), ("--tls-cert", f"{role}.pem"), ("--tls-key", f"{role}.key")):
            assert command[command.index(flag) + 1] == f"/etc/rubricbench/tls/{name}"
        env = {e["name"]: e.get("value") for e in container["env"]}
        assert env["DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION"] == "True"
        assert env[f"DASK_DISTRIBUTED__{role.upper()}__HTTP__ROUTES"] == "[]"
        (secret,) = [v for v in pod["volumes"] if "secret" in v]
        assert secret["secret"]["secretName"] == f"rubricbench-{role}-tls"
        assert secret["secret"]["defaultMode"] & 0o007 == 0
        (mount,) = [m for m in container["volumeMounts"] if m["name"] == secret["name"]]
        assert mount["readOnly"] is True and mount["mountPath"] == "/etc/rubricbench/tls"
        assert pod["automountServiceAccountToken"] is False and pod["securityContext"]["runAsNonRoot"] is True
        assert container["securityContext"]["allowPrivilegeEscalation"] is False
        assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    worker = " ".join(deployments["worker"]["spec"]["template"]["spec"]["containers"][0]["command"])
    assert "tls://rubricbench-scheduler.grading.svc:8786" in worker
    assert "--nthreads 1 --nworkers 2" in worker and "--host $(POD_IP)" in worker

    policies = {o["metadata"]["name"]: o["spec"] for o in objects if o["kind"] == "NetworkPolicy"}
    for spec in policies.values():
        assert spec["policyTypes"] == ["Ingress", "Egress"]
        assert all("ipBlock" not in peer for rule in spec["ingress"] for peer in rule["from"])
    (ingress,) = policies["rubricbench-scheduler"]["ingress"]
    assert ingress["ports"] == [{"protocol": "TCP", "port": 8786}]
    assert [p["podSelector"]["matchLabels"]["app.kubernetes.io/component"] for p in ingress["from"]] == ["worker"]


def test_the_committed_example_manifest_is_what_the_renderer_makes():
    rendered = subprocess.run([sys.executable, str(RECIPES / "kubernetes" / "render_manifests.py"),
                               "--image", "registry.example/rubricbench:0.1.0"],
                              capture_output=True, text=True, timeout=60, check=True).stdout
    assert rendered == (RECIPES / "kubernetes" / "rubricbench-cluster.example.yaml").read_text()


# ---- SSH --------------------------------------------------------------------------------------------
def test_the_ssh_recipe_builds_tls_only_kwargs_and_forwards_paths_not_keys(tmp_path):
    pytest.importorskip("distributed")
    recipe = _load(RECIPES / "ssh_cluster.py")
    certs = _make(tmp_path / "certs")
    kwargs = recipe.ssh_cluster_kwargs(scheduler_host="sched.internal", scheduler_ip="10.0.0.5",
                                       worker_hosts=["w1.internal", "w2.internal"], worker_interface="eth1",
                                       certs=certs, remote_python="/opt/rb/bin/python", nworkers=4)
    assert kwargs["hosts"] == ["sched.internal", "w1.internal", "w2.internal"]
    assert kwargs["scheduler_options"] == {"protocol": "tls", "host": "10.0.0.5", "port": 8786, "dashboard": False,
                                           "dashboard_address": "127.0.0.1:0"}
    assert kwargs["worker_options"] == {"n_workers": 4, "nthreads": 1, "protocol": "tls", "interface": "eth1",
                                        "dashboard": False, "dashboard_address": "127.0.0.1:0"}
    json.dumps([kwargs["scheduler_options"], kwargs["worker_options"]])  # (sent on the remote command line)
    security = kwargs["security"]
    assert security.require_encryption
    assert (security.tls_ca_file, security.tls_client_cert, security.tls_client_key) == (
        str(certs / "ca.pem"), str(certs / "client.pem"), str(certs / "client.key"))
    assert security.get_connection_args("client")["ssl_context"].verify_mode == ssl.CERT_REQUIRED

    remote = recipe.remote_config("/etc/rubricbench/certs/")
    assert remote["distributed.comm.require-encryption"] is True
    assert remote["distributed.scheduler.http.routes"] == [] == remote["distributed.worker.http.routes"]
    assert remote["distributed.comm.tls.scheduler.key"] == "/etc/rubricbench/certs/scheduler.key"
    assert remote["distributed.comm.tls.worker.key"] == "/etc/rubricbench/certs/worker.key"
    assert all("\n" not in str(v) for v in remote.values()) and not any("client" in k for k in remote)
    for bad in ({"scheduler_ip": "0.0.0.0"}, {"worker_interface": ""}, {"worker_hosts": []}):
        args = {**dict(scheduler_host="s", scheduler_ip="10.0.0.5", worker_hosts=["w"], worker_interface="eth1",
                       certs=certs, remote_python="python"), **bad}
        with pytest.raises(ValueError):
            recipe.ssh_cluster_kwargs(**args)
