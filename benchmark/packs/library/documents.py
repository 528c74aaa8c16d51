"""Check types over submitted YAML/JSON documents parsed in the parent (``parse`` mode,
``facts["documents"][path]`` = ``{kind, value, error, line}``).

A document that was not parsed, did not load, or loaded to nothing (an empty document)
earns nothing; comments and layout never matter here, only the loaded data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...prompts.base import CheckContext, Outcome, strict_equal
from ...types import Evidence
from ..registry import builtin_check
from .common import (MISSING, POINTER_PATTERN, first_difference, item_share, listed, mapping,
                     pointer)

DOC_FILE_PARAM = {"type": "string", "minLength": 1,
                  "description": "the submitted YAML/JSON file (default: the task's first "
                                 "yaml or json file)"}


def _document_files(ctx: CheckContext) -> list[str]:
    if ctx.task is None:
        return []
    return [f.path for f in ctx.task.files if f.kind in ("yaml", "json")]


def loaded(ctx: CheckContext, path: str | None) -> tuple[str, Any, Outcome | None]:
    """(path, loaded value, None) or (path, None, a fail saying why there is no value)."""
    name = path or next(iter(_document_files(ctx)), "<no document file>")
    document = mapping(ctx.facts, "documents").get(name)
    if not isinstance(document, Mapping):
        return name, None, Outcome.fail(f"{name}: not parsed ({ctx.facts.get('problem') or 'no record'})")
    if document.get("error"):
        return name, None, Outcome.fail(f"{name} does not load: {document['error']}",
                                        [Evidence(name, document.get("line"), str(document["error"])[:200])])
    if document.get("value") is None:
        return name, None, Outcome.fail(f"{name} loads to nothing (an empty document)")
    return name, document["value"], None


@builtin_check("parse.loads", method="parse", params={
    "files": {"type": "array", "minItems": 1, "uniqueItems": True,
              "items": {"type": "string", "minLength": 1},
              "description": "the files that must load (default: every yaml/json file of the task)"},
})
def loads(ctx: CheckContext, files: Sequence[str] | None = None) -> Outcome:
    """Each submitted YAML/JSON file loads (with the safe, limited loaders) to a non-empty value.

    Parameters: ``files`` (default every yaml/json file the task lists). Partial credit:
    the share of files that load. No file to judge is a fail.
    """
    names = list(files) if files is not None else _document_files(ctx)
    if not names:
        return Outcome.fail("the task lists no yaml or json file to load")
    failures = [outcome for outcome in (loaded(ctx, name)[2] for name in names) if outcome]
    good = len(names) - len(failures)
    evidence = [item for outcome in failures for item in outcome.evidence][:10]
    return Outcome.ratio(good, len(names), f"{good}/{len(names)} files load"
                         + (f"; {listed([o.rationale for o in failures])}" if failures else ""),
                         evidence)


@builtin_check("parse.equivalent", method="parse", required=("against",), params={
    "file": DOC_FILE_PARAM,
    "against": {"type": "string", "pattern": "^[a-z0-9_]+$",
                "description": "the answer label (a key of the task's answers) to compare with"},
    "partial": {"type": "string", "enum": ["none", "top_level_items"], "default": "none",
                "description": "none: equal or nothing; top_level_items: the share of equal "
                               "top-level keys or items (default none)"},
})
def equivalent(ctx: CheckContext, against: str, file: str | None = None,
               partial: str = "none") -> Outcome:
    """The loaded document equals the answer, type-strictly (``true``, ``1`` and ``1.0`` differ).

    Parameters: ``against`` (answer label), ``file``, ``partial``. A missing answer is a
    fail. With ``partial: top_level_items``, credit is the share of top-level mapping keys
    (or list positions) whose values are equal; an extra key counts against.
    """
    expected = mapping(ctx.facts, "expected")
    if against not in expected:
        why = mapping(ctx.facts, "expected_problem").get(against) or "no such answer"
        return Outcome.fail(f"no expected value {against!r} ({why})")
    name, value, failed = loaded(ctx, file)
    if failed:
        return failed
    if strict_equal(value, expected[against]):
        return Outcome.ok(f"{name} equals the answer {against!r}")
    where = first_difference(value, expected[against], strict_equal)
    share = item_share(value, expected[against], strict_equal) if partial == "top_level_items" else 0.0
    return Outcome(share, f"{name} differs from the answer {against!r} at {where}",
                   (Evidence(name, None, f"differs at {where}"[:200]),))


@builtin_check("parse.keys", method="parse", required=("required",), params={
    "file": DOC_FILE_PARAM,
    "required": {"type": "array", "minItems": 1, "uniqueItems": True,
                 "items": {"type": "string", "pattern": POINTER_PATTERN, "minLength": 1},
                 "description": "key paths that must exist, as JSON Pointers (/server/port)"},
})
def keys(ctx: CheckContext, required: Sequence[str], file: str | None = None) -> Outcome:
    """Every required key path exists in the loaded document.

    Paths are JSON Pointers (``/database/port``, list positions as numbers); a key whose
    value is null still exists. Parameters: ``required``, ``file``. Partial credit: the
    share of paths present.
    """
    if not required:
        return Outcome.fail("no key paths were stated")
    name, value, failed = loaded(ctx, file)
    if failed:
        return failed
    absent = [path for path in required if pointer(value, path) is MISSING]
    good = len(required) - len(absent)
    return Outcome.ratio(good, len(required), f"{name}: {good}/{len(required)} key paths present"
                         + (f"; missing: {listed(absent)}" if absent else ""),
                         [Evidence(name, None, f"missing {path}") for path in absent[:10]])
