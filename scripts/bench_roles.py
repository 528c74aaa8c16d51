"""Where a grading run's CPU goes, process by process, and what one sandboxed run costs
(a helper of ``scripts/bench.py``; ``python scripts/bench_roles.py`` prints both for this checkout).

- :func:`cpu_by_role`: a CLI command run in a cgroup of its own (``bench_trees.CpuMeter``);
  every process in the group is read from ``/proc/<pid>/stat`` every 10 ms, and the group's
  total is split into the grader (the CLI process), the zygote, the sandboxed runs (every
  process the zygote forked, counted by the zygote's reaped-children time), the bandit
  process, and the rest (the kernel-detection and network probes, ``git rev-parse``, and what
  a process did after its last sample: at most 10 ms each).
- :func:`submission_work`: the CPU the submissions' own code spends per model inside its
  runs (the floor the rubric's calls set for any grader, isolated or not).
- :func:`run_floor`: ``FLOOR_RUNS`` sandboxed runs of a one-line function, through the tree's
  own ``SecureRunner.run_harness``, with every isolation layer and with ``unsafe=True`` (the
  same processes, no kernel layer, no guard): CPU per run of the calling process, the zygote
  and the run's own processes, and the wall time per run.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from bench_trees import CpuMeter, Tree

TICK = os.sysconf("SC_CLK_TCK")
FLOOR_RUNS = 100
ROLES = ("grader", "zygote", "sandboxed runs", "bandit process", "other")


def _stat(pid: str) -> tuple[int, float, float, str] | None:
    """(ppid, own CPU s, reaped children's CPU s, command line) of a live process, or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return None
    own = (int(fields[11]) + int(fields[12])) / TICK
    return int(fields[1]), own, (int(fields[13]) + int(fields[14])) / TICK, cmdline


def cpu_by_role(cmd: list[str], cwd: Path, env: dict[str, str], meter: CpuMeter) -> dict[str, float]:
    """CPU seconds of ``cmd``'s process tree by role (see the module docstring), plus ``total``."""
    if meter.group is None:
        raise RuntimeError("no cgroup to count the process tree in")
    seen: dict[str, tuple[int, float, float, str]] = {}
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            for pid in (meter.group / "cgroup.procs").read_text().split():
                found = _stat(pid)
                if found is not None:  # (a zombie's command line reads empty: the last one read is kept)
                    seen[pid] = found if found[3] or pid not in seen else (*found[:3], seen[pid][3])
            done.wait(0.01)

    sampler = threading.Thread(target=sample, daemon=True)
    before = meter.read()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=meter.preexec())
    sampler.start()
    proc.wait()
    meter.settled()
    done.set()
    sampler.join()
    total = meter.read() - before
    root = str(proc.pid)
    roles = dict.fromkeys(ROLES, 0.0)
    roles["grader"] = seen.get(root, (0, 0.0, 0.0, ""))[1]
    for pid, (ppid, own, reaped, cmdline) in seen.items():
        if str(ppid) == root and "zygote.py" in cmdline:
            roles["zygote"] += own
            roles["sandboxed runs"] += reaped
        elif "bandit_server.py" in cmdline:
            roles["bandit process"] += own
    roles["other"] = max(0.0, total - sum(roles.values()))
    return {**roles, "total": total}


FLOOR_PROBE = """\
import json, os, resource, sys, time
from benchmark.secure_runner import SecureRunner
try:
    from benchmark.sandbox import spawner
except ImportError:
    from benchmark import spawner
TICK = os.sysconf("SC_CLK_TCK")
def zygote_cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / TICK, (int(f[13]) + int(f[14])) / TICK
def own_cpu():
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime
request = {"mode": "call", "module": "m.py", "function": "f", "calls": [{"label": "a", "args": [1]}]}
files = {"m.py": b"def f(x):\\n    return x + 1\\n"}
out, runs = {}, int(sys.argv[1])
for mode, unsafe in (("isolated", False), ("unsafe", True)):
    runner = SecureRunner("floor", unsafe=unsafe)
    for _ in range(10):
        runner.run_harness(request, files)
    zygote = spawner.get().process.pid
    z0, k0, s0, w0 = *zygote_cpu(zygote), own_cpu(), time.perf_counter()
    for _ in range(runs):
        result = runner.run_harness(request, files)
        assert result.observation is not None, result.channel_error
    z1, k1, s1, w1 = *zygote_cpu(zygote), own_cpu(), time.perf_counter()
    out[mode] = {"caller": (s1 - s0) / runs, "zygote": (z1 - z0) / runs, "run": (k1 - k0) / runs,
                 "wall": (w1 - w0) / runs}
print(json.dumps(out))
"""


