"""What a reply is imported into: each task's expected files, their kinds and entry point.

Built from the rubric (``PromptRubric.files``) and the prompt modules' entry points, so a
task pack's tasks can become more :class:`ImportTask` rows without touching the chooser.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from ..rubric import RUBRIC

MAIN_GUARD = "__main__"  # entry "point" of a script: an ``if __name__ == "__main__":`` block
_KINDS = {".py": "python", ".yaml": "yaml", ".yml": "yaml", ".json": "json"}
# entry points: prompt 1 is run as a script; 3 and 4 are called (benchmark/prompts/*_data|judge)
_ENTRY = {"prompt_1": MAIN_GUARD, "prompt_3": "transform_and_enrich_users",
          "prompt_4": "sync_users_to_crm"}


@dataclass(frozen=True)
class FileSpec:
    name: str
    kind: str  # python | yaml | json | text


@dataclass(frozen=True)
class ImportTask:
    id: str  # "prompt_3"; a pack's "<pack>.<task>" later
    files: tuple[FileSpec, ...]
    entry: str | None  # a function name, MAIN_GUARD, or None
    aliases: frozenset[str]  # reply names that mean this task: "prompt_3", "3", "p3"

    def file(self, name: str) -> FileSpec | None:
        return next((spec for spec in self.files if spec.name == name), None)


def _kind(name: str) -> str:
    return _KINDS.get(PurePosixPath(name).suffix.lower(), "text")


def _aliases(task_id: str) -> frozenset[str]:
    number = task_id.rsplit("_", 1)[-1]
    return frozenset({task_id, number, f"p{number}", f"prompt{number}", f"prompt-{number}"})


def builtin_tasks() -> tuple[ImportTask, ...]:
    """The four built-in prompts, in rubric order."""
    return tuple(ImportTask(row.id, tuple(FileSpec(name, _kind(name)) for name in row.files),
                            _ENTRY.get(row.id), _aliases(row.id)) for row in RUBRIC)


def task_named(name: str, tasks: tuple[ImportTask, ...]) -> ImportTask | None:
    """The task a reply's name or a JSONL ``task`` value means ("prompt_3", "3", "P3"), or None."""
    key = str(name).strip().lower()
    return next((task for task in tasks if key in task.aliases), None)
