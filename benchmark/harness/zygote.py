"""The zygote: a clean, pre-warmed process that forks one confined child per sandboxed run.

Started by the grader as ``python -I -B zygote.py <socket fd> [<door fd>]`` with an
allow-listed environment; it imports the harness and the libraries submissions and the
harness use (yaml, requests, requests-mock, ...) once, and never anything of the grader: it
never holds answer keys, fixtures or results, only the run requests it is sent (a working
folder, an environment, limits, a kernel policy and the path of a request file in it).

The door is a second SOCK_SEQPACKET socket through which another grader process (a pool
worker) attaches: it sends ``attach`` with one end of a new socket pair, which becomes a
connection of its own (greeted with the same hello). End of file on the first connection
ends the zygote; on another, only that connection's runs.

Protocol, one JSON message per datagram on each connection:

- zygote -> grader, first: ``{"hello": pid, "vm_peak_kb": n}`` (the address space a child
  starts with: the grader adds ``--mem`` to it for RLIMIT_AS);
- grader -> zygote: ``{"op": "run", "id", "cwd", "env", "limits", "policy", "request",
  "deadline_s"}`` with three descriptors attached (stdout, stderr, result channel); the answer
  is ``{"id", "pid"}`` or ``{"id", "error"}``, later ``{"id", "status", "usage": [user s,
  system s, maxrss kB], "wall_s", "timed_out", "killed"}``;
- the wall-clock timeout is the zygote's: ``deadline_s`` after it forked the run, it kills the
  run's process group and every descendant (SIGKILL) and reports ``"timed_out": true``. The
  zygote is a process of its own that does nothing else, so no busy grader thread can delay
  or invent a time-out;
- grader -> zygote: ``{"op": "kill", "id"}`` (the grader's backstop, for a zygote that did not
  end a run at its deadline): the same kill, reported as ``"killed": true``.

When the policy has a pid namespace, the child is created directly in its new namespaces
(``clone`` with the namespace flags, as ``os.fork`` does it otherwise: Python's fork hooks run
around it) and is pid 1 from its first instruction; without that (other architectures, or
no pid namespace) it is an ``os.fork`` that enters them with ``unshare`` and forks pid 1.
The child sets up exactly what an exec'd harness had (new session, descriptors 0-3,
working folder, environment, resource limits), then applies the kernel policy (namespaces,
pid 1, Landlock, seccomp) and only then runs ``child.serve``; the guard is installed by the
harness's worker as before. The zygote is a child subreaper: when a run ends, its process
group is killed and any process re-parented to the zygote that is not a live run is killed
and reaped. End of file on the first socket (the grader is gone) kills every live run and
exits.

``run_start.py`` (clone and the child's set-up) and ``proc_tree.py`` (children, descendants,
kills) are loaded by path like the rest of the harness, once, before any run forks.
"""

import ctypes
import gc
import importlib
import importlib.util
import json
import os
import select
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_CHILD_SUBREAPER = 36
MAX_MESSAGE = 1 << 20
# What submissions to these prompts and the harness import: loaded once, shared by every child.
# The second line is what runs otherwise imported after the fork, each time (measured over
# generated models; about 0.7-2 ms of a child's CPU apiece): the guard's _posixsubprocess,
# _posixshmem and _multiprocessing (every run), runpy's pkgutil (every script run), _strptime (datetime.strptime),
# netrc and shlex (every requests call reads ~/.netrc), decimal, sqlite3 (the guard wraps its connect
# in every run: guard_events.FSPATH_FIRST). psutil, a pinned dependency, reads the machine's
# /proc/stat when it is imported, which a run cannot (and the guard reports): imported here,
# a submission's `import psutil` is the honest no-op it is outside.
PRELOAD = ("argparse", "atexit", "csv", "dataclasses", "datetime", "inspect", "logging",
           "pathlib", "re", "runpy", "traceback", "typing", "yaml", "requests",
           "requests_mock",
           "_posixsubprocess", "_posixshmem", "_multiprocessing", "pkgutil", "_strptime", "netrc",
           "shlex", "decimal", "sqlite3", "psutil")


