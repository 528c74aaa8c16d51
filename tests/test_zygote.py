"""The sandbox zygote (benchmark/harness/zygote.py) and its grader-side client (benchmark/sandbox/spawner.py).

Behaviour tests: no grader secret in the zygote or its children, a dead zygote is replaced,
a run in flight when the zygote dies fails clearly and leaves nothing behind, concurrent
runs never see each other's output, the timeout kills every process of a run, orphan
sweeps spare the zygote, and a run that hits its memory limit does not harm the zygote.

Every hostile action here is bounded: no network, capped memory, short timeouts, and every
process a test provokes is killed and reaped by the test itself if the code under test
leaves it alive.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest

from benchmark.sandbox import process_tools as pt
from benchmark.sandbox import spawner
from benchmark.secure_runner import SecureRunner

SCRIPT = {"mode": "script", "module": "main.py"}


# ---- helpers ---------------------------------------------------------------------------------


def _src(code: str) -> bytes:
    return textwrap.dedent(code).encode()


def script(runner: SecureRunner, code: str, argv=(), *, timeout: float = 10, guard: bool = True):
    return runner.run_harness({**SCRIPT, "argv": list(argv)}, {"main.py": _src(code)},
                              timeout=timeout, guard=guard)


def wait_for(predicate, timeout: float = 10.0, step: float = 0.02):
    """Poll ``predicate`` until it is truthy or ``timeout`` passes; return its last value.
    (Used to let asynchronous clean-up happen, never to assert on durations.)"""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(step)


def alive(proc: psutil.Process) -> bool:
    """The very process (pid and start time) still exists and is not a zombie."""
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def live_descendants(pid: int) -> list[psutil.Process]:
    return [p for p in descendants(pid) if alive(p)]


def describe(proc: psutil.Process) -> str:
    try:
        return f"pid {proc.pid} (parent {proc.ppid()}, {proc.status()})"
    except psutil.Error:
        return f"pid {proc.pid} (gone)"


def kill_and_reap(procs) -> None:
    """Test clean-up: SIGKILL whatever survived, and reap those that are our own children."""
    me = os.getpid()
    for proc in procs:
        try:
            if proc.is_running():
                proc.kill()
        except psutil.Error:
            pass
    for proc in procs:
        try:
            if proc.ppid() == me:
                proc.wait(timeout=5)
        except (psutil.Error, psutil.TimeoutExpired, ChildProcessError):
            pass


def retire(zygote: spawner.Zygote) -> None:
    """Wait until a zygote that was closed or killed is reaped and its reader thread has
    noticed (so the next ``spawner.get()`` starts a new one)."""
    try:
        zygote.process.wait(timeout=10)
    except Exception:
        zygote.process.kill()
        zygote.process.wait(timeout=10)
    assert wait_for(lambda: zygote.closed is not None, 10), "the reader thread never saw the zygote go"


def fresh_zygote() -> spawner.Zygote:
    """Close this process's zygote and start a new one (inheriting the current environment)."""
    old = spawner.get()
    old.close()
    retire(old)
    new = spawner.get()
    assert new is not old and new.process.pid != old.process.pid
    new.wait_ready()
    return new


@pytest.fixture
def healthy_zygote():
    """A live zygote before the test, and a live (possibly new) one left behind after it."""
    zygote = spawner.get()
    zygote.wait_ready()
    yield zygote
    current = spawner.get()
    if current.process.poll() is not None:
        retire(current)
    spawner.get().wait_ready()


# ---- 1. no grader secret in the zygote or its children ----------------------------------------

ENVIRON_PROBE = """
    import json, os

    def environ_of(pid):
        try:
            with open(f"/proc/{pid}/environ", "rb") as handle:
                return handle.read().decode("utf-8", "replace").split("\\0")
        except OSError as exc:
            return f"unreadable: {type(exc).__name__}"

    print(json.dumps({"os_environ": dict(os.environ), "self": environ_of("self"),
                      "parent": environ_of(os.getppid())}))
"""


