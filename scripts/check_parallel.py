#!/usr/bin/env python3
"""Repeat the ``--workers 1`` vs ``--workers 4`` identity check (a plain script, not a test).

Generates one set of distinct models, then N times (``--repeat``, default 20) grades it with
``--workers 1`` and with ``--workers 4`` (both ``--no-cache``, each into a fresh results
folder) and compares the two ``latest_results.json`` documents once the keys that legitimately
differ between runs are removed (see ``VOLATILE_KEYS``). Prints one line per repeat and a
final "N passed, M failed" line; exits 1 on any difference.

    .venv/bin/python scripts/check_parallel.py --repeat 20

``scripts/bench.py`` imports the model generator and the comparison from here.
"""

from __future__ import annotations

import argparse
import functools
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (ROOT / "submissions" / "reference_implementations" / "example_model",
           *(ROOT / "tests" / "models" / f"{name}_model" for name in ("strong", "decent", "weak", "broken")))
# Timing and identity of a run: differ on every run by nature.
TIMING_KEYS = {"timestamp", "wall_s", "cpu_s", "peak_rss_mb", "run_id", "finished_at",
               "timestamp_utc", "started_at", "started", "finished", "cached"}
# Differ by construction between the runs compared (worker count, results folder, cache
# setting: bench.py also compares a cached re-run, which names the run that measured the
# isolation it reports, ``_metadata.isolation_source``; a cluster run's flags, ``config.cluster``,
# and its per-worker facts, ``_metadata.workers``: addresses, hosts, admissions) or are a
# start-up measurement that varies by a MB from run to run (an idle child's VmPeak, and the
# address-space limit built on it).
RUN_KEYS = {"workers", "results_dir", "no_cache", "idle_child_mb", "address_space_mb", "cluster", "kernel_profile",
            "isolation_source", "graded_by"}
# What a submission wrote to stderr (a run's ``stderr_tail``): its own text, in which a
# logging timestamp or an object's address differs from run to run.
OUTPUT_KEYS = {"stderr_tail"}
VOLATILE_KEYS = TIMING_KEYS | RUN_KEYS | OUTPUT_KEYS


def generate_models(root: Path, count: int) -> Path:
    """``count`` distinct models under ``root/submissions/user_submissions/model_NN``.

    Copies of SOURCES, round-robin; every .py and .yaml file gets a trailing ``# variant NN``
    comment so no two models share bytes (a cache cannot serve them) while scores stay those
    of the source model. JSON files are copied untouched. Returns the submissions folder."""
    submissions = Path(root) / "submissions"
    width = max(2, len(str(count - 1)))
    for index in range(count):
        tag = f"{index:0{width}d}"
        target = submissions / "user_submissions" / f"model_{tag}"
        shutil.copytree(SOURCES[index % len(SOURCES)], target)
        for path in sorted(target.iterdir()):
            if path.suffix in (".py", ".yaml"):
                text = path.read_text(encoding="utf-8")
                newline = "" if not text or text.endswith("\n") else "\n"
                path.write_text(f"{text}{newline}# variant {tag}\n", encoding="utf-8")
    return submissions


