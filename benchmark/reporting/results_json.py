"""Results as versioned JSON: dataclasses -> spec-compatible dict, and schema validation.

``run_to_dict`` builds the document every other reporter reads; ``validate_results`` checks
it against ``benchmark/schema/results.schema.json`` (plus a few invariants a schema cannot
state) and ``load_results`` reads a saved file back, validated.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from ..scoring import EPS, compare_models
from ..types import CATEGORY_ORDER, CategoryScore, Check, ModelResult, PromptResult, RunResult

SCHEMA_VERSION = "1.0"
SCHEMA_RESOURCE = ("schema", "results.schema.json")
ICON_FULL, ICON_SOME, ICON_NONE = "✅", "⚠️", "❌"


class ResultsSchemaError(ValueError):
    """A results document does not match the schema. ``path`` locates the first problem."""

    def __init__(self, message: str, path: str, problems: int) -> None:
        super().__init__(message)
        self.path = path
        self.problems = problems


@lru_cache(maxsize=1)
def load_schema() -> dict[str, Any]:
    text = resources.files("benchmark").joinpath(*SCHEMA_RESOURCE).read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def _validator() -> Any:
    """jsonschema's validator: the authority, and the source of every error message."""
    from jsonschema import Draft202012Validator  # imported on first use (see _conforms)

    Draft202012Validator.check_schema(load_schema())  # a broken schema is our bug: SchemaError
    return Draft202012Validator(load_schema())


@lru_cache(maxsize=1)
def _fast_check() -> Any:
    """fastjsonschema's validator compiled from the same schema: a yes/no answer about 20 times
    faster than jsonschema's. It generates draft-07 code; the schema keeps to keywords whose
    meaning draft-07 and 2020-12 share (``tests/test_schema_fast_path.py`` holds it to that and
    compares the two validators' verdicts on valid and broken documents). It never fills in
    defaults: the document is not modified."""
    import fastjsonschema

    return fastjsonschema.compile(load_schema(), use_default=False)


def _conforms(doc: Any) -> bool:
    from fastjsonschema import JsonSchemaException

    try:
        _fast_check()(doc)
    except JsonSchemaException:
        return False
    return True


def schema_errors(doc: Any) -> list[Any]:
    """Every schema error in ``doc`` (jsonschema ``ValidationError`` objects); none if it conforms.
    A conforming document, the usual case, is answered by the fast check alone; jsonschema walks
    only a document the fast check rejected, to say exactly what is wrong with it."""
    return [] if _conforms(doc) else list(_validator().iter_errors(doc))


