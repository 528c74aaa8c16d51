"""What ``scripts/bench.py`` runs and how it counts CPU (a helper of the bench, not a test).

- :class:`Tree`: a checkout whose ``run_benchmark.py`` is timed: this one, or an older commit
  checked out by :func:`baseline_tree` into a temporary ``git worktree``. Both run with this
  checkout's interpreter; ``python <tree>/run_benchmark.py`` puts ``<tree>`` first on
  ``sys.path``, ahead of the editable install's finder, and :func:`import_probe` checks that
  the tree's own ``benchmark`` package is the one imported, and whether it has bytecode.
- :class:`CpuMeter`: user + sys CPU of a command's whole process tree, from a cgroup this
  process makes (v1 ``cpuacct``; v2 ``cpu.stat``), else ``RUSAGE_CHILDREN`` (which misses
  the CPU of every process its parent did not wait for).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBE_NAME = "_bench_import_probe.py"
# Run as ``python <tree>/_bench_import_probe.py``, exactly as run_benchmark.py is run: where
# the grader's modules came from, and how many were loaded without a cached .pyc to read.
PROBE = """\
import importlib.util, json, os, sys
import benchmark.commands
mods = [m for name, m in list(sys.modules.items()) if name == "benchmark" or name.startswith("benchmark.")]
files = [m.__file__ for m in mods if getattr(m, "__file__", None)]
here = os.path.dirname(os.path.abspath(__file__))
print(json.dumps({"package": os.path.dirname(sys.modules["benchmark"].__file__),
                  "outside": [f for f in files if not f.startswith(here + os.sep)],
                  "modules": len(files),
                  "no_pyc": [f for f in files if not os.path.isfile(importlib.util.cache_from_source(f))]}))
