"""The hostile-submission suite: every attack in tests/hostile/ is contained.

Each folder under tests/hostile/ holds the planted file(s) of one attack and ``attack.json``
(see tests/hostile/README.md). The test composes a full submission folder (planted files
plus the reference answers for the other prompts), grades it beside a clean copy of the
reference model through the real CLI, and asserts:

- the attack's defined outcome (attacked prompt not passed / at most N points, the expected
  kinds of blocked attempt, status);
- the clean model's results are identical to a clean run, timings and timestamps aside;
- no process is left, nothing outside the sandboxes changed (the repository's test data and
  submissions, a victim folder, the results written before), a victim process outside the run
  is still alive, the loopback listener the test opened received no connection, and the
  grader's secret never appears in any output.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import psutil
import pytest

from benchmark import cli
from benchmark.secure_runner import GUARD_OFF_ENV

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model"
HOSTILE = Path(__file__).parent / "hostile"
ATTACKS = sorted(p.name for p in HOSTILE.iterdir() if (p / "attack.json").is_file())
SECRET = "rb-secret-7f3a9c1e5d"
VOLATILE = {"timestamp", "wall_s", "cpu_s", "peak_rss_mb", "run_id", "finished_at",
            "timestamp_utc", "started_at"}


class Listener:
    """A listener that counts connections: loopback TCP (the only network target allowed),
    or a named unix socket in the outside folder."""

    def __init__(self, unix_path: Path | None = None) -> None:
        if unix_path is None:
            self.sock = socket.socket()
            self.sock.bind(("127.0.0.1", 0))
            self.port = self.sock.getsockname()[1]
        else:
            self.sock = socket.socket(socket.AF_UNIX)
            self.sock.bind(str(unix_path))
            self.port = 0
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.connections = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=2)
        self.sock.close()


class DatagramListener:
    """A named unix datagram socket in the outside folder that counts what it receives."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.2)
        self.received = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                self.sock.recv(4096)
            except OSError:
                continue
            self.received += 1

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=2)
        self.sock.close()


class SharedMemory:
    """A SysV shared memory segment of the host's, holding a canary, and the host's SysV
    objects as /proc/sysvipc lists them (to show a run left none behind)."""

    CANARY = b"host segment canary"

    def __init__(self) -> None:
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.shmat.restype = ctypes.c_void_p
        self.key = secrets.randbelow(1 << 30) + 1
        self.id = self.libc.shmget(self.key, 4096, 0o1000 | 0o600)  # IPC_CREAT
        assert self.id >= 0, ctypes.get_errno()
        self.address = self.libc.shmat(self.id, None, 0)
        ctypes.memmove(self.address, self.CANARY, len(self.CANARY))

    def content(self) -> bytes:
        return ctypes.string_at(self.address, len(self.CANARY))

    @staticmethod
    def objects() -> set[str]:
        """SysV objects that a run of ours could have left: a shared memory segment made by
        a live process outside this test's tree belongs to someone else (a suite running
        beside this one) and is not counted."""
        found = set()
        ours = {os.getpid()} | {p.pid for p in psutil.Process().children(recursive=True)}
        for kind in ("shm", "msg", "sem"):
            rows = [line.split() for line in Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]]
            for row in filter(None, rows):
                creator = int(row[4]) if kind == "shm" else None
                if creator == 0 or (creator and creator not in ours and psutil.pid_exists(creator)):
                    continue  # 0: made in a pid namespace this test cannot see into
                found.add(f"{kind}:{row[1]}")
        return found

    def close(self) -> None:
        self.libc.shmdt(ctypes.c_void_p(self.address))
        self.libc.shmctl(self.id, 0, None)  # IPC_RMID


