"""The rubric: a literal table of prompts, category maxima and checks, validated at import.

Each row is (check id, category, points, method). Check functions live in
``benchmark/prompts/pN_*.py`` and are bound to these ids by ``benchmark.prompts.registry``;
the registry refuses to load when a row has no function or a function has no row.
``docs/scoring.md`` is generated from this table by ``scripts/gen_scoring_doc.py``.
Each prompt also names the files a model submits for it (its module's ``FILES``, held equal
by the registry), so the result cache can key a model without loading the grading engine.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from .types import CATEGORY_ORDER, METHODS, Category

PROMPT_POINTS = 25.0
PASS_FRACTION = 0.60

# Gates: how much of a category's raw credit is kept, given w = execution earned / max
# ("how much of the prompt works"). FULL keeps w; PARTIAL keeps 0.25 + 0.75 w; NONE keeps all.
GATES: dict[Category, str] = {
    Category.SYNTAX: "partial",
    Category.STRUCTURE: "partial",
    Category.EXECUTION: "none",
    Category.QUALITY: "partial",
    Category.SECURITY: "full",
    Category.PERFORMANCE: "full",
    Category.MAINTAINABILITY: "full",
}

S, ST, E, Q, SE, P, M = (
    Category.SYNTAX,
    Category.STRUCTURE,
    Category.EXECUTION,
    Category.QUALITY,
    Category.SECURITY,
    Category.PERFORMANCE,
    Category.MAINTAINABILITY,
)


@dataclass(frozen=True)
class CheckRow:
    id: str
    category: Category
    points: float
    method: str


@dataclass(frozen=True)
class PromptRubric:
    id: str
    title: str
    maxima: dict[Category, float]
    checks: tuple[CheckRow, ...]
    files: tuple[str, ...] = ()  # what a model submits for the prompt (its module's FILES)


def _rows(*rows: tuple[str, Category, float, str]) -> tuple[CheckRow, ...]:
    return tuple(CheckRow(*row) for row in rows)


RUBRIC: tuple[PromptRubric, ...] = (
    PromptRubric(
        "prompt_1",
        "Refactoring & Analysis",
        {S: 5, ST: 3, E: 6, Q: 3, SE: 4, P: 2, M: 2},
        _rows(
            ("valid_syntax", S, 5.0, "parse"),
            ("yaml_import", ST, 0.5, "ast"),
            ("json_import", ST, 0.5, "ast"),
            ("error_handling", ST, 0.75, "ast"),
            ("type_hints", ST, 0.75, "ast"),
            ("logging", ST, 0.5, "ast"),
            ("runs_without_error", E, 1.0, "exec"),
            ("json_output_validation", E, 1.0, "exec"),
            ("correct_filtering", E, 2.0, "behaviour"),
            ("correct_values", E, 1.0, "behaviour"),
            ("perturbed_dataset", E, 1.0, "behaviour"),
            ("has_main_guard", Q, 0.5, "ast"),
            ("proper_file_handling", Q, 0.75, "ast"),
            ("no_builtin_shadowing", Q, 0.75, "ast"),
            ("specific_exceptions", Q, 1.0, "ast"),
            ("safe_yaml_loading", SE, 1.5, "ast"),
            ("no_security_issues", SE, 1.5, "bandit"),
            ("sandbox_violations", SE, 1.0, "exec"),
            ("no_nested_loops", P, 1.0, "ast"),
            ("no_io_in_loops", P, 1.0, "ast"),
            ("no_long_functions", M, 0.5, "radon"),
            ("low_complexity", M, 0.5, "radon"),
            ("maintainability_index", M, 0.5, "radon"),
            ("good_naming", M, 0.5, "ast"),
        ),
        files=("prompt_1_solution.py",),
    ),
    PromptRubric(
        "prompt_2",
        "YAML/JSON Correction",
        {S: 4, ST: 6, E: 8, Q: 6, SE: 1, P: 0, M: 0},
        _rows(
            ("yaml_parses", S, 2.0, "parse"),
            ("json_parses", S, 2.0, "parse"),
            ("required_keys", ST, 2.0, "parse"),
            ("nested_shapes", ST, 2.0, "parse"),
            ("arrays_scalars", ST, 2.0, "parse"),
            ("deep_equivalence", E, 3.0, "parse"),
            ("partial_matches", E, 3.0, "parse"),
            ("yaml_json_agree", E, 2.0, "parse"),
            ("yaml_indentation", Q, 1.5, "parse"),
            ("json_literals", Q, 1.5, "parse"),
            ("formatting_style", Q, 1.5, "parse"),
            ("no_duplication", Q, 1.5, "parse"),
            ("yaml_safety", SE, 1.0, "parse"),
        ),
        files=("prompt_2_config_fixed.yaml", "prompt_2_config.json"),
    ),
    PromptRubric(
        "prompt_3",
        "Data Transformation",
        {S: 3, ST: 3, E: 12, Q: 3, SE: 1, P: 1, M: 2},
        _rows(
            ("file_compiles", S, 2.0, "parse"),
            ("function_exists", S, 1.0, "ast"),
            ("correct_signature", ST, 1.5, "ast"),
            ("basic_organization", ST, 1.5, "ast"),
            ("function_runs", E, 2.0, "behaviour"),
            ("id_standardization", E, 2.0, "behaviour"),
            ("email_provider", E, 2.0, "behaviour"),
            ("age_normalization", E, 2.0, "behaviour"),
            ("account_tiers", E, 2.0, "behaviour"),
            ("error_handling", E, 2.0, "behaviour"),
            ("specific_exceptions", Q, 1.0, "ast"),
            ("no_input_mutation", Q, 1.0, "behaviour"),
            ("readable_loops", Q, 1.0, "ast"),
            ("no_unsafe_constructs", SE, 0.5, "bandit"),
            ("sandbox_violations", SE, 0.5, "exec"),
            ("single_pass", P, 1.0, "ast"),
            ("code_organization", M, 1.0, "radon"),
            ("maintainability_index", M, 1.0, "radon"),
        ),
        files=("prompt_3_transform.py",),
    ),
    PromptRubric(
        "prompt_4",
        "API Integration",
        {S: 2, ST: 3, E: 7, Q: 3, SE: 7, P: 2, M: 1},
        _rows(
            ("file_compiles", S, 1.0, "parse"),
            ("function_exists", S, 1.0, "ast"),
            ("correct_signature", ST, 1.0, "ast"),
            ("request_structure", ST, 2.0, "behaviour"),
            ("success_handling", E, 1.5, "behaviour"),
            ("handle_400", E, 1.0, "behaviour"),
            ("handle_401", E, 1.0, "behaviour"),
            ("handle_503", E, 1.0, "behaviour"),
            ("handle_connection_error", E, 1.0, "behaviour"),
            ("handle_other_status", E, 0.5, "behaviour"),
            ("json_parsing", E, 1.0, "behaviour"),
            ("informative_errors", Q, 1.5, "behaviour"),
            ("specific_exceptions", Q, 1.5, "ast"),
            ("bearer_auth", SE, 2.0, "behaviour"),
            ("no_token_leak", SE, 2.0, "behaviour"),
            ("explicit_timeout", SE, 1.5, "behaviour"),
            ("no_hardcoded_creds", SE, 1.0, "bandit"),
            ("sandbox_violations", SE, 0.5, "exec"),
            ("retry_resilience", P, 2.0, "behaviour"),
            ("code_organization", M, 1.0, "radon"),
        ),
        files=("prompt_4_api_sync.py",),
    ),
)


class RubricError(Exception):
    """The rubric table is inconsistent: a grader bug, never a submission's fault."""


