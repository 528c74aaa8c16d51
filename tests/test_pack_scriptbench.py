"""ScriptBench's three result types, expressed in a pack (tests/packs/scriptbench): a number
within a tolerance, labels against an answer file with linear partial credit, and a checker
(a local plugin check type judging the observed output in the grader)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmark.grading import grade_task
from benchmark.engine.pack_gates import behaviour_gates
from benchmark.packs.loader import load_pack

ROOT = Path(__file__).resolve().parent.parent
PACK = ROOT / "tests" / "packs" / "scriptbench"

ANSWERS = {
    "mean_value": ("mean.py", 'import json\nprint(json.dumps({"mean": 4.07}))\n'),  # within 0.01
    "label_items": ("label.py", 'print("id,label")\nprint("1,short")\nprint("2,long")\n'
                                'print("3,long")\nprint("4,long")\n'),  # 3 of 4 right
    "sort_check": ("sort_numbers.py", 'print("[11, 5, 3, 0, -2]")\n'),  # right numbers, wrong order
}


@pytest.fixture(scope="module")
def pack():
    return load_pack(PACK)


def _earned(pack, task_id: str, tmp_path: Path, check_id: str) -> float:
    name, source = ANSWERS[task_id]
    model = tmp_path / task_id
    (model / "scriptbench").mkdir(parents=True)
    (model / "scriptbench" / name).write_text(source, encoding="utf-8")
    result = grade_task(pack.task(task_id), model, test_data=ROOT / "test_data")
    return next(c.earned for cat in result.categories for c in cat.checks if c.id == check_id)


def test_each_reference_scores_full_marks_and_a_do_nothing_answer_almost_nothing(pack):
    assert [p.format() for p in behaviour_gates(pack)] == []


def test_numerical_a_number_within_the_tolerance_earns_the_check(pack, tmp_path):
    assert _earned(pack, "mean_value", tmp_path, "mean") == 7


def test_classification_three_of_four_labels_earn_half_between_zero_at_and_full_at(pack, tmp_path):
    # accuracy 0.75, linear from 0.5 (nothing) to 1.0 (all): half of 7 points
    assert _earned(pack, "label_items", tmp_path, "labels") == pytest.approx(3.5)


def test_a_checker_judges_the_observed_output_and_refuses_the_wrong_order(pack, tmp_path):
    assert _earned(pack, "sort_check", tmp_path, "checker") == 0


def test_the_local_checker_is_recorded_by_the_hash_of_its_code(pack, tmp_path):
    assert any(p.startswith("checkers.py==sha256:") for p in pack.plugins)
    copy = tmp_path / "scriptbench"
    shutil.copytree(PACK, copy)
    (copy / "checkers.py").write_text((PACK / "checkers.py").read_text() + "\n# changed\n")
    assert load_pack(copy).content_hash != pack.content_hash
