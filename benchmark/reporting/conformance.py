"""Checks against the results schema by its parts, and a memo of model records that conform.

A model's record is about 30 kB of JSON and the compiled check (fastjsonschema) spends about
0.6 ms on one, nearly all of it in the record's ``prompts``. A run served from the cache
checked each record twice: when the cache read it back (a record the schema rejects is a
miss) and again in the whole document before writing it. So:

- A document is checked by its parts, which is all the schema says of it: the document with
  no models, each model's name (``$defs/display_name``) and each record (``$defs/model``).
- A record is checked in full once. Its ``prompts`` (the only part of a record the schema
  checks by more than its own fields), once they conformed in this process, are remembered;
  a record whose prompts are remembered has only the rest checked (the record with its
  prompts emptied; ``MODELS_PROPERTY`` and ``PROMPTS_PROPERTY`` are what the schema must
  say for that to be the same verdict, and with any other schema every check is whole).
- Prompts are remembered twice: whole, and without their excerpts (``evidence[].excerpt``
  and ``execution[].raised.excerpt``). Prompts remembered whole need nothing more checked;
  prompts remembered without their excerpts have the excerpts checked on their own, against
  ``$defs/excerpt`` and ``$defs/raised_excerpt``, so the same prompts with other excerpts
  share the entry. A record's ``cached``, ``timestamp`` and ``packs`` are outside ``prompts``,
  so a record the cache read back and the same record as the run writes it share one entry
  (the cache stores a record with its excerpts: ``known_to_conform`` remembers it whole).
- Prompts are remembered by the sha256 of their ``marshal`` (format 2) encoding: exact about
  types and values (``True`` is not ``1``, ``1`` is not ``1.0``, a list is not a tuple, a NaN
  is not ``None``), independent of which objects are shared, and refused for subclasses of
  the built-in types (such a record is checked in full every time).

Every verdict is the compiled check's (or jsonschema's, when the shipped code does not match
the schema); ``tests/test_schema_fast_path.py`` compares them on hundreds of broken documents.
"""

from __future__ import annotations

import hashlib
import json
import marshal
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from importlib import resources
from typing import Any, Callable, Iterator

SCHEMA_RESOURCE = ("schema", "results.schema.json")

MODELS_PROPERTY = {"type": "object", "propertyNames": {"$ref": "#/$defs/display_name"},
                   "additionalProperties": {"$ref": "#/$defs/model"}}
PROMPTS_PROPERTY = {"type": "object", "propertyNames": {"$ref": "#/$defs/task_key"},
                    "additionalProperties": {"$ref": "#/$defs/prompt"}}
RAISED_EXCERPT = {"$ref": "#/$defs/raised_excerpt"}  # what a run's raised must say of its excerpt
RAISED_KEYWORDS = {"type", "description", "required", "properties"}
EXECUTION_KEYWORDS, ITEM_KEYWORDS = {"type", "description", "items"}, {"type", "description", "properties"}
MEMO_SIZE = 4096  # records remembered (32 bytes each); the memo starts afresh when full
_conforming: set[bytes] = set()  # (set.add and membership are atomic: grading threads share it)
_strict_json: set[bytes] = set()  # prompts parsed from strict JSON (see ``json_parts``)


@lru_cache(maxsize=1)
def load_schema() -> dict[str, Any]:
    """The results schema (``benchmark/schema/results.schema.json``)."""
    text = resources.files("benchmark").joinpath(*SCHEMA_RESOURCE).read_text(encoding="utf-8")
    return json.loads(text)


def schema_sha256() -> str:
    return hashlib.sha256(json.dumps(load_schema(), sort_keys=True).encode()).hexdigest()


@lru_cache(maxsize=None)
def fast(definition: str) -> Any:
    """The shipped fastjsonschema function for ``$defs/<definition>``, or None when the shipped
    code does not match the schema (then jsonschema answers alone)."""
    from . import schema_check

    if getattr(schema_check, "SCHEMA_SHA256", None) != schema_sha256():
        return None
    return getattr(schema_check, f"{schema_check.validate.__name__}___defs_{definition}", None)


