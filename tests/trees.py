"""A private submissions tree holding the reference model, for tests that run the command line.

Used by the CLI tests; the tree is a copy, so a test may add, break or remove models freely.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model"


def reference_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp_path/submissions/reference_implementations/example_model`` (a copy of the reference
    model), the working folder set to ``tmp_path`` and the test data pointed at the
    repository's; returns ``tmp_path``."""
    shutil.copytree(REFERENCE, tmp_path / "submissions" / "reference_implementations" / "example_model")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RUBRICBENCH_TEST_DATA", str(ROOT / "test_data"))
    return tmp_path


def grade_pack(pack: Path, models: dict[str, dict[str, str]], root: Path) -> tuple[int, dict]:
    """Each model's files (``{model: {relative path: text}}``) written under
    ``root/subs/user_submissions/<model>/`` and graded on ``pack`` alone, as a user grades them
    (``--no-core --all-models -q --no-metadata``); the exit code and the results document."""
    import json

    from benchmark import cli

    for name, files in models.items():
        for relative, text in files.items():
            path = root / "subs" / "user_submissions" / name / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("RUBRICBENCH_TEST_DATA", str(ROOT / "test_data"))
        code = cli.main(["--pack", str(pack), "--no-core", "--all-models", "-q", "--no-metadata",
                         "--submissions-dir", str(root / "subs"), "--results-dir", str(root / "r")])
    return code, json.loads((root / "r" / "latest_results.json").read_text(encoding="utf-8"))