def run_floor(tree: Tree, python: str, env: dict[str, str], runs: int = FLOOR_RUNS) -> dict[str, Any]:
    """Per-run CPU and wall of no-op sandboxed runs in ``tree`` (see the module docstring);
    ``{"error": ...}`` when the tree cannot run the probe."""
    return run_probe(tree, "_bench_floor_probe.py", FLOOR_PROBE, [python, str(runs)], env, 300)


def run_probe(tree: Tree, name: str, text: str, cmd: list[str], env: dict[str, str],
              timeout: float) -> dict[str, Any]:
    """Run ``text`` as ``tree``'s file ``name`` (``cmd``: the interpreter, then the script's
    arguments), so it imports the tree's own grader; its last line of output, as JSON, or
    ``{"error": ...}`` with its last line of stderr. The file is removed afterwards."""
    probe = tree.root / name
    probe.write_text(text, encoding="utf-8")
    try:
        out = subprocess.run([cmd[0], str(probe), *cmd[1:]], cwd=tree.root, env=env,
                             capture_output=True, text=True, check=False, timeout=timeout)
    finally:
        probe.unlink()
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


WORK_PROBE = """\
import json, sys
from pathlib import Path
from benchmark.discovery import discover_models
from benchmark.engine.grading import GradeOptions, grade_model
from benchmark import secure_runner
seen = []
real = secure_runner.SecureRunner.run_harness
def counted(self, request, files, *args, **kwargs):
    result = real(self, request, files, *args, **kwargs)
    record = result.observation or {}
    items = record.get("results") if isinstance(record.get("results"), list) else [record]
    own = sum(item["cpu_s"] for item in items if isinstance(item, dict)
              and type(item.get("cpu_s")) in (int, float))
    seen.append((result.cpu_s or 0.0, own))
    return result
secure_runner.SecureRunner.run_harness = counted
entries = sorted(discover_models(Path(sys.argv[1])).values(), key=lambda e: e.name)
options, test_data = GradeOptions(), Path(sys.argv[2])
grade_model(entries[0].path, entries[0].tier, options=options, test_data=test_data)
seen.clear()  # the first model also timed each task's reference solution: not a model's work
for entry in entries[1:]:
    grade_model(entry.path, entry.tier, options=options, test_data=test_data)
models = len(entries) - 1
print(json.dumps({"models": models, "runs": len(seen) / models,
                  "run_cpu": sum(c for c, _ in seen) / models, "own_cpu": sum(o for _, o in seen) / models}))
"""


def submission_work(tree: Tree, python: str, env: dict[str, str], submissions: Path) -> dict[str, Any]:
    """The CPU the submissions' own code spends per model, measured inside the runs: every
    model but the first graded in one process through ``tree``'s library (the first also
    times each task's reference solution), each sandboxed run's record read for the worker
    thread's CPU in the submission's calls (``call``/``http``: each result's ``cpu_s``) or
    script (``script``: the record's ``cpu_s``), beside the run's own processes' CPU. A floor
    for any grader that makes the same calls on the same inputs, isolated or not: threads a
    submission starts are not counted. ``{"error": ...}`` when the tree cannot run the probe."""
    return run_probe(tree, "_bench_work_probe.py", WORK_PROBE,
                     [python, str(submissions), str(tree.root / "test_data")], env, 600)


