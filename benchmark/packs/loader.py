"""Load a task pack folder into ``Pack``/``Task`` objects, or say everything wrong with it.

``check_pack`` reads ``pack.yaml`` and every ``task.yaml`` with positions, validates each
against its JSON Schema, then checks what the schema cannot (``semantics``, ``paths``,
``requirements``, ``local_plugins``); a file with schema errors gets no semantic checks (they
assume its shape). It returns the pack only when no problem is an error; warnings never stop
a load. ``load_pack`` is the same, raising ``PackError`` with every problem. Problems are the
pack author's fault and are data; a bug here raises (house rule 5).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..rubric import GATES, PASS_FRACTION, PROMPT_POINTS
from ..types import Category
from . import local_plugins, semantics
from .model import CORE_PACK, Critical, FileSpec, Pack, Task, TaskCheck
from .paths import check_paths, escape_reason
from .problems import PackError, Problem, sort_problems
from .registry import PACK_GROUP, CheckType, Generator
from .requirements import requirement_problem, rubricbench_problem
from .schema_check import manifest_validator, validate
from .yamlpos import Document, read_yaml

MakeObserve = Callable[[dict[str, Any], Path, str], Callable[..., dict[str, Any]]]


@dataclass
class _Checked:
    """A task manifest that passed every check, with what its names resolved to."""

    doc: Document
    folder: Path
    types: dict[int, CheckType]
    generators: list[Generator] = field(default_factory=list)
    observer: tuple[Callable[..., dict[str, Any]], str] | None = None


def _ensure_builtins() -> None:
    """Import the built-in check types and generators, so their names resolve."""
    from . import generators, library  # noqa: F401  (each registers at import)


def _read(path: Path) -> Document:
    if not path.is_file():
        return Document(path, problems=[Problem(path, None, None, "", "no such file")])
    return read_yaml(path)


def _pack_semantics(doc: Document, builtin: bool) -> list[Problem]:
    data, problems = doc.data, semantics.check_title(doc)
    if data["id"] == CORE_PACK and not builtin:
        problems.append(doc.problem(("id",), "the id 'core' is reserved for the built-in pack"))
    if "rubricbench" in data and (why := rubricbench_problem(data["rubricbench"])):
        problems.append(doc.problem(("rubricbench",), why))
    for index, requirement in enumerate(data.get("requires", [])):
        if why := requirement_problem(requirement):
            problems.append(doc.problem(("requires", index), why))
    return problems


def _check_task(pack: Document, index: int, task_id: str) -> tuple[_Checked | None, list[Problem]]:
    folder = pack.file.parent / task_id
    if escape_reason(pack.file.parent, task_id) or not folder.is_dir():
        return None, [pack.problem(("tasks", index), f"no task folder {task_id}/ beside pack.yaml")]
    doc = _read(folder / "task.yaml")
    if not doc.ok:
        return None, doc.problems
    problems = doc.problems + validate(doc, manifest_validator("task"))
    if any(p.is_error for p in problems):
        return None, problems
    if doc.data["id"] != task_id:
        problems.append(doc.problem(("id",), f"id {doc.data['id']!r} differs from its folder's name {task_id!r}"))
    pack_id = pack.data["id"]
    defaults = pack.data.get("defaults", {})
    points = doc.data.get("points", defaults.get("points", PROMPT_POINTS))
    problems += semantics.check_title(doc) + check_paths(doc, folder) + semantics.check_sums(doc, points)
    problems += semantics.check_unique_ids(doc)
    problems += semantics.check_cases(doc, folder) + semantics.check_run_files(doc)
    problems += semantics.check_perturb_targets(doc) + semantics.check_named_runs(doc)
    found, types = semantics.check_uses(doc, pack_id)
    gen_problems, generators = semantics.check_generators(doc, pack_id)
    obs_problems, observer = semantics.check_observer(doc, pack_id)
    problems += found + gen_problems + obs_problems
    problems += semantics.check_judged_cases(doc) + semantics.check_yaml11_booleans(doc)
    problems += semantics.check_selected_labels(doc, folder)
    return _Checked(doc, folder, types, generators, observer), problems


def _unique_files(checked: list[_Checked]) -> list[Problem]:
    """A submitted path belongs to one task of the pack."""
    owner: dict[str, str] = {}
    problems = []
    for task in checked:
        for index, spec in enumerate(task.doc.data["files"]):
            path, task_id = spec["path"], task.doc.data["id"]
            if path in owner:
                problems.append(task.doc.problem(("files", index, "path"),
                                                 f"{path} is already a file of task {owner[path]}"))
            owner.setdefault(path, task_id)
    return problems


def _hashed_files(pack: Document, tasks: list[_Checked]) -> list[Path]:
    """Every grading-relevant file of the pack (prompt text excluded)."""
    root = pack.file.parent
    files = [pack.file] + [root / p for p in pack.data.get("local_plugins", [])]
    for task in tasks:
        data, run = task.doc.data, task.doc.data["run"]
        named = list(data.get("fixtures", [])) + list(data.get("answers", {}).values())
        named += list(run.get("stage", {}).values()) + [run[k] for k in ("stdin", "cases_file") if k in run]
        for extra in run.get("runs", []):  # (a script task's named runs)
            named += [p for p in extra.get("stage", {}).values() if p is not None]
            named += [extra["stdin"]] if "stdin" in extra else []
        named += [spec["from"] for spec in data.get("perturb", {}).get("inputs", {}).values()]
        named += [data["reference"]] if "reference" in data else []
        files.append(task.doc.file)
        for relative in named:
            path = task.folder / relative
            files += sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    return files


def content_hash(root: Path, files: list[Path]) -> str:
    """``sha256:`` over each file's path relative to ``root`` and its bytes, in path order."""
    digest = hashlib.sha256()
    for relative in sorted({p.relative_to(root).as_posix() for p in files}):
        data = (root / relative).read_bytes()
        digest.update(relative.encode() + b"\0" + len(data).to_bytes(8, "big") + data)
    return "sha256:" + digest.hexdigest()


