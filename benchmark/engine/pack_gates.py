"""The behavioural gates of ``rubricbench pack validate``: a pack must prove its checks can be
passed, and that they pay nothing for nothing (ARCHITECTURE principle 5).

For each task, two submissions are graded by the engine itself (``benchmark.grading``), in the
sandbox, from a temporary model folder that is removed afterwards:

- the task's reference solution must score full marks (within 1e-6); a task without a
  reference gets a warning, since nothing shows its checks can be passed;
- an empty submission must score at most ``EMPTY_LIMIT`` of the task's points. A file with no
  bytes is refused before any check runs (it would prove nothing), so each Python file holds
  only ``pass`` (the emptiest module the engine grades) and every other file is empty;
- so must each do-nothing stub of the reference (``benchmark.engine.stubs``): its functions and
  classes with the right names and signatures, every body returning ``None``, returning ``0``
  or raising ``NotImplementedError`` (other files empty). A check that pays for the shape of
  the answer without its work shows up here, where ``pass`` alone would not call it.

A gate that fails is the pack author's fault: a ``Problem`` on the first line of the task's
``task.yaml`` naming each check that lost (or paid out) points and why. Nothing is printed here.
"""

from __future__ import annotations

import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..packs.model import Pack, Task
from ..packs.problems import Problem
from ..packs.semantics import number
from .options import GradeOptions, default_test_data
from .stubs import STUB_KINDS, stub_source
from ..types import PromptResult

EMPTY_LIMIT = 0.15  # share of a task's points an empty submission may earn
FULL_TOLERANCE = 1e-6
EMPTY_PYTHON = b"pass\n"
MAX_TASK_THREADS = 4


@dataclass(frozen=True)
class GateResult:
    """One task's two gradings (``reference`` None when the task has none) and its problems."""

    task: Task
    reference: PromptResult | None
    empty: PromptResult
    problems: tuple[Problem, ...]
    stubs: tuple[tuple[str, PromptResult], ...] = ()  # (what the stub does, its grading)

    def summary(self) -> str:
        """``task_id: reference 25/25, empty files 0.0/25, stubs: returns None 0.0/25, ...``, then
        each critical check and what failing it does."""
        points = number(self.task.points)
        ref = "none" if self.reference is None else f"{number(self.reference.score)}/{points}"
        stubs = "".join(f", {'stubs: ' if i == 0 else ''}{label} {result.score:.1f}/{points}"
                        for i, (label, result) in enumerate(self.stubs))
        critical = "".join(f"; critical: {check.id} {check.critical.text()}"
                           for check in self.task.checks if check.critical is not None)
        return f"{self.task.id}: reference {ref}, empty files {self.empty.score:.1f}/{points}{stubs}{critical}"


def _problem(task: Task, message: str, severity: str = "error") -> Problem:
    return Problem(Path(task.folder or ".") / "task.yaml", 1, None, "", message, severity)


def _checks(result: PromptResult):
    return [check for category in result.categories for check in category.checks]


def _write_reference(task: Task, model_dir: Path) -> None:
    source = Path(task.folder) / task.manifest["reference"]
    for name in task.file_names:
        target = task.model_path(model_dir, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / name, target)