@pytest.mark.parametrize("confined", [True, False], ids=["kernel-layer", "process-layer-only"])
def test_zygote_and_children_hold_no_grader_secret(monkeypatch, healthy_zygote, confined):
    secret = "rb-secret-" + secrets.token_hex(16)
    monkeypatch.setenv("RUBRICBENCH_TEST_SECRET", secret)
    zygote = fresh_zygote()  # started after the secret was set: it would inherit it if it could

    with open(f"/proc/{zygote.process.pid}/environ", "rb") as handle:
        zygote_environ = handle.read().decode("utf-8", "replace")
    assert "PYTHONHASHSEED=0" in zygote_environ  # we did read the zygote's environment
    assert secret not in zygote_environ and "RUBRICBENCH_TEST_SECRET" not in zygote_environ

    # process-layer only (no Landlock) lets the child read /proc, so the probe really looks
    runner = SecureRunner("t") if confined else SecureRunner("t", kernel=False)
    res = script(runner, ENVIRON_PROBE, guard=confined)
    assert res.returncode == 0, res.stderr
    probe = json.loads(res.stdout)
    for text in (res.stdout, res.stderr, json.dumps(res.observation),
                 json.dumps(res.blocked_events)):
        assert secret not in text
    assert "RUBRICBENCH_TEST_SECRET" not in probe["os_environ"]
    if not confined:
        # a forked child's /proc/self/environ is the zygote's start-up environment
        assert isinstance(probe["self"], list) and "PYTHONHASHSEED=0" in probe["self"]
    assert spawner.get() is zygote, "the probe run must have used the fresh zygote"


# ---- 2. a killed zygote is replaced ---------------------------------------------------------


def test_killed_zygote_is_replaced_by_a_new_one(healthy_zygote):
    old = healthy_zygote
    old_pid = old.process.pid
    os.kill(old_pid, signal.SIGKILL)
    retire(old)
    assert old_pid not in spawner.protected_pids()

    res = script(SecureRunner("t"), "print('after the restart')")
    assert res.returncode == 0 and res.stdout.strip() == "after the restart"
    assert res.observation is not None and res.observation["exit_code"] == 0
    new = spawner.get()
    assert new.process.pid != old_pid and new.process.poll() is None
    assert spawner.protected_pids() == {new.process.pid}


def test_get_right_after_the_zygote_died_returns_a_live_zygote(healthy_zygote):
    old = healthy_zygote
    # Holding the client's lock keeps the reader thread from recording the end of file: the
    # window between the zygote's death and the reader thread running, made deterministic.
    with old._lock:
        os.kill(old.process.pid, signal.SIGKILL)
        old.process.wait(timeout=10)
        current = spawner.get()
    retire(old)
    assert current is not old and current.process.poll() is None


# ---- 3. a run in flight when the zygote dies --------------------------------------------------


@dataclass
class MidRunDeath:
    finished: bool
    error: BaseException | None
    result: object
    run_processes: list[psutil.Process]
    survivors: list[str] = field(default_factory=list)  # described when recorded
    strays: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def zygote_killed_mid_run():
    """Kill the zygote (SIGKILL) while a run sleeps; record what happened; clean up."""
    runner = SecureRunner("t")
    zygote = spawner.get()
    zygote.wait_ready()
    me = os.getpid()
    baseline = {p.pid for p in live_descendants(me)}
    outcome: dict = {}

    def run():
        try:
            outcome["result"] = script(runner, "import time\ntime.sleep(30)\n", timeout=60)
        except BaseException as exc:  # noqa: BLE001 - recorded for the tests
            outcome["error"] = exc

    thread = threading.Thread(target=run, name="mid-run", daemon=True)
    thread.start()
    # the run's supervisor (pid 1 of its namespace, where there is one) and its worker
    assert wait_for(lambda: len(live_descendants(zygote.process.pid)) >= 2, 10)
    time.sleep(0.3)  # let the worker reach the submission's sleep
    run_processes = live_descendants(zygote.process.pid)
    assert run_processes, "the run never started"

    os.kill(zygote.process.pid, signal.SIGKILL)
    thread.join(20)
    finished = not thread.is_alive()
    retire(zygote)
    # the run's processes get a moment to die (if anything kills them at all)
    wait_for(lambda: not any(alive(p) for p in run_processes), 3)
    survivors = [p for p in run_processes if alive(p)]
    current = spawner._current  # a new zygote (and its runs) may be up by now: not strays
    spared = set()
    if current is not None and current.process.poll() is None:
        spared = {current.process.pid, *(p.pid for p in descendants(current.process.pid))}
    strays = [p for p in live_descendants(me) if p.pid not in baseline and p.pid not in spared]
    death = MidRunDeath(finished, outcome.get("error"), outcome.get("result"), run_processes,
                        [describe(p) for p in survivors], [describe(p) for p in strays])

    kill_and_reap(run_processes + strays)
    thread.join(20)
    assert not any(alive(p) for p in run_processes), "test clean-up failed"
    yield death


def test_run_in_flight_when_the_zygote_dies_fails_with_zygote_error(zygote_killed_mid_run):
    death = zygote_killed_mid_run
    assert death.finished, "the run hung after its zygote died"
    assert isinstance(death.error, spawner.ZygoteError), (death.error, death.result)
    assert "zygote" in str(death.error)


def test_run_in_flight_when_the_zygote_dies_leaves_no_process(zygote_killed_mid_run):
    death = zygote_killed_mid_run
    assert death.run_processes
    assert death.survivors == [] and death.strays == []


