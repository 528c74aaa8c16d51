"""The suite a run grades: the core pack, then any packs given with ``--pack``, in order.

The core pack is built from its compiled manifests (``benchmark.packs.compiled``), the
check types ``benchmark.prompts`` registers and the library types its rows use
(``benchmark.packs.library``); other packs come from ``benchmark.packs.loader``, which
validates them first. Task keys are unique across a suite, and so is every file a model
submits (``<submission_root>/<path>``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from ..rubric import GATES, PASS_FRACTION
from ..types import CATEGORY_ORDER, Category
from .compiled import CORE_DIR, load_compiled
from .model import CORE_PACK, Critical, FileSpec, Pack, Task, TaskCheck, remember


@dataclass(frozen=True)
class Suite:
    packs: tuple[Pack, ...]

    @property
    def tasks(self) -> tuple[Task, ...]:
        return tuple(task for pack in self.packs for task in pack.tasks)

    @property
    def max_score(self) -> float:
        return sum(task.points for task in self.tasks)

    @property
    def has_core_only(self) -> bool:
        return [p.id for p in self.packs] == [CORE_PACK]

    def task(self, key: str) -> Task:
        for task in self.tasks:
            if task.key == key:
                return task
        raise KeyError(key)

    def model_files(self) -> list[str]:
        """Every file a model submits, relative to the model's folder (the cache key's list)."""
        return [name if task.submission_root == "." else f"{task.submission_root}/{name}"
                for task in self.tasks for name in task.file_names]

    def describe(self) -> list[dict[str, object]]:
        """Each pack's id, version, content hash and plugins (manifest and cache key)."""
        return [{"id": p.id, "version": p.version, "title": p.title, "hash": p.content_hash,
                 "plugins": list(p.plugins), "tasks": [t.key for t in p.tasks]} for p in self.packs]


def _task_from_compiled(item: dict, pack: dict) -> Task:
    from ..prompts import PROMPT_MODULES  # noqa: F401  (registers the core check types)
    from . import library  # noqa: F401  (registers the library check types core rows use)
    from .registry import check_type_named, observer_named

    checks = tuple(TaskCheck(c["id"], Category(c["category"]), c["points"],
                             c.get("method") or check_type_named(c["use"]).method, c["use"],
                             MappingProxyType(dict(c.get("with", {}))), Critical.of(c.get("critical")))
                   for c in item["checks"])
    maxima = {cat: float(item["maxima"].get(cat.value, 0.0)) for cat in CATEGORY_ORDER}
    files = tuple(FileSpec(f["path"], f["kind"], f.get("required", True)) for f in item["files"])
    if item["run"]["mode"] == "custom":
        observe, _ = observer_named(item["run"]["observe"])
    else:  # a core prompt written as any pack's task: observed as one
        from .observe import make_observe

        observe = make_observe(item, CORE_DIR / item["id"], CORE_PACK)
    defaults = pack.get("defaults", {})
    gates = {**GATES, **{Category(c): g for c, g in item.get("gates", {}).items()}}
    return Task(pack=CORE_PACK, id=item["id"], key=item["id"], title=item["title"],
                points=item["points"], maxima=MappingProxyType(maxima), checks=checks, files=files,
                observe=observe, gates=MappingProxyType(gates),
                pass_fraction=float(item.get("pass_fraction", defaults.get("pass_fraction", PASS_FRACTION))),
                folder=CORE_DIR / item["id"], submission_root=".", run=item["run"], manifest=item)


_CORE: Pack | None = None


def core_pack() -> Pack:
    """The built-in pack (built once per process)."""
    global _CORE
    if _CORE is None:
        compiled = load_compiled()
        pack = compiled["pack"]
        tasks = tuple(_task_from_compiled(item, pack) for item in compiled["tasks"])
        _CORE = Pack(CORE_PACK, int(pack["version"]), pack["title"], tasks, CORE_DIR, ".",
                     compiled["source"][:16])
    return _CORE


class SuiteError(Exception):
    """Packs that cannot be graded together (a duplicate pack id, task key or model file)."""


def build_suite(extra: Iterable[Pack] = (), *, core: bool = True) -> Suite:
    """The suite of the core pack (with ``core``) and ``extra``. A pack given twice from the
    same folder is graded once, as a model named twice is; two packs with one id from two
    folders are a ``SuiteError``."""
    packs: list[Pack] = []
    seen: dict[str, str] = {}
    for pack in ((core_pack(),) if core else ()) + tuple(extra):
        if pack.id in seen:
            if seen[pack.id] == str(pack.folder):
                continue
            raise SuiteError(f"pack id '{pack.id}' is used twice ({seen[pack.id]} and {pack.folder})")
        seen[pack.id] = str(pack.folder)
        packs.append(pack)
    if not packs:
        raise SuiteError("the suite is empty: give --pack, or keep the core pack")
    suite = Suite(tuple(packs))
    remember(suite.tasks)
    files = suite.model_files()
    duplicates = sorted({name for name in files if files.count(name) > 1})
    if duplicates:
        raise SuiteError(f"two tasks ask models for the same file: {', '.join(duplicates)}")
    return suite


def default_suite() -> Suite:
    return build_suite()


def find_pack(spec: str) -> tuple[Path, bool]:
    """A pack named on the command line: (its folder, as given when ``spec`` is one; True when it
    is the built-in pack). A folder holding ``pack.yaml`` wins; else ``core`` names the built-in pack and any
    other name an installed pack (entry-point group ``rubricbench.packs``). Raises SuiteError
    saying what was looked for."""
    folder = Path(spec)
    if (folder / "pack.yaml").is_file():
        return folder, folder.resolve() == CORE_DIR
    if spec == CORE_PACK:
        return CORE_DIR, True
    from .loader import discover_installed_packs

    installed = discover_installed_packs()
    for pack in installed:
        if pack.name == spec:
            if pack.folder is None or pack.problem:
                raise SuiteError(f"{spec}: installed by {pack.source}, but {pack.problem}")
            return pack.folder, False
    if folder.is_dir():
        raise SuiteError(f"{spec}: the folder holds no pack.yaml")
    names = ", ".join(p.name for p in installed) or "none"
    raise SuiteError(f"{spec}: no such folder, and no pack of that name "
                     f"(the built-in pack: {CORE_PACK}; installed packs: {names})")


def resolve_pack_folder(spec: str) -> Path:
    """A ``--pack`` value's folder (``find_pack``). The built-in pack is refused: it is graded
    unless ``--no-core``, from its compiled manifests."""
    try:
        folder, builtin = find_pack(spec)
    except SuiteError as exc:
        raise SuiteError(f"--pack {exc}") from None
    if builtin:
        raise SuiteError(f"--pack {spec}: that is the built-in pack, graded unless --no-core; "
                         "--pack adds other packs")
    return folder.resolve()


_LOADED: dict[tuple[tuple[str, ...], bool], Suite] = {}


def load_suite(specs: Iterable[str] = (), *, core: bool = True) -> Suite:
    """The suite of ``--pack`` values (validated; raises ``PackError`` or ``SuiteError``),
    built once per process for the same arguments (pool workers load it themselves)."""
    key = (tuple(str(s) for s in specs), core)
    if key not in _LOADED:
        from .loader import load_pack

        packs = [load_pack(resolve_pack_folder(spec)) for spec in key[0]]
        _LOADED[key] = build_suite(packs, core=core)
    return _LOADED[key]
