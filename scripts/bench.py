#!/usr/bin/env python3
"""Measure the grader through its CLI and write docs/performance.md (a plain script, not a test).

One run measures: the floor (``python -c pass`` start-up, and a bare interpreter's peak RSS),
one model end to end cold, warm and from the cache, throughput over 50 distinct generated
models with ``--workers 1`` and ``--workers 2``, a cached re-run of those 50, and the peak
memory of the grader's whole process tree with ``--workers 2``. Every figure is printed next to
its ratio to the floor and its target; then one single-model run is profiled phase by phase.

    .venv/bin/python scripts/bench.py

Targets are reported, not enforced: the exit code is 1 only when results differ between
worker counts or between a graded and a cached run.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_parallel import (ROOT, SOURCES, compare_runs, generate_models,  # noqa: E402
                            grader_cmd, load_results, supports_no_cache)

MODELS = 50
REPEATS = 3  # timed runs per 50-model measure (the median is reported)
DOC = ROOT / "docs" / "performance.md"
REPRODUCE = ".venv/bin/python scripts/bench.py"
OK_EXITS = (0, 3)  # 3: the copies of broken_model hold a file that cannot be graded
RSS_PROBE = "import resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
# The grader runs as on a normal machine: Python may write and use __pycache__ (a shell with
# PYTHONDONTWRITEBYTECODE set would otherwise recompile every module on every run).
BENCH_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


class TreeSampler(threading.Thread):
    """Peak of the summed RSS of a process and all its descendants, sampled every 20 ms."""

    def __init__(self, pid: int, interval: float = 0.02) -> None:
        super().__init__(daemon=True)
        self.root, self.interval, self.done = psutil.Process(pid), interval, threading.Event()
        self.peak_mb, self.peak_procs, self.samples, self.cpu_s = 0.0, 0, 0, 0.0
        self.peak_pss_mb = 0.0

    def run(self) -> None:
        start = time.thread_time()
        while not self.done.is_set():
            try:
                procs = [self.root, *self.root.children(recursive=True)]
            except psutil.Error:
                break
            rss = pss = 0
            for proc in procs:
                try:
                    full = proc.memory_full_info()  # PSS: a shared page split among its sharers
                    rss, pss = rss + full.rss, pss + full.pss
                except psutil.Error:
                    pass  # exited between listing and reading
            self.peak_mb = max(self.peak_mb, rss / 2**20)
            self.peak_pss_mb = max(self.peak_pss_mb, pss / 2**20)
            self.peak_procs, self.samples = max(self.peak_procs, len(procs)), self.samples + 1
            self.done.wait(self.interval)
        self.cpu_s = time.thread_time() - start

    def finish(self) -> None:
        self.done.set()
        self.join()


def run_cli(cmd: list[str], *, sample: bool = False) -> dict[str, Any]:
    """Run ``cmd`` from the checkout; wall time (perf_counter) and, with ``sample``, peak memory."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=BENCH_ENV)
    sampler = TreeSampler(proc.pid) if sample else None
    if sampler:
        sampler.start()
    _, stderr = proc.communicate()
    wall = time.perf_counter() - start
    if sampler:
        sampler.finish()
    if proc.returncode not in OK_EXITS:
        raise SystemExit(f"bench: exit {proc.returncode} from {' '.join(cmd)}\n{stderr[-3000:]}")
    run = {"wall": wall, "rc": proc.returncode}
    if sampler:
        run.update(peak_mb=sampler.peak_mb, peak_pss_mb=sampler.peak_pss_mb, peak_procs=sampler.peak_procs,
                   samples=sampler.samples, sampler_cpu_s=sampler.cpu_s)
    return run


def cache_filled(results_dir: Path) -> bool:
    cache = results_dir / ".cache"
    return cache.is_dir() and any(path.is_file() for path in cache.rglob("*"))


def measure_floor() -> dict[str, float]:
    walls = [run_cli([sys.executable, "-c", "pass"])["wall"] for _ in range(5)]
    out = subprocess.run([sys.executable, "-c", RSS_PROBE], capture_output=True, text=True, check=True)
    return {"floor": statistics.median(walls), "floor_rss_mb": int(out.stdout) / 1024}


