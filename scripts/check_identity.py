#!/usr/bin/env python3
"""Grade the same models with an older commit and with this checkout; compare results.json.

The models are ``example_model`` and ``tests/models/*`` (override with ``--models DIR``). The
older commit is checked out into a temporary git worktree and run from there, so both
graders run on this machine in the same session. Volatile keys (timings, run ids, paths; see
``scripts/check_parallel.py``) are removed before comparing, and the submissions folder is
the same path for both runs. Prints every difference and the rubric hashes; exits 1 on any
difference.
``--scores`` compares only what a model earned: its total, grade, each prompt's score, status
and category scores, and each check's points, earned points and status (rationales and
evidence may be worded differently, e.g. when a check moves to a library check type).

    .venv/bin/python scripts/check_identity.py e6e5319
    .venv/bin/python scripts/check_identity.py --scores e6e5319
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from check_parallel import differences, normalise, without_statistics  # noqa: E402


def _models(target: Path, extra: Path | None) -> None:
    tier = target / "user_submissions"
    tier.mkdir(parents=True)
    shutil.copytree(ROOT / "submissions" / "reference_implementations" / "example_model", tier / "example_model")
    for model in sorted((extra or ROOT / "tests" / "models").iterdir()):
        if model.is_dir():
            shutil.copytree(model, tier / model.name)


def _grade(checkout: Path, submissions: Path, results: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    subprocess.run([sys.executable, str(checkout / "run_benchmark.py"), "--submissions-dir",
                    str(submissions), "--results-dir", str(results), "-q", "--no-cache",
                    "--no-metadata"], cwd=checkout, env=env, check=False)
    doc = json.loads((results / "latest_results.json").read_text(encoding="utf-8"))
    doc["_metadata"].pop("isolation", None)  # measured by a probe beside grading
    return doc


_MODEL_SCORES = ("overall_score", "total_possible", "percentage", "grade")
_PROMPT_SCORES = ("passed", "score", "max_score", "status", "detailed_scoring")
_CHECK_SCORES = ("category", "points", "earned", "status")


def scores_only(doc: dict) -> dict:
    """What each model earned in ``doc``: totals, prompts' scores, checks' points (by id)."""
    def prompt(record: dict) -> dict:
        return {**{key: record.get(key) for key in _PROMPT_SCORES},
                "checks": {check["id"]: {key: check.get(key) for key in _CHECK_SCORES}
                           for check in record.get("checks", [])}}

    return {name: {**{key: model.get(key) for key in _MODEL_SCORES},
                   "prompts": {pid: prompt(record) for pid, record in model["prompts"].items()}}
            for name, model in doc["models"].items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the older commit")
    parser.add_argument("--models", type=Path, help="a folder of model folders (default tests/models)")
    parser.add_argument("--scores", action="store_true",
                        help="compare only scores (totals, prompts, checks), not their wording")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rubricbench-identity-") as tmp:
        work = Path(tmp)
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach",
                        str(work / "base"), args.base], check=True)
        try:
            _models(work / "submissions", args.models)
            old = _grade(work / "base", work / "submissions", work / "old")
            new = _grade(ROOT, work / "submissions", work / "new")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(work / "base")], check=False)
    without_statistics(old, new)  # (an old commit writes none)
    if args.scores:
        found = differences(scores_only(old), scores_only(new))
    else:
        found = differences(normalise(old), normalise(new))
    print("\n".join(found))
    print(f"rubric hash: {old['_metadata'].get('rubric_hash')} -> {new['_metadata'].get('rubric_hash')}")
    print(f"{len(old['models'])} models, {len(found)} difference(s)")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
