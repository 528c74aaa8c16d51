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