"""


@dataclass(frozen=True)
class Tree:
    """A checkout to time: ``label`` names it in the table (``HEAD`` or the commit)."""

    label: str
    root: Path

    def cmd(self, submissions: Path, results_dir: Path, workers: int = 1, *,
            no_cache: bool = True, model: str | None = None) -> list[str]:
        cmd = [sys.executable, str(self.root / "run_benchmark.py"), "-q", "--workers", str(workers),
               "--submissions-dir", str(submissions), "--results-dir", str(results_dir)]
        cmd += ["--model", model] if model else ["--all-models"]
        return cmd + (["--no-cache"] if no_cache else [])


@dataclass(frozen=True)
class OldGrader:
    """A checkout of the grader RubricBench replaces (AIBugBench), timed in its default mode
    (``--workers 1``, its sandbox on). It finds a model's Python files only under its own
    folder: given a submissions folder elsewhere it reports "Solution file not found" for
    prompts 1, 3 and 4 and grades prompt 2 alone, so :meth:`stage` copies the models into it."""

    root: Path
    label: str = "old grader"

    def stage(self, submissions: Path, name: str) -> str:
        """``submissions`` copied to ``<root>/<name>`` (replacing an earlier copy); its relative name."""
        target = self.root / name
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(submissions, target)
        return name

    def unstage(self, name: str) -> None:
        shutil.rmtree(self.root / name, ignore_errors=True)

    def cmd(self, submissions: str, results_dir: Path, model: str | None = None) -> list[str]:
        cmd = [sys.executable, str(self.root / "run_benchmark.py"), "-q", "--submissions-dir", submissions,
               "--results-dir", str(results_dir)]
        return cmd + (["--model", model] if model else [])

    def check(self) -> None:
        """Refuse a folder that is not such a checkout (its CLI and its validators)."""
        if not (self.root / "run_benchmark.py").is_file() or not (self.root / "benchmark" / "validators.py").is_file():
            raise SystemExit(f"bench: {self.root} holds no run_benchmark.py and benchmark/validators.py")


def git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


@contextlib.contextmanager
def baseline_tree(rev: str, parent: Path) -> Iterator[Tree]:
    """``rev`` checked out (detached) into a temporary worktree under ``parent``; removed after."""
    label = git("rev-parse", "--short", rev)
    where = parent / f"baseline-{label}"
    git("worktree", "add", "-q", "--detach", str(where), rev)
    try:
        yield Tree(label, where)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(where)], cwd=ROOT,
                       capture_output=True, check=False)
        shutil.rmtree(where, ignore_errors=True)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True, check=False)


def import_probe(tree: Tree, env: dict[str, str]) -> dict:
    """Import the grader as ``python <tree>/run_benchmark.py`` does (with ``-B``: the probe
    writes no bytecode) and say where from; an import from outside the tree is an error."""
    probe = tree.root / PROBE_NAME
    probe.write_text(PROBE, encoding="utf-8")
    try:
        out = subprocess.run([sys.executable, "-B", str(probe)], cwd=tree.root, env=env,
                             capture_output=True, text=True, check=True)
    finally:
        probe.unlink()
    found = json.loads(out.stdout)
    if found["outside"] or Path(found["package"]) != tree.root / "benchmark":
        raise SystemExit(f"bench: {tree.label} imports the grader from outside its tree: "
                         f"{found['package']} {found['outside'][:3]}")
    return found


class CpuMeter:
    """Cumulative user + sys CPU seconds of the commands started with :meth:`preexec`."""

    def __init__(self, use_cgroup: bool = True) -> None:
        self.group: Path | None = None
        self.method = "RUSAGE_CHILDREN of the CLI (processes nobody waited for are missed)"
        for make in ((self._v1, self._v2) if use_cgroup else ()):
            try:
                self.group, self.method = make()
                break
            except OSError:
                continue

    @staticmethod
    def _v1() -> tuple[Path, str]:
        group = Path("/sys/fs/cgroup/cpuacct") / f"rubricbench-bench-{os.getpid()}"
        group.mkdir()
        return group, "a cgroup v1 cpuacct group of its own (cpuacct.usage)"

    @staticmethod
    def _v2() -> tuple[Path, str]:
        own = Path("/proc/self/cgroup").read_text().splitlines()
        path = next(line.split("::", 1)[1] for line in own if line.startswith("0::"))
        group = Path("/sys/fs/cgroup") / path.lstrip("/") / f"rubricbench-bench-{os.getpid()}"
        group.mkdir()
        if not (group / "cpu.stat").is_file():
            group.rmdir()
            raise OSError("no cpu.stat")
        return group, "a cgroup v2 group of its own (cpu.stat usage_usec)"

    def preexec(self):
        """For ``Popen(preexec_fn=...)``: the child joins the group before it execs."""
        if self.group is None:
            return None
        procs = self.group / "cgroup.procs"
        return lambda: procs.write_text(str(os.getpid()))

    def settled(self, timeout_s: float = 5.0) -> None:
        """Wait until every process of the group has exited (a zygote or bandit process may
        outlive the CLI by a moment), so :meth:`read` counts them whole."""
        if self.group is None:
            return
        end = time.monotonic() + timeout_s
        while (self.group / "cgroup.procs").read_text().strip() and time.monotonic() < end:
            time.sleep(0.02)

    def read(self) -> float:
        if self.group is None:
            usage = resource.getrusage(resource.RUSAGE_CHILDREN)
            return usage.ru_utime + usage.ru_stime
        if (self.group / "cpuacct.usage").is_file():
            return int((self.group / "cpuacct.usage").read_text()) / 1e9
        stat = dict(line.split() for line in (self.group / "cpu.stat").read_text().splitlines())
        return int(stat["usage_usec"]) / 1e6

    def close(self) -> None:
        if self.group is not None:
            with contextlib.suppress(OSError):
                self.group.rmdir()  # (only once every process in it has exited)


def scratch() -> Path:
    return Path(tempfile.mkdtemp(prefix="rubricbench-bench-"))
