"""Submitted YAML and JSON, parsed safely in the parent into plain JSON-able facts.

YAML goes through ``benchmark.utils.LimitedSafeLoader`` (yaml's SafeLoader with limits on
aliases, depth and expanded size), subclassed here only to notice repeated mapping keys,
which PyYAML otherwise drops silently. JSON goes through ``json.loads`` after a nesting-depth
pre-check, with an ``object_pairs_hook`` that notices repeated keys and no NaN/Infinity.

Each result is a dict: ``status`` ("ok", "missing", "syntax", "unsafe_tag", "limit"),
``error`` and ``line`` (why and where it failed), ``data`` (the first document, converted by
``to_plain``), ``documents`` (YAML), ``duplicates`` ([{key, line}]) and, for YAML, ``scalars``:
how each scalar value under a mapping of the first document is written (see ``yaml_scalars``).

Prompt 2 (``benchmark.prompts.p2_yaml_json``) and the task packs' outputs and answer keys
(``benchmark.packs.outputs``) both read files through it, so it imports neither: it sits below
both layers.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import yaml

from .diagnosis import explained
from .utils import MAX_DEPTH, LimitedSafeLoader, YAMLLimitError

MAX_PLAIN_NODES = 100_000
FOREIGN = "\x00"  # prefix of the marker strings standing in for values JSON cannot hold
_MERGE_TAG = "tag:yaml.org,2002:merge"


class DuplicateKeyLoader(LimitedSafeLoader):
    """The limited safe loader, recording every key repeated within one mapping."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self.duplicates: list[dict[str, Any]] = []

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == _MERGE_TAG:
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                repeated = key in seen
                seen.add(key)
            except TypeError:  # unhashable: the parent constructor reports it
                continue
            if repeated:
                self.duplicates.append({"key": str(key), "line": key_node.start_mark.line + 1})
        return super().construct_mapping(node, deep=deep)


def _failure(status: str, error: str, line: int | None = None) -> dict[str, Any]:
    return {"status": status, "error": error, "line": line, "data": None, "documents": 0, "duplicates": [],
            "scalars": []}


def _mark_line(exc: yaml.YAMLError) -> int | None:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return mark.line + 1 if mark is not None else None


def _plain_key(key: Any) -> str:
    return key if isinstance(key, str) else f"{FOREIGN}{type(key).__name__}:{key!r}"


