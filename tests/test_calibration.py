"""Answers of known quality (tests/calibration) land in the score bands written for them
before they were graded: the grader agrees with an expert on what each class deserves."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmark.grading import grade_task
from benchmark.packs.suite import core_pack

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted(p for p in (ROOT / "tests" / "calibration").iterdir()
               if p.is_dir() and p.name != "blind")  # blind/: tests/test_calibration_blind.py
@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    results = {}
    for case in CASES:
        expect = json.loads((case / "expect.json").read_text(encoding="utf-8"))
        model = tmp_path_factory.mktemp(case.name)
        for path in case.iterdir():
            if path.name != "expect.json":
                shutil.copyfile(path, model / path.name)
        task = core_pack().task(expect["prompt"])
        results[case.name] = (expect, grade_task(task, model, test_data=ROOT / "test_data"))
    return results


@pytest.mark.parametrize("case", [c.name for c in CASES])
def test_each_calibration_answer_lands_in_its_band(graded, case):
    expect, result = graded[case]
    low, high = expect["band"]
    detail = {c.id: (c.earned, c.points, c.rationale[:80]) for cat in result.categories for c in cat.checks}
    assert low - 1e-6 <= result.score <= high + 1e-6, (result.score, result.error, detail)
    categories = {c.category.value: c for c in result.categories}
    for name, limits in expect.get("categories", {}).items():
        category = categories[name]
        fraction = category.earned / category.possible if category.possible else 1.0
        assert fraction <= limits.get("max_fraction", 1.0) + 1e-6, (name, fraction, detail)
        assert fraction >= limits.get("min_fraction", 0.0) - 1e-6, (name, fraction, detail)
    checks = {c.id: c for cat in result.categories for c in cat.checks}
    for check_id, limits in expect.get("checks", {}).items():
        assert checks[check_id].earned <= limits["max_earned"] + 1e-6, (check_id, checks[check_id])
    for text in expect.get("error_contains", []):
        assert text in (result.error or ""), result.error


def test_the_classes_rank_as_an_expert_would(graded):
    score = {name: result.score for name, (_, result) in graded.items()}
    assert score["reference_prompt_3"] > score["subtly_wrong_p3"] > score["utf16_p3"]
    assert score["reference_prompt_1"] > score["keyword_stuffed_p1"] >= score["chat_fence_p1"]
    assert score["reference_prompt_4"] > score["insecure_p4"]
    # right on the fixture only: below any answer that does the work
    assert score["subtly_wrong_p3"] > score["hardcoded_p3"] and score["slow_p1"] > score["hardcoded_p1"]


def test_slow_but_correct_ranks_below_the_reference_and_above_the_wrong(graded):
    score = {name: result.score for name, (_, result) in graded.items()}
    assert score["reference_prompt_3"] > score["slow_p3"] > score["subtly_wrong_p3"]
    assert score["reference_prompt_1"] > score["slow_p1"] > score["keyword_stuffed_p1"]
    assert score["reference_prompt_4"] > score["slow_p4"] > score["insecure_p4"]
