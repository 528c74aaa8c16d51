"""The spec's public validator API, as a thin facade over the grading engine.

``validate_prompt1_refactoring(path)`` and friends grade one file (or pair) exactly as a full
run would: the file is copied under its expected name into a private folder and graded by
``benchmark.grading.grade_prompt``; the code still runs only in sandboxed children.
Each returns ``{"score", "max_score", "passed", "details", "result"}`` where ``result`` is the
full prompt record (checks with rationale and evidence).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from .analyzers.legacy import MaintainabilityAnalyzer, PerformanceAnalyzer, SecurityAnalyzer
from .engine.grading import GradeOptions, default_test_data, grade_prompt
from .prompts import module_for
from .reporting.results_json import prompt_to_dict
from .types import PromptResult

__all__ = [
    "MaintainabilityAnalyzer", "PerformanceAnalyzer", "PromptValidators", "SecurityAnalyzer",
    "validate_prompt1_refactoring", "validate_prompt2_yaml_json",
    "validate_prompt3_transformation", "validate_prompt4_api_integration",
]


def _grade(prompt_id: str, sources: dict[str, str | Path], test_data: Path | None = None,
           options: GradeOptions | None = None) -> PromptResult:
    module = module_for(prompt_id)
    with tempfile.TemporaryDirectory(prefix="rubricbench-validate-") as folder:
        for expected, source in zip(module.FILES, sources.values()):
            if source is not None and Path(source).is_file():
                shutil.copyfile(source, Path(folder) / expected)
        return grade_prompt(module, Path(folder), test_data=test_data or default_test_data(),
                            options=options)


def _statuses(result: PromptResult) -> dict[str, str]:
    return {check.id: check.status for cat in result.categories for check in cat.checks}


def _lost(result: PromptResult, category: str) -> list[str]:
    return [f"{c.id}: {c.rationale}" for cat in result.categories if cat.category.value == category
            for c in cat.checks if c.status != "pass"]


def _envelope(result: PromptResult, details: dict[str, Any]) -> dict[str, Any]:
    return {"score": result.score, "max_score": result.max_score, "passed": result.passed,
            "details": details, "result": prompt_to_dict(result)}


def _passed(status: dict[str, str], *ids: str) -> bool:
    return all(status.get(i) == "pass" for i in ids)


def validate_prompt1_refactoring(solution_path: str | Path, **kw: Any) -> dict[str, Any]:
    result = _grade("prompt_1", {"solution": solution_path}, **kw)
    status = _statuses(result)
    return _envelope(result, {
        "syntax": _passed(status, "valid_syntax"),
        "execution": _passed(status, "runs_without_error"),
        "security": _lost(result, "security"),
        "performance": _lost(result, "performance"),
        "maintainability": _lost(result, "maintainability"),
    })


def validate_prompt2_yaml_json(yaml_path: str | Path, json_path: str | Path, **kw: Any) -> dict[str, Any]:
    result = _grade("prompt_2", {"yaml": yaml_path, "json": json_path}, **kw)
    status = _statuses(result)
    return _envelope(result, {
        "yaml_valid": _passed(status, "yaml_parses"),
        "json_valid": _passed(status, "json_parses"),
        "equivalence": _passed(status, "deep_equivalence", "yaml_json_agree"),
        "structure": {i: status.get(i) == "pass" for i in ("required_keys", "nested_shapes", "arrays_scalars")},
    })


def validate_prompt3_transformation(transform_path: str | Path, **kw: Any) -> dict[str, Any]:
    result = _grade("prompt_3", {"transform": transform_path}, **kw)
    status = _statuses(result)
    rules = ("id_standardization", "email_provider", "age_normalization", "account_tiers")
    return _envelope(result, {
        "function_exists": _passed(status, "function_exists"),
        "signature_correct": _passed(status, "correct_signature"),
        "transformations": {i: status.get(i) == "pass" for i in rules},
        "business_rules": _passed(status, "account_tiers"),
    })


def validate_prompt4_api_integration(api_path: str | Path, **kw: Any) -> dict[str, Any]:
    result = _grade("prompt_4", {"api": api_path}, **kw)
    status = _statuses(result)
    handling = ("success_handling", "handle_400", "handle_401", "handle_503",
                "handle_connection_error", "handle_other_status", "json_parsing")
    return _envelope(result, {
        "function_exists": _passed(status, "function_exists"),
        "authentication": _passed(status, "bearer_auth"),
        "error_handling": {i: status.get(i) == "pass" for i in handling},
        "security": {i: status.get(i) == "pass"
                     for i in ("bearer_auth", "no_token_leak", "explicit_timeout", "secure_transport",
                               "no_hardcoded_creds")},
    })


class PromptValidators:
    """The spec's class form: ``PromptValidators(test_data_dir, model_name)``."""

    def __init__(self, test_data_dir: str | Path, model_name: str = "default",
                 options: GradeOptions | None = None) -> None:
        self.test_data_dir = Path(test_data_dir)
        self.model_name = model_name
        self.options = options

    def _kw(self) -> dict[str, Any]:
        return {"test_data": self.test_data_dir, "options": self.options}

    def validate_prompt_1_refactoring(self, solution_file: str | Path) -> dict[str, Any]:
        return validate_prompt1_refactoring(solution_file, **self._kw())

    def validate_prompt_2_yaml_json(self, yaml_file: str | Path, json_file: str | Path) -> dict[str, Any]:
        return validate_prompt2_yaml_json(yaml_file, json_file, **self._kw())

    def validate_prompt_3_transformation(self, transform_file: str | Path) -> dict[str, Any]:
        return validate_prompt3_transformation(transform_file, **self._kw())

    def validate_prompt_4_api(self, api_file: str | Path) -> dict[str, Any]:
        return validate_prompt4_api_integration(api_file, **self._kw())