def _write_empty(task: Task, model_dir: Path) -> None:
    for name in task.file_names:
        target = task.model_path(model_dir, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(EMPTY_PYTHON if name in task.python_files else b"")


def _stubs(task: Task) -> dict[str, bytes]:
    """Each Python file of the reference that has a function or class to stub, as its source."""
    if not task.manifest.get("reference") or task.folder is None:
        return {}
    found = {}
    for name in sorted(task.python_files):
        try:
            found[name] = (Path(task.folder) / task.manifest["reference"] / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):  # (the reference gate says what is wrong with it)
            continue
    return {name: source for name, source in found.items() if stub_source(source, "none") is not None}


def _stub_writer(sources: dict[str, str], kind: str):
    def write(task: Task, model_dir: Path) -> None:
        for name in task.file_names:
            target = task.model_path(model_dir, name)
            target.parent.mkdir(parents=True, exist_ok=True)
            stub = stub_source(sources[name], kind) if name in sources else None
            target.write_bytes(stub.encode("utf-8") if stub is not None
                               else EMPTY_PYTHON if name in task.python_files else b"")
    return write


def _grade(task: Task, root: Path, model: str, write, test_data: Path,
           options: GradeOptions) -> PromptResult:
    from .grading import grade_task  # the engine is heavy: imported only when gates run

    model_dir = root / model
    write(task, model_dir)
    return grade_task(task, model_dir, test_data=test_data, options=options)


def _reference_problem(task: Task, result: PromptResult) -> Problem | None:
    if result.score >= task.points - FULL_TOLERANCE:
        return None
    lost = [f"{c.id} {number(c.earned)}/{number(c.points)}: {c.rationale}"
            for c in _checks(result) if c.earned < c.points - FULL_TOLERANCE]
    if result.error and not lost:
        lost = [result.error]
    if not lost:  # every check paid in full, yet the gates scaled the score down
        lost = ["every check passed, but a category gate scaled the score down"]
    return _problem(task, f"reference solution scores {number(result.score)}/{number(task.points)}: "
                          + "; ".join(lost))


def _empty_problem(task: Task, result: PromptResult, what: str = "empty files") -> Problem | None:
    limit = EMPTY_LIMIT * task.points
    if result.score <= limit + FULL_TOLERANCE:
        return None
    paid = [f"{c.id} {number(c.earned)}/{number(c.points)}: {c.rationale}"
            for c in _checks(result) if c.earned > 0]
    return _problem(task, f"{what} score {number(result.score)}/{number(task.points)}, over "
                          f"{EMPTY_LIMIT:.0%} ({number(limit)}); checks that paid out (before gating): " + "; ".join(paid))


def gate_task(task: Task, *, options: GradeOptions | None = None,
              test_data: Path | None = None) -> GateResult:
    """Grade ``task``'s reference solution, an empty submission and the reference's do-nothing
    stubs; their problems."""
    options = options or GradeOptions()
    test_data = Path(test_data) if test_data is not None else default_test_data()
    problems: list[Problem] = []
    with tempfile.TemporaryDirectory(prefix="rubricbench-gates-") as tmp:
        root, reference = Path(tmp), None
        if task.manifest.get("reference") and task.folder is not None:
            reference = _grade(task, root, "reference", _write_reference, test_data, options)
            problems += [p for p in [_reference_problem(task, reference)] if p]
        else:
            problems.append(_problem(task, "no reference solution: the pack cannot prove its checks "
                                           "can be passed", "warning"))
        empty = _grade(task, root, "empty", _write_empty, test_data, options)
        problems += [p for p in [_empty_problem(task, empty)] if p]
        sources, stubs = _stubs(task), []
        for kind, label in (STUB_KINDS.items() if sources else ()):
            stubbed = _grade(task, root, f"stub_{kind}", _stub_writer(sources, kind), test_data, options)
            stubs.append((label, stubbed))
            problems += [p for p in [_empty_problem(task, stubbed, f"a stub of the reference whose "
                                                                   f"functions {label}")] if p]
    return GateResult(task, reference, empty, tuple(problems), tuple(stubs))


def run_gates(pack: Pack, *, options: GradeOptions | None = None,
              test_data: Path | None = None) -> list[GateResult]:
    """Every task's gates, graded side by side as ``grade_model`` grades tasks; in pack order."""
    tasks = pack.tasks
    with ThreadPoolExecutor(max_workers=max(1, min(len(tasks), MAX_TASK_THREADS)),
                            thread_name_prefix="gate") as pool:
        return list(pool.map(lambda task: gate_task(task, options=options, test_data=test_data), tasks))


def behaviour_gates(pack: Pack, *, options: GradeOptions | None = None,
                    test_data: Path | None = None) -> list[Problem]:
    """The problems of every task's gates (errors, and a warning for a task without reference)."""
    return [p for result in run_gates(pack, options=options, test_data=test_data) for p in result.problems]