def to_plain(value: Any, budget: list[int] | None = None, depth: int = 0) -> Any:
    """A JSON-able copy of loaded data. Values JSON cannot hold (dates, bytes, sets, NaN,
    non-string keys) become marker strings starting with NUL, which equal no intended value."""
    budget = [MAX_PLAIN_NODES] if budget is None else budget
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        raise YAMLLimitError("document too large or too deep to compare")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, dict):
        return {_plain_key(k): to_plain(v, budget, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [to_plain(item, budget, depth + 1) for item in value]
    return f"{FOREIGN}{type(value).__name__}:{value!r}"[:200]


def _load_yaml_documents(text: str) -> tuple[list[Any], list[dict[str, Any]]]:
    loader = DuplicateKeyLoader(text)
    try:
        documents = []
        while loader.check_data():
            documents.append(loader.get_data())
        return documents, loader.duplicates
    finally:
        loader.dispose()


def parse_file(kind: str, text: str | None, reason: str | None = None) -> dict[str, Any]:
    """A submitted ``kind`` ("yaml" or "json") file parsed as ``parse_yaml``/``parse_json``
    do; when it fails because the file is a chat reply (fences, prose), the error says so
    first (``benchmark.diagnosis``). Only the message differs: the data is the same."""
    parsed = (parse_json if kind == "json" else parse_yaml)(text, reason)
    if parsed["status"] != "syntax" or text is None:
        return parsed
    why = explained(text, parsed["line"], f"the {kind.upper()} parser", parsed["error"])
    return parsed if why is None else {**parsed, "error": why}


def parse_yaml(text: str | None, reason: str | None = None) -> dict[str, Any]:
    if text is None:
        return _failure("missing", reason or "file not usable")
    try:
        documents, duplicates = _load_yaml_documents(text)
        data = to_plain(documents[0]) if documents else None
    except YAMLLimitError as exc:
        return _failure("limit", f"refused by the limited loader: {exc}")
    except yaml.constructor.ConstructorError as exc:
        status = "unsafe_tag" if "could not determine a constructor" in str(exc.problem) else "syntax"
        return _failure(status, " ".join(str(exc.problem).split()), _mark_line(exc))
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc)
        return _failure("syntax", " ".join(str(problem).split()), _mark_line(exc))
    except (ValueError, RecursionError, MemoryError) as exc:
        return _failure("limit", f"cannot be loaded: {type(exc).__name__}")
    return {"status": "ok", "error": None, "line": None, "data": data,
            "documents": len(documents), "duplicates": duplicates, "scalars": yaml_scalars(text)}


_NEXT_KEY = object()  # a mapping frame waiting for its next key


def _node_path(frames: list[list[Any]], event: Any) -> list[str] | None:
    """The mapping-key path of the node ``event`` starts (None for keys, list items and
    anything below them), advancing the enclosing mapping between key and value."""
    if not frames:
        return []
    frame = frames[-1]  # [is_mapping, path, pending key]
    if not frame[0]:
        return None
    if frame[2] is _NEXT_KEY:
        frame[2] = event.value if isinstance(event, yaml.ScalarEvent) else None
        return None
    path, key, frame[2] = frame[1], frame[2], _NEXT_KEY
    return None if path is None or key is None else [*path, key]


def yaml_scalars(text: str) -> list[dict[str, Any]]:
    """How each scalar value under mappings of the first document is written, from yaml's
    parser events: [{path, value, style ("plain", "'", '"', "|", ">" or "alias"), tag (an
    explicit tag or None), anchor, resolved (the tag a loader gives it)}], in document order,
    so a repeated key's later entry wins as it does when loading. Only called on text that
    loaded, so aliases are already bounded; the parser never expands them."""
    loader = LimitedSafeLoader(text)
    found: list[dict[str, Any]] = []
    frames: list[list[Any]] = []
    try:
        while loader.check_event() and not loader.check_event(yaml.DocumentEndEvent):
            event = loader.get_event()
            if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                frames.pop()
            elif isinstance(event, yaml.CollectionStartEvent):
                frames.append([isinstance(event, yaml.MappingStartEvent), _node_path(frames, event), _NEXT_KEY])
            elif isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
                path = _node_path(frames, event)
                if path:
                    found.append(_spelling(loader, path, event))
    except yaml.YAMLError:
        return []
    finally:
        loader.dispose()
    return found


def _spelling(loader: LimitedSafeLoader, path: list[str], event: Any) -> dict[str, Any]:
    if isinstance(event, yaml.AliasEvent):
        return {"path": path, "value": None, "style": "alias", "tag": None, "anchor": False, "resolved": None}
    resolved = (event.tag if event.tag not in (None, "!")
                else loader.resolve(yaml.ScalarNode, event.value, event.implicit))
    return {"path": path, "value": event.value, "style": event.style or "plain", "tag": event.tag,
            "anchor": event.anchor is not None, "resolved": resolved}


_JSON_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[\[\]{}\n]')


def json_line_depths(text: str) -> tuple[list[int], int]:
    """Bracket depth at the start of every line (strings skipped) and the maximum depth."""
    depths, depth, deepest = [0], 0, 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token == "\n":
            depths.append(depth)
        elif token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return depths, deepest


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


def parse_json(text: str | None, reason: str | None = None) -> dict[str, Any]:
    if text is None:
        return _failure("missing", reason or "file not usable")
    _, deepest = json_line_depths(text)
    if deepest > MAX_DEPTH:
        return _failure("limit", f"nested deeper than {MAX_DEPTH} levels")
    duplicates: list[dict[str, Any]] = []

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, value in pairs:
            if key in obj:
                duplicates.append({"key": key, "line": None})
            obj[key] = value
        return obj

    try:
        data = json.loads(text, object_pairs_hook=pairs_hook, parse_constant=_reject_constant)
        data = to_plain(data)
    except json.JSONDecodeError as exc:
        return _failure("syntax", exc.msg, exc.lineno)
    except YAMLLimitError as exc:
        return _failure("limit", str(exc))
    except (ValueError, RecursionError) as exc:
        return _failure("syntax", str(exc)[:200])
    return {"status": "ok", "error": None, "line": None, "data": data, "documents": 1,
            "duplicates": duplicates}