def _json_path(parts: Iterable[Any]) -> str:
    path = "$"
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _invariant_problems(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Facts JSON Schema cannot express: earned <= possible, keys agree with names."""
    problems = []
    for name, model in doc["models"].items():
        if model["model_name"] != name:
            problems.append((f"$.models.{name}.model_name", f"{model['model_name']!r} != key {name!r}"))
        if model["overall_score"] > model["total_possible"] + EPS:
            problems.append((f"$.models.{name}.overall_score", "exceeds total_possible"))
        for pid, prompt in model["prompts"].items():
            base = f"$.models.{name}.prompts.{pid}"
            if prompt["score"] > prompt["max_score"] + EPS:
                problems.append((f"{base}.score", "exceeds max_score"))
            for cat, numbers in prompt["detailed_scoring"].items():
                if numbers["earned"] > numbers["max"] + EPS:
                    problems.append((f"{base}.detailed_scoring.{cat}.earned", "exceeds max"))
            for i, check in enumerate(prompt["checks"]):
                if check["earned"] > check["points"] + EPS:
                    problems.append((f"{base}.checks[{i}].earned", "exceeds points"))
    if doc["benchmark_run"]["total_models"] != len(doc["models"]):
        problems.append(("$.benchmark_run.total_models", "does not match the number of models"))
    return problems


def validate_results(doc: Any) -> None:
    """Raise ``ResultsSchemaError`` naming the path of the first problem."""
    errors = schema_errors(doc)
    if errors:
        from jsonschema.exceptions import best_match

        first = best_match(errors)
        path = _json_path(first.absolute_path)
        raise ResultsSchemaError(
            f"results document invalid at {path}: {first.message} ({len(errors)} problem(s) in total)",
            path,
            len(errors),
        )
    problems = _invariant_problems(doc)
    if problems:
        path, message = problems[0]
        raise ResultsSchemaError(
            f"results document invalid at {path}: {message} ({len(problems)} problem(s) in total)",
            path,
            len(problems),
        )


def load_results(path: str | Path) -> dict[str, Any]:
    """Read a results file and validate it; ``ResultsSchemaError`` if it does not conform."""
    with open(path, encoding="utf-8") as handle:
        doc = json.load(handle)
    validate_results(doc)
    return doc


# ---- dataclasses -> dicts --------------------------------------------------------------


def _fmt(value: float) -> str:
    return f"{value:.1f}"


def feedback_line(category: CategoryScore) -> str:
    """e.g. ``✅ Syntax (5.0/5.0): ✓valid_syntax`` or ``⚠️ Structure (2.4/3.0): ✓a, b ✗c``."""
    if category.earned >= category.possible - EPS:
        icon = ICON_FULL
    elif category.earned > EPS:
        icon = ICON_SOME
    else:
        icon = ICON_NONE
    groups = (
        ("✓", [c.id for c in category.checks if c.status == "pass"]),
        ("◐", [c.id for c in category.checks if c.status == "partial"]),
        ("✗", [c.id for c in category.checks if c.status in ("fail", "error", "skipped")]),
    )
    marks = " ".join(mark + ", ".join(ids) for mark, ids in groups if ids)
    title = category.category.value.title()
    return f"{icon} {title} ({_fmt(category.earned)}/{_fmt(category.possible)}): {marks}".rstrip()


def check_to_dict(check: Check) -> dict[str, Any]:
    return {
        "id": check.id,
        "category": check.category.value,
        "points": check.points,
        "earned": check.earned,
        "status": check.status,
        "method": check.method,
        "rationale": check.rationale,
        "evidence": [{"file": e.file, "line": e.line, "note": e.note} for e in check.evidence],
    }


def prompt_to_dict(prompt: PromptResult) -> dict[str, Any]:
    categories = {c.category: c for c in prompt.categories}
    checks = [check for c in prompt.categories for check in c.checks]
    out: dict[str, Any] = {
        "title": prompt.title,
        "passed": prompt.passed,
        "score": prompt.score,
        "max_score": prompt.max_score,
        "status": prompt.status,
        "feedback": [feedback_line(categories[cat]) for cat in CATEGORY_ORDER
                     if cat in categories and categories[cat].possible > 0],
        "tests_passed": {check.id: check.status == "pass" for check in checks},
        "detailed_scoring": {
            cat.value: {"earned": c.earned, "max": c.possible, "factor": c.factor}
            for cat in CATEGORY_ORDER if (c := categories.get(cat)) is not None
        },
        "checks": [check_to_dict(check) for check in checks],
        "execution": [dict(entry) for entry in prompt.execution],
        "files": dict(prompt.files),
    }
    if prompt.error is not None:
        out["error"] = prompt.error
    return out


def model_to_dict(model: ModelResult, *, timestamp: str | None = None, cached: bool | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"model_name": model.model, "tier": model.tier}
    if timestamp is not None:
        out["timestamp"] = timestamp
    out.update(
        prompts={p.prompt_id: prompt_to_dict(p) for p in model.prompts},
        overall_score=model.score,
        total_possible=model.max_score,
        percentage=model.percentage,
        grade=model.grade,
        badge=model.badge,
    )
    if cached is not None:
        out["cached"] = cached
    return out


def run_to_dict(
    run: RunResult,
    *,
    cached_models: Collection[str] = (),
    model_timestamps: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The whole results document. ``cached_models`` names models whose results came from
    the cache (they get ``"cached": true``); ``model_timestamps`` gives per-model times."""
    stamps = model_timestamps or {}
    names = [m.model for m in run.models]
    if len(names) != len(set(names)):
        raise ValueError(f"duplicate model names in run {run.run_id}: {sorted(names)}")
    models = {
        m.model: model_to_dict(m, timestamp=stamps.get(m.model), cached=m.model in cached_models)
        for m in run.models
    }
    metadata = dict(run.environment)
    metadata.setdefault("config", dict(run.config))
    return {
        "schema_version": run.schema_version,
        "run_id": run.run_id,
        "benchmark_run": {
            "timestamp": run.started_at,
            "finished_at": run.finished_at,
            "total_models": len(models),
        },
        "models": models,
        "comparison": compare_models(models),
        "_metadata": metadata,
    }