DETACH_THEN_SLEEP = """
    import os, time
    if os.fork() == 0:                      # A: detaches and exits, so B is re-parented
        os.setsid()
        quiet = os.open(os.devnull, os.O_RDWR)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        if os.fork() == 0:                  # B: a daemon, the zygote's child until the run ends
            while True:
                time.sleep(3600)
        os._exit(0)
    os.wait()
    time.sleep(30)
"""


def test_daemon_of_a_run_in_flight_dies_with_the_zygote(healthy_zygote):
    zygote = healthy_zygote
    outcome: dict = {}

    def run():
        try:
            outcome["result"] = script(SecureRunner("t", kernel=False), DETACH_THEN_SLEEP,
                                       timeout=60, guard=False)
        except BaseException as exc:  # noqa: BLE001
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    zygote_process = psutil.Process(zygote.process.pid)
    # the run's leader and its worker, and the daemon B as the zygote's second child
    assert wait_for(lambda: len([p for p in zygote_process.children() if alive(p)]) >= 2
                    and len(live_descendants(zygote.process.pid)) >= 3, 10)
    procs = live_descendants(zygote.process.pid)
    try:
        os.kill(zygote.process.pid, signal.SIGKILL)
        thread.join(20)
        retire(zygote)
        assert not thread.is_alive()
        assert isinstance(outcome.get("error"), spawner.ZygoteError)
        assert wait_for(lambda: not any(alive(p) for p in procs), 3), \
            [describe(p) for p in procs if alive(p)]
    finally:
        kill_and_reap(procs)


def test_closing_the_zygote_ends_its_live_runs(healthy_zygote):
    """End of file on the zygote's socket (the grader closing it) kills every live run."""
    zygote = healthy_zygote
    outcome: dict = {}

    def run():
        try:
            outcome["result"] = script(SecureRunner("t"), "import time\ntime.sleep(30)\n", timeout=60)
        except BaseException as exc:  # noqa: BLE001
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert wait_for(lambda: len(live_descendants(zygote.process.pid)) >= 2, 10)
    run_processes = live_descendants(zygote.process.pid)
    try:
        zygote.close()
        retire(zygote)
        thread.join(20)
        assert not thread.is_alive()
        assert isinstance(outcome.get("error"), spawner.ZygoteError)
        assert wait_for(lambda: not any(alive(p) for p in run_processes), 5)
    finally:
        kill_and_reap(run_processes)


# ---- 4. concurrent runs ---------------------------------------------------------------------

CONCURRENT_PROBE = """
    import os, pathlib, sys, time
    token, code = sys.argv[1], int(sys.argv[2])
    pathlib.Path("mine.txt").write_text(token)
    time.sleep(0.3)  # every run is alive at once
    print(token, sorted(os.listdir(".")), pathlib.Path("mine.txt").read_text(),
          os.environ["RUBRICBENCH_SANDBOX_ROOT"])
    print("err-" + token, file=sys.stderr)
    raise SystemExit(code)
"""


def test_concurrent_runs_each_get_their_own_output(healthy_zygote):
    runner = SecureRunner("t")
    count = 6
    tokens = [f"tok{i}-{secrets.token_hex(6)}" for i in range(count)]
    barrier = threading.Barrier(count)
    results: dict[int, object] = {}

    def run(i):
        barrier.wait(timeout=20)
        try:
            results[i] = script(runner, CONCURRENT_PROBE, argv=[tokens[i], str(10 + i)], timeout=20)
        except BaseException as exc:  # noqa: BLE001
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads)

    roots = set()
    for i, token in enumerate(tokens):
        res = results[i]
        assert not isinstance(res, BaseException), res
        assert res.returncode == 10 + i and res.observation["exit_code"] == 10 + i
        words = res.stdout.split()
        assert words[0] == token and words[-2] == token
        assert "['main.py', 'mine.txt']" in res.stdout
        assert res.stderr.strip() == "err-" + token
        others = [t for t in tokens if t != token]
        assert not any(t in res.stdout or t in res.stderr for t in others)
        roots.add(words[-1])
    assert len(roots) == count  # a sandbox of its own each
    assert spawner.get() is healthy_zygote
    assert wait_for(lambda: not live_descendants(healthy_zygote.process.pid), 5)


# ---- 5. the timeout kills the whole run -------------------------------------------------------

FORK_AND_SLEEP = """
    import os, time
    print(os.environ["RUBRICBENCH_SANDBOX_ROOT"], flush=True)
    if os.fork() == 0:
        if {setsid}:
            os.setsid()  # out of the run's process group
        while True:
            time.sleep(3600)
    print("forked", flush=True)
    while True:
        time.sleep(3600)
"""


