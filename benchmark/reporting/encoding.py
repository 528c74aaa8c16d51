"""The results document as strict JSON bytes (what ``results.json`` and ``latest_results.json`` hold)."""

from __future__ import annotations

import json
from typing import Any

from .conformance import json_parts


def dumps_bytes(obj: Any) -> bytes:
    """Strict JSON (NaN/Infinity and non-JSON types refused), key order as given, UTF-8 kept
    readable, two-space indent, a final newline; encoded as UTF-8.

    The standard library's C encoder checks ``obj`` (it raises on NaN, infinities and
    non-JSON types; it cannot indent) and orjson writes the indented text: together about
    five times faster than ``json.dumps(indent=2)``, whose indenting encoder is pure Python,
    and the same bytes for documents like ours (floats with few digits; orjson spells some
    very small or large floats differently, e.g. ``1e16`` for ``1e+16``, the same number).
    The check skips the C encoder's cycle bookkeeping (half its time): a document that
    contains itself still fails, with a RecursionError there instead of a ValueError."""
    import orjson

    _check_strict(obj)
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE)


def _strict(obj: Any) -> None:
    json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"), check_circular=False)


def _check_strict(obj: Any) -> None:
    """The C encoder's check of ``obj``, in the order it walks a document: a model record whose
    prompts came from strict JSON in this process (the result cache's entries,
    ``conformance.json_parts``) has only its other parts walked; nearly all of a run served
    from the cache. (Of a record with two faults, the one raised may then be the other.)"""
    models = obj.get("models") if type(obj) is dict else None
    if type(models) is not dict:
        return _strict(obj)
    for key, value in obj.items():
        if value is not models:
            _strict({key: value})
            continue
        for name, record in models.items():
            _strict({name: None})
            for part in json_parts(record) or (record,):
                _strict(part)
    return None


def dumps(obj: Any) -> str:
    """:func:`dumps_bytes` as text."""
    return dumps_bytes(obj).decode("utf-8")
