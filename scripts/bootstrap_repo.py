#!/usr/bin/env python3
"""Write test_data/ (fixtures and answer keys) and the submission template, deterministically.

    python scripts/bootstrap_repo.py           # write
    python scripts/bootstrap_repo.py --check   # exit 1 if any committed file differs
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmark.prompts import PROMPT_MODULES  # noqa: E402
from benchmark.utils import create_submission_template  # noqa: E402


def expected_files() -> dict[Path, bytes]:
    """Every generated file, keyed by its path relative to the repository root."""
    files: dict[Path, bytes] = {}
    for module in PROMPT_MODULES:
        for name, data in module.fixture_files().items():
            files[Path("test_data") / name] = data
        for name, data in module.answer_keys().items():
            files[Path("test_data") / "answer_keys" / name] = data
    return files


def differences(root: Path = ROOT) -> list[str]:
    problems = []
    for rel, data in sorted(expected_files().items()):
        path = root / rel
        if not path.is_file():
            problems.append(f"{rel}: missing")
        elif path.read_bytes() != data:
            problems.append(f"{rel}: differs from the generator's output")
    return problems


def write(root: Path = ROOT) -> list[Path]:
    written = []
    for rel, data in sorted(expected_files().items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_bytes() != data:
            path.write_bytes(data)
            written.append(rel)
    create_submission_template(root / "submissions")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    if args.check:
        problems = differences()
        for problem in problems:
            print(problem)
        return 1 if problems else 0
    for rel in write():
        print(f"wrote {rel}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
