"""The prompt registry: binds each rubric row whose check type is ``core.pN.<id>`` to exactly
one check function of its prompt module, at import, and offers them to the core pack: each
such check as the built-in check type ``core.pN.<id>`` and each module's ``observe`` as the
custom observe function ``core.pN.observe``. A row judged by a library check type
(``compiles``, ``ast.*``, ``radon.*``...: any ``use:`` not starting with ``core.``) needs no
function; its type comes from ``benchmark.packs.library``."""

from __future__ import annotations

from types import ModuleType

from ..packs.registry import builtin_check, builtin_observer
from ..rubric import RUBRIC, CheckRow, PromptRubric, RubricError
from . import p1_refactoring, p2_yaml_json, p3_transform, p4_api_sync

PROMPT_MODULES: tuple[ModuleType, ...] = (p1_refactoring, p2_yaml_json, p3_transform, p4_api_sync)
REQUIRED = ("PROMPT_ID", "TITLE", "FILES", "PYTHON_FILES", "CHECKS", "HAZARDS",
            "fixture_files", "answer_keys", "observe")


def _core_rows(rubric: PromptRubric) -> list[CheckRow]:
    """The rows judged by the prompt's own functions (``use: core.…``), not a library type."""
    return [row for row in rubric.checks if row.use.startswith("core.")]


def _verify(modules: tuple[ModuleType, ...], table: tuple[PromptRubric, ...] = RUBRIC) -> None:
    if [m.PROMPT_ID for m in modules] != [p.id for p in table]:
        raise RubricError("prompt modules and rubric list different prompts")
    for number, (module, rubric) in enumerate(zip(modules, table), start=1):
        missing = [name for name in REQUIRED if not hasattr(module, name)]
        if missing:
            raise RubricError(f"{module.__name__} lacks {', '.join(missing)}")
        if tuple(module.FILES) != rubric.files:
            raise RubricError(f"{module.__name__}: FILES {module.FILES}, the rubric {rubric.files}")
        misnamed = [f"{row.id} ({row.use})" for row in _core_rows(rubric)
                    if row.use != f"core.p{number}.{row.id}"]
        if misnamed:
            raise RubricError(f"{rubric.id}: core check types not named core.p{number}.<id>: "
                              f"{', '.join(misnamed)}")
        rows = {row.id for row in _core_rows(rubric)}
        functions = set(module.CHECKS)
        if rows != functions:
            raise RubricError(
                f"{rubric.id}: core.* rubric rows without a function {sorted(rows - functions)}, "
                f"functions without a core.* row {sorted(functions - rows)}")


def module_for(prompt_id: str) -> ModuleType:
    for module in PROMPT_MODULES:
        if module.PROMPT_ID == prompt_id:
            return module
    raise KeyError(prompt_id)


def _offer(modules: tuple[ModuleType, ...]) -> None:
    for number, (module, rubric) in enumerate(zip(modules, RUBRIC), start=1):
        for row in _core_rows(rubric):
            builtin_check(f"core.p{number}.{row.id}", method=row.method)(module.CHECKS[row.id])
        builtin_observer(f"core.p{number}.observe", module.observe)


_verify(PROMPT_MODULES)
_offer(PROMPT_MODULES)
