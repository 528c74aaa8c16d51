#!/usr/bin/env python3
"""Command-line entry point; the work happens in ``benchmark.cli``."""

from benchmark.cli import AICodeBenchmark, main, parse_args

__all__ = ["AICodeBenchmark", "main", "parse_args"]

if __name__ == "__main__":
    raise SystemExit(main())
