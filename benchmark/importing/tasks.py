"""What a reply is imported into: each task's expected files, their kinds and entry point.

Read from the task manifests, the one description of a task: the files from ``files`` (with
their ``kind``), the entry point from ``run`` (``entry``: a script, so the reply must hold an
``if __name__ == "__main__":`` block; ``function``: the def the run calls). The built-in
prompts are the core pack's manifests in their compiled form; a task pack's tasks can become
more :class:`ImportTask` rows through :func:`tasks_of` without touching the chooser.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..packs.compiled import load_compiled

MAIN_GUARD = "__main__"  # entry "point" of a script: an ``if __name__ == "__main__":`` block


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


def entry_of(run: Mapping[str, Any]) -> str | None:
    """What a reply's Python file must define to be the task's: the main guard of a script
    (``run.entry``, in script mode or a custom run of a script), the function a call, http or
    custom run calls (``run.function``), else nothing (parse mode)."""
    if run.get("entry"):
        return MAIN_GUARD
    return run.get("function") or None


def _aliases(task_id: str) -> frozenset[str]:
    number = task_id.rsplit("_", 1)[-1]
    return frozenset({task_id, number, f"p{number}", f"prompt{number}", f"prompt-{number}"})


def tasks_of(manifests: Iterable[Mapping[str, Any]]) -> tuple[ImportTask, ...]:
    """An import task per task manifest (its ``id``, ``files`` and ``run``), in their order."""
    return tuple(ImportTask(task["id"], tuple(FileSpec(f["path"], f["kind"]) for f in task["files"]),
                            entry_of(task["run"]), _aliases(task["id"])) for task in manifests)


def builtin_tasks() -> tuple[ImportTask, ...]:
    """The four built-in prompts, in the core pack's order."""
    return tasks_of(load_compiled()["tasks"])


def task_named(name: str, tasks: tuple[ImportTask, ...]) -> ImportTask | None:
    """The task a reply's name or a JSONL ``task`` value means ("prompt_3", "3", "P3"), or None."""
    key = str(name).strip().lower()
    return next((task for task in tasks if key in task.aliases), None)
