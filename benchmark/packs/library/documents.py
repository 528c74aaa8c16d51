"""Check types over submitted YAML/JSON documents parsed in the parent (``parse`` mode,
``facts["documents"][path]`` = ``{kind, value, error, line, documents}``).

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
DOC_FILES_PARAM = {"type": "array", "minItems": 1, "uniqueItems": True,
                   "items": {"type": "string", "minLength": 1},
                   "description": "several submitted YAML/JSON files, each judged as file is; "
                                  "credit is their mean (give file or files, not both)"}


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
        return name, None, Outcome.fail(f"{name} loads to nothing (an empty document)",
                                        [Evidence(name, None, "loads to nothing")])
    return name, document["value"], None


def each_file(file: str | None, files: Sequence[str] | None, judge) -> Outcome:
    """``judge(name)`` of ``file`` (None: the default file), or of each of ``files``: their
    mean credit, their rationales in order, their evidence."""
    if file is not None and files is not None:
        return Outcome.fail("give the check file or files, not both")
    if files is None:
        return judge(file)
    outcomes = [judge(name) for name in files]
    if len(outcomes) == 1:
        return outcomes[0]
    return Outcome(sum(o.fraction for o in outcomes) / len(outcomes), "; ".join(o.rationale for o in outcomes),
                   tuple(item for o in outcomes for item in o.evidence))


def _root_problem(name: str, value: Any, root: str) -> Outcome | None:
    """A fail when ``root`` names a kind (mapping, list) the loaded ``value`` is not."""
    wanted = {"mapping": dict, "list": list}.get(root)
    if wanted is None or isinstance(value, wanted):
        return None
    what = "a mapping" if isinstance(value, dict) else "a list" if isinstance(value, list) else "a scalar"
    return Outcome.fail(f"{name} loads to {what}, not a {root}", [Evidence(name, None, f"loads to {what}")])


@builtin_check("parse.loads", method="parse", params={
    "files": {"type": "array", "minItems": 1, "uniqueItems": True,
              "items": {"type": "string", "minLength": 1},
              "description": "the files that must load (default: every yaml/json file of the task)"},
    "root": {"type": "string", "enum": ["any", "mapping", "list"], "default": "any",
             "description": "what each file must load to: any non-empty value, a mapping or a "
                            "list (default any)"},
    "multi_document": {"type": "number", "minimum": 0, "maximum": 1, "default": 1.0,
                       "description": "the credit of a YAML file holding more than one document, "
                                      "of which only the first is ever read (default 1: it loads)"},
})
def loads(ctx: CheckContext, files: Sequence[str] | None = None, root: str = "any",
          multi_document: float = 1.0) -> Outcome:
    """Each submitted YAML/JSON file loads (with the safe, limited loaders) to a non-empty value.

    Parameters: ``files`` (default every yaml/json file the task lists), ``root`` (``mapping``
    or ``list``: a file loading to anything else does not count), ``multi_document`` (what a
    YAML file of several documents earns, 0.5 say; by default it counts as loading). Partial
    credit: the share of files that load. No file to judge is a fail.
    """
    names = list(files) if files is not None else _document_files(ctx)
    if not names:
        return Outcome.fail("the task lists no yaml or json file to load")
    failures, several = [], []
    for name in names:
        _, value, failed = loaded(ctx, name)
        failed = failed or _root_problem(name, value, root)
        if failed:
            failures.append(failed)
            continue
        count = mapping(ctx.facts, "documents")[name].get("documents", 1)
        if isinstance(count, int) and count > 1 and multi_document < 1:
            several.append((name, count))
    good = len(names) - len(failures)
    notes = [o.rationale for o in failures] + [f"{name} holds {count} documents where one is "
                                                f"required (only the first is read)" for name, count in several]
    evidence = [item for outcome in failures for item in outcome.evidence]
    evidence += [Evidence(name, None, f"{count} documents") for name, count in several]
    return Outcome.ratio(good - len(several) * (1 - multi_document), len(names),
                         f"{good}/{len(names)} files load with the safe, limited loaders"
                         + (f"; {listed(notes)}" if notes else f": {listed(names)}"), evidence[:10])


def _leaves(value: Any, prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    """Every value under nested mappings that is not a mapping (a list is one leaf), by its key
    path; a document that is not a mapping is one leaf, at the empty path."""
    if not isinstance(value, dict):
        return {prefix: value}
    found: dict[tuple[str, ...], Any] = {}
    for key, item in value.items():
        found.update(_leaves(item, (*prefix, str(key))))
    return found


def _key_paths(value: Any, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Every key path of nested mappings, the paths of mappings included."""
    paths: set[tuple[str, ...]] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            paths |= {(*prefix, str(key))} | _key_paths(item, (*prefix, str(key)))
    return paths


