#!/usr/bin/env python3
"""Check that every module of the ``benchmark`` package has current bytecode (``make setup``).

An editable install compiles nothing of the package, and with ``PYTHONDONTWRITEBYTECODE=1``
(common in container images) Python never writes it either: every run then compiles the
grader again, and so does every zygote for the harness it loads by path (``python -I -B``
reads bytecode but never writes it). ``--compile`` writes it first (``compileall``), so the
setting costs nothing afterwards. A ``.pyc`` counts when the interpreter would use it: this
Python's magic number and, for a timestamp-based file, the source's mtime and size (for a
hash-based one, the source's hash). Lists each module without it; exits 1 if there is one.

    .venv/bin/python scripts/check_bytecode.py [--compile] [PACKAGE_DIR]
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "benchmark"


def current(source: Path) -> bool:
    """Whether the import system would load ``source`` from its cached ``.pyc``."""
    try:
        header = Path(importlib.util.cache_from_source(str(source))).read_bytes()[:16]
        stat = source.stat()
    except OSError:
        return False
    if len(header) < 16 or header[:4] != importlib.util.MAGIC_NUMBER:
        return False
    flags = int.from_bytes(header[4:8], "little")
    if flags & 1:  # hash-based (PEP 552)
        return header[8:16] == importlib.util.source_hash(source.read_bytes())
    return (int.from_bytes(header[8:12], "little") == int(stat.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(header[12:16], "little") == stat.st_size & 0xFFFFFFFF)


def stale_modules(package: Path = PACKAGE) -> list[Path]:
    """Every ``.py`` under ``package`` (``harness/`` included) without current bytecode."""
    return [path for path in sorted(Path(package).rglob("*.py"))
            if "__pycache__" not in path.parts and not current(path)]


def compile_package(package: Path = PACKAGE) -> bool:
    """Write the bytecode of every module under ``package``; False if one did not compile."""
    return bool(compileall.compile_dir(str(package), quiet=1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compile", action="store_true", help="compile the package first")
    parser.add_argument("package", nargs="?", type=Path, default=PACKAGE)
    args = parser.parse_args(argv)
    if args.compile and not compile_package(args.package):
        print("check_bytecode: a module did not compile", file=sys.stderr)
        return 1
    stale = stale_modules(args.package)
    for path in stale:
        print(f"no current bytecode: {path}", file=sys.stderr)
    total = sum(1 for path in Path(args.package).rglob("*.py") if "__pycache__" not in path.parts)
    print(f"check_bytecode: {total - len(stale)} of {total} modules have current bytecode")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