@functools.cache
def supports_no_cache() -> bool:
    """Whether this checkout's CLI accepts ``--no-cache`` (it is being added concurrently)."""
    out = subprocess.run([sys.executable, str(ROOT / "run_benchmark.py"), "--help"], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    return "--no-cache" in out.stdout


def grader_cmd(submissions: Path, results_dir: Path, workers: int = 1, *,
               no_cache: bool = True, model: str | None = None) -> list[str]:
    """The CLI command line; ``--no-cache`` only when asked for and accepted (callers use a
    fresh results folder anyway, which also means an empty cache)."""
    cmd = [sys.executable, str(ROOT / "run_benchmark.py"), "-q", "--workers", str(workers),
           "--submissions-dir", str(submissions), "--results-dir", str(results_dir)]
    cmd += ["--model", model] if model else ["--all-models"]
    return cmd + (["--no-cache"] if no_cache and supports_no_cache() else [])


def load_results(results_dir: Path) -> dict[str, Any] | None:
    path = Path(results_dir) / "latest_results.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def normalise(value: Any) -> Any:
    """``value`` without VOLATILE_KEYS (nor any ``started*``/``finished*`` key), recursively."""
    if isinstance(value, dict):
        return {key: normalise(item) for key, item in value.items()
                if key not in VOLATILE_KEYS and not key.startswith(("started", "finished"))}
    if isinstance(value, list):
        return [normalise(item) for item in value]
    return value


def without_statistics(*docs: dict) -> None:
    """When one of ``docs`` was written by a grader before the statistics (no
    ``comparison.significance``), leave them out of every one: they are figures about the
    scores, not the scores, and comparing commits is about the scores."""
    if all("significance" in doc.get("comparison", {}) for doc in docs):
        return
    for doc in docs:
        doc.get("comparison", {}).pop("significance", None)
        for record in doc.get("models", {}).values():
            record.pop("statistics", None)


def differences(a: Any, b: Any, path: str = "$") -> list[str]:
    """Paths at which two normalised documents differ (empty when identical)."""
    if isinstance(a, dict) and isinstance(b, dict):
        found = [f"{path}.{key}" for key in sorted(set(a) ^ set(b))]
        for key in sorted(set(a) & set(b)):
            found += differences(a[key], b[key], f"{path}.{key}")
        return found
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [diff for i, (x, y) in enumerate(zip(a, b)) for diff in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [path]


def compare_runs(dir_a: Path, dir_b: Path) -> list[str]:
    """Differences between the results of two runs; a missing results file is one."""
    docs = [load_results(dir_a), load_results(dir_b)]
    missing = [str(d) for d, doc in zip((dir_a, dir_b), docs) if doc is None]
    if missing:
        return [f"no latest_results.json in {', '.join(missing)}"]
    return differences(normalise(docs[0]), normalise(docs[1]))


def grade(submissions: Path, results_dir: Path, workers: int) -> tuple[int, float, str]:
    """One ``--no-cache`` run: (exit code, wall seconds, stderr)."""
    start = time.perf_counter()
    out = subprocess.run(grader_cmd(submissions, results_dir, workers), cwd=ROOT,
                         capture_output=True, text=True, check=False)
    return out.returncode, time.perf_counter() - start, out.stderr


def one_repeat(work: Path, submissions: Path, index: int, workers: tuple[int, int]) -> tuple[bool, str]:
    """Grade with both worker counts into fresh folders; (identical?, report line)."""
    runs = {}
    for count in workers:
        results = work / f"results_{index:02d}_w{count}"
        runs[count] = (results, *grade(submissions, results, count))
    (dir_a, rc_a, wall_a, err_a), (dir_b, rc_b, wall_b, err_b) = runs.values()
    diffs = compare_runs(dir_a, dir_b)
    for folder in (dir_a, dir_b):
        shutil.rmtree(folder, ignore_errors=True)
    if rc_a != rc_b:
        diffs.insert(0, f"exit codes {rc_a} vs {rc_b}")
    timing = f"w{workers[0]} {wall_a:.1f} s, w{workers[1]} {wall_b:.1f} s, exit {rc_a}/{rc_b}"
    if not diffs:
        return True, f"identical ({timing})"
    shown = "; ".join(diffs[:5]) + (f"; ... {len(diffs) - 5} more" if len(diffs) > 5 else "")
    stderr = (err_a + err_b).strip().splitlines()[-3:]
    return False, f"DIFFERENT ({timing}): {shown}" + (f" | stderr: {' / '.join(stderr)}" if stderr else "")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20, help="number of pairs of runs (default 20)")
    parser.add_argument("--models", type=int, default=50, help="distinct models generated (default 50)")
    parser.add_argument("--workers", type=int, nargs=2, default=(1, 4), metavar=("A", "B"),
                        help="the two worker counts compared (default 1 4)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and print it")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.models < 1:
        parser.error("--repeat and --models must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="rubricbench-parallel-"))
    try:
        submissions = generate_models(work, args.models)
        mode = "--no-cache" if supports_no_cache() else "fresh results folders (no --no-cache flag)"
        print(f"{args.models} models, --workers {args.workers[0]} vs {args.workers[1]}, {mode}", flush=True)
        passed = 0
        for index in range(1, args.repeat + 1):
            ok, line = one_repeat(work, submissions, index, tuple(args.workers))
            passed += ok
            print(f"repeat {index:>2}/{args.repeat}: {line}", flush=True)
        print(f"{passed} passed, {args.repeat - passed} failed")
        return 0 if passed == args.repeat else 1
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