def _missing_observe(manifest: dict[str, Any], folder: Path, pack_id: str) -> Callable[..., dict[str, Any]]:
    def observe(*args: Any, **kwargs: Any) -> dict[str, Any]:
        raise RuntimeError("benchmark.packs.observe is not installed: this task cannot be observed")
    return observe


def default_make_observe() -> MakeObserve:
    """``benchmark.packs.observe.make_observe``, imported now (lazily), or a stand-in whose
    observe raises when that module does not exist (grading then records an error)."""
    try:
        from .observe import make_observe
    except ModuleNotFoundError as exc:
        if exc.name != "benchmark.packs.observe":
            raise
        return _missing_observe
    return make_observe


def _build_task(pack: Document, task: _Checked, builtin: bool, make_observe: MakeObserve) -> Task:
    data, pack_data = task.doc.data, pack.data
    pack_id, defaults = pack_data["id"], pack_data.get("defaults", {})
    points = float(data.get("points", defaults.get("points", PROMPT_POINTS)))
    checks = tuple(TaskCheck(c["id"], Category(c["category"]), float(c["points"]), task.types[i].method,
                             c["use"], dict(c.get("with") or {}), Critical.of(c.get("critical")))
                   for i, c in enumerate(data["checks"]))
    sums = semantics.category_sums(data["checks"])
    if data["run"]["mode"] == "custom" and task.observer is not None:
        observe = task.observer[0]
    else:
        observe = make_observe(data, task.folder, pack_id)
    return Task(
        pack=pack_id, id=data["id"], key=data["id"] if builtin and pack_id == CORE_PACK else f"{pack_id}.{data['id']}",
        title=data["title"], points=points, maxima={Category(c): s for c, s in sums.items()}, checks=checks,
        files=tuple(FileSpec(f["path"], f["kind"], f.get("required", True)) for f in data["files"]),
        observe=observe, gates={**GATES, **{Category(c): g for c, g in data.get("gates", {}).items()}},
        pass_fraction=float(data.get("pass_fraction", defaults.get("pass_fraction", PASS_FRACTION))),
        folder=task.folder, submission_root=pack_data.get("submission_root", pack_id), run=data["run"],
        manifest=data)