def measure_single(tmp: Path) -> dict[str, Any]:
    """One model (a tree holding only example_model): cold, warm, then from the cache."""
    subs = tmp / "single" / "submissions"
    shutil.copytree(SOURCES[0], subs / "reference_implementations" / "example_model")
    cold, warm = [], []
    for i in range(3):
        cold_dir = tmp / f"single_cold_{i}"  # fresh results folder: empty cache
        warm_dir = cold_dir if supports_no_cache() else tmp / f"single_warm_{i}"
        cold.append(run_cli(grader_cmd(subs, cold_dir, model="example_model"))["wall"])
        warm.append(run_cli(grader_cmd(subs, warm_dir, model="example_model"))["wall"])
    cached_dir = tmp / "single_cached"
    run_cli(grader_cmd(subs, cached_dir, no_cache=False, model="example_model"))  # fills the cache
    cached = [run_cli(grader_cmd(subs, cached_dir, no_cache=False, model="example_model"))["wall"]
              for _ in range(3)]
    return {"cold": statistics.median(cold), "warm": statistics.median(warm),
            "single_cached": statistics.median(cached), "single_cache_written": cache_filled(cached_dir),
            "single_results": tmp / "single_cold_0" / "latest_results.json"}


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run with the median wall time, with every run's wall time beside it."""
    middle = sorted(runs, key=lambda run: run["wall"])[len(runs) // 2]
    return {**middle, "walls": [run["wall"] for run in runs]}


def measure_many(tmp: Path) -> dict[str, Any]:
    """50 distinct models: --workers 1 and 2 (--no-cache), identity, then a cached re-run;
    each timed REPEATS times (1 and 2 alternating, so a slow spell of the machine hits both)."""
    subs = generate_models(tmp / "many", MODELS)
    w1_runs, w2_runs = [], []
    for i in range(REPEATS):
        w1_runs.append(run_cli(grader_cmd(subs, tmp / f"many_w1_{i}", 1)))
        w2_runs.append(run_cli(grader_cmd(subs, tmp / f"many_w2_{i}", 2)))
    w1, w2 = median_run(w1_runs), median_run(w2_runs)
    w1_dir, w2_dir = tmp / "many_w1_0", tmp / "many_w2_0"
    identical = [diff for i in range(REPEATS)  # every --workers 2 run against every --workers 1 run
                 for j in range(REPEATS) for diff in compare_runs(tmp / f"many_w1_{i}", tmp / f"many_w2_{j}")]
    # Memory is sampled in a second, identical run: the sampler's own CPU (psutil reading
    # /proc for every process every 20 ms) would otherwise slow the run it times.
    memory = run_cli(grader_cmd(subs, tmp / "many_w2_memory", 2), sample=True)
    if supports_no_cache() and not cache_filled(w2_dir):
        run_cli(grader_cmd(subs, w2_dir, 2, no_cache=False))  # (a grader whose --no-cache stores nothing)
    cached = median_run([run_cli(grader_cmd(subs, w2_dir, 2, no_cache=False)) for _ in range(REPEATS)])
    doc = load_results(w2_dir) or {"models": {}}
    served = sum(1 for model in doc["models"].values() if model.get("cached") is True)
    return {"w1": w1, "w2": w2, "memory": memory, "cached": cached, "w1_vs_w2": identical,
            "cached_vs_w1": compare_runs(w1_dir, w2_dir), "served": served,
            "many_cache_written": cache_filled(w2_dir)}


def import_cost() -> tuple[float, list[tuple[str, float]]]:
    """``-X importtime``: cumulative seconds of ``benchmark.cli`` and of its heaviest packages."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", "import benchmark.commands"],
                         cwd=ROOT, capture_output=True, text=True, check=True, env=BENCH_ENV)
    cumulative: dict[str, float] = {}
    for line in out.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            cumulative.setdefault(parts[2].strip(), int(parts[1]) / 1e6)
    packages = [(name, s) for name, s in cumulative.items()
                if "." not in name and not name.startswith("__") and name != "benchmark"
                and name not in sys.stdlib_module_names]
    return cumulative.get("benchmark.commands", 0.0), sorted(packages, key=lambda row: -row[1])[:6]


def _timed(phases: dict[str, float], label: str, fn):
    start = time.perf_counter()
    value = fn()
    phases[label] = time.perf_counter() - start
    return value


def phases_child(results_json: str, out_dir: str) -> None:
    """``--phases``: run the grader's pieces in this fresh process, one single-model run's worth."""
    phases: dict[str, float] = {}
    children: dict[str, list[float]] = {}
    _timed(phases, "import benchmark.commands (the grader)", lambda: __import__("benchmark.commands"))
    from benchmark.engine import grading
    from benchmark.sandbox import isolation, sandbox_report, spawner
    from benchmark import secure_runner
    from benchmark.prompts import PROMPT_MODULES
    from benchmark.reporting.writer import write_run

    _timed(phases, "spawner.get().wait_ready() (zygote start; other core)",
           lambda: spawner.get().wait_ready())
    _timed(phases, "isolation.detect()", isolation.detect)
    probe = secure_runner.SecureRunner("probe", memory_mb=512)
    _timed(phases, "sandbox_report.probe_network()", lambda: sandbox_report.probe_network(probe))
    options, test_data = grading.GradeOptions(), grading.default_test_data()
    for module in PROMPT_MODULES:
        label = f"grading.grade_prompt({module.PROMPT_ID})"
        result = _timed(phases, label, lambda m=module: grading.grade_prompt(
            m, SOURCES[0], test_data=test_data, options=options))
        children[label] = [len(result.execution), sum(e.get("wall_s") or 0 for e in result.execution)]
    _timed(phases, "grading.grade_model() (the four prompts side by side, as a run does)",
           lambda: grading.grade_model(SOURCES[0], "reference_implementations", test_data=test_data,
                                       options=options))
    doc = json.loads(Path(results_json).read_text(encoding="utf-8"))
    _timed(phases, "reporting.writer.write_run()", lambda: write_run(doc, Path(out_dir)))
    print(json.dumps({"phases": phases, "children": children}))


def profile(tmp: Path, results_json: Path) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, "--phases", str(results_json), str(tmp / "phases")],
                         cwd=ROOT, capture_output=True, text=True, check=False, env=BENCH_ENV)
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["no output"])[-1]}
    profiled = json.loads(out.stdout.strip().splitlines()[-1])
    profiled["import_total"], profiled["import_top"] = import_cost()
    return profiled


def row(measure: str, value: str, ratio: float | None, target: str = "", met: bool | None = None) -> list[str]:
    return [measure, value, "" if ratio is None else f"{ratio:.1f}x", target,
            "" if met is None else ("yes" if met else "NO")]


def rate_row(label: str, run: dict[str, Any], floor: float, extra: str = "", target: float | None = None):
    rate = MODELS / run["wall"]
    if len(run.get("walls", ())) > 1:
        extra += "; runs: " + ", ".join(f"{MODELS / wall:.1f}" for wall in sorted(run["walls"], reverse=True))
    return row(label, f"{rate:.1f} models/s ({run['wall']:.2f} s{extra})", run["wall"] / MODELS / floor,
               f">= {target:g} models/s" if target else "", None if target is None else rate >= target)


def same(diffs: list[str]) -> str:
    return "identical" if not diffs else f"DIFFERENT at {len(diffs)} paths, e.g. {diffs[0]}"


def table_rows(m: dict[str, Any]) -> list[list[str]]:
    f, frss = m["floor"], m["floor_rss_mb"]
    cache_note = "" if m["many_cache_written"] else ", no cache written"
    return [
        row("floor: `python -c pass` start-up", f"{f:.3f} s", 1.0),
        row("floor: bare interpreter peak RSS", f"{frss:.1f} MB", 1.0),
        row("1 model end to end, cold", f"{m['cold']:.3f} s", m["cold"] / f, "<= 0.6 s", m["cold"] <= 0.6),
        row("1 model, warm (right after)", f"{m['warm']:.3f} s", m["warm"] / f),
        row("1 model, cached re-run", f"{m['single_cached']:.3f} s", m["single_cached"] / f),
        rate_row(f"{MODELS} models, --workers 1", m["w1"], f),
        rate_row(f"{MODELS} models, --workers 2", m["w2"], f, target=8),
        row("--workers 2 results vs --workers 1", same(m["w1_vs_w2"]), None, "identical", not m["w1_vs_w2"]),
        rate_row(f"{MODELS} models, cached re-run, --workers 2", m["cached"], f,
                 f", {m['served']}/{MODELS} from cache{cache_note}", target=100),
        row("cached re-run results vs --workers 1", same(m["cached_vs_w1"]), None, "identical",
            not m["cached_vs_w1"]),
        row("peak memory of the grader's process tree, --workers 2 (PSS summed)",
            f"{m['memory']['peak_pss_mb']:.0f} MB", m["memory"]["peak_pss_mb"] / frss, "<= 300 MB",
            m["memory"]["peak_pss_mb"] <= 300),
        row("the same as RSS summed per process (shared pages counted in every sharer)",
            f"{m['memory']['peak_mb']:.0f} MB", m["memory"]["peak_mb"] / frss, "<= 300 MB",
            m["memory"]["peak_mb"] <= 300),
    ]


HEADER = ["measure", "value", "x floor", "target", "met?"]


def format_table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [HEADER, *rows]) for i in range(len(HEADER))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in [HEADER, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(cell.replace("|", "\\|") for cell in r) + " |" for r in rows)]


def git_state() -> str:
    def git(*args: str) -> str:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return out.stdout.strip()
    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    return commit + (" with uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else "")


def machine() -> str:
    return (f"{len(os.sched_getaffinity(0))} CPUs (nproc), "
            f"{psutil.virtual_memory().total / 2**30:.1f} GiB RAM, Python {platform.python_version()}, "
            f"{platform.platform()}")


def phase_rows(m: dict[str, Any]) -> list[list[str]]:
    p, cold = m["profile"], m["cold"]
    rows = [["interpreter start-up (the floor)", f"{m['floor'] * 1000:.0f} ms",
             f"{m['floor'] / cold:.0%}", "`python -c pass`"]]
    for label, seconds in p["phases"].items():
        kids = p["children"].get(label)
        runs = f"{kids[0]} sandboxed child run" + ("" if kids[0] == 1 else "s") if kids else ""
        note = f"{runs}, {kids[1] * 1000:.0f} ms inside them" if kids else ""
        rows.append([f"`{label}`", f"{seconds * 1000:.0f} ms", f"{seconds / cold:.0%}", note])
    return rows


def time_section(m: dict[str, Any]) -> list[str]:
    p = m["profile"]
    if "error" in p:
        return [f"Profiling failed: {p['error']}"]
    top = ", ".join(f"`{name}` {s * 1000:.0f} ms" for name, s in p["import_top"])
    return [f"The pieces of one single-model run, timed one after another in a fresh process in "
            f"this same run (`{REPRODUCE} --phases ...`), against the cold run's "
            f"{m['cold'] * 1000:.0f} ms. In a real run they overlap: the zygote starts on the other "
            "core while the grader imports, the network probe runs beside grading (with `-q`), "
            "and the four prompts are graded side by side, so the rows do not add up to the run. "
            "Alone, the first prompt also waits for the bandit process (`benchmark/sandbox/bandit_process.py`) "
            "to start and import bandit, and `write_run` pays for importing Jinja2 and compiling the "
            "results-schema check and the report template; a real run starts the one and does the "
            "others on its warm-up thread while it waits for the zygote and for children.", "",
            *markdown_table(["phase", "time", "share of cold run", "notes"], phase_rows(m)), "",
            f"`python -X importtime -c 'import benchmark.commands'`: {p['import_total'] * 1000:.0f} ms "
            f"cumulative (importtime adds its own overhead); heaviest third-party packages, "
            f"cumulative: {top}."]


def notes(m: dict[str, Any]) -> list[str]:
    found = []
    if not supports_no_cache():
        found.append("`--no-cache` is not accepted by this CLI: every uncached run used a fresh "
                     "results folder (an empty cache) instead.")
    if not (m["single_cache_written"] and m["many_cache_written"]):
        found.append("No `<results-dir>/.cache/` was written: the cached figures are plain re-runs.")
    return found


def method(m: dict[str, Any]) -> list[str]:
    sampled = m["memory"]
    return [
        "- Each figure is the wall time (`time.perf_counter()`) of `run_benchmark.py -q` run as a "
        "subprocess from the checkout with `--results-dir` in a temporary folder; single-model "
        f"times are medians of 3, the floor a median of 5, and each {MODELS}-model rate the median "
        f"of {REPEATS} runs (all {REPEATS} listed, in models/s; the `--workers 1` and `--workers 2` "
        "runs alternate).",
        "- `x floor`: a time divided by the floor; a rate: seconds per model divided by the floor; "
        "memory: MB divided by a bare interpreter's peak RSS.",
        "- cold: a fresh results folder (empty cache) and `--no-cache`, on a tree holding only "
        "`example_model`; the OS page cache and `__pycache__` are not dropped. warm: the same "
        "command right after. cached: after a run that filled `<results-dir>/.cache/`.",
        f"- The {MODELS} models are copies of `example_model` and `tests/models/{{strong,decent,weak,"
        "broken}_model`, round-robin, each `.py` and `.yaml` file ending in a `# variant NN` comment: "
        "distinct bytes (the cache cannot serve them), the scores of the originals.",
        f"- Identity: `latest_results.json` of every `--workers 2` run against that of every "
        f"`--workers 1` run ({REPEATS * REPEATS} pairs), and the cached re-run's against the first "
        "`--workers 1` run's, compared after removing timing keys and keys that differ by "
        "construction (`VOLATILE_KEYS` in `scripts/check_parallel.py`).",
        f"- Peak memory: the CLI process and all its descendants (pool workers, zygotes, sandboxed "
        f"children), sampled every 20 ms with psutil during one more `--workers 2` run, the same "
        f"command with its own results folder ({sampled['samples']} samples, up to "
        f"{sampled['peak_procs']} processes at once; the sampler used {sampled['sampler_cpu_s']:.1f} s "
        "CPU, which is why the timed run is not sampled: it took "
        f"{sampled['wall']:.2f} s sampled against {m['w2']['wall']:.2f} s). PSS (proportional set size) divides each shared page among the processes sharing "
        "it, so its sum is the memory the tree occupies; the RSS sum counts a page once per "
        "process that maps it, and every sandboxed child maps its zygote's pages.",
        "- The grader's subprocesses run without `PYTHONDONTWRITEBYTECODE`, so Python keeps "
        "`__pycache__` as it does on a normal machine.",
    ]


def render_doc(m: dict[str, Any], rows: list[list[str]]) -> str:
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["# Performance", "", "<!-- Generated by scripts/bench.py; do not edit by hand. -->", "",
             f"Measured {date} on {machine()}; grader at commit {git_state()}; the whole "
             f"benchmark took {m['runtime']:.0f} s. Reproduce with:", "", "```sh", REPRODUCE, "```", "",
             "## Results", "", *markdown_table(HEADER, rows), "", *method(m), ""]
    lines += [*(f"- Note: {note}" for note in notes(m)), ""] if notes(m) else []
    lines += ["## Where the time goes", "", *time_section(m), ""]
    return "\n".join(lines)


def say(text: str) -> None:
    print(f"bench: {text}", file=sys.stderr, flush=True)


def measure_all(tmp: Path) -> dict[str, Any]:
    say("floor (python -c pass)")
    m = measure_floor()
    say("one model: cold, warm, cached (3 each)")
    m.update(measure_single(tmp))
    say(f"{MODELS} models: --workers 1, --workers 2 (memory sampled), cached re-run")
    m.update(measure_many(tmp))
    say("profiling the phases of one single-model run")
    m["profile"] = profile(tmp, m["single_results"])
    return m


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 3 and argv[0] == "--phases":
        phases_child(argv[1], argv[2])
        return 0
    if argv:
        print(__doc__)
        return 0 if argv[0] in ("-h", "--help") else 2
    start = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="rubricbench-bench-"))
    try:
        m = measure_all(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    m["runtime"] = time.perf_counter() - start
    rows = table_rows(m)
    print(format_table(rows))
    for note in notes(m):
        print(f"note: {note}")
    print("\nWhere the time goes:\n" + "\n".join(time_section(m)))
    DOC.write_text(render_doc(m, rows), encoding="utf-8")
    print(f"\nwrote {DOC.relative_to(ROOT)} ({m['runtime']:.0f} s)")
    return 1 if m["w1_vs_w2"] or m["cached_vs_w1"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
