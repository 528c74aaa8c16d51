"""Whole-model behaviour: the reference's pinned breakdown, trivial answers, comment invariance."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from benchmark.engine.grading import grade_model
from benchmark.reporting.results_json import model_to_dict

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model"
TEST_DATA = ROOT / "test_data"
GOLDEN = Path(__file__).parent / "golden" / "example_model.json"

TRIVIAL = {
    "prompt_1_solution.py": 'print("[]")\n',
    "prompt_2_config_fixed.yaml": "".join(f"{k}:\n" for k in (
        "use_legacy_paths", "paths", "validation_rules", "processing_options", "api_keys",
        "feature_flags")),
    "prompt_2_config.json": json.dumps({k: None for k in (
        "use_legacy_paths", "paths", "validation_rules", "processing_options", "api_keys",
        "feature_flags")}, indent=2) + "\n",
    "prompt_3_transform.py": "def transform_and_enrich_users(user_list):\n    return user_list\n",
    "prompt_4_api_sync.py": "def sync_users_to_crm(user_data, api_token):\n    return None\n",
}
NOISE = ("# yaml.safe_load json logging pathlib typing try except ValueError with open encoding "
         "Bearer timeout retry job_id safe_load no eval")
DOCSTRING = '"""Uses yaml.safe_load, logging, pathlib, type hints; never eval or exec; timeout=10."""'


def breakdown(model_dir: Path) -> dict:
    result = grade_model(model_dir, "reference_implementations", test_data=TEST_DATA)
    doc = model_to_dict(result)
    return {
        "overall_score": doc["overall_score"],
        "prompts": {pid: {"score": p["score"], "passed": p["passed"],
                          "categories": {c: v["earned"] for c, v in p["detailed_scoring"].items()},
                          "checks": {c["id"]: [c["earned"], c["status"]] for c in p["checks"]}}
                    for pid, p in doc["prompts"].items()},
    }


@pytest.fixture(scope="module")
def reference_breakdown():
    return breakdown(REFERENCE)


def test_reference_matches_its_golden_breakdown(reference_breakdown):
    if os.environ.get("RUBRICBENCH_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(reference_breakdown, indent=2, sort_keys=True) + "\n")
    assert reference_breakdown == json.loads(GOLDEN.read_text())
    assert reference_breakdown["overall_score"] >= 90
    assert all(p["passed"] for p in reference_breakdown["prompts"].values())


def test_trivial_submission_scores_at_most_15_and_passes_nothing(tmp_path):
    for name, text in TRIVIAL.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    result = breakdown(tmp_path)
    assert result["overall_score"] <= 15
    assert not any(p["passed"] for p in result["prompts"].values())


def _with_noise(path: Path) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    out = ["# " + NOISE]
    for line in lines:
        out.append(line)
        indent = re.match(r"\s*", line).group(0)
        if path.suffix == ".py" and re.match(r"\s*(async\s+)?def .*\):.*$|\s*(async\s+)?def .*:\s*$", line) \
                and line.rstrip().endswith(":"):
            out.append(indent + "    " + DOCSTRING)
        elif path.suffix in (".py", ".yaml") and line.strip() and not line.rstrip().endswith(("\\", ",", "(", "[", "{")):
            out.append(indent + NOISE if path.suffix == ".py" else "# " + NOISE)
    return "\n".join(out) + "\n"


def test_comments_and_docstrings_change_no_score(tmp_path, reference_breakdown):
    for path in REFERENCE.iterdir():
        target = tmp_path / path.name
        if path.suffix in (".py", ".yaml"):
            target.write_text(_with_noise(path), encoding="utf-8")
        else:
            shutil.copyfile(path, target)
    noisy = breakdown(tmp_path)
    assert noisy == reference_breakdown