@lru_cache(maxsize=None)
def slow(definition: str) -> Any:
    """jsonschema's validator for ``$defs/<definition>`` (the source of error messages)."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator({"$defs": load_schema()["$defs"], "$ref": f"#/$defs/{definition}"})


def conforms(definition: str, value: Any) -> bool:
    """``value`` against ``$defs/<definition>``, never remembered."""
    from fastjsonschema import JsonSchemaException

    check = fast(definition)
    if check is None:
        return slow(definition).is_valid(value)
    try:
        check(value)
    except JsonSchemaException:
        return False
    return True


def _excerpt_holders(prompts: dict) -> tuple[list[list], list[list]] | None:
    """Every ``evidence`` list and every ``execution`` list in a record's ``prompts``, or None
    when a level above them is not a plain dict or list (such a record is checked whole, never
    remembered)."""
    evidence_lists, executions = [], []
    for prompt in prompts.values():
        checks = prompt.get("checks") if type(prompt) is dict else None
        if type(checks) is not list:
            return None
        for check in checks:
            evidence = check.get("evidence") if type(check) is dict else None
            if type(evidence) is not list:
                return None
            evidence_lists.append(evidence)
        execution = prompt.get("execution", [])
        if type(execution) is not list:
            return None
        executions.append(execution)
    return evidence_lists, executions


def _raised_with_excerpt(run: Any) -> dict | None:
    """A run's ``raised`` when it is a plain dict holding an ``excerpt``, else None."""
    raised = run.get("raised") if type(run) is dict else None
    return raised if type(raised) is dict and "excerpt" in raised else None


def _without_excerpts(prompts: dict) -> tuple[dict, list[tuple[str, Any]]] | None:
    """(a record's ``prompts`` without their excerpts, the excerpts as (definition, excerpt)),
    or None (see :func:`_excerpt_holders`). Excerpts are those of evidence entries
    (``$defs/excerpt``) and of runs' ``raised`` (``$defs/raised_excerpt``). Prompts with no
    excerpt are returned themselves; otherwise the copy has new dicts and lists down to each
    entry that had one and shares everything else."""
    holders = _excerpt_holders(prompts)
    if holders is None:
        return None
    evidence_lists, executions = holders
    excerpts = [("excerpt", item["excerpt"]) for evidence in evidence_lists for item in evidence
                if type(item) is dict and "excerpt" in item]
    excerpts += [("raised_excerpt", raised["excerpt"]) for execution in executions for run in execution
                 if (raised := _raised_with_excerpt(run)) is not None]
    if not excerpts:
        return prompts, []
    stripped = {}
    for pid, prompt in prompts.items():
        stripped[pid] = dict(prompt)
        stripped[pid]["checks"] = [
            {**check, "evidence": [{key: value for key, value in item.items() if key != "excerpt"}
                                   if type(item) is dict and "excerpt" in item else item
                                   for item in check["evidence"]]}
            for check in prompt["checks"]]
        if "execution" in prompt:
            stripped[pid]["execution"] = [
                {**run, "raised": {key: value for key, value in raised.items() if key != "excerpt"}}
                if (raised := _raised_with_excerpt(run)) is not None else run
                for run in prompt["execution"]]
    return stripped, excerpts


def _key(value: Any) -> bytes | None:
    try:
        return hashlib.sha256(marshal.dumps(value, 2)).digest()
    except (ValueError, TypeError):  # a subclass, or nesting marshal refuses: not remembered
        return None


@lru_cache(maxsize=1)
def _by_parts() -> bool:
    """Whether the schema says no more of a document's models, and of a model's prompts, than
    the module's note relies on; else every check is of the whole."""
    schema = load_schema()
    model = schema["$defs"]["model"]
    return (schema["properties"].get("models") == MODELS_PROPERTY
            and set(model) == {"type", "required", "additionalProperties", "properties"}
            and model["properties"].get("prompts") == PROMPTS_PROPERTY
            and _raised_by_parts(schema["$defs"]["prompt"])
            and all(fast(name) is not None for name in ("model", "display_name", "excerpt", "raised_excerpt")))


def _raised_by_parts(prompt: dict) -> bool:
    """Whether a prompt's ``execution`` says of a run's ``raised`` only its properties, and
    ``raised`` of its ``excerpt`` only that it is optional and a ``$defs/raised_excerpt``, so
    the excerpt can be checked apart from the rest."""
    try:
        execution = prompt["properties"]["execution"]
        items = execution["items"]
        raised = items["properties"]["raised"]
    except (KeyError, TypeError):
        return False
    return (set(execution) <= EXECUTION_KEYWORDS and set(items) <= ITEM_KEYWORDS
            and set(raised) <= RAISED_KEYWORDS and "excerpt" not in raised.get("required", ())
            and raised.get("properties", {}).get("excerpt") == RAISED_EXCERPT)


