"""Check types and generators: the built-in table, and plugins found through entry points.

A *check type* is a pure function ``fn(ctx, **params) -> Outcome`` with a method (how it
judges: ast, bandit, radon, exec, behaviour, parse) and a JSON Schema for its parameters
(a manifest's ``with:``); its docstring is its documentation (``rubricbench pack docs``).
A *generator* makes seeded inputs for perturbed runs. Built-ins register at import into
tables this module owns; a name that is not built in is looked up, lazily, in the
entry-point groups ``rubricbench.checks`` and ``rubricbench.generators`` (a core-pack run
never scans them). A plugin name must contain a dot and may not use a built-in prefix; the
same name from two distributions, or a plugin reusing a built-in name, is an error, never a
silent shadow. Plugins are trusted code the operator installed; they run in this process.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

CHECK_GROUP = "rubricbench.checks"
GENERATOR_GROUP = "rubricbench.generators"
PACK_GROUP = "rubricbench.packs"
BUILTIN_PREFIXES = ("compiles", "ast.", "bandit.", "radon.", "exec.", "output.", "cases.",
                    "parse.", "core.", "builtin.")
METHODS = ("ast", "bandit", "radon", "exec", "behaviour", "parse")
SPEC_ATTRIBUTE = "__rubricbench_spec__"


class RegistryError(Exception):
    """A check type or generator cannot be resolved: unknown, clashing, or badly declared."""


@dataclass(frozen=True)
class CheckType:
    name: str
    fn: Callable[..., Any]
    method: str
    params: Mapping[str, Any] = field(default_factory=dict)  # JSON Schema properties of ``with``
    required: tuple[str, ...] = ()
    source: str = "builtin"  # or "<distribution>==<version>"

    @property
    def doc(self) -> str:
        return (self.fn.__doc__ or "").strip()

    def schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": dict(self.params), "required": list(self.required),
                "additionalProperties": False}


@dataclass(frozen=True)
class Generator:
    """``fn(rng, **params)``: ``kind`` "file" gets ``source=`` bytes and returns bytes; ``kind``
    "cases" gets ``count=`` and returns a list of ``{"args": [...], "kwargs": {...}}``."""

    name: str
    fn: Callable[..., Any]
    kind: str
    params: Mapping[str, Any] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    source: str = "builtin"

    def schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": dict(self.params), "required": list(self.required),
                "additionalProperties": False}


CHECK_TYPES: dict[str, CheckType] = {}
GENERATORS: dict[str, Generator] = {}
OBSERVERS: dict[str, Callable[..., dict[str, Any]]] = {}  # run mode "custom": observe: <name>


def _spec(fn: Callable[..., Any], kind: str, **spec: Any) -> Callable[..., Any]:
    setattr(fn, SPEC_ATTRIBUTE, {"kind": kind, **spec})
    return fn


def check_type(*, method: str, params: Mapping[str, Any] | None = None,
               required: tuple[str, ...] = ()) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare a function as a check type (the public decorator for plugins; ``benchmark.api``)."""
    if method not in METHODS:
        raise RegistryError(f"method {method!r} is not one of {', '.join(METHODS)}")
    return lambda fn: _spec(fn, "check", method=method, params=dict(params or {}),
                            required=tuple(required))


def generator(*, kind: str, params: Mapping[str, Any] | None = None,
              required: tuple[str, ...] = ()) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare a function as a generator of perturbed inputs (``kind``: file or cases)."""
    if kind not in ("file", "cases"):
        raise RegistryError(f"generator kind {kind!r} is not 'file' or 'cases'")
    return lambda fn: _spec(fn, "generator", gen_kind=kind, params=dict(params or {}),
                            required=tuple(required))


def builtin_check(name: str, *, method: str, params: Mapping[str, Any] | None = None,
                  required: tuple[str, ...] = ()) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a built-in check type under ``name`` (at import of its module)."""
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if name in CHECK_TYPES:
            raise RegistryError(f"check type {name} registered twice")
        check_type(method=method, params=params, required=required)(fn)
        CHECK_TYPES[name] = CheckType(name, fn, method, dict(params or {}), tuple(required))
        return fn
    return register


def builtin_generator(name: str, *, kind: str, params: Mapping[str, Any] | None = None,
                      required: tuple[str, ...] = ()) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        if name in GENERATORS:
            raise RegistryError(f"generator {name} registered twice")
        generator(kind=kind, params=params, required=required)(fn)
        GENERATORS[name] = Generator(name, fn, kind, dict(params or {}), tuple(required))
        return fn
    return register


