"""Bandit in a process of its own, under a deadline (the time half of the analysis budget).

Bandit's checks are regular expressions and tree walks over text a submission wrote; one of
them backtracks, and a C call that runs for a minute holds the GIL of whatever process runs
it. ``benchmark.analyzers.budget`` refuses the shapes known to cost that much before bandit
starts; this module bounds everything else: each grading process keeps one bandit process
(``python -I analyzers/bandit_server.py``, started early by the warm-up), sends it one file at a time
and waits ``DEADLINE_S`` for the findings. Past the deadline it kills that process (the next
scan starts another) and raises :class:`AnalysisTimeout`. The process also caps its own CPU
time per scan, so it cannot outlive a grader that died during a scan for long, and it exits
at end of file on its input.

Protocol, one JSON document per line: ``{"text", "name", "cpu_s"}`` in; ``{"issues": [[test
id, test name, severity, confidence, line, text], ...]}``, ``{"error": "..."}`` (bandit could
not analyse the text) or ``{"crash": "..."}`` (anything else went wrong) out.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from .cleanup import owned_name, sweep_dead_owners

DEADLINE_S = 20.0
CPU_MARGIN_S = 10  # the process's own limit: DEADLINE_S plus this much CPU time per scan
MAX_ANSWER = 64 << 20
SERVER = Path(__file__).resolve().parents[1] / "analyzers" / "bandit_server.py"  # what the process runs


class AnalysisTimeout(RuntimeError):
    """Bandit did not finish one file within ``DEADLINE_S``."""


SCANS_HEAD = "rubricbench-scans-p"


class _Worker:
    def __init__(self) -> None:
        self.owner = os.getpid()
        # The process writes each file it scans into this folder, which this side removes when
        # it stops the process: one killed at the deadline cannot clean up after itself. The
        # name holds this process's pid: what a process killed before its clean-up left (a pool
        # or cluster worker, a test) is swept by the next one that starts a bandit process.
        sweep_dead_owners(SCANS_HEAD)
        self.folder = tempfile.mkdtemp(prefix=owned_name(SCANS_HEAD))
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", str(SERVER), self.folder], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True)
        except BaseException:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise

    @property
    def alive(self) -> bool:
        return self.owner == os.getpid() and self.proc.poll() is None

    def ask(self, request: bytes, deadline_s: float) -> bytes | None:
        """Send one request; its answer line, or None when none came within ``deadline_s``
        (a starved caller that wakes late still takes an answer that is there)."""
        self.proc.stdin.write(request)
        self.proc.stdin.flush()
        fd, answer = self.proc.stdout.fileno(), b""
        end = time.monotonic() + deadline_s
        while not answer.endswith(b"\n"):
            ready, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
            if not ready:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk or len(answer) > MAX_ANSWER:
                raise OSError("the bandit process ended without an answer")
            answer += chunk
        return answer

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        shutil.rmtree(self.folder, ignore_errors=True)  # what a killed scan left there


_worker: _Worker | None = None
_scan_lock = threading.Lock()  # one file at a time per process (bandit's logger is shared state)
_start_lock = threading.Lock()  # held while a worker is being started, so pid() never misses it


def _current() -> _Worker:
    global _worker
    with _start_lock:
        if _worker is None or not _worker.alive:
            if _worker is not None and _worker.owner == os.getpid():
                _worker.stop()
            _worker = _Worker()
        return _worker


def prestart() -> None:
    """Start this process's bandit process now: its import of bandit overlaps other work."""
    _current()


def pid() -> int | None:
    """The live bandit process of this process, which an orphan sweep must leave alone."""
    with _start_lock:
        return _worker.proc.pid if _worker is not None and _worker.alive else None


def scan(text: str, name: str, deadline_s: float | None = None) -> dict[str, Any]:
    """Bandit's answer for one file (see the protocol above). Raises AnalysisTimeout past the
    deadline (``DEADLINE_S`` unless given), OSError when the process ended without answering
    twice in a row."""
    deadline_s = DEADLINE_S if deadline_s is None else deadline_s
    request = json.dumps({"text": text, "name": name, "cpu_s": deadline_s + CPU_MARGIN_S}).encode() + b"\n"
    with _scan_lock:
        for attempt in (1, 2):
            worker = _current()
            try:
                answer = worker.ask(request, deadline_s)
            except OSError:  # it had died (e.g. its CPU limit): one new process, one retry
                worker.stop()
                if attempt == 2:
                    raise
                continue
            if answer is None:
                worker.stop()
                raise AnalysisTimeout(f"analysis exceeded {deadline_s:g} s")
            return json.loads(answer)
    raise AssertionError("unreachable")


@atexit.register
def shutdown() -> None:
    """Stop (and reap) this process's bandit process. At exit; a pool worker, which ends
    without running ``atexit``, calls it from a multiprocessing finalizer."""
    if _worker is not None and _worker.owner == os.getpid():
        _worker.stop()


# ---- the bandit process itself -----------------------------------------------------------
