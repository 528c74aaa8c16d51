"""``--self-check``: canary submissions run through the same runner the graders use.

Each canary tries one thing a hostile submission would; it runs once per layer set-up
(process layer only, kernel layer without the guard, guard without the kernel layer, and all
layers) and the outcome is observed from outside: a file that should not exist, a
connection a listener here did not receive, a process still alive, a value printed. The
table says, per canary and layer, whether it was contained, and whether that is what the
layer promises.
"""

from __future__ import annotations

import ctypes
import secrets
import socket
import tempfile
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import psutil

from ..secure_runner import SecureRunner

LAYERS = ("process", "kernel", "guard", "all")
RUNNER_NAME = "self-check"
SANDBOX_PREFIX = f"rubricbench-{RUNNER_NAME.replace('-', '_')}-"


@dataclass(frozen=True)
class Canary:
    name: str
    code: str
    promised_by: tuple[str, ...]  # layers that must contain it on their own
    contained: Callable[[object, dict], bool]


def _printed(word: str) -> Callable[[object, dict], bool]:
    return lambda result, ctx: word not in result.stdout


def _file_absent(result, ctx) -> bool:
    return not (ctx["outside"] / "canary.txt").exists()


def _at_most(word: str, most: int) -> Callable[[object, dict], bool]:
    """Contained when the run printed ``word <n>`` with n at most ``most`` (or printed nothing)."""
    def contained(result, ctx) -> bool:
        found = [line.split()[1] for line in result.stdout.splitlines()
                 if line.startswith(word + " ") and len(line.split()) == 2]
        return all(value.isdigit() and int(value) <= most for value in found)
    return contained


def _datagram_not_received(result, ctx) -> bool:
    try:
        ctx["datagram_socket"].recv(16)
        return False
    except BlockingIOError:
        return True


def _no_survivor(result, ctx) -> bool:
    """No process whose command line names a self-check sandbox is still alive (pids inside a
    pid namespace mean nothing out here, so look the processes up by what they run)."""
    time.sleep(0.2)
    for proc in psutil.process_iter(["cmdline", "status"]):
        try:
            cmdline = " ".join(proc.info["cmdline"] or ())
            if SANDBOX_PREFIX in cmdline and proc.info["status"] != psutil.STATUS_ZOMBIE:
                proc.kill()
                return False
        except psutil.Error:
            continue
    return True


def canaries() -> list[Canary]:
    return [
        Canary("network to loopback", """
            import socket
            socket.create_connection(("127.0.0.1", {port}), timeout=2)
            print("CONNECTED")""", ("kernel", "guard"), _printed("CONNECTED")),
        Canary("write outside the sandbox", """
            open({outside!r} + "/canary.txt", "w").write("x")""", ("kernel", "guard"), _file_absent),
        Canary("read the grader's code", """
            print("READ", len(open({grader!r}).read()))""", ("kernel", "guard"), _printed("READ")),
        Canary("start a process", """
            import subprocess, sys
            subprocess.run([sys.executable, "-c", "print('SPAWNED')"])""",
                ("kernel", "guard"), _printed("SPAWNED")),
        Canary("load a native library", """
            import ctypes
            ctypes.CDLL(None).getpid()
            print("NATIVE")""", ("guard",), _printed("NATIVE")),
        Canary("load a native module the run wrote", """
            import glob, importlib.util, os, shutil
            dynload = os.path.join(os.path.dirname(os.__file__), "lib-dynload")
            [original] = glob.glob(os.path.join(dynload, "_bisect.*.so"))[:1]
            shutil.copy(original, "own.so")
            spec = importlib.util.spec_from_file_location("_bisect", os.path.abspath("own.so"))
            importlib.util.module_from_spec(spec)
            print("LOADED")""", ("guard",), _printed("LOADED")),
        Canary("write through a folder descriptor", """
            import os
            root = os.open("/", os.O_RDONLY | os.O_DIRECTORY)
            os.close(os.open({outside!r}.lstrip("/") + "/canary.txt", os.O_WRONLY | os.O_CREAT, 0o600,
                             dir_fd=root))""", ("kernel", "guard"), _file_absent),
        Canary("list the grader's folders", """
            import os
            print("LISTED", len(os.listdir({grader_dir!r})))""", ("kernel", "guard"), _printed("LISTED")),
        Canary("daemon outlives the run", """
            import os, time
            pid = os.fork()
            if pid == 0:
                os.setsid()
                time.sleep(30)
                os._exit(0)
            print(pid)""", ("process", "kernel"), _no_survivor),
        Canary("grader secrets in the environment", """
            import os
            print("LEAK" if any(k.startswith(("AWS", "GITHUB", "OPENAI", "SSH_")) or "TOKEN" in k
                                for k in os.environ) or os.environ.get("HOME", "").startswith("/root")
                  else "clean")""", ("process",), _printed("LEAK")),
        Canary("memory past --mem", """
            block = bytearray({too_much} * 1024 * 1024)
            print("ALLOCATED")""", ("process",), _printed("ALLOCATED")),
        Canary("io_uring (sockets no filter sees)", """
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            params = ctypes.create_string_buffer(120)
            if libc.syscall(425, 4, params) >= 0:
                print("RING")""", ("kernel", "guard"), _printed("RING")),
        Canary("socketpair datagram, named socket", """
            import socket
            left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
            left.sendto(b"x", {datagram!r})
            print("SENT")""", ("kernel", "guard"), _datagram_not_received),
        Canary("the host's SysV shared memory", """
            import ctypes
            if ctypes.CDLL(None).shmget({shm_key}, 0, 0) >= 0:
                print("ATTACHED")""", ("kernel", "guard"), _printed("ATTACHED")),
        Canary("disk past the sandbox quota", """
            written = 0
            try:
                for number in range(8):
                    with open(f"fill-{{number}}", "wb") as out:
                        out.write(b"x" * (16 << 20))
                    written += 16
            except OSError:
                pass
            print("DISK", written)""", ("kernel",), _at_most("DISK", 64)),
        Canary("tasks past the pids limit", """
            import threading, time
            threading.stack_size(64 * 1024)
            started = 0
            try:
                for _ in range(200):
                    threading.Thread(target=time.sleep, args=(1,), daemon=True).start()
                    started += 1
            except RuntimeError:
                pass
            print("TASKS", started)""", ("kernel",), _at_most("TASKS", 64)),
        Canary("endless loop", """
            while True:
                pass""", ("process",), lambda result, ctx: result.timed_out),
    ]


