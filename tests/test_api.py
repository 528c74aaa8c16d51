"""The spec's Python API: names import and return the documented shapes."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REF = ROOT / "submissions" / "reference_implementations" / "example_model"


def test_validators_return_the_documented_shapes():
    from benchmark.validators import (validate_prompt1_refactoring, validate_prompt2_yaml_json,
                                      validate_prompt3_transformation,
                                      validate_prompt4_api_integration)

    expected_details = {
        "p1": {"syntax", "execution", "security", "performance", "maintainability"},
        "p2": {"yaml_valid", "json_valid", "equivalence", "structure"},
        "p3": {"function_exists", "signature_correct", "transformations", "business_rules"},
        "p4": {"function_exists", "authentication", "error_handling", "security"},
    }
    results = {
        "p1": validate_prompt1_refactoring(str(REF / "prompt_1_solution.py")),
        "p2": validate_prompt2_yaml_json(str(REF / "prompt_2_config_fixed.yaml"),
                                         str(REF / "prompt_2_config.json")),
        "p3": validate_prompt3_transformation(str(REF / "prompt_3_transform.py")),
        "p4": validate_prompt4_api_integration(str(REF / "prompt_4_api_sync.py")),
    }
    for key, result in results.items():
        assert result["max_score"] == 25 and result["passed"] is True, key
        assert 15 <= result["score"] <= 25
        assert set(result["details"]) == expected_details[key]
    assert results["p1"]["details"]["syntax"] is True
    assert results["p2"]["details"]["equivalence"] is True
    assert results["p4"]["details"]["authentication"] is True
    assert isinstance(results["p1"]["details"]["security"], list)


def test_validator_on_a_renamed_or_missing_file(tmp_path):
    from benchmark.validators import validate_prompt3_transformation

    renamed = tmp_path / "my_transform.py"
    renamed.write_bytes((REF / "prompt_3_transform.py").read_bytes())
    assert validate_prompt3_transformation(renamed)["passed"]
    missing = validate_prompt3_transformation(tmp_path / "absent.py")
    assert missing["score"] == 0 and "file not found" in missing["result"]["error"]


def _refusals(tmp_path, bad):
    """Each library entry point given ``bad`` for one of its files (the others real)."""
    from benchmark.validators import (PromptValidators, validate_prompt1_refactoring,
                                      validate_prompt2_yaml_json, validate_prompt3_transformation,
                                      validate_prompt4_api_integration)

    yaml, json_ = REF / "prompt_2_config_fixed.yaml", REF / "prompt_2_config.json"
    return {
        "p1": validate_prompt1_refactoring(bad),
        "p2 yaml": validate_prompt2_yaml_json(bad, json_),
        "p2 json": validate_prompt2_yaml_json(yaml, bad),
        "p3": validate_prompt3_transformation(bad),
        "p4": validate_prompt4_api_integration(bad),
        "class p3": PromptValidators(ROOT / "test_data").validate_prompt_3_transformation(bad),
    }


def test_validators_name_the_missing_path_the_caller_gave_not_the_expected_file(tmp_path):
    for key, result in _refusals(tmp_path, "typo.py").items():
        record = result["result"]
        assert (result["score"], result["passed"], record["status"]) == (0, False, "error"), key
        assert record["error"] == "typo.py: file not found", key
        assert all(c["status"] == "error" and c["rationale"] == "typo.py: file not found"
                   for c in record["checks"]), key


def test_validators_refuse_a_symbolic_link_as_a_run_does_even_to_a_perfect_answer(tmp_path):
    for name in ("prompt_1_solution.py", "prompt_3_transform.py"):
        (tmp_path / name).symlink_to(REF / name)
    link = tmp_path / "prompt_3_transform.py"
    for key, result in _refusals(tmp_path, link).items():
        assert result["score"] == 0 and result["result"]["status"] == "error", key
        assert result["result"]["error"] == f"{link}: is a symbolic link (not followed)", key
    # the same reference file, not through a link, earns full marks
    from benchmark.validators import validate_prompt1_refactoring

    assert validate_prompt1_refactoring(tmp_path / "prompt_1_solution.py")["score"] == 0
    assert validate_prompt1_refactoring(REF / "prompt_1_solution.py")["passed"]


def test_validators_refuse_a_folder_and_escape_the_path_they_name(tmp_path):
    from benchmark.validators import validate_prompt3_transformation

    folder = tmp_path / "a_folder.py"
    folder.mkdir()
    hostile = tmp_path / "evil\x1b[2J.py"
    assert validate_prompt3_transformation(folder)["result"]["error"] == f"{folder}: not a regular file"
    error = validate_prompt3_transformation(hostile)["result"]["error"]
    assert error == f"{tmp_path}/evil\\x1b[2J.py: file not found" and "\x1b" not in error


def test_validator_given_none_for_a_prompt_2_file_grades_the_other_as_not_submitted():
    from benchmark.validators import validate_prompt2_yaml_json

    result = validate_prompt2_yaml_json(None, REF / "prompt_2_config.json")
    assert result["result"]["status"] == "ok" and 0 < result["score"] < 25
    assert result["details"]["json_valid"] and not result["details"]["yaml_valid"]


def test_prompt_validators_class_and_analyzers():
    from benchmark.validators import (MaintainabilityAnalyzer, PerformanceAnalyzer,
                                      PromptValidators, SecurityAnalyzer)

    validators = PromptValidators(ROOT / "test_data", model_name="example_model")
    assert validators.validate_prompt_4_api(REF / "prompt_4_api_sync.py")["passed"]
    risky = "import os\ndef f(cmd):\n    os.system(cmd)\n    return eval(cmd)\n"
    assert SecurityAnalyzer.analyze_code_security(risky)["score"] < 1
    nested = "def f(a):\n    for x in a:\n        for y in a:\n            print(x, y)\n"
    assert PerformanceAnalyzer.check_nested_loops(nested)["issues"]
    assert "score" in MaintainabilityAnalyzer.analyze_code_maintainability(nested)


def test_scoring_api_from_the_spec():
    from benchmark.scoring import (BenchmarkScorer, calculate_grade, calculate_score,
                                   compare_models, generate_badge, get_grade)

    results = {"prompt_1": {"score": 23.5, "max_score": 25}, "prompt_2": {"score": 25.0, "max_score": 25},
               "prompt_3": {"score": 24.5, "max_score": 25}, "prompt_4": {"score": 21.0, "max_score": 25}}
    total = calculate_score(results)
    assert total == pytest.approx(94.0)
    assert get_grade(total) == calculate_grade(total) == "A"
    assert generate_badge(total) and BenchmarkScorer().calculate_grade(50) == "F"
    assert compare_models({})["ranking"] == []


def test_utils_runner_types_and_secure_runner_import():
    from benchmark.runner import BenchmarkRunner
    from benchmark.secure_runner import SecureRunner
    from benchmark.types import ModelResults, PromptResult
    from benchmark.utils import (create_comparison_chart, format_results, safe_load_json,
                                 safe_load_yaml)

    assert safe_load_json(ROOT / "test_data" / "user_data.json")
    assert safe_load_yaml(REF / "prompt_2_config_fixed.yaml")["use_legacy_paths"] is True
    runner = BenchmarkRunner(model_name="example_model", results_dir="results/", timeout=30,
                             submissions_dir=ROOT / "submissions", test_data=ROOT / "test_data")
    p3 = runner.run_test("prompt_3_transformation")
    assert p3["passed"] and p3["max_score"] == 25
    assert SecureRunner and PromptResult and ModelResults
    assert callable(format_results) and callable(create_comparison_chart)


def test_secure_runner_keeps_every_public_name_of_the_parts_split_from_it():
    """Library users import these from ``benchmark.secure_runner``; the limits and the record
    reader live in ``benchmark.sandbox`` and are re-exported (the same objects)."""
    import benchmark.secure_runner as secure_runner
    from benchmark.sandbox import limits, result_record

    own = ("SecureRunner", "HARNESS_DIR", "PIDS_MAX", "STDOUT_CAP", "STDERR_CAP", "CHANNEL_CAP")
    assert all(hasattr(secure_runner, name) for name in own)
    assert secure_runner.MAX_INT_DIGITS is result_record.MAX_INT_DIGITS
    for name in ("GUARD_OFF_ENV", "address_space_mb", "idle_child_mb", "zygote_idle_mb"):
        assert getattr(secure_runner, name) is getattr(limits, name)


def test_programmatic_entry_point(tmp_path):
    from run_benchmark import AICodeBenchmark

    bench = AICodeBenchmark(submissions_dir=str(ROOT / "submissions"), results_dir=str(tmp_path))
    result = bench.run_single_model("example_model")
    assert result["overall_score"] >= 90 and result["percentage"] >= 90


def test_a_runner_without_a_model_or_asked_for_an_unknown_task_says_what_is_missing():
    """The spec's convenience calls fail naming what to pass: no ``model_name`` (was: "model
    'None' not found") or a task the suite does not hold (was: a bare KeyError 'prompt_9')."""
    from benchmark.runner import BenchmarkRunner

    unnamed = BenchmarkRunner(submissions_dir=ROOT / "submissions", test_data=ROOT / "test_data")
    for call in (unnamed.run_all_tests, lambda: unnamed.run_test("prompt_1")):
        with pytest.raises(ValueError, match=r"no model_name: BenchmarkRunner\(model_name=\.\.\.\)"):
            call()
    named = BenchmarkRunner("example_model", submissions_dir=ROOT / "submissions",
                            test_data=ROOT / "test_data")
    with pytest.raises(KeyError, match=r"no task 'prompt_9' in this suite: prompt_1, prompt_2, prompt_3, prompt_4"):
        named.run_test("prompt_9")