def runs_per_model(results_dir: Path) -> float | None:
    """Sandboxed runs per model listed in a run's results (a run the prompt skipped after a
    time-out is listed but never started, and is not counted)."""
    try:
        doc = json.loads((results_dir / "latest_results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    models = doc.get("models") or {}
    runs = sum(1 for model in models.values() for prompt in (model.get("prompts") or {}).values()
               for run in prompt.get("execution") or () if not run.get("skipped"))
    return runs / len(models) if models else None


def measure(trees: list[Tree], submissions: Path, tmp: Path, meter: CpuMeter, env: dict[str, str],
            python: str) -> dict[str, Any]:
    """One more uncached ``--workers 1`` run of every tree, split by role, and each tree's floor."""
    out = {}
    for tree in trees:
        results = tmp / f"roles_{tree.label}"
        out[tree.label] = {"roles": cpu_by_role(tree.cmd(submissions, results, 1), tree.root, env, meter),
                           "runs": runs_per_model(results), "floor": run_floor(tree, python, env),
                           "work": submission_work(tree, python, env, submissions)}
    return out


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def section(found: dict[str, Any], models: int, baseline: str | None, head_cpu: float,
            base_cpu: float | None, table: Any) -> list[str]:
    """Markdown lines: the role table, the one-run table and what they imply for the target.
    ``head_cpu``, ``base_cpu``: CPU per model of this checkout and of the baseline in the main
    measure (seconds); ``table``: a function (header, rows) -> markdown lines."""
    head, base = found["HEAD"], found.get(baseline or "")
    header = ["process", "HEAD, CPU per model", "share"] + ([f"baseline {baseline}", "HEAD / baseline"] if base else [])
    rows = []
    for role in (*ROLES, "total"):
        value = head["roles"][role] / models
        row = [role, _ms(value), f"{head['roles'][role] / head['roles']['total']:.0%}"]
        if base:
            then = base["roles"][role] / models
            row += [_ms(then), f"{value / then:.2f}x" if then else ""]
        rows.append(row)
    lines = [f"One more uncached `--workers 1` run of the {models} models per checkout, its process tree's "
             "CPU split by process (`scripts/bench_roles.py`: every process of the run's cgroup read from "
             "`/proc` every 10 ms; the sandboxed runs are the zygote's reaped children: each run's "
             "supervisor and worker). `other`: the kernel-detection and network probes, `git rev-parse`, "
             "and what a process did after its last sample.", "", *table(header, rows), ""]
    floors = {label: tree["floor"] for label, tree in found.items() if "error" not in tree["floor"]}
    if "HEAD" not in floors:
        return lines + [f"The one-run floor could not be measured: {head['floor']['error']}"]
    cols = [("HEAD", "isolated"), ("HEAD", "unsafe")] + ([(baseline, "isolated")] if baseline in floors else [])
    header = ["one sandboxed run of `def f(x): return x + 1`"] + [
        f"{label}{'' if mode == 'isolated' else ', --unsafe'}" for label, mode in cols]
    parts = [("the calling process (the grader)", "caller"), ("the zygote (its fork)", "zygote"),
             ("the run's own processes (supervisor, worker)", "run")]
    rows = [[name] + [_ms(floors[label][mode][key]) for label, mode in cols] for name, key in parts]
    total = {col: sum(floors[col[0]][col[1]][key] for _, key in parts) for col in cols}
    rows.append(["CPU in all"] + [_ms(total[col]) for col in cols])
    rows.append(["wall time, one run after another"] + [_ms(floors[label][mode]["wall"]) for label, mode in cols])
    lines += [f"What one sandboxed run costs before it does anything: {FLOOR_RUNS} runs of a one-line function "
              "through each checkout's own `SecureRunner.run_harness`, with every isolation layer, and "
              "with `--unsafe` (the same processes without the kernel layer and the guard).", "",
              *table(header, rows), ""]
    runs, each = head["runs"], total[("HEAD", "isolated")]
    if runs:
        fixed = runs * each
        line = (f"The results list {runs:.2f} sandboxed runs per model (each grading process also times "
                f"each task's reference solution once): at {_ms(each)} each, the runs' fixed cost alone "
                f"is {_ms(fixed)} of CPU per model, {fixed / head_cpu:.0%} of this checkout's "
                f"{_ms(head_cpu)}")
        if base_cpu:
            line += f"; a quarter of the baseline's CPU per model ({_ms(base_cpu)}) is {_ms(base_cpu / 4)}"
        lines.append(line + f". Of a run's fixed cost the isolation layers are "
                     f"{_ms(each - total[('HEAD', 'unsafe')])}; the rest is the processes themselves "
                     "(forks, copy-on-write faults, exits, the harness's own start).")
    return lines + work_lines(head.get("work"), base_cpu)


def work_lines(work: dict[str, Any] | None, base_cpu: float | None) -> list[str]:
    """What the submissions' own code costs (see :func:`submission_work`), against the target."""
    if not work:
        return []
    if "error" in work:
        return ["", f"The submissions' own work could not be measured: {work['error']}"]
    line = (f"What the submissions' own code spends on the rubric's inputs, measured inside the runs "
            f"(`scripts/bench_roles.py` `submission_work`: {work['models']} of the models graded in one "
            f"process through the library, the worker thread's CPU in each call or script as its record "
            f"gives it): {_ms(work['own_cpu'])} per model, of the {_ms(work['run_cpu'])} its "
            f"{work['runs']:.2f} runs' processes spend")
    if base_cpu:
        line += (f". That alone is {work['own_cpu'] / (base_cpu / 4):.0%} of a quarter of the baseline's "
                 f"CPU per model ({_ms(base_cpu / 4)}): a floor for any grader that makes the same calls "
                 "on the same inputs, with isolation or without, before it starts a process, parses a "
                 "file or writes a report")
    return ["", line + "."]


def main() -> None:
    import sys
    import tempfile

    from check_parallel import ROOT, generate_models

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    tree, meter = Tree("HEAD", ROOT), CpuMeter()
    with tempfile.TemporaryDirectory(prefix="rubricbench-roles-") as tmp:
        subs = generate_models(Path(tmp) / "m", 50)
        try:
            roles = cpu_by_role(tree.cmd(subs, Path(tmp) / "r", 1), ROOT, env, meter)
        finally:
            meter.close()
        for role, seconds in roles.items():
            print(f"{role:16s} {seconds * 1000 / 50:6.1f} ms per model")
        print(json.dumps(run_floor(tree, sys.executable, env), indent=1))
        print(json.dumps(submission_work(tree, sys.executable, env, subs)))


if __name__ == "__main__":
    main()