def _runner(layer: str, memory_mb: int) -> SecureRunner:
    return SecureRunner(RUNNER_NAME, memory_mb=memory_mb, timeout_s=5,
                        unsafe=layer == "process", kernel=layer in ("kernel", "all"))


QUICK_CANARIES = ("network to loopback", "write outside the sandbox", "read the grader's code",
                  "start a process")


def quick_check(memory_mb: int = 256) -> list[dict]:
    """A few canaries (``QUICK_CANARIES``) against all layers together: the subset a cluster
    worker runs before it is admitted (the full ``--self-check`` takes seconds more)."""
    return run_self_check(memory_mb, only=QUICK_CANARIES, layers=("all",))


def run_self_check(memory_mb: int = 256, *, only: tuple[str, ...] | None = None,
                   layers: tuple[str, ...] = LAYERS) -> list[dict]:
    """Each canary (or those named in ``only``) against each of ``layers``."""
    grader_file = str(Path(__file__).resolve())
    rows = []
    with socket.socket() as listener, tempfile.TemporaryDirectory(prefix="rubricbench-outside-") as out, \
            socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as datagrams, _host_segment() as shm_key:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        datagrams.bind(str(Path(out) / "datagram.sock"))
        datagrams.setblocking(False)
        ctx = {"outside": Path(out), "port": listener.getsockname()[1], "datagram_socket": datagrams}
        for canary in (c for c in canaries() if only is None or c.name in only):
            code = textwrap.dedent(canary.code).format(
                port=ctx["port"], outside=out, grader=grader_file,
                grader_dir=str(Path(grader_file).parent), too_much=memory_mb + 200,
                datagram=str(Path(out) / "datagram.sock"), shm_key=shm_key)
            row = {"canary": canary.name, "promised_by": canary.promised_by}
            for layer in layers:
                runner = _runner(layer, memory_mb)
                guard = layer in ("guard", "all")
                result = runner.run_harness({"mode": "script", "module": "canary.py"},
                                            {"canary.py": code.encode()}, timeout=2, guard=guard)
                row[layer] = canary.contained(result, ctx)
                (ctx["outside"] / "canary.txt").unlink(missing_ok=True)
            rows.append(row)
    return rows


@contextmanager
def _host_segment() -> Iterator[int]:
    """A SysV shared memory segment of this process's (its key), removed afterwards."""
    libc = ctypes.CDLL(None, use_errno=True)
    key = secrets.randbelow(1 << 30) + 1
    segment = libc.shmget(key, 4096, 0o1000 | 0o600)  # IPC_CREAT
    try:
        yield key
    finally:
        if segment >= 0:
            libc.shmctl(segment, 0, None)  # IPC_RMID


def verdicts(rows: list[dict], kernel_available: bool) -> list[dict]:
    """Per row: did every promising layer contain it, and did all layers together?"""
    out = []
    for row in rows:
        promised = [layer for layer in row["promised_by"] if layer != "kernel" or kernel_available]
        ok = all(row[layer] for layer in promised) and row["all"]
        out.append({**row, "pass": ok})
    return out


def format_table(rows: list[dict]) -> str:
    header = f"{'canary':<34}" + "".join(f"{layer:>10}" for layer in LAYERS) + "   verdict"
    lines = [header, "-" * len(header)]
    for row in rows:
        cells = "".join(f"{('contained' if row[layer] else 'open'):>10}" for layer in LAYERS)
        lines.append(f"{row['canary']:<34}{cells}   {'PASS' if row['pass'] else 'FAIL'}"
                     f" (must hold: {', '.join(row['promised_by'])} + all)")
    return "\n".join(lines)