def _snapshot(*folders: Path) -> dict[str, str]:
    digest = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_socket():
                continue
            if path.is_file() and not path.is_symlink():
                digest[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
            elif path.is_symlink():
                digest[str(path)] = "link:" + os.readlink(path)
    return digest


def _normalise(value):
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    return value


def _fill(text: str, env: dict[str, str]) -> str:
    for key, value in env.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def _compose(attack: str, target: Path, env: dict[str, str]) -> None:
    shutil.copytree(REFERENCE, target)
    for planted in (HOSTILE / attack).iterdir():
        if planted.name in ("attack.json", "README.md"):
            continue
        (target / planted.name).write_text(_fill(planted.read_text(encoding="utf-8"), env),
                                           encoding="utf-8")


def _grade(tree: Path) -> tuple[int, dict]:
    code = cli.main(["--all-models", "--submissions-dir", str(tree / "submissions"),
                     "--results-dir", str(tree / "results"), "-q", "--no-metadata"])
    return code, json.loads((tree / "results" / "latest_results.json").read_text())


def _host_shared_memory(remove: bool = False) -> list[str]:
    """The machine's POSIX shared memory objects and named semaphores (``sem.NAME``) named as
    an attack names its own (files in /dev/shm, outside every sandbox); removed when asked."""
    shm = Path("/dev/shm")
    found = sorted([*shm.glob("rubricbench_hostile_*"), *shm.glob("sem.rubricbench_hostile_*")]
                   if shm.is_dir() else [])
    if remove:
        for path in found:
            path.unlink(missing_ok=True)
    return [path.name for path in found]


def _sandbox_processes() -> list[psutil.Process]:
    """Live descendants of this test process: the grader is a subreaper, so anything a
    sandbox left behind (even a detached daemon) is re-parented below it. Only our own
    descendants count, so suites running at the same time do not see each other."""
    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            if proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            continue
    return found


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory):
    tree = tmp_path_factory.mktemp("clean")
    shutil.copytree(REFERENCE, tree / "submissions" / "reference_implementations" / "clean_model")
    (tree / "submissions" / "user_submissions").mkdir()
    _, doc = _grade(tree)
    return _normalise(doc["models"]["clean_model"])


@pytest.fixture
def environment(tmp_path, monkeypatch):
    monkeypatch.setenv("RUBRICBENCH_TEST_DATA", str(ROOT / "test_data"))
    monkeypatch.setenv("RUBRICBENCH_TIMEOUT", "6")
    monkeypatch.setenv("RUBRICBENCH_GRADER_SECRET", SECRET)
    listener = Listener()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("do not touch\n")
    unix_listener = Listener(outside / "service.sock")
    datagrams = DatagramListener(outside / "datagram.sock")
    shared = SharedMemory()
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield {"PORT": str(listener.port), "OUTSIDE": str(outside), "REPO": str(ROOT),
           "TEST_DATA": str(ROOT / "test_data"), "RESULTS": str(tmp_path / "results"),
           "SUBMISSIONS": str(tmp_path / "submissions"), "SECRET_NAME": "RUBRICBENCH_GRADER_SECRET",
           "UNIX_SOCKET": str(outside / "service.sock"), "UNIX_DGRAM": str(outside / "datagram.sock"),
           "SHM_KEY": str(shared.key), "VICTIM_PID": str(victim.pid), "_victim": victim,
           "_listener": listener, "_unix_listener": unix_listener,
           "_datagrams": datagrams, "_shared": shared, "_tree": tmp_path}
    listener.close()
    unix_listener.close()
    datagrams.close()
    shared.close()
    victim.kill()
    victim.wait(timeout=10)


def test_there_are_at_least_thirty_attacks():
    assert len(ATTACKS) >= 30, ATTACKS


