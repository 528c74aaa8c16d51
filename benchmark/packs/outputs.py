"""Parsing, in the parent, of what a task's run printed or wrote and of its answer keys.

JSON and YAML go through the safe loaders prompt 2 uses too (``benchmark.safe_parse``:
yaml's SafeLoader with limits on aliases, depth and size; JSON without NaN/Infinity, depth
checked first), CSV through ``csv.DictReader`` into a list of dicts of strings, text as it is.
Every value comes back as plain JSON data; every failure as a reason with its line.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from ..safe_parse import parse_file, parse_json, parse_yaml

PARSE_KINDS = ("json", "yaml", "csv", "text")
ANSWER_KINDS = {".json": "json", ".yaml": "yaml", ".yml": "yaml", ".csv": "csv", ".txt": "text"}
MAX_PARSE_CHARS = 4 * 1024 * 1024


def _csv_rows(text: str) -> tuple[list[dict[str, Any]] | None, str | None]:
    reader = csv.DictReader(io.StringIO(text, newline=""), restkey="\x00extra")
    rows: list[dict[str, Any]] = []
    try:
        for row in reader:
            if "\x00extra" in row:
                return None, f"line {reader.line_num}: more fields than the header has"
            rows.append(dict(row))
    except csv.Error as exc:
        return None, f"line {reader.line_num}: {exc}"
    if reader.fieldnames is not None and len(set(reader.fieldnames)) != len(reader.fieldnames):
        return None, "line 1: the header repeats a column name"
    return rows, None


def parse_text(text: str, kind: str) -> tuple[Any, str | None]:
    """(value, None) or (None, why it does not parse, with the line where known).

    ``kind``: json (``json.loads`` rules, no NaN/Infinity), yaml (the first document, safe
    loader), csv (a list of {header: cell}; a row with more cells than the header is an
    error, a shorter row has None for the missing cells) or text (the string itself)."""
    if kind == "text":
        return text, None
    if len(text) > MAX_PARSE_CHARS:
        return None, f"longer than {MAX_PARSE_CHARS} characters: not parsed"
    if kind == "csv":
        return _csv_rows(text)
    if kind not in ("json", "yaml"):
        raise ValueError(f"unknown parse kind {kind!r}")
    parsed = parse_json(text) if kind == "json" else parse_yaml(text)
    if parsed["status"] != "ok":
        where = f"line {parsed['line']}: " if parsed.get("line") else ""
        return None, f"{kind} does not parse: {where}{parsed['error']}"
    return parsed["data"], None


def document(text: str | None, kind: str, reason: str | None = None) -> dict[str, Any]:
    """Parse mode's entry for one submitted file: {kind, value, error, line, documents}."""
    return document_record(parse_file(kind, text, reason), kind)


def document_record(parsed: dict[str, Any], kind: str) -> dict[str, Any]:
    """Parse mode's entry for a file ``benchmark.safe_parse.parse_file`` parsed: the loaded
    value (the first document), why and where it did not load, and how many documents it
    holds (1 for JSON; 0 when it does not load)."""
    return {"kind": kind, "value": parsed["data"] if parsed["status"] == "ok" else None,
            "error": parsed["error"], "line": parsed["line"], "documents": parsed["documents"]}


def load_answer(folder: Path, relative: str) -> tuple[Any, str | None]:
    """An answer key by its extension (.json, .yaml/.yml, .csv, .txt), read in the parent as
    UTF-8 bytes: (value, None) or (None, why not; an answer key that fails is the pack's fault)."""
    kind = ANSWER_KINDS.get(Path(relative).suffix.lower())
    if kind is None:
        return None, f"answer key {relative}: unknown extension (use .json, .yaml, .yml, .csv, .txt)"
    try:
        text = (folder / relative).read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"answer key {relative}: cannot be read: {exc}"
    value, error = parse_text(text, kind)
    return (value, None) if error is None else (None, f"answer key {relative}: {error}")