def _plugins(tasks: list[_Checked], table: local_plugins.LocalTable) -> tuple[str, ...]:
    sources = {t.source for task in tasks for t in task.types.values()}
    sources |= {g.source for task in tasks for g in task.generators}
    sources |= {task.observer[1] for task in tasks if task.observer}
    sources -= {"builtin", "local"}
    return tuple(sorted(sources | set(table.hashes)))


def check_pack(folder: Path, *, builtin: bool = False,
               make_observe: MakeObserve | None = None) -> tuple[Pack | None, list[Problem]]:
    """(the pack, or None when any problem is an error; every problem found, sorted).
    ``builtin`` allows the reserved id ``core``; ``make_observe`` defaults to
    ``benchmark.packs.observe.make_observe``."""
    folder = Path(folder)
    _ensure_builtins()
    pack = _read(folder / "pack.yaml")
    problems = pack.problems + (validate(pack, manifest_validator("pack")) if pack.ok else [])
    if any(p.is_error for p in problems):
        return None, sort_problems(problems)
    problems += _pack_semantics(pack, builtin) + semantics.check_yaml11_booleans(pack)
    table, found = local_plugins.load_all(pack, folder, pack.data["id"])
    problems += found
    checked = []
    for index, task_id in enumerate(pack.data["tasks"]):
        task, found = _check_task(pack, index, task_id)
        problems += found
        checked += [task] if task else []
    problems += _unique_files(checked)
    if any(p.is_error for p in problems):
        return None, sort_problems(problems)
    make = make_observe or default_make_observe()
    tasks = tuple(_build_task(pack, task, builtin, make) for task in checked)
    data = pack.data
    result = Pack(id=data["id"], version=data["version"], title=data["title"], tasks=tasks, folder=folder,
                  submission_root=data.get("submission_root", data["id"]),
                  content_hash=content_hash(folder, _hashed_files(pack, checked)), plugins=_plugins(checked, table))
    return result, sort_problems(problems)


def load_pack(folder: Path, *, builtin: bool = False, make_observe: MakeObserve | None = None) -> Pack:
    """The pack in ``folder``; ``PackError`` listing every problem when any is an error."""
    pack, problems = check_pack(folder, builtin=builtin, make_observe=make_observe)
    if pack is None:
        raise PackError(problems)
    return pack


@dataclass(frozen=True)
class InstalledPack:
    """A pack offered by an installed distribution (entry-point group ``rubricbench.packs``)."""

    name: str
    source: str
    folder: Path | None
    problem: str = ""


def discover_installed_packs() -> list[InstalledPack]:
    """Every entry point of ``rubricbench.packs``: each resolves to a folder path or to a
    callable returning one. A broken entry is listed with its problem, never raised."""
    from importlib.metadata import entry_points  # 15-70 ms: only when asked

    found = []
    for point in entry_points(group=PACK_GROUP):
        dist = getattr(point, "dist", None)
        source = f"{dist.name}=={dist.version}" if dist is not None else point.value
        try:
            target = point.load()
            folder = Path(target() if callable(target) else target)
        except Exception as exc:  # a broken plugin is the operator's problem, stated plainly
            found.append(InstalledPack(point.name, source, None, f"{type(exc).__name__}: {exc}"))
            continue
        problem = "" if (folder / "pack.yaml").is_file() else f"{folder} holds no pack.yaml"
        found.append(InstalledPack(point.name, source, folder, problem))
    return sorted(found, key=lambda p: p.name)
