"""The grader agrees with a blind expert on answers nobody here wrote (tests/calibration/blind):
24 answer sets written from the prompt texts alone, rated per prompt before any grading
(scripts/calibrate_blind.py prints the whole table)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import calibrate_blind as blind  # noqa: E402


@pytest.fixture(scope="module")
def pairs():
    return blind.grade_corpus()


def test_the_corpus_is_blind_and_complete():
    ratings = blind.json.loads((blind.CORPUS / "ratings.json").read_text(encoding="utf-8"))
    models = sorted(p.name for p in (blind.CORPUS / "answers").iterdir() if p.is_dir())
    assert len(models) >= 24 and sorted(ratings) == models
    for model in models:
        assert set(ratings[model]) >= set(blind.PROMPTS), model
        assert all(0 <= ratings[model][p]["rating"] <= 25 for p in blind.PROMPTS), model


def test_every_amendment_replaces_a_first_rating_with_a_reason():
    """An amendment (a prompt text changed after the first rating) names a rated pair, the
    very rating it replaces, and why; the figures use it and keep the first rating beside it."""
    first = blind.json.loads((blind.CORPUS / "ratings.json").read_text(encoding="utf-8"))
    amendments = blind.json.loads((blind.CORPUS / "amendments.json").read_text(encoding="utf-8"))
    ratings = blind.load_ratings()
    for key, amended in amendments.items():
        model, prompt_id = key.split("/")
        assert amended["was"] == first[model][prompt_id]["rating"] and amended["reason"], key
        assert ratings[model][prompt_id]["rating"] == amended["rating"]
        assert ratings[model][prompt_id]["first_rating"] == amended["was"]
    untouched = [(m, p) for m in first for p in first[m] if f"{m}/{p}" not in amendments]
    assert all(ratings[m][p] == first[m][p] for m, p in untouched)


def test_scores_rank_the_answers_as_the_rater_did(pairs):
    """The models' totals (the ranking users read) and every (model, prompt) pair rank as the
    rater's ratings do, at least as well as when the grader was last calibrated."""
    found = blind.figures(pairs)
    assert found["spearman_models"] >= blind.FLOOR_MODELS, blind.markdown(pairs, found)
    assert found["spearman"] >= blind.FLOOR_PAIRS, blind.markdown(pairs, found)


@pytest.mark.parametrize("prompt", blind.PROMPTS)
def test_scores_sit_within_three_points_of_the_ratings_on_average(pairs, prompt):
    found = blind.figures(pairs)
    assert found["per_prompt"][prompt]["mean_abs_difference"] <= blind.TARGET_MEAN_ABS, \
        blind.markdown(pairs, found)


def test_an_answer_rated_correct_and_clean_keeps_95_percent_unless_a_real_defect_is_agreed(pairs):
    found = blind.figures(pairs)
    unexplained = [(d["model"], d["prompt"], d["score"], d["rationale"])
                   for d in found["clean_under_floor"]
                   if not (d["second_look"] or {}).get("rater_agrees")]
    assert unexplained == [], blind.markdown(pairs, found)


def test_spearman_handles_ties_and_order():
    assert blind.ranks([3.0, 1.0, 3.0, 2.0]) == [3.5, 1.0, 3.5, 2.0]
    assert blind.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert blind.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert blind.spearman([1, 2, 2, 3], [1, 3, 2, 4]) == pytest.approx(0.9486832980505138)


def test_the_figures_total_each_model_and_name_every_difference_over_five_points():
    pairs = [blind.Pair("a", p, 25.0, 24.0, True, "") for p in blind.PROMPTS]
    pairs += [blind.Pair("b", p, 20.0, 21.0, False, "x -1.00") for p in blind.PROMPTS]
    pairs += [blind.Pair("c", p, 10.0, 3.0 if p == "prompt_1" else 10.0, False, "y") for p in blind.PROMPTS]
    found = blind.figures(pairs, corpus=Path("/nonexistent"))
    assert found["models"] == 3 and found["spearman_models"] == pytest.approx(1.0)
    assert [(d["model"], d["prompt"]) for d in found["over_named"]] == [("c", "prompt_1")]
    assert found["clean_under_floor"] == []
    assert "| a | 25.00 / 24" in blind.markdown(pairs, found)
