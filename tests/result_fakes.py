"""Builders for small, fake results (checks -> PromptResult -> ModelResult -> RunResult).

Used by tests of scoring and reporting; nothing here runs a submission.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from benchmark.rubric import RUBRIC, CheckRow, PromptRubric
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
    max_score = float(round(sum(rubric.maxima.values()), 4))
    return PromptResult(rubric.id, rubric.title, score, max_score, passed, "error" if error else "ok",
                        categories, ({"stage": "run", "returncode": 0},), error,
                        {f"{rubric.id}.py": "ab" * 32})


def pack_task(key: str, title: str, points: float = 25.0, like: int = 0) -> PromptRubric:
    """A task of a pack (key ``<pack>.<task>``): a core prompt's rubric scaled to ``points``."""
    base, scale = RUBRIC[like], points / 25.0
    return replace(base, id=key, title=title,
                   maxima={cat: value * scale for cat, value in base.maxima.items()},
                   checks=tuple(CheckRow(row.id, row.category, row.points * scale, row.method)
                                for row in base.checks))


# Task-pack tasks: two of ``data_pack``, one of ``text_pack`` (a long key, a title with markup).
PACK_TASKS: tuple[PromptRubric, ...] = (
    pack_task("data_pack.sales_report", "Sales report CLI", 25.0, like=0),
    pack_task("data_pack.slugify", "Slugify titles", 10.0, like=2),
    pack_task("text_pack.a_rather_long_task_identifier_for_layout", "Wrap <long> lines & more", 15.0,
              like=3),
)
# A suite of six tasks: the core pack's four, one of ``data_pack`` and one of ``text_pack``.
SIX_TASKS: tuple[PromptRubric, ...] = (*RUBRIC, PACK_TASKS[0], PACK_TASKS[2])


def suite_meta(tasks: Sequence[PromptRubric]) -> list[dict]:
    """``_metadata.suite`` as the CLI records it for a run of ``tasks``."""
    titles = {"core": "Core prompts", "data_pack": "Data tasks", "text_pack": "Text <tasks>"}
    packs: dict[str, list[str]] = {}
    for task in tasks:
        packs.setdefault(task.id.split(".")[0] if "." in task.id else "core", []).append(task.id)
    return [{"id": pack, "version": 1, "title": titles[pack], "hash": str(i) * 16, "plugins": [],
             "tasks": keys} for i, (pack, keys) in enumerate(packs.items())]


def make_model(name: str, default: float = 1.0, tier: str = "reference",
               fractions: Mapping[str, float] | None = None,
               tasks: Sequence[PromptRubric] = RUBRIC,
               per_task: Mapping[str, float] | None = None) -> ModelResult:
    """A model graded on ``tasks`` (default: the core pack, out of 100; else out of the tasks'
    points); ``per_task`` overrides ``default`` for some task keys."""
    per_task = per_task or {}
    prompts = [make_prompt(r, fractions, per_task.get(r.id, default)) for r in tasks]
    if tasks is RUBRIC:
        return score_model(name, tier, prompts)
    return score_model(name, tier, prompts, max_score=sum(p.max_score for p in prompts))


def make_run(*models: ModelResult, run_id: str = "20250101_000000",
             suite: list | None = None) -> RunResult:
    environment = {
        "grader_version": "0.1.0",
        "rubric_hash": "0123456789abcdef",
        "python_version": "3.11.9",
        "platform": "Linux-test",
        "isolation": {"process": {"timeout_s": 30, "memory_mb": 512}, "network": "blocked"},
        "git_commit": None,
        "timestamp_utc": "2025-01-01T00:00:00Z",
    }
    if suite is not None:
        environment["suite"] = suite
    return RunResult("1.0", run_id, "2025-01-01T00:00:00", "2025-01-01T00:01:00",
                     {"workers": 1}, environment, tuple(models))
