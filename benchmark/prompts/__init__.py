"""The prompt registry: binds each rubric row whose check type is ``core.`` (``use:
core.pN.<id>``) to exactly one check function, at import, and offers them to the core pack:
each such check as the built-in check type ``core.pN.<id>`` and each module's ``observe`` as the
custom observe function ``core.pN.observe`` (N: the prompt's place in the core pack). A row that
uses a library check type (``compiles``, ``ast.*``, ...) needs no function here, and a prompt
written only with library types and an ordinary run mode needs no module: its folder in
``benchmark/packs/core/`` is all of it."""

from __future__ import annotations

from types import ModuleType

from ..packs.registry import builtin_check, builtin_observer
from ..rubric import RUBRIC, CheckRow, PromptRubric, RubricError
from . import p1_refactoring, p2_yaml_json, p3_transform, p4_api_sync

PROMPT_MODULES: tuple[ModuleType, ...] = (p1_refactoring, p2_yaml_json, p3_transform, p4_api_sync)
REQUIRED = ("PROMPT_ID", "TITLE", "FILES", "PYTHON_FILES", "CHECKS", "HAZARDS",
            "fixture_files", "answer_keys", "observe")


def _numbered(modules: tuple[ModuleType, ...]) -> list[tuple[int, ModuleType, PromptRubric]]:
    """(N, module, rubric) for each module, N its prompt's place in the core pack (from 1).
    Every prompt that needs a module (``PromptRubric.needs_module``) has exactly one."""
    places = {rubric.id: (number, rubric) for number, rubric in enumerate(RUBRIC, start=1)}
    ids = [getattr(m, "PROMPT_ID", None) for m in modules]
    if any(i not in places for i in ids) or len(set(ids)) != len(ids):
        raise RubricError(f"prompt modules name prompts the core pack does not list, or one twice: {ids}")
    missing = [r.id for r in RUBRIC if r.needs_module and r.id not in ids]
    if missing:
        raise RubricError(f"core prompts with a core.* check or observe function but no module: {missing}")
    return [(places[m.PROMPT_ID][0], m, places[m.PROMPT_ID][1]) for m in modules]


def _verify(modules: tuple[ModuleType, ...]) -> None:
    for _, module, rubric in _numbered(modules):
        missing = [name for name in REQUIRED if not hasattr(module, name)]
        if missing:
            raise RubricError(f"{module.__name__} lacks {', '.join(missing)}")
        if tuple(module.FILES) != rubric.files:
            raise RubricError(f"{module.__name__}: FILES {module.FILES}, the rubric {rubric.files}")
        rows = {row.id for row in _core_rows(rubric)}
        functions = set(module.CHECKS)
        if rows != functions:
            raise RubricError(
                f"{rubric.id}: core.* rubric rows without a function {sorted(rows - functions)}, "
                f"functions without a row {sorted(functions - rows)}")


def _core_rows(rubric: PromptRubric) -> list[CheckRow]:
    """The rows a prompt module's functions judge: those whose check type is ``core.*``."""
    return [row for row in rubric.checks if row.use.startswith("core.")]


def module_for(prompt_id: str) -> ModuleType:
    for module in PROMPT_MODULES:
        if module.PROMPT_ID == prompt_id:
            return module
    raise KeyError(prompt_id)


def _offer(modules: tuple[ModuleType, ...]) -> None:
    for number, module, rubric in _numbered(modules):
        for row in _core_rows(rubric):
            builtin_check(f"core.p{number}.{row.id}", method=row.method)(module.CHECKS[row.id])
        builtin_observer(f"core.p{number}.observe", module.observe)


_verify(PROMPT_MODULES)
_offer(PROMPT_MODULES)
