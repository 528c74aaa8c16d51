"""What a loaded task pack is: frozen data the grading engine reads.

A pack is a folder with ``pack.yaml`` and one folder per task holding ``task.yaml``
(``docs/packs.md``). ``benchmark.packs.loader`` turns those files into these types after
validating them; nothing here reads a file. A ``Task`` is what the engine grades: the files
a model submits, how its answer is observed (``observe``), and its checks, each bound to a
check type with its parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..types import Category

CORE_PACK = "core"


@dataclass(frozen=True)
class FileSpec:
    """A file a model submits: its path relative to the pack's submission root."""

    path: str
    kind: str  # python | yaml | json | text
    required: bool = True


@dataclass(frozen=True)
class TaskCheck:
    """One rubric row of a task, bound to a check type and its ``with`` parameters."""

    id: str
    category: Category
    points: float
    method: str
    use: str
    params: Mapping[str, Any] = field(default_factory=dict)
    critical: Critical | None = None  # failing it caps the task (``scoring.apply_critical``)


@dataclass(frozen=True)
class Critical:
    """A check the task cannot do without: earning less than ``below`` of its points caps the
    task's score at ``cap`` of the task's points."""

    below: float = 1.0
    cap: float = 0.0

    @classmethod
    def of(cls, raw: Any) -> Critical | None:
        """From a manifest's ``critical`` (``true`` or ``{below, cap}``; absent: None)."""
        if raw is None or raw is False:
            return None
        if raw is True:
            return cls()
        return cls(float(raw.get("below", 1.0)), float(raw.get("cap", 0.0)))

    def text(self) -> str:
        """e.g. ``below 100 % of its points caps the task at 0 %``."""
        return f"below {self.below:.0%} of its points caps the task at {self.cap:.0%}"


@dataclass(frozen=True)
class Task:
    """One gradable task. ``key`` is the results key: ``prompt_N`` for core, else
    ``<pack>.<task>``. ``observe(files, run, test_data, seed) -> facts`` gathers behaviour
    through the sandbox (``benchmark.prompts.base.RunFn``)."""

    pack: str
    id: str
    key: str
    title: str
    points: float
    maxima: Mapping[Category, float]
    checks: tuple[TaskCheck, ...]
    files: tuple[FileSpec, ...]
    observe: Callable[..., dict[str, Any]]
    gates: Mapping[Category, str]
    pass_fraction: float
    folder: Path | None = None  # the task's folder (fixtures, answers, reference live here)
    submission_root: str = "."  # model files live in <model>/<submission_root>/...
    run: Mapping[str, Any] = field(default_factory=dict)  # the manifest's run section
    manifest: Mapping[str, Any] = field(default_factory=dict)  # the whole validated task.yaml

    @property
    def file_names(self) -> tuple[str, ...]:
        return tuple(f.path for f in self.files)

    @property
    def python_files(self) -> frozenset[str]:
        return frozenset(f.path for f in self.files if f.kind == "python")

    @property
    def main(self) -> str:
        """The main file: the first Python file, else the first file."""
        return next((f.path for f in self.files if f.kind == "python"), self.files[0].path)

    def model_path(self, model_dir: Path, name: str) -> Path:
        """Where a model's copy of ``name`` is: under the pack's submission root."""
        return Path(model_dir) / self.submission_root / name


@dataclass(frozen=True)
class Pack:
    id: str
    version: int
    title: str
    tasks: tuple[Task, ...]
    folder: Path | None
    submission_root: str
    content_hash: str  # sha256 of every grading-relevant file (prompt text excluded)
    plugins: tuple[str, ...] = ()  # "name==version" of plugin distributions, local plugin hashes

    def task(self, task_id: str) -> Task:
        """A task by id or results key."""
        for task in self.tasks:
            if task_id in (task.id, task.key):
                return task
        raise KeyError(f"pack {self.id} has no task {task_id!r}")


_GRADED: dict[str, Task] = {}  # every task of every suite built in this process, by results key


def remember(tasks: tuple[Task, ...]) -> None:
    """Note the tasks of a suite about to be graded (``benchmark.packs.suite.build_suite``)."""
    _GRADED.update((task.key, task) for task in tasks)


def loaded_task(key: str) -> Task | None:
    """A task this process has graded or is grading, by results key (for the writer's error
    records, which must cover every task of the run)."""
    return _GRADED.get(key)