def validate(rubric: tuple[PromptRubric, ...] = RUBRIC) -> None:
    seen_prompts: set[str] = set()
    for prompt in rubric:
        if prompt.id in seen_prompts:
            raise RubricError(f"duplicate prompt id {prompt.id}")
        seen_prompts.add(prompt.id)
        if set(prompt.maxima) != set(CATEGORY_ORDER):
            raise RubricError(f"{prompt.id}: maxima must name all seven categories")
        if abs(sum(prompt.maxima.values()) - PROMPT_POINTS) > 1e-9:
            raise RubricError(f"{prompt.id}: maxima add up to {sum(prompt.maxima.values())}")
        if not prompt.files or len(set(prompt.files)) != len(prompt.files):
            raise RubricError(f"{prompt.id}: files must be named, each once")
        ids = [row.id for row in prompt.checks]
        if len(ids) != len(set(ids)):
            raise RubricError(f"{prompt.id}: duplicate check ids")
        for row in prompt.checks:
            if row.points <= 0 or row.method not in METHODS:
                raise RubricError(f"{prompt.id}.{row.id}: bad points or method")
        for category, maximum in prompt.maxima.items():
            total = sum(r.points for r in prompt.checks if r.category is category)
            if abs(total - maximum) > 1e-9:
                raise RubricError(f"{prompt.id}.{category.value}: checks add up to {total}, max {maximum}")


def by_id(prompt_id: str) -> PromptRubric:
    for prompt in RUBRIC:
        if prompt.id == prompt_id:
            return prompt
    raise KeyError(prompt_id)


def rubric_hash() -> str:
    """A stable hash of the table and the gating rules (part of every manifest and cache key)."""
    table = [
        [p.id, p.title, {c.value: v for c, v in p.maxima.items()},
         [[r.id, r.category.value, r.points, r.method] for r in p.checks]]
        for p in RUBRIC
    ]
    payload = {"table": table, "gates": {c.value: g for c, g in GATES.items()},
               "pass_fraction": PASS_FRACTION}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


validate()
