"""Generated files in the repository equal their generators' output."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import bootstrap_repo  # noqa: E402
import gen_docs  # noqa: E402


def test_committed_test_data_equals_the_bootstrap_output():
    assert bootstrap_repo.differences() == []


def test_bootstrap_is_deterministic_and_writes_a_fresh_tree(tmp_path):
    first = bootstrap_repo.expected_files()
    assert first == bootstrap_repo.expected_files()
    bootstrap_repo.write(tmp_path)
    assert bootstrap_repo.differences(tmp_path) == []
    assert (tmp_path / "submissions/templates/template/prompt_1_solution.py").is_file()


def test_check_mode_reports_a_tampered_fixture(tmp_path):
    bootstrap_repo.write(tmp_path)
    victim = tmp_path / "test_data" / "config.yaml"
    victim.write_bytes(victim.read_bytes() + b"\n# edited\n")
    assert bootstrap_repo.differences(tmp_path) == ["test_data/config.yaml: differs from the generator's output"]


def test_generated_docs_are_current():
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_docs.py"), "--check"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout


def test_scoring_doc_lists_every_check():
    from benchmark.rubric import RUBRIC

    text = gen_docs.scoring_doc()
    for prompt in RUBRIC:
        for row in prompt.checks:
            assert f"`{row.id}`" in text
