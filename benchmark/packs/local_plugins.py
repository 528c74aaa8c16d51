"""A pack's ``local_plugins``: Python modules in the pack folder, and the names they declare.

Each module is imported by path under a private module name; every function defined in it
and declared with ``benchmark.api.check_type``/``generator``/``observer`` is then known as
``<pack id>.<function name>`` in that pack's own table, which name resolution consults after
the built-ins and before entry points (``resolve_check`` and friends). A local name that is a
built-in name or an installed entry point's name is a problem, never a silent shadow (A.9).
Local plugins are trusted code the operator chose; they run in the grader's process.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import registry
from .registry import SPEC_ATTRIBUTE, CheckType, Generator

KIND_GROUPS = {"check": registry.CHECK_GROUP, "observer": registry.CHECK_GROUP,
               "generator": registry.GENERATOR_GROUP}


@dataclass
class LocalTable:
    """The names one pack's local plugins declare, and each module's sha256 (``plugins.py==sha256:..``)."""

    checks: dict[str, CheckType] = field(default_factory=dict)
    generators: dict[str, Generator] = field(default_factory=dict)
    observers: dict[str, Callable[..., dict[str, Any]]] = field(default_factory=dict)
    hashes: list[str] = field(default_factory=list)


PACK_TABLES: dict[str, LocalTable] = {}  # pack id -> its local plugins, set by the loader


def _private_name(pack_id: str, relative: str) -> str:
    digest = hashlib.sha256(f"{pack_id}/{relative}".encode()).hexdigest()[:12]
    return f"_rubricbench_local_{pack_id}_{digest}"


def import_module(path: Path, pack_id: str, relative: str) -> tuple[Any | None, str]:
    """The module at ``path`` imported under a private name, or (None, why it failed)."""
    name = _private_name(pack_id, relative)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        return None, "cannot be imported as a Python module"
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # a broken local plugin is the operator's problem, stated plainly
        sys.modules.pop(name, None)
        if not isinstance(exc, Exception):
            raise
        where = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
        line = f" (line {where[-1].lineno})" if where else ""
        return None, f"failed to import{line}: {type(exc).__name__}: {exc}"
    return module, ""


def declared(module: Any) -> list[tuple[str, Callable[..., Any], dict[str, Any]]]:
    """(function name, function, spec) of every declared function defined in ``module``."""
    found = []
    for attr, value in vars(module).items():
        spec = getattr(value, SPEC_ATTRIBUTE, None)
        if callable(value) and isinstance(spec, dict) and getattr(value, "__module__", None) == module.__name__:
            found.append((getattr(value, "__name__", attr), value, spec))
    return sorted(found, key=lambda item: item[0])


def clash(name: str, kind: str) -> str:
    """Why ``name`` may not be a local plugin name ("" when it may)."""
    if registry.is_builtin_name(name) or name in registry.CHECK_TYPES or name in registry.GENERATORS \
            or name in registry.OBSERVERS:
        return f"{name} is a built-in name"
    if name in registry.plugin_names(KIND_GROUPS[kind]):
        return f"{name} is already offered by an installed plugin (entry point)"
    return ""


def add(table: LocalTable, name: str, fn: Callable[..., Any], spec: dict[str, Any], source: str) -> None:
    """Put one declared function into ``table`` under ``name``."""
    kind = spec.get("kind")
    if kind == "check":
        table.checks[name] = CheckType(name, fn, spec["method"], spec["params"], spec["required"], source)
    elif kind == "generator":
        table.generators[name] = Generator(name, fn, spec["gen_kind"], spec["params"], spec["required"], source)
    elif kind == "observer":
        table.observers[name] = fn


def resolve_check(pack_id: str | None, name: str) -> CheckType:
    """The check type ``name`` for a task of ``pack_id``: built in, local, else an entry point."""
    table = PACK_TABLES.get(pack_id or "")
    if name not in registry.CHECK_TYPES and table and name in table.checks:
        return table.checks[name]
    return registry.check_type_named(name)


def resolve_generator(pack_id: str | None, name: str) -> Generator:
    table = PACK_TABLES.get(pack_id or "")
    if name not in registry.GENERATORS and table and name in table.generators:
        return table.generators[name]
    return registry.generator_named(name)


def resolve_observer(pack_id: str | None, name: str) -> tuple[Callable[..., dict[str, Any]], str]:
    table = PACK_TABLES.get(pack_id or "")
    if name not in registry.OBSERVERS and table and name in table.observers:
        return table.observers[name], "local"
    return registry.observer_named(name)


def load_all(doc: Any, folder: Path, pack_id: str) -> tuple[LocalTable, list[Any]]:
    """Import every ``local_plugins`` module of the pack document ``doc`` (a ``Document``):
    (the pack's table, problems). The table is also installed in ``PACK_TABLES[pack_id]``."""
    from .paths import escape_reason

    table, problems = LocalTable(), []
    for index, relative in enumerate(doc.data.get("local_plugins", [])):
        where = ("local_plugins", index)
        reason = escape_reason(folder, relative) or ("" if (folder / relative).is_file() else "no such file")
        if reason:
            problems.append(doc.problem(where, f"{relative}: {reason}"))
            continue
        path = folder / relative
        table.hashes.append(f"{relative}=={registry.local_module_hash(path.read_bytes())}")
        module, why = import_module(path, pack_id, relative)
        if module is None:
            problems.append(doc.problem(where, f"{relative}: {why}"))
            continue
        for fn_name, fn, spec in declared(module):
            name, kind = f"{pack_id}.{fn_name}", spec.get("kind", "")
            why = clash(name, kind) if kind in KIND_GROUPS else f"{fn_name} has an unknown declaration"
            if why:
                problems.append(doc.problem(where, f"{relative}: {why}"))
            else:
                add(table, name, fn, spec, f"{relative}=={registry.local_module_hash(path.read_bytes())}")
    PACK_TABLES[pack_id] = table
    return table, problems
