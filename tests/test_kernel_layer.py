"""The kernel layer's parts on their own: the seccomp program, the private root, the guard's
report framing, and the audit hook's behaviour on input it does not expect."""

from __future__ import annotations

import ctypes
import dataclasses
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import types
from pathlib import Path

import pytest

from benchmark import cli
from benchmark.sandbox import isolation, pids_cgroup
from benchmark.harness import child, mounts, seccomp
from benchmark.secure_runner import GUARD_OFF_ENV, PIDS_MAX, SecureRunner

HARNESS = Path(child.__file__).parent
# the modules child.py loads by path (the objects its supervisor and worker use)
strict_json, modes, worker = (child._load_by_path(name) for name in ("strict_json", "modes", "worker"))


def _in_fork(action) -> str:
    """Run ``action()`` in a forked child; return what it wrote (its verdicts) as text."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        try:
            os.write(write_fd, action().encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd) as reader:
        text = reader.read()
    os.waitpid(pid, 0)
    return text


def _seccomp_verdicts() -> str:
    seccomp.install_deny_list()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long

    def errno_of(number, *args):
        result = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(a) for a in args])
        return 0 if result >= 0 else ctypes.get_errno()

    def socket_errno(make):
        try:
            for sock in make() if isinstance(make(), tuple) else (make(),):
                sock.close()
            return 0
        except OSError as exc:
            return exc.errno

    verdicts = {
        "io_uring_setup": errno_of(425, 4, 0),
        "shmget": errno_of(29, 0, 4096, 0o1600),
        "msgget": errno_of(68, 0, 0o1600),
        "semget": errno_of(64, 0, 1, 0o1600),
        "mq_open": errno_of(240, 0, 0, 0, 0),  # EFAULT (a null name) if it were let through
        "x32 socket": errno_of(0x40000000 + 41, socket.AF_INET, socket.SOCK_STREAM, 0),
        "unix socket": socket_errno(lambda: socket.socket(socket.AF_UNIX)),
        "netlink socket": socket_errno(lambda: socket.socket(16, socket.SOCK_RAW)),
        "vsock socket": socket_errno(lambda: socket.socket(40, socket.SOCK_STREAM)),
        "datagram pair": socket_errno(lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)),
        "seqpacket pair": socket_errno(lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)),
        "inet socket": socket_errno(lambda: socket.socket(socket.AF_INET)),
        "inet6 socket": socket_errno(lambda: socket.socket(socket.AF_INET6)),
        "stream pair": socket_errno(lambda: socket.socketpair()),
        "getpid": errno_of(39),
    }
    return json.dumps(verdicts)


@pytest.mark.skipif(not seccomp.supported(), reason="no seccomp table for this machine (x86_64, aarch64)")
def test_seccomp_denies_io_uring_sysv_ipc_x32_and_non_ip_sockets_and_allows_the_rest():
    verdicts = json.loads(_in_fork(_seccomp_verdicts))
    allowed = {"inet socket", "inet6 socket", "stream pair", "getpid"}
    assert {name: code for name, code in verdicts.items() if name in allowed} == dict.fromkeys(allowed, 0)
    denied = {name: code for name, code in verdicts.items() if name not in allowed}
    assert denied == dict.fromkeys(denied, 1), denied  # EPERM each


@pytest.mark.skipif(not isolation.detect().private_root, reason="no private root on this machine")
def test_private_root_holds_only_the_read_paths_and_a_size_capped_copy_of_the_sandbox(tmp_path):
    sandbox = tmp_path / "sandbox"
    (sandbox / "work").mkdir(parents=True)
    (sandbox / "work" / "staged.txt").write_text("staged")
    outside = tmp_path / "outside.txt"
    outside.write_text("outside")
    reads, _ = isolation.default_paths(sandbox, HARNESS)

    def inside() -> str:
        isolation.enter_namespaces(network=False, pid=False, mount=True)
        os.chdir(sandbox / "work")
        mounts.private_root(str(sandbox), list(reads), 2)
        written = 0
        try:
            with open("fill", "wb") as out:
                for _ in range(4):
                    out.write(b"x" * (1 << 20))
                    out.flush()
                    written += 1
        except OSError:
            pass
        try:
            open(Path(reads[0]) / "probe-write", "w").close()
            read_only = False
        except OSError:
            read_only = True
        return json.dumps({"cwd": os.getcwd(), "staged": Path("staged.txt").read_text(),
                           "outside": outside.exists(), "grader": Path(isolation.__file__).exists(),
                           "written_mb": written, "reads_read_only": read_only})

    seen = json.loads(_in_fork(inside))
    assert seen == {"cwd": str(sandbox / "work"), "staged": "staged", "outside": False,
                    "grader": False, "written_mb": 1, "reads_read_only": True}
    assert not (sandbox / "work" / "fill").exists()  # the writes went to the run's tmpfs


@pytest.mark.skipif(not isolation.detect().private_root, reason="no private root on this machine")
@pytest.mark.parametrize("under_shm", [False, True], ids=["sandbox-elsewhere", "sandbox-under-dev-shm"])
def test_the_private_roots_dev_shm_is_the_runs_own_and_size_capped(tmp_path, under_shm):
    """Named semaphores (multiprocessing's locks, ThreadPool) are made in /dev/shm: the
    private root has one of its own, a 1 MB tmpfs that the machine's never sees; a sandbox
    whose path lies under /dev/shm (where staging puts it) is still there, beneath it."""
    if under_shm and not os.path.isdir(mounts.SHM):
        pytest.skip("no /dev/shm on this machine")
    base = Path(tempfile.mkdtemp(dir=mounts.SHM)) if under_shm else tmp_path
    sandbox = base / "sandbox"
    (sandbox / "work").mkdir(parents=True)
    (sandbox / "work" / "staged.txt").write_text("staged")
    name = f"rubricbench-test-{os.getpid()}"
    reads, _ = isolation.default_paths(sandbox, HARNESS)

    def inside() -> str:
        isolation.enter_namespaces(network=False, pid=False, mount=True)
        os.chdir(sandbox / "work")
        mounts.private_root(str(sandbox), list(reads), 2)
        import _multiprocessing  # a named semaphore, made (and its name removed) as a Lock does

        _multiprocessing.SemLock(1, 1, 1, f"/{name}-sem", True).acquire()
        written = 0
        try:
            with open(f"{mounts.SHM}/{name}", "wb") as out:
                for _ in range(8):
                    out.write(b"x" * (1 << 18))
                    out.flush()
                    written += 1
        except OSError:
            pass
        return json.dumps({"staged": Path("staged.txt").read_text(), "quarters_written": written,
                           "shm_names": sorted(os.listdir(mounts.SHM))})

    try:
        seen = json.loads(_in_fork(inside))
    finally:
        if under_shm:
            shutil.rmtree(base)
    assert seen["staged"] == "staged" and seen["quarters_written"] in (3, 4)  # 1 MB at most
    assert name in seen["shm_names"] and not os.path.exists(f"{mounts.SHM}/{name}")


def _compose(text: str) -> dict:
    status = 0  # a normal exit
    return child._compose({"mode": "call"}, text, status)


@pytest.mark.skipif(not isolation.detect().private_root, reason="no private root on this machine")
def test_the_private_root_probe_holds_from_any_working_folder(tmp_path, monkeypatch):
    """The probe's child works in its sandbox, as a run's does: from a working folder that is
    no ancestor of a read path or of the temporary folder (the new root keeps the working
    folder's path), it used to fail, and the run then went without a private root."""
    elsewhere = tmp_path / "not" / "in" / "the" / "new" / "root"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    isolation._probe_private_root()  # raises OSError when the root was not as built


def test_a_partial_line_on_the_report_pipe_cannot_hide_a_record():
    record = '{"blocked": "network", "event": "socket.connect", "detail": ""}'
    text = '{"blocked": "nothing", "event": ' + "\n" + record + "\n" + '\n{"result": {"x": 1}}\n'
    composed = _compose(text)
    kinds = [event["blocked"] for event in composed["blocked_events"]]
    assert kinds == ["network", "integrity"] and composed["reported"] and composed["x"] == 1


def test_clean_report_pipe_has_no_integrity_event():
    composed = _compose('\n{"result": {"x": 1}}\n')
    assert composed["blocked_events"] == [] and composed["malformed_lines"] == 0


GUARD_PROBE = textwrap.dedent("""
    import json, os, sys
    sys.path.insert(0, {harness!r})
    import guard
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    guard.install({sandbox!r}, [], False, write_fd)

    class Odd:
        def __fspath__(self):
            raise AssertionError("the guard called code of the submission's")

    def noop():
        pass

    outcomes = {{}}
    attempts = {{  # sys.audit hands the hook any object, as a C function could
        "nul byte": lambda: sys.audit("open", "/etc/passwd\\x00", "w", 0),
        "path-like": lambda: sys.audit("open", Odd(), "w", 0),
        "remove path-like": lambda: sys.audit("os.remove", Odd(), -1),
        "outside": lambda: open("/etc/hostname-rb", "w"),
        "replace code": lambda: setattr(guard._resolve, "__code__", noop.__code__),
        "replace defaults": lambda: setattr(guard._resolve, "__defaults__", None),
        "delete defaults": lambda: delattr(guard._resolve, "__defaults__"),
    }}
    for name, attempt in attempts.items():
        try:
            attempt()
            outcomes[name] = "allowed"
        except BaseException as exc:
            outcomes[name] = type(exc).__name__
            context = exc.__context__
            outcomes[name + " context"] = type(context).__name__ if context else None
    inside = os.path.join({sandbox!r}, "ok.txt")
    open(inside, "w").close()
    outcomes["inside"] = "allowed"
    lines = os.read(read_fd, 1 << 16).decode().split("\\n")
    outcomes["records"] = [json.loads(line)["blocked"] for line in lines if line]
    print(json.dumps(outcomes))
""")


def test_the_guard_denies_odd_input_without_raising_anything_else_and_keeps_working(tmp_path):
    code = GUARD_PROBE.format(harness=str(HARNESS), sandbox=str(tmp_path))
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    outcomes = json.loads(done.stdout)
    for name in ("nul byte", "path-like", "remove path-like", "outside", "replace code",
                 "replace defaults", "delete defaults"):
        assert outcomes[name] == "PermissionError", (name, outcomes)
        assert outcomes[name + " context"] is None, (name, outcomes)  # no inner traceback
    assert outcomes["inside"] == "allowed"  # and the guard still resolves paths as before
    assert outcomes["records"] == ["filesystem"] * 4 + ["introspection"] * 3


def _guard_verdict(hook, event, args):
    try:
        hook(event, args)
        return "allowed"
    except PermissionError:
        return "denied"


def test_the_guards_quick_pass_lets_through_only_what_its_full_check_allows(tmp_path):
    from benchmark.harness import guard

    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    hook = guard._make_hook((str(tmp_path),), (str(tmp_path), "/usr"), False, write_fd, os.getpid())
    assert hook.__defaults__[-1] is guard.WATCHED_EVENTS

    class Event(str):  # a str subclass: never hashed by the hook's quick pass
        pass

    outside, inside = "/etc/hostname-rb", str(tmp_path / "x")
    cases = [(name, ()) for name in sorted(guard.WATCHED_EVENTS)] + [
        ("open", (outside, "w", 0)), ("open", (inside, "w", 0)), ("open", ("/usr/lib", "r", 0)),
        ("os.remove", (outside, -1)), ("os.kill", (os.getpid(), 9)), ("os.kill", (1, 9)),
        ("socket.bind", (None, ("127.0.0.1", 0))), ("socket.bind", (None, ("8.8.8.8", 0))),
        ("object.__setattr__", (len, "__code__", None)), ("object.__setattr__", (len, "x", 1)),
        ("builtins.id", (1,)), ("object.__getattr__", (len, "__code__")), ("exec", (None,)),
        ("compile", (b"", "x")), ("import", ("os", None, [], [], [])), ("sys._getframe", (None,)),
        ("os.listdir", (outside,)), ("os.chdir", ("/",)), ("marshal.loads", (b"",)),
        ("socket.__new__", (None, 2, 1, 0)), (Event("open"), (outside, "w", 0)),
        (Event("builtins.id"), (1,)), (3, ()),
    ]
    # the same hook with every event of the cases watched: the full check for each of them
    everything = guard.WATCHED_EVENTS | {str(e) for e, _ in cases}
    check = types.FunctionType(hook.__code__, hook.__globals__, "check",
                               hook.__defaults__[:-1] + (everything,), hook.__closure__)
    verdicts = [(_guard_verdict(hook, e, a), _guard_verdict(check, e, a)) for e, a in cases]
    assert all(quick == full for quick, full in verdicts), list(zip(cases, verdicts))
    denied = [str(e) for (e, _), (v, _) in zip(cases, verdicts) if v == "denied"]
    # what is let through at once is exactly what the full check lets through
    assert not set(denied) - guard.WATCHED_EVENTS - {"builtins.id", "3"}
    assert _guard_verdict(hook, Event("builtins.id"), (1,)) == "denied"  # integrity, as before
    assert _guard_verdict(hook, 3, ()) == "denied"
    for name in ("builtins.id", "object.__getattr__", "exec", "compile", "os.chdir"):
        assert name not in guard.WATCHED_EVENTS and _guard_verdict(check, name, ()) == "allowed"
    records = os.read(read_fd, 1 << 20).decode().split("\n")
    os.close(read_fd)
    os.close(write_fd)
    assert sum(1 for line in records if line) == 2 * len(denied) + 2  # each denial reported


def test_the_guards_tables_cannot_be_changed_and_are_the_ones_its_hook_holds(tmp_path):
    """``guard_events`` (loaded by path as ``_rubricbench_guard_events``) holds only immutable
    values, and the hook holds those very objects: nothing a submission reaches there through
    ``sys.modules`` changes what the guard checks."""
    from benchmark.harness import guard

    events = sys.modules["_rubricbench_guard_events"]

    def frozen(value):
        return type(value) in (str, int) or (
            type(value) in (tuple, frozenset) and all(frozen(item) for item in value))

    names = [name for name in vars(events) if name.isupper()]
    assert {"WATCHED_EVENTS", "PATH_EVENTS", "STAND_INS", "RECORD_CAP"} <= set(names)
    assert [name for name in names if not frozen(getattr(events, name))] == []
    assert all(getattr(guard, name) is getattr(events, name) for name in names)
    read_fd, write_fd = os.pipe()
    hook = guard._make_hook((str(tmp_path),), (str(tmp_path), "/usr"), False, write_fd, os.getpid())
    os.close(read_fd)
    os.close(write_fd)
    held = {id(value) for value in hook.__defaults__}
    assert all(id(getattr(events, name)) in held for name in ("NETWORK_EVENTS", "PATH_EVENTS",
               "DIR_FD_EVENTS", "REPLACED_MODULES", "WATCHED_EVENTS", "RECORD_CAP"))


def test_the_guard_checks_what_c_code_opens_with_no_open_event(tmp_path):
    """SQLite opens its database itself and shm_open makes a file in /dev/shm: the guard
    checks the name sqlite3.connect gets, denies its own shared-memory events, and refuses a
    fresh copy of a module whose functions it replaced, whatever name the copy is given."""
    from benchmark.harness import guard

    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    hook = guard._make_hook((str(tmp_path),), (str(tmp_path), "/usr"), False, write_fd, os.getpid())
    inside, outside = str(tmp_path / "data.db"), "/etc/rb-outside.db"
    verdicts = {
        "memory": ("sqlite3.connect", (":memory:",)),
        "temporary": ("sqlite3.connect", ("",)),
        "inside": ("sqlite3.connect", (inside,)),
        "inside bytes": ("sqlite3.connect", (inside.encode(),)),
        "inside URI": ("sqlite3.connect", ("file:" + inside + "?mode=rwc",)),
        "memory URI": ("sqlite3.connect", ("file::memory:?cache=shared",)),
        "outside": ("sqlite3.connect", (outside,)),
        "outside by ..": ("sqlite3.connect", (str(tmp_path) + "/../rb.db",)),
        "outside URI": ("sqlite3.connect", ("FILE://localhost" + outside + "#x",)),
        "URI with a host": ("sqlite3.connect", ("file://example.org" + inside,)),
        "URI with an escape": ("sqlite3.connect", ("file:" + str(tmp_path) + "/%2e%2e/rb.db",)),
        "path object": ("sqlite3.connect", (tmp_path / "data.db",)),
        "no argument": ("sqlite3.connect", ()),
        "shm_open": ("rubricbench.shm_open", ("",)),
        "shm_unlink": ("rubricbench.shm_unlink", ("",)),
        "fresh copy": ("import", ("copy._posixshmem", "/usr/lib/x.so", None, None, None)),
        "fresh fork_exec": ("import", ("_posixsubprocess", "/usr/lib/y.so", None, None, None)),
        "odd name": ("import", (Path("x"), "/usr/lib/z.so", None, None, None)),
        "other extension": ("import", ("_json", "/usr/lib/_json.so", None, None, None)),
        "source import": ("import", ("_posixshmem", None, None, None, None)),
    }
    got = {name: _guard_verdict(hook, event, args) for name, (event, args) in verdicts.items()}
    allowed = {"memory", "temporary", "inside", "inside bytes", "inside URI", "memory URI",
               "other extension", "source import"}
    assert got == {name: "allowed" if name in allowed else "denied" for name in verdicts}
    records = [json.loads(line) for line in os.read(read_fd, 1 << 20).decode().split("\n") if line]
    os.close(read_fd)
    os.close(write_fd)
    assert [r["blocked"] for r in records] == ["filesystem"] * 9 + ["native"] * 3
    assert records[0]["detail"] == "write " + outside


def test_pool_runs_leave_no_pids_cgroup_behind(tmp_path):
    groups, why = pids_cgroup.detect()
    if groups is None:
        pytest.skip(f"no pids cgroup here: {why}")
    reference = Path(__file__).resolve().parent.parent / "submissions" / "reference_implementations"
    for name in ("model_a", "model_b"):
        shutil.copytree(reference / "example_model", tmp_path / "subs" / "user_submissions" / name)
    assert cli.main(["--all-models", "--workers", "2", "--no-cache", "-q", "--no-metadata",
                     "--submissions-dir", str(tmp_path / "subs"),
                     "--results-dir", str(tmp_path / "results")]) == cli.EXIT_OK
    own = groups.folder.parent
    stale = [folder.name for folder in own.glob("rubricbench-*")
             if pids_cgroup._gone(folder.name, pids_cgroup.pid_namespace())]
    assert stale == [] and list(groups.folder.glob("run-*")) == []


THREADS = """
import threading, time
threading.stack_size(64 * 1024)
started = 0
try:
    for _ in range(150):
        threading.Thread(target=time.sleep, args=(2,), daemon=True).start()
        started += 1
except RuntimeError:
    pass
print("STARTED", started)
"""


@pytest.mark.parametrize("namespaces", [True, False], ids=["with-namespaces", "cgroup-alone"])
def test_the_pids_limit_bounds_the_tasks_of_a_run(namespaces):
    runner = SecureRunner("pids")
    support = runner.support
    if not support or not (support.pids_cgroup or (namespaces and support.user_namespaces)):
        pytest.skip("no pids limit on this machine")
    if not support.pids_cgroup and os.geteuid() == 0:
        pytest.skip("root is exempt from RLIMIT_NPROC and there is no pids cgroup")
    if not namespaces:
        if not support.pids_cgroup:
            pytest.skip("no pids cgroup: without namespaces nothing bounds tasks")
        runner.support = dataclasses.replace(
            support, user_namespaces=False, network_namespace=False, pid_namespace=False,
            ipc_namespace=False, private_root=False)
    result = runner.run_harness({"mode": "script", "module": "threads.py"},
                                {"threads.py": THREADS.encode()}, timeout=20)
    started = int(result.stdout.split()[-1])
    assert result.stdout.startswith("STARTED") and 10 < started < PIDS_MAX, result.stdout


def test_the_cache_key_says_whether_the_guard_was_on(monkeypatch):
    from benchmark.engine.cache import run_context
    from benchmark.engine.options import GradeOptions

    test_data = Path(__file__).resolve().parent.parent / "test_data"
    guarded = run_context(test_data, GradeOptions())
    monkeypatch.setenv(GUARD_OFF_ENV, "1")
    assert run_context(test_data, GradeOptions()) != guarded


def test_the_supervisor_waits_for_an_exiting_worker_without_polling():
    """At end of file on the report pipe the worker is waited for, not polled: a worker that
    closes the pipe and then takes a while to end costs the supervisor no CPU meanwhile."""
    import time as _time

    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the "worker": one line, the pipe closed, then a slow end
        os.close(read_fd)
        os.write(write_fd, b'{"result": {}}\n')
        os.close(write_fd)
        _time.sleep(0.4)
        os._exit(3)
    os.close(write_fd)
    started = _time.process_time()
    text, status, timed_out = child._collect(read_fd, pid)
    assert text == '{"result": {}}\n' and os.WEXITSTATUS(status) == 3 and not timed_out
    assert _time.process_time() - started < 0.1  # polling spun here for the whole 0.4 s


def test_the_supervisor_ends_a_worker_at_its_deadline_and_keeps_what_it_wrote():
    """At the request's deadline the supervisor kills the worker's group itself and still has
    every line written before: its record, evidence included, does not depend on the zygote's
    later kill."""
    import time as _time

    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the "worker": one denied attempt reported, then it hangs, group leader
        os.setpgid(0, 0)
        os.close(read_fd)
        os.write(write_fd, b'\n{"blocked": "network", "event": "socket.connect", "detail": ""}\n')
        _time.sleep(30)
        os._exit(0)
    os.close(write_fd)
    started = _time.monotonic()
    text, status, timed_out = child._collect(read_fd, pid, started + 0.5)
    assert timed_out and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    assert '"socket.connect"' in text and _time.monotonic() - started < 10
    record = child._compose({"mode": "call"}, text, status, timed_out)
    assert record["worker_timed_out"] is True and record["blocked_events"] == [
        {"blocked": "network", "event": "socket.connect", "detail": "", "count": 1}]


# ---- the harness's strict JSON encoder: fast path and checked path agree ----------------------


def _encoded(value):
    try:
        return strict_json._encode(value)
    except TypeError as exc:
        return ("TypeError", str(exc))


def _checked(value):
    try:
        return strict_json._encode_checked(value)
    except TypeError as exc:
        return ("TypeError", str(exc))


def _nested(levels):
    outer = inner = []
    for _ in range(levels):
        inner.append([])
        inner = inner[0]
    return outer


class _Str(str):
    pass


class _Dict(dict):
    def items(self):  # a forgery the C encoder would call for a dict subclass
        return [("forged", 1)]


class _Int(int):
    def __repr__(self):
        return "999"


def _edge_cases():
    cycle = []
    cycle.append(cycle)
    cycle.append(cycle)
    return [
        None, True, False, 0, -0.0, 1e300, 5e-324, 2 ** 63, -10 ** 40, "", "a\u00e9\"\n\t\ud800\x00",
        [], {}, (), [1, (2, 3)], {"b": 1, "a": [None, {"é": 0.1}], "": "x"},
        float("nan"), float("inf"), {"a": float("-inf")}, {1: 2}, {"a": {2: 1}}, [_Str("x")], {_Str("k"): 1},
        _Dict(a=1), _Int(5), [True, _Int(1)], set(), b"x", object(), [float("nan"), {1: 2}],
        [{1: 2}, float("nan")], 10 ** 5000, [10 ** 4299, -10 ** 4400], 2 ** 70_001,
        _nested(199), _nested(200), _nested(201), [_nested(199), float("nan")], cycle,
    ]


def test_the_fast_encoder_writes_the_checked_encoders_text_and_errors():
    import random

    for value in _edge_cases():
        assert _encoded(value) == _checked(value), repr(value)[:80]
    rng = random.Random(7)
    leaves = [None, True, False, 0, -5, 10 ** 30, 1.5, -0.0, "a\u00e9\"x", "", 2 ** 63]

    def make(depth=0):
        roll = rng.random()
        if depth > 4 or roll < 0.4:
            return rng.choice(leaves)
        if roll < 0.7:
            return [make(depth + 1) for _ in range(rng.randint(0, 4))]
        return {rng.choice("abAB") + str(i): make(depth + 1) for i in range(rng.randint(0, 4))}

    for _ in range(3000):
        value = make()
        assert _encoded(value) == _checked(value)


def test_plain_values_take_the_fast_path_and_anything_else_the_checked_one():
    plain = [{"id": i, "name": f"user {i}", "tags": ["a"], "score": i / 3, "ok": None} for i in range(50)]
    assert strict_json._fast_encode(plain) == strict_json._encode_checked(plain)
    for value in (_Dict(a=1), [_Int(5)], {1: 2}, float("nan"), _nested(201), 2 ** 70_001):
        assert strict_json._fast_encode(value) is None


def test_ints_past_the_digit_limit_take_the_fast_path_and_the_limit_is_put_back():
    limit = sys.get_int_max_str_digits()
    for value in ([10 ** 5000, -(10 ** 4400) - 7], {"id": 2 ** 70_000 - 1}, 10 ** 4299 * 11):
        text = strict_json._fast_encode(value)
        assert text is not None and text == strict_json._encode_checked(value)
        assert sys.get_int_max_str_digits() == limit
    sys.set_int_max_str_digits(640)  # below the checked encoder's chunk: it decides, as before
    try:
        assert strict_json._fast_encode([10 ** 5000]) is None
    finally:
        sys.set_int_max_str_digits(limit)


def test_an_encoding_started_deeper_refuses_what_would_pass_the_depth_limit():
    assert strict_json._encode(_nested(197), 3) == strict_json._encode(_nested(197))
    for encode in (strict_json._encode, strict_json._encode_checked):
        with pytest.raises(TypeError, match="too deep"):
            encode(_nested(198), 3)


def test_a_call_takes_its_value_text_at_once_and_refuses_one_too_deep_for_the_record():
    shared = [1]

    def grow(items):
        shared.append(len(items))
        items.append(0)
        return shared

    result, text = modes._invoke(grow, [[5]], {})
    shared.append("later")  # a later call changing the object changes nothing taken
    assert text == "[1,1]" and result["mutated"] is True and result["unserializable"] is None
    result, text = modes._invoke(lambda: _nested(197), [], {})
    assert text == strict_json._encode(_nested(197)) and result["mutated"] is False
    result, text = modes._invoke(lambda: _nested(198), [], {})
    assert text is None and "too deep" in result["unserializable"] and result["returned"]


def test_each_call_line_carries_its_value_text_as_taken_and_the_record_line_the_count():
    sent = []
    record = {"import_error": None, "function_found": True, "results": modes._Results(sent.append)}
    values = [{"b": [1, 2.5, None], "a": "\u00e9"}, 10 ** 5000, None, [], {}]
    for index, value in enumerate(values):
        record["results"].add({"label": f"c{index}", "returned": True}, strict_json._encode(value, 3))
    record["results"].add({}, None)  # a value that could not be written
    calls = [strict_json._decode(line.strip())["call"] for line in sent]
    assert [r.get("value") for r in calls] == values + [None]
    assert calls[0] == {"label": "c0", "returned": True, "value": values[0]}
    assert calls[-1] == {"value": None}
    decoded = strict_json._decode(worker._record_line(record))["result"]
    assert decoded == {"import_error": None, "function_found": True, "calls": len(values) + 1}
    plain = {"import_error": None, "results": []}
    assert worker._record_line(dict(plain)) == '{"result": ' + strict_json._encode(plain) + "}\n"
    assert strict_json._decode(worker._record_line({"results": modes._Results(sent.append)})) == {
        "result": {"calls": 0}}


def test_the_fast_encoder_follows_a_lowered_int_digit_limit_back_to_the_checked_one():
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)  # a submission may lower it in its worker
    try:
        value = [10 ** 1000]
        assert strict_json._encode(value) == "[" + "1" + "0" * 1000 + "]"
    finally:
        sys.set_int_max_str_digits(limit)


def test_the_guard_sees_through_directory_descriptors_and_refuses_listings_outside(tmp_path):
    """A path relative to a directory descriptor is relative to a folder the audit event does
    not name (``open`` from os.open does not even say whether it had one): the guard refuses
    a descriptor of a folder outside the sandbox, ``..`` from such an unnamed folder, and a
    link that points out of the sandbox, so no descriptor's path can lead outside unseen."""
    from benchmark.harness import guard

    (tmp_path / "sub").mkdir()
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    hook = guard._make_hook((str(tmp_path),), (str(tmp_path), "/usr"), False, write_fd, os.getpid())
    directory, creating = os.O_RDONLY | os.O_DIRECTORY, os.O_WRONLY | os.O_CREAT
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        cases = {
            # os.open (mode None) of a folder: outside the sandbox it would be an unseen base
            ("open", ("/usr", None, directory)): "denied",
            ("open", ("/usr/lib", None, os.O_RDONLY)): "denied",
            ("open", (str(tmp_path / "sub"), None, directory)): "allowed",
            ("open", ("sub", None, directory)): "allowed",
            ("open", ("/usr/lib", "r", 0)): "allowed",  # io.open cannot open a folder
            # .. where a descriptor may be the base: os.open always, other events with a dir_fd
            ("open", ("../x", None, creating)): "denied",
            ("open", ("sub/../x", None, os.O_RDONLY)): "denied",
            ("open", ("sub/x", None, creating)): "allowed",
            ("os.remove", ("../x", 3)): "denied",
            ("os.remove", ("sub/../x", -1)): "allowed",  # no descriptor: the working folder
            ("os.mkdir", ("../x", 0o777, 3)): "denied",
            ("os.rename", ("a", "../b", 3, -1)): "denied",
            ("os.rename", ("a", "b", 3, 3)): "allowed",
            # links: the target must stay in the sandbox, wherever the link is moved
            ("os.symlink", ("/usr/lib", "link", -1)): "denied",
            ("os.symlink", ("../../etc", "link", -1)): "denied",
            ("os.symlink", (str(tmp_path / "sub"), "link", -1)): "allowed",
            ("os.symlink", ("sub/x", "link", 3)): "allowed",
            # folder listings are reads: os.listdir, os.scandir (os.walk, glob, pathlib)
            ("os.listdir", ("/etc",)): "denied",
            ("os.scandir", (b"/etc",)): "denied",
            ("os.listdir", ("/usr",)): "allowed",
            ("os.scandir", (None,)): "allowed",  # the working folder, in the sandbox
            ("os.listdir", (3,)): "allowed",  # a descriptor: opened under the rules above
        }
        # an extension module: native code, only from the read roots that are not the sandbox
        cases.update({
            ("import", ("json", None, (), (), ())): "allowed",  # a source module: no file name
            ("import", ("_x", "/usr/lib/_x.so", None, None, None)): "allowed",
            ("import", ("_x", str(tmp_path / "_x.so"), None, None, None)): "denied",
            ("import", ("_x", "_x.so", None, None, None)): "denied",  # relative: the sandbox
            ("import", ("_x", "/opt/_x.so", None, None, None)): "denied",
            ("import", ("_x", 7, None, None, None)): "denied",
        })
        verdicts = {case: _guard_verdict(hook, *case) for case in cases}
    finally:
        os.chdir(cwd)
    assert verdicts == cases
    records = [json.loads(line) for line in os.read(read_fd, 1 << 20).decode().split("\n") if line]
    os.close(read_fd)
    os.close(write_fd)
    assert len(records) == list(cases.values()).count("denied")
    assert {r["blocked"] for r in records} == {"filesystem", "native"}
    assert any("directory descriptor outside the sandbox" in r["detail"] for r in records)


def test_the_supervisor_assembles_streamed_calls_and_refuses_lines_the_worker_did_not_count():
    """The worker streams each call's result (and an http call's requests and log lines) and
    ends with the counts: the supervisor builds ``results`` from those lines, and a line the
    submission wrote itself (one more call, request or log line, a repeated label) is an
    integrity violation; a worker that died before its final line is no forgery."""
    def line(key, value):
        return json.dumps({key: value})

    calls = [line("call", {"label": "a", "returned": True, "request_count": 1, "log_count": 1}),
             line("call", {"label": "b", "returned": True, "request_count": 0, "log_count": 0})]
    request = line("request", {"label": "a", "view": {"url": "https://x"}})
    log = line("log", {"label": "a", "line": "INFO:m:hello"})
    final = line("result", {"import_error": None, "calls": 2})
    record = child._compose({"mode": "http"}, "\n".join([request, log, *calls, final]), 0)
    assert record["integrity"] is None and record["reported"]
    assert [r["label"] for r in record["results"]] == ["a", "b"]
    assert record["results"][0]["requests"] == [{"url": "https://x"}]
    assert record["results"][0]["log"] == "INFO:m:hello" and record["results"][1]["requests"] == []
    forged = line("request", {"label": "a", "view": {"url": "https://y"}})
    for extra in (forged, calls[1], line("log", {"label": "zz", "line": "x"})):
        text = "\n".join([request, log, *calls, extra, final])
        assert "forgery" in child._compose({"mode": "http"}, text, 0)["integrity"], extra
    died = child._compose({"mode": "call"}, "\n".join(calls), 0)
    assert died["integrity"] is None and not died["reported"]


def test_the_seal_reports_a_changed_harness_name_or_code_once_and_ignores_the_warnings_registry():
    seal_module = child._load_by_path("seal")
    read_fd, write_fd = os.pipe()
    try:
        check = seal_module.make(write_fd, "harness changed")
        assert check() == ()
        vars(modes)["__warningregistry__"] = {}  # what a warning with stacklevel=2 adds
        assert check() == ()
        original = modes._cpu_time
        modes._cpu_time = lambda: 0.0
        try:
            assert check() == ("_rubricbench_modes._cpu_time",)
            assert check() == ("_rubricbench_modes._cpu_time",)  # reported once
        finally:
            modes._cpu_time = original
        code = modes._digests.__code__
        modes._digests.__code__ = (lambda value: None).__code__
        try:
            assert any("_digests (code or defaults)" in name for name in check())
        finally:
            modes._digests.__code__ = code
        assert check() == ()
        os.close(write_fd)
        lines = [json.loads(text) for text in os.read(read_fd, 65536).decode().split("\n") if text]
        assert [(e["blocked"], e["event"]) for e in lines] == [("integrity", "harness changed")] * 2
    finally:
        vars(modes).pop("__warningregistry__", None)
        os.close(read_fd)
