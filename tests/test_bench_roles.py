"""``scripts/bench_roles.py``'s measure of the submissions' own work: what it reads from the
runs' records, and the floor it states against the issue's target."""

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import bench_roles  # noqa: E402
from bench_trees import Tree  # noqa: E402

SPIN = """\
def transform_and_enrich_users(users):
    total = 0
    for i in range(1_000_000):
        total += i
    return []
"""


def _models(root: Path) -> Path:
    """Two copies of example_model; the second one's prompt 3 answer spins before it answers."""
    tier = root / "submissions" / "user_submissions"
    for name in ("a_first", "b_spinning"):
        shutil.copytree(ROOT / "submissions" / "reference_implementations" / "example_model", tier / name)
    (tier / "b_spinning" / "prompt_3_transform.py").write_text(SPIN, encoding="utf-8")
    return root / "submissions"


def test_submission_work_counts_the_submissions_own_cpu_inside_its_runs(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    work = bench_roles.submission_work(Tree("HEAD", ROOT), sys.executable, env, _models(tmp_path))
    assert "error" not in work, work
    assert work["models"] == 1  # the first model also times the reference solutions: not counted
    assert work["runs"] >= 4
    # the spinning answer's million additions run in every call of its prompt 3 run (each
    # over 10 ms of CPU), inside the run's processes, whose CPU also holds their start
    assert 0.05 < work["own_cpu"] < work["run_cpu"]
    assert not (tmp_path / "_bench_work_probe.py").exists()
    assert not (ROOT / "_bench_work_probe.py").exists()


def test_work_lines_state_the_share_of_the_target_the_submissions_own_work_takes():
    work = {"models": 49, "runs": 4.4, "run_cpu": 0.120, "own_cpu": 0.050}
    blank, line = bench_roles.work_lines(work, base_cpu=0.200)
    assert blank == ""
    assert "50.0 ms per model, of the 120.0 ms its 4.40 runs' processes spend" in line
    assert "100% of a quarter of the baseline's CPU per model (50.0 ms)" in line
    assert bench_roles.work_lines(None, 0.2) == []
    assert bench_roles.work_lines({"error": "boom"}, 0.2)[-1].endswith("could not be measured: boom")