_HELD: ContextVar[dict[int, tuple[Any, bytes | None]] | None] = ContextVar("rubricbench_held_keys", default=None)


@contextmanager
def unchanged() -> Iterator[None]:
    """A block in which the records checked are not changed: each one's prompts are keyed once
    (``writer`` checks a document against the schema, then as strict JSON, in one)."""
    token = _HELD.set({})
    try:
        yield
    finally:
        _HELD.reset(token)


def _whole_key(prompts: dict) -> bytes | None:
    """The key of a record's prompts with their excerpts (within :func:`unchanged`, once)."""
    held = _HELD.get()
    found = held.get(id(prompts)) if held is not None else None
    if found is not None and found[0] is prompts:
        return found[1]
    key = _key(prompts)
    if held is not None:
        held[id(prompts)] = (prompts, key)
    return key


def model_conforms(record: Any) -> bool:
    """``record`` against ``$defs/model``. When its prompts conformed before in this process,
    excerpts and all (the key of the whole prompts) or but for their excerpts (the key of
    the prompts without them), only the rest of the record, and in the second case the
    excerpts, are checked."""
    prompts = record.get("prompts") if type(record) is dict else None
    if type(prompts) is not dict or not _by_parts():
        return conforms("model", record)
    whole = _whole_key(prompts)
    if whole is not None and whole in _conforming:
        return conforms("model", {**record, "prompts": {}})
    parts = _without_excerpts(prompts)
    if parts is None:
        return conforms("model", record)
    stripped, excerpts = parts
    if not all(conforms(definition, excerpt) for definition, excerpt in excerpts):
        return False
    key = _key(stripped) if excerpts else whole
    if key is not None and key in _conforming:
        return conforms("model", {**record, "prompts": {}})
    if not conforms("model", record if stripped is prompts else {**record, "prompts": stripped}):
        return False
    _remember(key)
    _remember(whole)
    return True


def _remember(key: bytes | None, memo: set[bytes] = _conforming) -> None:
    if key is not None:
        if len(memo) >= MEMO_SIZE:
            memo.clear()
        memo.add(key)


def known_to_conform(record: Any) -> None:
    """Remember the prompts of a record known to conform without checking them: one this grader
    checked when it stored it (the result cache's tagged entries, ``entry_tags.entry_tag``).
    Such a record was also parsed from strict JSON (orjson), so its prompts are remembered as
    strict JSON too (see :func:`json_parts`). Its prompts are remembered whole, excerpts
    included (the key :func:`model_conforms` and :func:`json_parts` look up first): the record
    conformed with them, and was parsed with them."""
    prompts = record.get("prompts") if type(record) is dict else None
    if type(prompts) is dict and _by_parts():
        key = _key(prompts)
        _remember(key)
        _remember(key, _strict_json)


def json_parts(record: Any) -> list[Any] | None:
    """What the strict JSON check (``encoding.dumps_bytes``) must still walk of a model record
    whose prompts, excerpts aside, equal (by their ``marshal`` key) prompts parsed from strict
    JSON in this process: the list of its excerpts, then the record with no prompts. None otherwise (the
    record is checked whole). Parsed JSON holds no NaN, infinity, non-string key or non-JSON
    type, and ``marshal`` is exact about types and refuses subclasses, so the verdict is the
    whole check's."""
    prompts = record.get("prompts") if type(record) is dict else None
    if type(prompts) is not dict or not _strict_json:
        return None
    if _whole_key(prompts) in _strict_json:  # (excerpts and all: only the rest is left to walk)
        return [{**record, "prompts": {}}]
    parts = _without_excerpts(prompts)
    if parts is None or _key(parts[0]) not in _strict_json:
        return None
    return [[excerpt for _, excerpt in parts[1]], {**record, "prompts": {}}]


def document_conforms(doc: Any, whole: Callable[[Any], bool]) -> bool:
    """``doc`` against the whole schema, ``whole`` being the compiled check of it: by its parts
    (see the module's note) when the schema allows that, else whole."""
    models = doc.get("models") if type(doc) is dict else None
    if type(models) is not dict or not _by_parts():
        return whole(doc)
    shell = dict(doc)
    shell["models"] = {}
    return whole(shell) and all(conforms("display_name", name) and model_conforms(record)
                                for name, record in models.items())
