#!/usr/bin/env python3
"""Time how fast a grading run stops on a signal (a plain script, not a test: timings are
never asserted by the suite).

A ``--workers 2`` run of two models, one of whose prompt-1 script spins for ever (its child's
deadline is 120 s), is stopped once the other model is graded and the spinning child runs:
by SIGTERM or SIGINT sent to the grader's process alone (``kill PID``, ``docker stop``) or to
its whole process group (a terminal's Ctrl-C, ``kill -- -PGID``), with the grader an ordinary
process or pid 1 of its own pid namespace (a container; ``unshare --pid --fork``). Each case
is measured ``--repeat`` times; printed: the median seconds from the signal until the grader
has exited and until every process it started has ended (gone, or a zombie its parent has yet
to reap), and the ratio of the alone case to the group case measured in the same run.

    .venv/bin/python scripts/stop_time.py [--repeat 3] [--write-doc]

``--write-doc`` puts the table into docs/performance.md between the ``stop-time`` markers
(``scripts/bench.py``, which rewrites that file, keeps the section).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model"
INIT = ["unshare", "--pid", "--fork", "--mount-proc"]


def _tree(top: Path) -> Path:
    shutil.copytree(REFERENCE, top / "submissions" / "reference_implementations" / "example_model")
    spinning = top / "submissions" / "user_submissions" / "spinning_model"
    shutil.copytree(REFERENCE, spinning)
    script = spinning / "prompt_1_solution.py"
    script.write_text(script.read_text(encoding="utf-8").replace(
        'if __name__ == "__main__":', 'if __name__ == "__main__":\n    while True:\n        pass\n', 1),
        encoding="utf-8")
    return top


def _once(top: Path, signum: int, *, alone: bool, as_init: bool) -> tuple[float, float, int]:
    """(seconds until the grader exited, until all its processes were gone, its exit code)."""
    shutil.rmtree(top / "results", ignore_errors=True)
    env = {**os.environ, "RUBRICBENCH_TIMEOUT": "120", "PYTHONUNBUFFERED": "1",
           "RUBRICBENCH_TEST_DATA": str(ROOT / "test_data")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    command = [*(INIT if as_init else []), sys.executable, str(ROOT / "run_benchmark.py"), "--all-models",
               "--no-cache", "--workers", "2", "-q"]
    proc = subprocess.Popen(command, cwd=top, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, start_new_session=True)
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    try:
        grader = psutil.Process(proc.pid)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if as_init and not grader.children():
                time.sleep(0.05)
                continue
            target = grader.children()[0] if as_init else grader
            if any(_spinning(p) for p in target.children(recursive=True)):
                break
            time.sleep(0.1)
        else:
            raise SystemExit("the spinning child never ran")
        family = target.children(recursive=True)
        start = time.monotonic()
        if alone:
            target.send_signal(signum)
        else:
            os.killpg(os.getpgid(target.pid), signum)
        _until_stopped([target] if as_init else [], proc)
        exited = time.monotonic() - start
        _until_stopped(family, None)
        gone = time.monotonic() - start
        return exited, gone, proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _until_stopped(processes: list[psutil.Process], child: subprocess.Popen | None, limit: float = 60) -> None:
    """Wait until ``child`` has exited (polled, so its exit code is kept) and each of
    ``processes`` has ended: gone, or a zombie waiting for its parent to reap it."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if (child is None or child.poll() is not None) and not any(_running(p) for p in processes):
            return
        time.sleep(0.005)
    raise SystemExit("the run did not stop within a minute")


def _running(process: psutil.Process) -> bool:
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _spinning(process: psutil.Process) -> bool:
    """Whether ``process`` is a sandboxed run that has spun for half a second (short-lived
    children end, and turn into zombies, while they are looked at)."""
    try:
        return "zygote" in " ".join(process.cmdline()) and process.cpu_times().user > 0.5
    except psutil.Error:
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write-doc", action="store_true", help="write the table into docs/performance.md")
    args = parser.parse_args()
    init_ok = subprocess.run([*INIT, "true"], capture_output=True).returncode == 0
    table: list[str] = []

    def out(line: str) -> None:
        print(line)
        table.append(line)

    with tempfile.TemporaryDirectory(prefix="rubricbench-stop-") as scratch:
        top = _tree(Path(scratch))
        out(f"{'case':<34}{'grader exited':>15}{'all ended':>11}{'exit':>6}")
        for as_init in (False, True) if init_ok else (False,):
            for signum in (signal.SIGTERM, signal.SIGINT):
                medians = {}
                for alone in (False, True):
                    runs = [_once(top, signum, alone=alone, as_init=as_init) for _ in range(args.repeat)]
                    exited = statistics.median(r[0] for r in runs)
                    gone = statistics.median(r[1] for r in runs)
                    medians[alone] = exited
                    case = f"{'pid 1, ' if as_init else ''}{signal.Signals(signum).name} to the {'grader alone' if alone else 'group'}"
                    out(f"{case:<34}{exited:>13.2f} s{gone:>9.2f} s{','.join(str(r[2]) for r in runs):>8}")
                out(f"{'':<34}alone / group: {medians[True] / medians[False]:.2f}")
    if args.write_doc:
        _write_doc(table, args.repeat, init_ok)
    return 0


def _write_doc(table: list[str], repeat: int, init_ok: bool) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    from report_scale import STOP_BEGIN, STOP_END, splice

    doc = ROOT / "docs" / "performance.md"
    section = "\n".join([
        STOP_BEGIN, "", "## Stopping a run", "",
        "`scripts/stop_time.py`: a `--workers 2` run of two models, one of whose prompt-1 scripts spins for ever "
        "(a 120 s deadline), stopped once the other model is graded and the spinning child runs, by a signal to "
        "the grader's process alone (`kill PID`, `docker stop`) or to its process group (Ctrl-C in a terminal); "
        "the grader an ordinary process, then pid 1 of its own pid namespace (a container)"
        + ("" if init_ok else " (not measured here: no pid namespace could be made)")
        + f". Medians of {repeat} runs; \"all ended\": every process the grader started is gone or a zombie; "
        "exit 1: \"nothing of this run was written\". The ratio compares the two cases measured in the same run.",
        "", "```", *table, "```", "", STOP_END, ""])
    doc.write_text(splice(doc.read_text(encoding="utf-8"), section, STOP_BEGIN, STOP_END), encoding="utf-8")
    print(f"wrote {doc.relative_to(ROOT)}")


if __name__ == "__main__":
    raise SystemExit(main())
