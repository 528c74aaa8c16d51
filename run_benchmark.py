#!/usr/bin/env python3
"""Command-line entry point; the work happens in ``benchmark.cli``."""

import sys

try:
    from benchmark.cli import AICodeBenchmark, main, parse_args
except ModuleNotFoundError as exc:  # a Python without the grader's dependencies
    from benchmark import missing_dependency

    said = missing_dependency(exc)
    if said is None:
        raise
    sys.exit(f"error: {said}")

__all__ = ["AICodeBenchmark", "main", "parse_args"]

if __name__ == "__main__":
    raise SystemExit(main())
