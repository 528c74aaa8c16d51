"""Builders for small, fake results (checks -> PromptResult -> ModelResult -> RunResult).

Used by tests of scoring and reporting; nothing here runs a submission.
"""

from __future__ import annotations

from collections.abc import Mapping

from benchmark.rubric import RUBRIC, PromptRubric
from benchmark.scoring import score_model, score_prompt
from benchmark.types import Check, Evidence, ModelResult, PromptResult, RunResult


def make_checks(rubric: PromptRubric, fractions: Mapping[str, float] | None = None,
                default: float = 1.0) -> list[Check]:
    """One check per rubric row earning ``fractions[category]`` (or ``default``) of its points."""
    fractions = fractions or {}
    checks = []
    for row in rubric.checks:
        fraction = fractions.get(row.category.value, default)
        status = "pass" if fraction >= 1 else ("fail" if fraction <= 0 else "partial")
        evidence = () if status == "pass" else (Evidence(rubric.id + ".py", 3, "seen here"),)
        checks.append(Check(row.id, row.category, row.points, row.points * fraction, status,
                            row.method, f"{row.id} rationale", evidence))
    return checks


def make_prompt(rubric: PromptRubric, fractions: Mapping[str, float] | None = None,
                default: float = 1.0, error: str | None = None) -> PromptResult:
    categories, score, passed = score_prompt(rubric, make_checks(rubric, fractions, default))
    return PromptResult(rubric.id, rubric.title, score, 25.0, passed, "error" if error else "ok",
                        categories, ({"stage": "run", "returncode": 0},), error,
                        {f"{rubric.id}.py": "ab" * 32})


def make_model(name: str, default: float = 1.0, tier: str = "reference",
               fractions: Mapping[str, float] | None = None) -> ModelResult:
    return score_model(name, tier, [make_prompt(r, fractions, default) for r in RUBRIC])


def make_run(*models: ModelResult, run_id: str = "20250101_000000") -> RunResult:
    environment = {
        "grader_version": "0.1.0",
        "rubric_hash": "0123456789abcdef",
        "python_version": "3.11.9",
        "platform": "Linux-test",
        "isolation": {"process": {"timeout_s": 30, "memory_mb": 512}, "network": "blocked"},
        "git_commit": None,
        "timestamp_utc": "2025-01-01T00:00:00Z",
    }
    return RunResult("1.0", run_id, "2025-01-01T00:00:00", "2025-01-01T00:01:00",
                     {"workers": 1}, environment, tuple(models))