def test_the_kernel_layer_alone_refuses_new_processes(healthy_zygote):
    """With the kernel layer the worker cannot fork at all (its seccomp filter), guard or not."""
    runner = SecureRunner("t")
    if not (runner.support and runner.support.seccomp):
        pytest.skip("no seccomp filter on this machine")
    res = script(runner, FORK_AND_SLEEP.format(setsid=True), timeout=5, guard=False)
    assert not res.timed_out and "forked" not in res.stdout
    assert "PermissionError" in res.stderr and "Operation not permitted" in res.stderr


# Without the kernel layer the zygote's own kill must find every process: the group, then
# the descendants; a setsid child whose parent dies before that walk is re-parented to the
# zygote and must be caught by its sweep (a race: when the sweep made a single pass, it lost
# that child in about 1 run in 60).
@pytest.mark.parametrize("kernel,setsid", [(False, False), (False, True)],
                         ids=["process-layer-only", "process-layer-only-setsid-child"])
def test_timeout_kills_every_process_of_the_run(healthy_zygote, kernel, setsid):
    zygote = healthy_zygote
    seen: dict[int, psutil.Process] = {}
    done = threading.Event()

    def watch():  # every process the zygote runs while the test's run is live
        while not done.is_set():
            for proc in descendants(zygote.process.pid):
                seen.setdefault(proc.pid, proc)
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        res = script(SecureRunner("t", kernel=kernel), FORK_AND_SLEEP.format(setsid=setsid),
                     timeout=2, guard=False)
    finally:
        done.set()
        watcher.join(5)
    procs = list(seen.values())
    try:
        assert res.timed_out and res.killed_by == "timeout" and res.observation is None
        lines = res.stdout.split()
        assert lines and lines[-1] == "forked", (res.stdout, res.stderr, res.returncode)
        root = lines[0]
        assert root.startswith("/") and "rubricbench-" in root
        assert len(procs) >= 3  # run leader, worker and the worker's own child at least

        assert wait_for(lambda: not any(alive(p) for p in procs), 5), \
            [describe(p) for p in procs if alive(p)]
        # (a zombie is not a survivor: only live processes count here)
        assert wait_for(lambda: not live_descendants(zygote.process.pid), 5), \
            [describe(p) for p in live_descendants(zygote.process.pid)]
        leftovers = []
        for proc in psutil.process_iter(["cwd", "cmdline"]):
            cwd = proc.info.get("cwd") or ""
            cmdline = " ".join(proc.info.get("cmdline") or ())
            if alive(proc) and (cwd.startswith(root) or root in cmdline):
                leftovers.append(proc)
        assert leftovers == []
        assert not os.path.exists(root)
        assert spawner.get() is zygote and zygote.process.poll() is None
    finally:
        kill_and_reap(procs + live_descendants(zygote.process.pid))


def _backtrack(words: int) -> float:
    """One C call that holds the GIL throughout (a backtracking regular expression, as bandit's
    B608 on a hostile literal), quadratic in ``words``; returns how long it took."""
    import re

    started = time.monotonic()
    re.search(r"select\s.*from\s", "select " * words, re.DOTALL)
    return time.monotonic() - started


def _words_for(seconds: float) -> int:
    sample = 4_000
    return int(sample * (seconds / max(_backtrack(sample), 1e-4)) ** 0.5)


def test_time_outs_are_the_zygotes_measure_not_a_starved_grader_threads(healthy_zygote):
    """While the grader holds the GIL (for seconds), a run that ends in time is not a time-out
    and a run that does not is ended at its deadline, by the zygote, not when the grader
    wakes up."""
    zygote, runner, results = healthy_zygote, SecureRunner("t"), {}
    words = _words_for(7.0)
    runs = lambda: len(psutil.Process(zygote.process.pid).children())  # noqa: E731

    def start(label: str, code: str) -> threading.Thread:
        thread = threading.Thread(target=lambda: results.setdefault(
            label, script(runner, code, timeout=1.5)), daemon=True)
        thread.start()
        return thread

    threads = [start("sleeper", "import time\ntime.sleep(60)\n")]
    assert wait_for(lambda: runs() >= 1)
    threads.append(start("quick", "import time\ntime.sleep(0.3)\nprint('done')\n"))
    assert wait_for(lambda: runs() >= 2, step=0.005)
    held = _backtrack(words)
    for thread in threads:
        thread.join(60)
    assert held > 3, f"the GIL was held {held:.1f} s only: too short to show anything"
    quick, sleeper = results["quick"], results["sleeper"]
    assert not quick.timed_out and quick.returncode == 0 and quick.stdout == "done\n", quick
    assert sleeper.timed_out and sleeper.killed_by == "timeout"
    assert sleeper.wall_s < held - 1, (sleeper.wall_s, held)  # ended at 1.5 s, not at the wake-up


