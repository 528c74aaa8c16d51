"""A task the model submitted nothing for is ``not_attempted``, not an error: a pack it
attempted no task of leaves its total; one it attempted in part counts in full; a model that
submitted nothing at all is scored on everything and makes the run exit 3."""

from __future__ import annotations

from pathlib import Path

from benchmark.console import EXIT_OK, EXIT_VALIDATION
from benchmark.engine.grading import grade_prompt, load_files, not_attempted
from benchmark.exit_status import exit_code
from benchmark.packs.suite import core_pack
from benchmark.scoring import score_model
from benchmark.scoring_compare import pack_totals
from benchmark.reporting.results_dicts import model_to_dict
from benchmark.types import PromptResult


def _prompt(key: str, status: str, score: float) -> PromptResult:
    return PromptResult(key, key, score, 25.0, score >= 15, status, ())


def test_an_empty_folder_makes_each_task_not_attempted_and_a_near_name_an_error(tmp_path: Path) -> None:
    task = core_pack().task("prompt_1")
    result = grade_prompt(task, tmp_path, test_data=tmp_path)
    assert result.status == "not_attempted" and result.score == 0 and result.error is None
    assert {c.status for cat in result.categories for c in cat.checks} == {"skipped"}
    (tmp_path / "prompt1_solution.py").write_text("print(1)\n", encoding="utf-8")
    misnamed = grade_prompt(task, tmp_path, test_data=tmp_path)
    assert misnamed.status == "error" and "did you mean" in (misnamed.error or "")
    (tmp_path / "prompt_1_solution.py").write_text("", encoding="utf-8")
    assert not_attempted(task, load_files(task, tmp_path)) is None  # (an empty file is an attempt)


def test_a_pack_attempted_in_nothing_leaves_the_total_and_one_attempted_in_part_counts() -> None:
    core = [_prompt(f"prompt_{i}", "ok", 25.0) for i in range(1, 5)]
    skipped_pack = [_prompt("extra.a", "not_attempted", 0), _prompt("extra.b", "not_attempted", 0)]
    model = score_model("m", "t", core + skipped_pack, max_score=150)
    assert (model.score, model.max_score, model.percentage) == (100.0, 100.0, 100.0)
    half = score_model("m", "t", core + [_prompt("extra.a", "ok", 25.0), skipped_pack[1]], max_score=150)
    assert (half.max_score, round(half.percentage, 2)) == (150.0, 83.33)
    totals = pack_totals(model_to_dict(model))
    assert totals["extra"]["attempted"] is False and "attempted" not in totals["core"]
    assert "attempted" not in pack_totals(model_to_dict(half))["extra"]
    assert exit_code([model, half]) == EXIT_OK


def test_a_model_that_submitted_nothing_is_scored_on_everything_and_the_run_exits_3() -> None:
    nothing = score_model("m", "t", [_prompt(f"prompt_{i}", "not_attempted", 0) for i in range(1, 5)])
    assert (nothing.max_score, nothing.percentage) == (100.0, 0.0)
    assert exit_code([nothing]) == EXIT_VALIDATION