@pytest.mark.parametrize("layers", ["all-layers", "kernel-only"])
@pytest.mark.parametrize("attack", ATTACKS)
def test_attack_is_contained(attack, layers, environment, clean_run, monkeypatch):
    """Every attack is contained with every layer on, and by the kernel layer alone (the
    guard switched off): the guard only adds depth and the evidence of what it denied."""
    if layers == "kernel-only":
        monkeypatch.setenv(GUARD_OFF_ENV, "1")
    spec = json.loads((HOSTILE / attack / "attack.json").read_text())
    tree: Path = environment["_tree"]
    env = {k: v for k, v in environment.items() if not k.startswith("_")}
    subs = tree / "submissions"
    shutil.copytree(REFERENCE, subs / "reference_implementations" / "clean_model")
    _compose(attack, subs / "user_submissions" / "hostile_model", env)
    (tree / "results").mkdir()
    (tree / "results" / "earlier.json").write_text('{"keep": true}\n')
    watched = (ROOT / "test_data", ROOT / "submissions", ROOT / "benchmark",
               tree / "outside", subs / "reference_implementations")
    before = _snapshot(*watched)
    processes_before = {p.pid for p in _sandbox_processes()}
    ipc_before = SharedMemory.objects()
    _host_shared_memory(remove=True)  # a failed run's, not this one's

    code, doc = _grade(tree)

    assert code in (0, 3, 4), f"grader exit code {code}"
    assert _normalise(doc["models"]["clean_model"]) == clean_run
    assert _snapshot(*watched) == before, "a file outside the sandbox changed"
    assert (tree / "results" / "earlier.json").read_text() == '{"keep": true}\n'
    assert environment["_listener"].connections == 0, "the loopback listener was reached"
    assert environment["_unix_listener"].connections == 0, "the unix socket outside was reached"
    assert environment["_datagrams"].received == 0, "the datagram socket outside was reached"
    assert environment["_shared"].content() == SharedMemory.CANARY, "the host's SysV memory changed"
    assert environment["_victim"].poll() is None, "a process outside the run was signalled"
    assert SharedMemory.objects() == ipc_before, "SysV IPC objects were left behind"
    assert not _host_shared_memory(remove=True), "POSIX shared memory or a semaphore got out"
    leftovers = [p for p in _sandbox_processes() if p.pid not in processes_before]
    for proc in leftovers:
        proc.kill()
    assert not leftovers, f"processes survived: {[p.pid for p in leftovers]}"
    results_text = "".join(p.read_text(errors="replace") for p in (tree / "results").rglob("*") if p.is_file())
    assert SECRET not in results_text, "the grader's secret reached the results"
    assert (doc["_metadata"]["isolation"]["guard"]["status"] == "off") == (layers == "kernel-only")
    _assert_outcome(spec, doc["models"]["hostile_model"], guard=layers == "all-layers")


def _assert_outcome(spec: dict, model: dict, *, guard: bool) -> None:
    """The attack's own expectations; what only the guard reports (its ``blocked`` evidence
    and the points that evidence costs) is asserted with the guard on."""
    prompt = model["prompts"][spec["prompt"]]
    expect = dict(spec["expect"])
    if not guard:
        expect.pop("blocked", None)
        expect.pop("reported", None)
        expect["checks_at_most"] = {k: v for k, v in expect.get("checks_at_most", {}).items()
                                    if k != "sandbox_violations"}
        violation = next((c for c in prompt["checks"] if c["id"] == "sandbox_violations"), None)
        if "max_score" in expect and violation:  # no evidence, so its points are not lost
            expect["max_score"] += violation["points"]
    if "max_score" in expect:
        assert prompt["score"] <= expect["max_score"], (prompt["score"], expect)
    if expect.get("passed") is False:
        assert prompt["passed"] is False
    if "status" in expect:
        assert prompt["status"] == expect["status"], prompt.get("error")
    if "blocked" in expect:
        violation = next(c for c in prompt["checks"] if c["id"] == "sandbox_violations")
        kinds = violation["rationale"].rpartition(": ")[2].split(", ")  # every kind denied
        for kind in expect["blocked"]:
            assert kind in kinds, (kind, violation)
    for check_id, most in expect.get("checks_at_most", {}).items():
        check = next(c for c in prompt["checks"] if c["id"] == check_id)
        assert check["earned"] <= most, check
    for text in expect.get("reported", []):  # a denial the guard reported after tampering
        violation = next(c for c in prompt["checks"] if c["id"] == "sandbox_violations")
        assert any(text in e["note"] for e in violation["evidence"]), (text, violation)
    if "timeouts_at_most" in expect:
        ran_out = [run for run in prompt["execution"] if run["timed_out"] and not run.get("skipped")]
        assert len(ran_out) <= expect["timeouts_at_most"], prompt["execution"]
    if "not_in_output" in expect:
        text = json.dumps(prompt)
        assert expect["not_in_output"] not in text
