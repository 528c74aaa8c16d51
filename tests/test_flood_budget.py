"""Every channel a run has to the grader, flooded at or past its cap (``tests/floods/``), costs
the grader a bounded amount of work and leaves other models alone.

The budget (docs/internals.md, "The grader's budget for what a run writes"): whatever a
model's children write, grading it costs the grader process at most ``GRADER_CPU_BUDGET_S``
seconds of CPU (what it costs here is about a second), and the clean model graded beside it
gets exactly the results it gets alone. The bound is a correctness property (a flood once
took minutes to hours in a quadratic pass), stated with a wide margin over what it costs on
this machine; it is not a speed claim.
"""

from __future__ import annotations

import json
import resource
import shutil
import time
from pathlib import Path

from benchmark import cli

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model"
FLOODS = Path(__file__).parent / "floods"
GRADER_CPU_BUDGET_S = 30.0
GRADER_WALL_BUDGET_S = 180.0  # both models, every run of each (the flood's: a few seconds each)
VOLATILE = {"wall_s", "cpu_s", "peak_rss_mb", "timestamp", "cached"}


def _tree(root: Path, flooded: bool) -> Path:
    models = root / "submissions" / "user_submissions"
    clean = models / "clean_model"
    shutil.copytree(REFERENCE, clean)
    if flooded:
        flood = models / "flood_model"
        shutil.copytree(REFERENCE, flood)
        for planted in FLOODS.glob("*.py"):
            shutil.copy(planted, flood / planted.name)
    return root


def _grade(root: Path) -> tuple[int, dict, float, float]:
    """Grade every model under ``root`` in this process (one worker: the grading runs here);
    (exit code, results, the grader's own CPU seconds (this process's, its children's
    excluded), wall seconds)."""
    before, started = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    code = cli.main(["--all-models", "--submissions-dir", str(root / "submissions"),
                     "--results-dir", str(root / "results"), "--no-cache", "-q"])
    after, wall = resource.getrusage(resource.RUSAGE_SELF), time.monotonic() - started
    spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return code, json.loads((root / "results" / "latest_results.json").read_text()), spent, wall


def _stable(model: dict) -> dict:
    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in VOLATILE}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value
    return strip(model)


def test_a_model_flooding_every_channel_costs_the_grader_a_bounded_time_and_no_other_model_anything(tmp_path):
    code, clean_alone, _, _ = _grade(_tree(tmp_path / "clean", flooded=False))
    assert code == 0
    code, both, cpu, wall = _grade(_tree(tmp_path / "flood", flooded=True))
    assert code in (0, 3, 4), f"grader exit code {code}"
    assert _stable(both["models"]["clean_model"]) == _stable(clean_alone["models"]["clean_model"])
    assert cpu < GRADER_CPU_BUDGET_S and wall < GRADER_WALL_BUDGET_S, (cpu, wall)
    flood = both["models"]["flood_model"]["prompts"]
    for prompt in ("prompt_1", "prompt_3", "prompt_4"):
        assert flood[prompt]["status"] == "ok" and flood[prompt]["passed"] is False, prompt
    violations = {c["id"]: c for c in flood["prompt_1"]["checks"]}["sandbox_violations"]
    assert violations["earned"] == 0 and "lost" in violations["rationale"], violations  # past the cap
    runs = flood["prompt_3"]["execution"]  # results past what the channel carries: no record
    assert runs and all(run["channel_error"] for run in runs), runs
