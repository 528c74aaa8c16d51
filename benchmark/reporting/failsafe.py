"""One model's record that cannot be written never costs another model its results.

``write_run`` turns here only when the whole document fails to validate or to serialise:
each model's record is then checked on its own (:func:`record_problem`: strict JSON, the
schema's ``display_name`` and ``model`` definitions, the invariants) and one that fails is
replaced by an error record built from the rubric (every check ``error`` with the reason,
score 0, status ``error``: :func:`error_record`), so the rest of the run is written as usual.
The result cache checks its entries with :func:`schema_problems` when it reads them back.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from ..packs.model import loaded_task
from ..rubric import PROMPT_POINTS, RUBRIC, PromptRubric
from ..scoring import compare_models, score_model, score_prompt
from .run_stats import set_statistics, settings_of, significance
from ..types import CAUSE_INTERNAL, INTERNAL_ERROR, Check, PromptResult
from ..untrusted import NAME_LIMIT, NOTE_LIMIT, is_clean, text
from .conformance import conforms, model_conforms, slow
from .encoding import dumps_bytes
from .results_json import add_pack_totals, by_pack, model_invariants, model_to_dict

RECORD_ERROR = f"{INTERNAL_ERROR}: this model's results record could not be written"
SERIALISATION_ERRORS = (TypeError, ValueError, RecursionError, OverflowError)


def schema_problems(name: Any, record: Any) -> list[str]:
    """Why ``record`` cannot stand as model ``name`` in a results document (the schema's
    ``display_name`` and ``model`` definitions, then the invariants); empty when it can."""
    problems = [f"model name: {error.message}" for error in slow("display_name").iter_errors(name)
                ] if not conforms("display_name", name) else []
    if not model_conforms(record):
        problems += ["$" + "".join(f"[{part!r}]" for part in error.absolute_path) + f": {error.message}"
                     for error in slow("model").iter_errors(record)]
    if problems:
        return [text(problem, NOTE_LIMIT) for problem in problems]
    return [text(f"{path}: {message}", NOTE_LIMIT) for path, message in model_invariants(name, record)]


def record_problem(name: Any, record: Any) -> str | None:
    """Why one model's record cannot be written (serialised strictly, validated), or None."""
    try:
        dumps_bytes(record)
    except SERIALISATION_ERRORS as exc:
        return text(f"it cannot be serialised as JSON ({type(exc).__name__}: {exc})", NOTE_LIMIT)
    problems = schema_problems(name, record)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return f"it does not match the results schema: {problems[0]}{more}"
    return None


def safe_key(name: Any) -> str:
    """``name`` when the schema accepts it as a model name, else ``invalid-model-name-<hash>``."""
    if isinstance(name, str) and conforms("display_name", name):
        return name
    raw = str(name).encode("utf-8", errors="surrogatepass")
    return f"invalid-model-name-{hashlib.sha256(raw).hexdigest()[:12]}"


def _error_prompt(rubric: PromptRubric | Any, reason: str) -> PromptResult:
    """A core prompt's rubric or a pack's task, every check an ``error`` saying ``reason``."""
    checks = [Check(row.id, row.category, row.points, 0.0, "error", row.method, reason, (), CAUSE_INTERNAL)
              for row in rubric.checks]
    categories, score, _ = score_prompt(rubric, checks)
    return PromptResult(getattr(rubric, "key", rubric.id), rubric.title, score,
                        getattr(rubric, "points", PROMPT_POINTS), False, "error", categories,
                        error=reason)


def _graded_tasks(suite: Any) -> list[Any]:
    """The tasks a run graded: the core rubric, or each task of ``_metadata.suite`` that this
    process loaded (the writer runs where the grading ran)."""
    if not isinstance(suite, list):
        return list(RUBRIC)
    keys = [key for pack in suite if isinstance(pack, Mapping) for key in pack.get("tasks", [])]
    core = {rubric.id: rubric for rubric in RUBRIC}
    return [task for key in keys if (task := core.get(key) or loaded_task(key)) is not None]


def error_record(name: str, record: Any, reason: str, suite: Any = None) -> dict[str, Any]:
    """Model ``name`` as an ``error`` on every task the run graded (``suite``: the run's
    ``_metadata.suite``; none means the core prompts), each check saying ``reason``; its tier
    and ``cached`` flag are kept when they are usable."""
    old = record if isinstance(record, Mapping) else {}
    tier = old.get("tier")
    tier = tier if isinstance(tier, str) and tier and is_clean(tier, NAME_LIMIT) else "unknown"
    cached = old.get("cached") if isinstance(old.get("cached"), bool) else None
    tasks = _graded_tasks(suite)
    prompts = [_error_prompt(task, text(reason)) for task in tasks]
    if suite is None:
        model = score_model(name, tier, prompts)
    else:
        model = score_model(name, tier, prompts, max_score=sum(p.max_score for p in prompts) or PROMPT_POINTS)
    return model_to_dict(model, cached=cached)


def isolate_failures(doc: dict[str, Any]) -> dict[str, str]:
    """Replace every model record of ``doc`` that cannot be written by an error record saying
    why, then recompute the comparison. Returns ``{model name: reason}``; empty when no model's
    record is at fault (``doc`` is then left as it was)."""
    failures = {name: why for name, record in doc["models"].items()
                if (why := record_problem(name, record)) is not None}
    if not failures:
        return {}
    models: dict[str, Any] = {}
    hashes = doc.get("_metadata", {}).get("submission_hashes")
    for name, record in doc["models"].items():
        key = name if name not in failures else safe_key(name)
        models[key] = record if name not in failures else error_record(
            key, record, f"{RECORD_ERROR}: {failures[name]}", doc.get("_metadata", {}).get("suite"))
        if key != name and isinstance(hashes, dict):
            hashes.pop(name, None)
    packed = by_pack(doc["models"], doc.get("_metadata", {}))
    if packed:  # (an error record's pack totals are computed like any other's)
        add_pack_totals(models)
    seed, pass_at = settings_of(doc)
    for name in failures:  # (an error record's statistics are computed like any other's)
        set_statistics(safe_key(name), models[safe_key(name)], seed, pass_at)
    doc["models"] = models
    doc["comparison"] = compare_models(models, by_pack=packed)
    doc["comparison"]["significance"] = significance(models, seed)
    doc["benchmark_run"]["total_models"] = len(models)
    return failures