DETACHED = """
    import os, time
    read_end, write_end = os.pipe()
    if os.fork() == 0:                      # A: detaches and exits, so B is re-parented
        os.setsid()
        quiet = os.open(os.devnull, os.O_RDWR)  # like a daemon: off the run's output pipes
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        if os.fork() == 0:                  # B: a daemon, the zygote's child once A is gone
            if {chain} and os.fork() == 0:  # C: B's own child, in a session of its own
                os.setsid()
            os.write(write_end, (str(os.getpid()) + " ").encode())
            while True:
                time.sleep(3600)
        os._exit(0)
    os.wait()
    import select
    data, deadline = b"", time.monotonic() + 10
    while data.count(b" ") < {count} and time.monotonic() < deadline:  # B's (and C's) pid
        if select.select([read_end], [], [], 0.1)[0]:
            data += os.read(read_end, 64)
    print(data.decode(), flush=True)
"""


@pytest.mark.parametrize("chain", [False, True], ids=["daemon", "daemon-with-a-child"])
def test_detached_daemons_die_with_their_run(healthy_zygote, chain):
    """Without a pid namespace, a daemon a run detached (re-parented to the zygote, a child
    subreaper) is killed when the run ends, and so is a process of its own, which is
    re-parented to the zygote only once the daemon is killed (a one-pass sweep misses it)."""
    zygote = healthy_zygote
    zygote_cmdline = psutil.Process(zygote.process.pid).cmdline()
    count = 2 if chain else 1
    res = script(SecureRunner("t", kernel=False), DETACHED.format(chain=chain, count=count),
                 guard=False)
    daemons = []
    for word in res.stdout.split():  # no pid namespace: pids the test sees
        try:
            proc = psutil.Process(int(word))
            if proc.cmdline() == zygote_cmdline:  # forked from the zygote, not a reused pid
                daemons.append(proc)
        except (ValueError, psutil.Error):
            pass
    try:
        assert res.returncode == 0 and not res.timed_out, (res.stdout, res.stderr)
        assert len(res.stdout.split()) == count, res.stdout
        assert wait_for(lambda: not any(alive(p) for p in daemons), 5), \
            [describe(p) for p in daemons if alive(p)]
    finally:
        kill_and_reap(daemons + live_descendants(zygote.process.pid))


# ---- 6. orphan sweeps spare the zygote --------------------------------------------------------


def test_protected_pids_holds_the_live_zygote_only(healthy_zygote):
    zygote = healthy_zygote
    assert spawner.protected_pids() == {zygote.process.pid}
    zygote.close()
    retire(zygote)
    assert zygote.process.pid not in spawner.protected_pids()


def test_orphan_sweep_does_not_kill_the_zygote(healthy_zygote):
    zygote = healthy_zygote
    assert zygote.process.pid in spawner.protected_pids()
    # the children a sweep would see as "there before the run": everything but the zygote
    before = pt.current_children() - {zygote.process.pid}
    try:
        pt.sweep_orphans(before)
        assert zygote.process.poll() is None, "sweep_orphans killed the zygote"
    finally:
        if zygote.process.poll() is not None:
            retire(zygote)


# ---- 7. a run that exceeds its memory limit ---------------------------------------------------


def test_memory_limit_failure_is_confined_to_the_run(healthy_zygote):
    zygote = healthy_zygote
    res = script(SecureRunner("t", memory_mb=64), """
        block = bytearray(4 * 1024 ** 3)  # far past the limit: refused by RLIMIT_AS at once
        print("allocated", len(block))
    """)
    assert res.returncode != 0 and "allocated" not in res.stdout
    assert "MemoryError" in res.stderr or res.returncode < 0
    assert res.observation is not None and res.observation["exit_code"] == res.returncode

    follow = script(SecureRunner("t"), "print('still serving')")
    assert follow.returncode == 0 and follow.stdout.strip() == "still serving"
    assert spawner.get() is zygote and zygote.process.poll() is None


# ---- 8. with a pid namespace, the zygote's child is the run's pid 1 --------------------------


