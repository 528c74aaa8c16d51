#!/usr/bin/env python3
"""Command-line entry point; the work happens in ``benchmark.cli``."""

import sys

try:
    from benchmark.cli import AICodeBenchmark, main, parse_args
except ModuleNotFoundError as exc:  # a Python without the grader's dependencies
    if not exc.name or exc.name.split(".")[0] == "benchmark":
        raise
    sys.exit(f"error: the grader's dependency {exc.name!r} is not installed for {sys.executable}: "
             f"run `make setup` and then `.venv/bin/python run_benchmark.py ...`, or `pip install .`")

__all__ = ["AICodeBenchmark", "main", "parse_args"]

if __name__ == "__main__":
    raise SystemExit(main())