def _pointer_of(path: tuple[str, ...]) -> str:
    return "".join("/" + key.replace("~", "~0").replace("/", "~1") for key in path) or "/"


def _leaf_share(name: str, value: Any, answer: Any, against: str) -> Outcome:
    """The share of the answer's leaves the document holds, equal, at the same key path; each
    leaf of the document at a key path the answer lacks counts as one more leaf."""
    wanted, got = _leaves(answer), _leaves(value)
    wrong = [path for path in wanted if path not in got or not strict_equal(got[path], wanted[path])]
    known = _key_paths(answer)
    extra = [path for path in got if path not in known and path not in wanted]
    total, done = len(wanted) + len(extra), len(wanted) - len(wrong)
    off = [_pointer_of(p) for p in wrong] + [f"{_pointer_of(p)} (unexpected)" for p in extra]
    return Outcome.ratio(done, total, f"{name}: {done}/{total} leaves equal the answer {against!r} "
                         "(an unexpected leaf counts against)" + (f"; not: {listed(off)}" if off else ""),
                         [Evidence(name, None, f"wrong or missing: {listed(off, 4)}"[:200])] if off else [])


@builtin_check("parse.equivalent", method="parse", required=("against",), params={
    "file": DOC_FILE_PARAM,
    "files": DOC_FILES_PARAM,
    "against": {"type": "string", "pattern": "^[a-z0-9_]+$",
                "description": "the answer label (a key of the task's answers) to compare with"},
    "partial": {"type": "string", "enum": ["none", "top_level_items", "leaves"], "default": "none",
                "description": "none: equal or nothing; top_level_items: the share of equal "
                               "top-level keys or items; leaves: the share of equal leaf values "
                               "(default none)"},
})
def equivalent(ctx: CheckContext, against: str, file: str | None = None,
               partial: str = "none", files: Sequence[str] | None = None) -> Outcome:
    """The loaded document equals the answer, type-strictly (``true``, ``1`` and ``1.0`` differ).

    Parameters: ``against`` (answer label), ``file`` or ``files`` (several files, each
    compared: credit is their mean), ``partial``. A missing answer is a fail. With
    ``partial: top_level_items``, credit is the share of top-level mapping keys (or list
    positions) whose values are equal; an extra key counts against. With ``partial: leaves``,
    it is the share of the answer's leaf values (any value under its nested mappings that is
    not a mapping; a list is one leaf) the document holds, equal, at the same key path; each
    leaf the document adds at a key path the answer lacks counts as one more leaf.
    """
    expected = mapping(ctx.facts, "expected")
    if against not in expected:
        why = mapping(ctx.facts, "expected_problem").get(against) or "no such answer"
        return Outcome.fail(f"no expected value {against!r} ({why})")

    def judge(path: str | None) -> Outcome:
        name, value, failed = loaded(ctx, path)
        if failed:
            return failed
        if strict_equal(value, expected[against]):
            return Outcome.ok(f"{name} equals the answer {against!r}")
        if partial == "leaves":
            return _leaf_share(name, value, expected[against], against)
        where = first_difference(value, expected[against], strict_equal)
        share = item_share(value, expected[against], strict_equal) if partial == "top_level_items" else 0.0
        return Outcome(share, f"{name} differs from the answer {against!r} at {where}",
                       (Evidence(name, None, f"differs at {where}"[:200]),))

    return each_file(file, files, judge)


@builtin_check("parse.keys", method="parse", required=("required",), params={
    "file": DOC_FILE_PARAM,
    "files": DOC_FILES_PARAM,
    "required": {"type": "array", "minItems": 1, "uniqueItems": True,
                 "items": {"type": "string", "pattern": POINTER_PATTERN, "minLength": 1},
                 "description": "key paths that must exist, as JSON Pointers (/server/port)"},
})
def keys(ctx: CheckContext, required: Sequence[str], file: str | None = None,
         files: Sequence[str] | None = None) -> Outcome:
    """Every required key path exists in the loaded document.

    Paths are JSON Pointers (``/database/port``, list positions as numbers); a key whose
    value is null still exists. Parameters: ``required``, ``file`` or ``files`` (several
    files, each judged: credit is their mean). Partial credit: the share of paths present.
    """
    if not required:
        return Outcome.fail("no key paths were stated")

    def judge(path: str | None) -> Outcome:
        name, value, failed = loaded(ctx, path)
        if failed:
            return failed
        absent = [path for path in required if pointer(value, path) is MISSING]
        good = len(required) - len(absent)
        return Outcome.ratio(good, len(required), f"{name}: {good}/{len(required)} key paths present"
                             + (f"; missing: {listed(absent)}" if absent else ""),
                             [Evidence(name, None, f"missing {path}") for path in absent[:10]])

    return each_file(file, files, judge)
