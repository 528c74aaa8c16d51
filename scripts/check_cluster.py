#!/usr/bin/env python3
"""The acceptance check of grading on a Dask cluster (a plain script, not a test).

Generates N distinct models (``check_parallel.generate_models``), grades them with
``--workers 1``, then with ``--cluster local:2`` and ``--cluster local:4`` (each ``--no-cache``
into a fresh results folder), and compares each cluster run's ``latest_results.json`` with
the local one after ``check_parallel.normalise``. Then re-runs ``--cluster local:2`` against
a results folder whose cache is full and reports how many units it submitted (it should be
0: the cache stays on the client). Exits 1 on any difference.

    .venv/bin/python scripts/check_cluster.py --models 20
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_parallel import ROOT, compare_runs, generate_models  # noqa: E402


def grade(submissions: Path, results: Path, *flags: str, no_cache: bool = True) -> tuple[int, float, str]:
    cmd = [sys.executable, str(ROOT / "run_benchmark.py"), "-q", "--all-models",
           "--submissions-dir", str(submissions), "--results-dir", str(results), *flags]
    start = time.perf_counter()
    out = subprocess.run(cmd + (["--no-cache"] if no_cache else []), cwd=ROOT,
                         capture_output=True, text=True, check=False)
    return out.returncode, time.perf_counter() - start, out.stderr


def cached_count(results: Path) -> int:
    doc = json.loads((results / "latest_results.json").read_text(encoding="utf-8"))
    return sum(1 for model in doc["models"].values() if model.get("cached"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=20, help="distinct models generated (default 20)")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="rubricbench-cluster-"))
    failures = 0
    try:
        submissions = generate_models(work, args.models)
        rc, wall, err = grade(submissions, work / "local", "--workers", "1")
        print(f"{args.models} models; --workers 1: exit {rc}, {wall:.1f} s", flush=True)
        for workers in (2, 4):
            results = work / f"cluster{workers}"
            rc_c, wall, err = grade(submissions, results, "--cluster", f"local:{workers}")
            diffs = compare_runs(work / "local", results)
            if rc_c != rc:
                diffs.insert(0, f"exit codes {rc} vs {rc_c}")
            failures += bool(diffs)
            verdict = "identical to --workers 1" if not diffs else f"DIFFERENT: {'; '.join(diffs[:5])}"
            print(f"--cluster local:{workers}: exit {rc_c}, {wall:.1f} s, {verdict}"
                  + (f" | {err.strip().splitlines()[-1:]}" if diffs and err.strip() else ""), flush=True)
        rc_r, wall, err = grade(submissions, work / "cluster2", "--cluster", "local:2", no_cache=False)
        served = cached_count(work / "cluster2")
        submitted = args.models - served
        failures += submitted != 0 or bool(compare_runs(work / "local", work / "cluster2"))
        print(f"cached re-run on --cluster local:2: exit {rc_r}, {wall:.1f} s, {served} served from "
              f"the cache, {submitted} unit(s) submitted", flush=True)
        print("PASS" if not failures else f"FAIL ({failures})")
        return 0 if not failures else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