def _ns_pids(proc: psutil.Process) -> list[str]:
    with open(f"/proc/{proc.pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("NSpid:"):
                return line.split()[1:]
    return []


def test_run_starts_as_pid_one_of_its_own_namespace(healthy_zygote):
    """The zygote clones the run straight into its namespaces: its own child is pid 1 there
    (no process is left in between), and the worker under it is pid 2."""
    runner = SecureRunner("t")
    if not (runner.support and runner.support.user_namespaces and runner.support.pid_namespace):
        pytest.skip("this kernel gives no pid namespace to unprivileged users")
    zygote = healthy_zygote
    found: dict[str, list[list[str]]] = {}
    done = threading.Event()

    def watch():
        while not done.is_set() and not found:
            for child in psutil.Process(zygote.process.pid).children():
                try:
                    grandchildren = child.children()
                    if grandchildren:
                        found["run"] = [_ns_pids(child)]
                        found["under it"] = [_ns_pids(g) for g in grandchildren]
                except (psutil.Error, OSError):
                    continue
            time.sleep(0.01)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        res = script(runner, "import os, time\ntime.sleep(1.5)\nprint('slept', os.getuid(), os.getgid())",
                     timeout=10)
    finally:
        done.set()
        watcher.join(5)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["slept", str(os.getuid()), str(os.getgid())]  # ids mapped to themselves
    assert found, "the watcher never saw the run's processes"
    # NSpid lists a process's pid in each pid namespace it is in, outermost first
    assert len(found["run"][0]) >= 2 and found["run"][0][-1] == "1", found
    assert [pids[-1] for pids in found["under it"]] == ["2"], found


def test_current_children_lists_the_children_of_every_thread():
    started = [subprocess_sleep()]
    helper = threading.Thread(target=lambda: started.append(subprocess_sleep()))
    helper.start()
    helper.join()
    try:
        mine = {proc.pid for proc in started}
        assert mine <= pt.current_children()
        assert pt.current_children() == {c.pid for c in psutil.Process().children()}
    finally:
        for proc in started:
            proc.kill()
            proc.wait()
    assert not mine & pt.current_children()


def subprocess_sleep():
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])


# ---- 9. a zygote whose grader is gone exits quietly -------------------------------------------


