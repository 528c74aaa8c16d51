"""The core rubric: the four built-in prompts' category maxima and checks, validated at import.

The table is the core pack (``benchmark/packs/core/<prompt>/task.yaml``): this module loads
its compiled form (``benchmark.packs.compiled``) into rows of (check id, category, points,
method, check type). A row whose check type is ``core.pN.<id>`` is judged by a function in
``benchmark/prompts/pN_*.py``, bound to its id by ``benchmark.prompts``, which refuses to load
when such a row has no function or a function has no such row, and registers each as that
check type; any other row names a library check type (``benchmark.packs.library``).
``docs/scoring.md`` is generated from this table by ``scripts/gen_docs.py``. Each prompt also
names the files a model submits for it, so the result cache can key a model without loading
the grading engine.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from .packs.compiled import load_compiled
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

@dataclass(frozen=True)
class CheckRow:
    id: str
    category: Category
    points: float
    method: str
    use: str = ""  # the check type (``core.pN.<id>`` or a library type)
    params: str = "{}"  # its ``with:``, as canonical JSON (the hash reads both: they decide the verdict)


@dataclass(frozen=True)
class PromptRubric:
    id: str
    title: str
    maxima: dict[Category, float]
    checks: tuple[CheckRow, ...]
    files: tuple[str, ...] = ()  # what a model submits for the prompt (its module's FILES)
    observe: str | None = None  # the observe function of a custom run (core.pN.observe), else None

    @property
    def needs_module(self) -> bool:
        """Whether a prompt module judges part of it: a ``core.*`` check or observe function
        (a prompt written with library types and an ordinary run mode needs none)."""
        return any(row.use.startswith("core.") for row in self.checks) or (
            self.observe is not None and self.observe.startswith("core."))


def _from_compiled(task: dict) -> PromptRubric:
    maxima = {Category(name): value for name, value in task["maxima"].items()}
    checks = tuple(CheckRow(c["id"], Category(c["category"]), c["points"], c["method"], c["use"],
                            json.dumps(c.get("with") or {}, sort_keys=True))
                   for c in task["checks"])
    files = tuple(f["path"] for f in task["files"])
    return PromptRubric(task["id"], task["title"], {c: maxima.get(c, 0.0) for c in CATEGORY_ORDER},
                        checks, files, task["run"].get("observe"))


# The core pack's manifests (benchmark/packs/core/<prompt>/task.yaml), read in their compiled
# form so that a cached run needs no YAML parser.
RUBRIC: tuple[PromptRubric, ...] = tuple(_from_compiled(task) for task in load_compiled()["tasks"])


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
    """A stable hash of the table and the gating rules (part of every manifest and cache key):
    each row's id, category, points and method, and the check type that judges it with its
    ``with:`` (a row moved to another type, or given other parameters, is another rubric)."""
    table = [
        [p.id, p.title, {c.value: v for c, v in p.maxima.items()},
         [[r.id, r.category.value, r.points, r.method, r.use, json.loads(r.params)] for r in p.checks]]
        for p in RUBRIC
    ]
    payload = {"table": table, "gates": {c.value: g for c, g in GATES.items()},
               "pass_fraction": PASS_FRACTION}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


validate()
