"""The spec's public validator API, as a thin facade over the grading engine.

``validate_prompt1_refactoring(path)`` and friends grade one file (or pair) exactly as a full
run would: the file's bytes are read as a run reads a submission file (a symbolic link is not
followed), written under its expected name into a private folder and graded by
``benchmark.grading.grade_prompt``; the code still runs only in sandboxed children. A path that
cannot be read (missing, a symbolic link, not a regular file, too large) gives a result with
status ``error``, score 0 and an error naming that path and the reason.
Each returns ``{"score", "max_score", "passed", "details", "result"}`` where ``result`` is the
full prompt record (checks with rationale and evidence).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from .analyzers.legacy import MaintainabilityAnalyzer, PerformanceAnalyzer, SecurityAnalyzer
from .engine.grading import GradeOptions, default_test_data, grade_prompt, load_files, refused_prompt
from .prompts import module_for
from .reporting.results_json import prompt_to_dict
from .submission import read_bytes
from .types import PromptResult
from .untrusted import NAME_LIMIT, text

__all__ = [
    "MaintainabilityAnalyzer", "PerformanceAnalyzer", "PromptValidators", "SecurityAnalyzer",
    "validate_prompt1_refactoring", "validate_prompt2_yaml_json",
    "validate_prompt3_transformation", "validate_prompt4_api_integration",
]


def _stage(expected_names, sources: dict[str, str | Path | None], folder: Path) -> list[str]:
    """Write the bytes of each given file into ``folder`` under the name the prompt expects, read
    as a run reads a submission file (``submission.read_bytes``: a symbolic link is not followed,
    a missing, irregular or oversized file is refused). Returns one "<given path>: <reason>" per
    refused path (the path escaped and capped: it may come from anywhere); None stages nothing,
    as a file the model did not submit."""
    refused = []
    for expected, source in zip(expected_names, sources.values()):
        if source is None:
            continue
        data, reason = read_bytes(Path(source))
        if data is None:
            refused.append(f"{text(str(source), NAME_LIMIT)}: {reason}")
        else:
            (folder / expected).write_bytes(data)
    return refused


def _grade(prompt_id: str, sources: dict[str, str | Path | None], test_data: Path | None = None,
           options: GradeOptions | None = None) -> PromptResult:
    """Grade the given files as the prompt's files. A path that cannot be read is the caller's
    answer to that prompt, refused as a run refuses a submission file: status ``error``, score 0,
    the error naming the path given and the reason."""
    module = module_for(prompt_id)
    with tempfile.TemporaryDirectory(prefix="rubricbench-validate-") as name:
        folder = Path(name)
        refused = _stage(module.FILES, sources, folder)
        if refused:
            return refused_prompt(module, "; ".join(refused), load_files(module, folder))
        return grade_prompt(module, folder, test_data=test_data or default_test_data(),
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