_spec = importlib.util.spec_from_file_location("_rubricbench_child", os.path.join(HERE, "child.py"))
child = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = child
_spec.loader.exec_module(child)  # child loads loader.py this way too, and the rest through it
_CONFINE_PARTS = ("landlock", "mounts", "seccomp")
for _name in _CONFINE_PARTS:  # for confine's fallback import
    sys.modules[_name] = child._load_by_path(_name)
confine = child._load_by_path("confine")
child._load_by_path("guard")  # and its tables (guard_events); installed by each worker, loaded once here
RunClock = child._load_by_path("run_clock").RunClock
for _name in _CONFINE_PARTS:
    del sys.modules[_name]
_proc_tree = child._load_by_path("proc_tree")
_children, _kill, _kill_run, _running = (_proc_tree._children, _proc_tree._kill,
                                         _proc_tree._kill_run, _proc_tree._running)
_run_start = child._load_by_path("run_start")  # after child and confine: it takes the zygote's own
SYS_CLONE, _clone, _child_main = _run_start.SYS_CLONE, _run_start._clone, _run_start._child_main
_clone_ok = False  # set in main(): a known architecture and a single-threaded zygote


def _vm_peak_kb():
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmPeak:"):
                return int(line.split()[1])
    return 0


class Zygote:
    """Serves runs to the grader that started it (the primary connection) and to any grader
    process that attached through the door (pool workers): each connection has its own run
    ids, and a run's answers go to the connection that asked for it."""

    def __init__(self, control, door, hello):
        self.primary = control
        self.clients = [control]
        self.door = door  # None once every grader end of it is closed
        self.hello = hello
        self.pid = os.getpid()
        self.runs = {}  # pid -> (connection, run id)
        self.pidfds = {}  # pid -> a pidfd (readable once the run has exited), where available
        self.clock = RunClock()
        self.gone = False  # the primary connection is closed: end every run and exit

    def send(self, client, message):
        """Answer a grader; one that is gone is dropped (its runs are ended)."""
        if client not in self.clients:
            return
        try:
            client.send(json.dumps(message).encode())
        except OSError:
            self.drop(client)

    def drop(self, client):
        if client is self.primary:
            self.gone = True
        if client in self.clients:
            self.clients.remove(client)
        for pid, (owner, _) in self.runs.items():
            if owner is client:
                _kill_run(pid)  # reaped (and its answer skipped) by reap()
        if client is not self.primary:
            client.close()

    def attach(self):
        """A grader process sends, through the door, one end of a new connection of its own.
        End of file on the door (every grader end of it closed) stops the watch on it."""
        try:
            data, fds, _, _ = socket.recv_fds(self.door, 64, 1)
        except OSError:
            data, fds = b"", []
        if not data:
            for fd in fds:
                os.close(fd)
            self.door.close()
            self.door = None
            return
        for fd in fds:
            client = socket.socket(fileno=fd)
            self.clients.append(client)
            self.send(client, self.hello)

    def spawn(self, client, message, fds):
        try:
            if len(fds) != 3:
                raise OSError(f"expected 3 descriptors, got {len(fds)}")
            policy = message["policy"]
            cloned = bool(_clone_ok and policy and policy["pid_namespace"])
            pid = None
            if cloned:
                try:
                    pid = _clone(confine.policy_flags(policy))
                except OSError:  # the child's own unshare then fails and says why
                    cloned = False
            if pid is None:
                pid = os.fork()
        except OSError as exc:
            for fd in fds:
                os.close(fd)
            self.send(client, {"id": message["id"], "error": f"{type(exc).__name__}: {exc}"})
            return
        if pid == 0:
            _child_main(message, fds, [*self.clients, self.door], self.pid, cloned)
        for fd in fds:
            os.close(fd)
        self.runs[pid] = (client, message["id"])
        self.clock.start(pid, message.get("deadline_s"))
        try:
            self.pidfds[pid] = os.pidfd_open(pid)
        except (AttributeError, OSError):
            pass  # polled instead
        self.send(client, {"id": message["id"], "pid": pid})

    def kill(self, client, run_id):
        for pid, known in self.runs.items():
            if known == (client, run_id):
                self.clock.killed(pid)
                _kill_run(pid)

    def receive(self, client):
        try:
            data, fds, _, _ = socket.recv_fds(client, MAX_MESSAGE, 8)
        except OSError:
            data, fds = b"", []
        if not data:
            for fd in fds:
                os.close(fd)
            self.drop(client)
            return
        message = json.loads(data)
        if message.get("op") == "run":
            self.spawn(client, message, fds)
            return
        for fd in fds:
            os.close(fd)
        if message.get("op") == "kill":
            self.kill(client, message["id"])

    def reap(self):
        """Report every finished run; then kill and reap whatever is not a live run."""
        for pid, (client, run_id) in list(self.runs.items()):
            if _running(pid):
                continue
            _kill_run(pid)  # what is left in its group dies with it
            _, status, usage = os.wait4(pid, 0)
            del self.runs[pid]
            if pid in self.pidfds:
                os.close(self.pidfds.pop(pid))
            self.send(client, {"id": run_id, "status": status,
                               "usage": [usage.ru_utime, usage.ru_stime, usage.ru_maxrss],
                               **self.clock.finish(pid)})
        # Killing a leftover re-parents its own children to us: sweep until none is left
        # (bounded; whatever outlasts the passes is swept at the next wake-up).
        for _ in range(64):
            leftovers = [pid for pid in _children(self.pid) if pid not in self.runs]
            if not leftovers:
                break
            for pid in leftovers:
                _kill(pid)
            for pid in leftovers:
                try:
                    os.waitpid(pid, 0)
                except ChildProcessError:
                    pass

    def serve(self):
        while not self.gone:
            # a run's end wakes us through its pidfd; without pidfds, poll while runs are live
            # and a deadline by the select's timeout
            polled = len(self.pidfds) < len(self.runs)
            wait = self.clock.wait()
            if polled:
                wait = 0.005 if wait is None else min(wait, 0.005)
            watched = [*self.clients, *([self.door] if self.door else []), *self.pidfds.values()]
            ready, _, _ = select.select(watched, [], [], wait)
            for client in [c for c in self.clients if c in ready]:
                if not self.gone:
                    self.receive(client)
            if self.door is not None and self.door in ready and not self.gone:
                self.attach()
            self.reap()
            for pid in self.clock.overdue(_running):
                _kill_run(pid)  # reported as timed out once reaped (its pidfd wakes us)
        for pid in list(self.runs):
            _kill_run(pid)
        self.reap()
        self.runs.clear()


def main():
    control = socket.socket(fileno=int(sys.argv[1]))
    door = socket.socket(fileno=int(sys.argv[2])) if len(sys.argv) > 2 else None
    _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    sys.stdout.flush()
    child._load_by_path("worker").note_handles()  # (each run forgets their functions)
    child._load_by_path("seal").prepare()  # (each run checks what the harness is now against it)
    # Everything loaded so far is shared, read-mostly state: freezing it keeps the children's
    # garbage collector from walking (and so copying, page by page) the zygote's whole heap.
    gc.collect()
    gc.freeze()
    global _clone_ok
    _clone_ok = SYS_CLONE is not None and len(os.listdir("/proc/self/task")) == 1
    hello = {"hello": os.getpid(), "vm_peak_kb": _vm_peak_kb()}
    try:
        control.send(json.dumps(hello).encode())
    except OSError:  # the grader is gone already (e.g. it stopped at a usage error): nothing to serve
        return
    Zygote(control, door, hello).serve()


if __name__ == "__main__":
    main()