def observer(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Declare ``fn(files, run, test_data, seed) -> facts`` as a custom observe function
    (for ``run: {mode: custom, observe: <name>}``; offered in the ``rubricbench.checks`` group)."""
    return _spec(fn, "observer")


def builtin_observer(name: str, fn: Callable[..., dict[str, Any]]) -> None:
    if name in OBSERVERS:
        raise RegistryError(f"observer {name} registered twice")
    OBSERVERS[name] = observer(fn)


def is_builtin_name(name: str) -> bool:
    return name == "compiles" or name.startswith(BUILTIN_PREFIXES)


# ---- plugins (entry points), looked up only for names that are not built in -----------------

_PLUGINS: dict[str, dict[str, Any]] = {}


def _scan(group: str) -> dict[str, Any]:
    """Every entry point of ``group`` by name; a name offered twice maps to a RegistryError."""
    if group not in _PLUGINS:
        from importlib.metadata import entry_points  # 15-70 ms: only when a plugin is named

        found: dict[str, Any] = {}
        for point in entry_points(group=group):
            dist = getattr(point, "dist", None)
            source = f"{dist.name}=={dist.version}" if dist is not None else point.value
            if point.name in found:
                other = found[point.name]
                other_source = other[1] if isinstance(other, tuple) else "?"
                found[point.name] = RegistryError(
                    f"{group} entry point {point.name!r} is offered by both {other_source} and {source}")
            else:
                found[point.name] = (point, source)
        _PLUGINS[group] = found
    return _PLUGINS[group]


def plugin_names(group: str) -> list[str]:
    return sorted(_scan(group))


def _load_plugin(group: str, name: str) -> tuple[Callable[..., Any], dict[str, Any], str]:
    if is_builtin_name(name):
        raise RegistryError(f"no built-in named {name!r}; the prefix is reserved for built-ins")
    if "." not in name:
        raise RegistryError(f"unknown name {name!r} (a plugin's name contains a dot)")
    entry = _scan(group).get(name)
    if entry is None:
        raise RegistryError(f"unknown name {name!r}")
    if isinstance(entry, RegistryError):
        raise entry
    point, source = entry
    try:
        fn = point.load()
    except Exception as exc:  # a broken plugin is the operator's problem, stated plainly
        raise RegistryError(f"plugin {name!r} ({source}) failed to load: {type(exc).__name__}: {exc}") from exc
    spec = getattr(fn, SPEC_ATTRIBUTE, None)
    if not isinstance(spec, dict):
        raise RegistryError(f"plugin {name!r} ({source}) is not declared with benchmark.api's decorator")
    return fn, spec, f"{source} {_code_hash(fn)}"


def _code_hash(fn: Callable[..., Any]) -> str:
    """sha256 of the file that defines ``fn``: a plugin whose code changed without a new
    version is a different plugin (it is part of every cache key that uses it)."""
    import inspect

    try:
        path = inspect.getsourcefile(fn)
        data = open(path, "rb").read() if path else b""
    except (OSError, TypeError):
        data = b""
    return local_module_hash(data)[:23] if data else "sha256:unknown"


def check_type_named(name: str) -> CheckType:
    """The check type ``name``: built in, else from an installed plugin."""
    if name in CHECK_TYPES:
        return CHECK_TYPES[name]
    fn, spec, source = _load_plugin(CHECK_GROUP, name)
    if spec.get("kind") != "check":
        raise RegistryError(f"plugin {name!r} ({source}) is not a check type")
    return CheckType(name, fn, spec["method"], spec["params"], spec["required"], source)


def generator_named(name: str) -> Generator:
    if name in GENERATORS:
        return GENERATORS[name]
    fn, spec, source = _load_plugin(GENERATOR_GROUP, name)
    if spec.get("kind") != "generator":
        raise RegistryError(f"plugin {name!r} ({source}) is not a generator")
    return Generator(name, fn, spec["gen_kind"], spec["params"], spec["required"], source)


def observer_named(name: str) -> tuple[Callable[..., dict[str, Any]], str]:
    """A custom observe function and where it comes from ("builtin" or its distribution)."""
    if name in OBSERVERS:
        return OBSERVERS[name], "builtin"
    fn, spec, source = _load_plugin(CHECK_GROUP, name)
    if spec.get("kind") != "observer":
        raise RegistryError(f"plugin {name!r} ({source}) is not an observe function")
    return fn, source


def closest(name: str, known: list[str], limit: int = 3) -> list[str]:
    import difflib

    return difflib.get_close_matches(name, known, n=limit, cutoff=0.5)


def local_module_hash(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()