@pytest.mark.parametrize("when", ["before hello", "with a run request in flight"])
def test_zygote_exits_quietly_when_its_grader_is_gone(tmp_path, when):
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    zygote = subprocess.Popen([sys.executable, "-I", "-B", str(spawner.ZYGOTE), str(theirs.fileno())],
                              env=spawner.zygote_env(), pass_fds=(theirs.fileno(),),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    theirs.close()
    pipes = [os.pipe() for _ in range(3)]
    try:
        if when != "before hello":
            assert "hello" in json.loads(ours.recv(1 << 16))
            request = {"op": "run", "id": 1, "cwd": str(tmp_path), "env": {}, "limits": {},
                       "policy": None, "request": str(tmp_path / "missing.json")}
            socket.send_fds(ours, [json.dumps(request).encode()], [w for _, w in pipes])
        ours.close()  # the grader goes away (its answers can no longer be sent)
        _, stderr = zygote.communicate(timeout=30)
    finally:
        if zygote.poll() is None:
            zygote.kill()
            zygote.wait()
        for read_fd, write_fd in pipes:
            os.close(read_fd)
            os.close(write_fd)
    assert zygote.returncode == 0 and b"Traceback" not in stderr, stderr.decode(errors="replace")


# ---- 10. pool workers attach to their parent's zygote through its door ------------------------


def _runs_zygote_code(proc: psutil.Process) -> bool:
    return str(spawner.ZYGOTE) in " ".join(proc.cmdline())


def zygote_processes() -> list[psutil.Process]:
    """Live zygotes among this process's descendants: processes running the zygote's code
    whose parent is a live process that does not (a grader). The runs a zygote forked have
    the zygote's command line too, and their parent is a zygote or a run; a run whose parent
    has just exited (a zombie, not yet re-parented as this snapshot saw it) has no readable
    parent, and is not taken for a zygote."""
    found = []
    for proc in live_descendants(os.getpid()):
        try:
            if not _runs_zygote_code(proc):
                continue
            parent = psutil.Process(proc.ppid())
            if parent.status() != psutil.STATUS_ZOMBIE and not _runs_zygote_code(parent):
                found.append(proc)
        except psutil.Error:  # it, or its parent, ended meanwhile
            continue
    return found


@pytest.fixture
def attached(healthy_zygote, monkeypatch):
    """A second connection to this process's zygote, made through its door, installed as the
    zygote this process's runners use."""
    connection = spawner.Zygote(door=healthy_zygote.door)
    connection.wait_ready()
    monkeypatch.setattr(spawner, "_current", connection)
    yield connection
    connection.close()


def test_a_connection_through_the_door_runs_in_the_same_zygote(healthy_zygote, attached):
    assert attached.process is None and attached.pid == healthy_zygote.process.pid
    assert attached.vm_peak_kb == healthy_zygote.vm_peak_kb
    res = script(SecureRunner("t"), "print('through the door')")
    assert res.returncode == 0 and res.stdout.strip() == "through the door", res.stderr
    assert [p.pid for p in zygote_processes()] == [healthy_zygote.process.pid]


def test_closing_an_attached_connection_ends_only_its_runs(healthy_zygote, attached):
    outcome: dict = {}

    def run():
        try:
            outcome["result"] = script(SecureRunner("t"), "import time\ntime.sleep(30)\n", timeout=60)
        except BaseException as exc:  # noqa: BLE001 - recorded for the test
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert wait_for(lambda: len(live_descendants(healthy_zygote.process.pid)) >= 2, 10)
    runs = live_descendants(healthy_zygote.process.pid)
    attached.close()
    thread.join(20)
    try:
        assert not thread.is_alive() and isinstance(outcome.get("error"), spawner.ZygoteError)
        assert wait_for(lambda: not any(alive(p) for p in runs), 5), [describe(p) for p in runs]
        assert healthy_zygote.alive and healthy_zygote.process.poll() is None
    finally:
        kill_and_reap(runs)
    spawner._current = healthy_zygote  # (monkeypatch restores it too)
    res = script(SecureRunner("t"), "print('still serving')")
    assert res.returncode == 0 and res.stdout.strip() == "still serving"


def test_a_closed_door_makes_the_process_start_its_own_zygote(healthy_zygote, monkeypatch):
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    theirs.close()  # the zygote behind this door is gone
    monkeypatch.setattr(spawner, "_door", ours)
    monkeypatch.setattr(spawner, "_current", None)
    own = spawner.get()
    try:
        own.wait_ready()
        assert own.process is not None and own.process.pid != healthy_zygote.process.pid
        assert spawner._door is None
    finally:
        own.close()
        retire(own)


def test_pool_workers_share_one_zygote(tmp_path):
    from benchmark.runner import BenchmarkRunner

    root = Path(__file__).resolve().parent.parent
    subs = tmp_path / "submissions" / "user_submissions"
    for name in ("decent_model", "weak_model"):
        shutil.copytree(root / "tests" / "models" / name, subs / name)
    runner = BenchmarkRunner(results_dir=tmp_path / "results", submissions_dir=tmp_path / "submissions",
                             test_data=root / "test_data")
    seen: set[int] = set()
    done = threading.Event()

    def watch():
        while not done.is_set():
            seen.update(p.pid for p in zygote_processes())
            time.sleep(0.02)
        seen.add(-1)  # the watcher lasted to the end

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        results, _ = runner.grade(list(runner.discover().values()), workers=2)
    finally:
        done.set()
        watcher.join(5)
    assert [r.model for r in results] == ["decent_model", "weak_model"]
    assert seen == {spawner.get().process.pid, -1}, seen


# ---- preloads ---------------------------------------------------------------------------------

LAZY_IMPORTS = ("_posixsubprocess", "pkgutil", "_strptime", "netrc", "shlex", "decimal")


def test_what_runs_used_to_import_after_the_fork_is_loaded_in_the_zygote(healthy_zygote):
    """The harness's own lazy imports (the guard's _posixsubprocess, runpy's pkgutil) and the
    usual ones of submissions come from the zygote: present before the submission's first line
    (the harness itself never imports _strptime, netrc, shlex or decimal), and the extension
    module mapped in the zygote itself, not loaded by each run."""
    res = script(SecureRunner("preload"), f"""
        import json, sys
        print(json.dumps([name in sys.modules for name in {list(LAZY_IMPORTS)!r}]))
    """)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == [True] * len(LAZY_IMPORTS)
    with open(f"/proc/{healthy_zygote.pid}/maps", encoding="ascii", errors="replace") as handle:
        maps = handle.read()
    if "_posixsubprocess" not in sys.builtin_module_names:
        assert "_posixsubprocess" in maps


def test_the_zygote_loads_every_harness_module_before_any_run_forks():
    """Each harness module, the guard's tables included, is loaded once in the zygote, by path
    under its private name: a run never loads (or compiles) one of its own after the fork."""
    code = r'''
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("_zygote_under_test", sys.argv[1])
zygote = importlib.util.module_from_spec(spec)
spec.loader.exec_module(zygote)  # what a zygote loads before it serves (not main())
print(json.dumps(sorted(name for name in sys.modules if name.startswith("_rubricbench_"))))
'''
    out = subprocess.run([sys.executable, "-I", "-B", "-c", code, str(spawner.ZYGOTE)],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    files = {path.stem for path in spawner.ZYGOTE.parent.glob("*.py")} - {"__init__", "zygote"}
    assert "guard_events" in files
    assert json.loads(out.splitlines()[-1]) == sorted(f"_rubricbench_{name}" for name in files)


def test_an_unused_zygote_is_discarded_at_once_and_a_used_one_never(healthy_zygote):
    zygote = fresh_zygote()
    assert not zygote.used and spawner.discard_unused()
    assert zygote.closed and wait_for(lambda: zygote.process.poll() is not None, 10)  # killed
    res = script(SecureRunner("t"), "print('after the discard')")  # get() starts another
    assert res.returncode == 0 and res.stdout.strip() == "after the discard"
    used = spawner.get()
    assert used is not zygote and used.used
    assert not spawner.discard_unused() and used.process.poll() is None and not used.closed


def test_every_native_function_the_harness_resolved_is_forgotten_before_submission_code():
    """The harness's modules keep ctypes library handles, each caching the functions it
    resolved; calling a cached one raises no audit event. The zygote lists the handles once
    (``worker.note_handles``) and every worker drops their functions before submission code
    runs (``worker._forget_native_functions``); no harness module keeps a bare function."""
    code = r'''
import ctypes, importlib.util, json, sys
spec = importlib.util.spec_from_file_location("_zygote_under_test", sys.argv[1])
zygote = importlib.util.module_from_spec(spec)
spec.loader.exec_module(zygote)  # what a zygote loads before it serves (not main())
worker = zygote.child._load_by_path("worker")
worker.note_handles()
harness = {name: module for name, module in sys.modules.items() if name.startswith("_rubricbench_")}
owners = sorted({name for name, module in harness.items()
                 for value in vars(module).values() if any(value is h for h in worker._HANDLES)})
bare = sorted(f"{name}.{attr}" for name, module in harness.items()
              for attr, value in vars(module).items() if isinstance(value, ctypes._CFuncPtr))
before = sum(isinstance(v, ctypes._CFuncPtr) for h in worker._HANDLES for v in vars(h).values())
worker._forget_native_functions()
after = sum(isinstance(v, ctypes._CFuncPtr) for h in worker._HANDLES for v in vars(h).values())
print(json.dumps({"owners": owners, "bare": bare, "before": before, "after": after}))
'''
    out = subprocess.run([sys.executable, "-I", "-B", "-c", code, str(spawner.ZYGOTE)],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    found = json.loads(out.splitlines()[-1])
    assert {"_rubricbench_landlock", "_rubricbench_seccomp", "_rubricbench_run_start"} <= set(found["owners"])
    assert found["bare"] == []
    assert found["before"] > 0 and found["after"] == 0


def _kill_the_run_from_outside(runner: SecureRunner, zygote: spawner.Zygote, code: str):
    """Run ``code``; once its run's first process (the zygote's child) has a child of its own,
    SIGKILL that first process from here, as an operator or the OOM killer would. Returns
    (result, exception)."""
    outcome: dict = {}

    def run():
        try:
            outcome["result"] = script(runner, code, timeout=30)
        except BaseException as exc:  # noqa: BLE001 - recorded for the test
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        def first_process():
            for child in psutil.Process(zygote.process.pid).children():
                try:
                    if child.children():
                        return child
                except psutil.Error:
                    continue
            return None
        target = wait_for(first_process, 10)
        assert target is not None, "the run never started"
        time.sleep(0.3)  # (the worker reaches the submission's sleep)
        target.kill()
        thread.join(20)
    finally:
        kill_and_reap(live_descendants(zygote.process.pid))
        thread.join(20)
    return outcome.get("result"), outcome.get("error")


def test_a_sandbox_killed_from_outside_before_it_reports_is_the_graders_failure(healthy_zygote):
    """Pid 1 of a run's pid namespace cannot be killed from inside it, so a run whose first
    process died of a signal with no record and no time-out was killed from outside (an
    operator, the OOM killer, a stop of the grader): not the submission's doing, never its
    result (which the cache would keep)."""
    runner = SecureRunner("t")
    if not (runner.support and runner.support.user_namespaces and runner.support.pid_namespace):
        pytest.skip("this kernel gives no pid namespace to unprivileged users")
    result, error = _kill_the_run_from_outside(runner, healthy_zygote, "import time\ntime.sleep(20)\n")
    assert isinstance(error, spawner.SandboxKilled), (error, result)
    assert "killed from outside" in str(error) and "SIGKILL" in str(error)


def test_a_submission_that_kills_its_own_group_ends_only_the_worker_and_the_record_arrives(healthy_zygote):
    """The worker leads a process group of its own, so a submission's SIGKILL of its whole
    group ends the worker, never the supervisor: with the kernel layer (pid 1 of a pid
    namespace) and without it (process layer only) the record arrives with the real exit."""
    kill_the_group = "import os, signal\nos.kill(0, signal.SIGKILL)\n"
    runners = [SecureRunner("t", kernel=False)]
    if SecureRunner("t").support and SecureRunner("t").support.pid_namespace:
        runners.append(SecureRunner("t"))
    for runner in runners:
        res = script(runner, kill_the_group, timeout=10)
        assert res.observation["worker_exit"] == -signal.SIGKILL and not res.channel_error, res
