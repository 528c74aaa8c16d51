"""Prompt 2 data: the broken fixture, the intended configuration, and pure helpers over them.

Tree helpers compare parsed documents type-strictly (``True`` is not ``1``, ``1`` is not
``1.0``); layout helpers read raw lines (comment-only lines never count; YAML indentation is
read in ``p2_yaml_layout``). Nothing here touches disk or runs submission code.
"""

from __future__ import annotations

import re
from typing import Any

from ..safe_parse import json_line_depths
from .base import strict_equal  # noqa: F401  (the checks and tests compare through data.strict_equal)


Path_ = tuple[str, ...]

# Deliberately broken: a tab-indented key (the file does not load), two documents that both
# define processing_options, a repeated key, mixed indentation, and booleans, numbers and a
# list spelled as strings. Every hazard is listed in HAZARDS and proven by the tests.
FIXTURE_YAML = """\
# Processor configuration: edited by hand by several people, never validated.
use_legacy_paths: yes
paths:
  data_source: /srv/data/production/users.json
  legacy_data_source: ./user_data.json
\tlog_file: /var/log/processor.log
validation_rules:
    min_age: "18"
    max_age: 99
    required_fields: name, email, country
    max_age: '120'
processing_options:
  batch_size: '100'
  timeout_seconds: 30
---
# Settings appended later.
processing_options:
   timeout_seconds: "30"
   retry_attempts: "3"
api_keys:
- primary_key
-   secondary_key
- backup_key
feature_flags:
  enable_logging: on
  strict_validation: "false"
  debug_mode: False
"""

EXPECTED: dict[str, Any] = {
    "use_legacy_paths": True,
    "paths": {
        "data_source": "/srv/data/production/users.json",
        "legacy_data_source": "./user_data.json",
        "log_file": "/var/log/processor.log",
    },
    "validation_rules": {"min_age": 18, "max_age": 120, "required_fields": ["name", "email", "country"]},
    "processing_options": {"batch_size": 100, "timeout_seconds": 30, "retry_attempts": 3},
    "api_keys": ["primary_key", "secondary_key", "backup_key"],
    "feature_flags": {"enable_logging": True, "strict_validation": False, "debug_mode": False},
}

HAZARDS: dict[str, str] = {
    "tab_indentation": "`paths.log_file` is indented with a tab, which YAML forbids: the file does not "
                       "load at all.",
    "multi_document": "The file holds two YAML documents separated by `---`; the corrected file must be one.",
    "split_mapping": "`processing_options` is defined in both documents, so a shallow last-document-wins "
                     "merge (the spec's loading snippet) silently drops `batch_size`.",
    "duplicate_key": "`validation_rules.max_age` appears twice (99, then '120'); loaders silently keep "
                     "the last.",
    "inconsistent_indentation": "`validation_rules` children use 4 spaces and the second document's "
                                "`processing_options` children use 3, while the rest use 2.",
    "boolean_spellings": "Booleans are spelled `yes`, `on`, `False` and the quoted string `\"false\"` "
                         "(which loads as a string, not a boolean).",
    "quoted_numbers": "Integers are quoted strings (`\"18\"`, `'100'`, `\"3\"`), and `timeout_seconds` is "
                      "`30` in one document and `\"30\"` in the other.",
    "list_as_string": "`validation_rules.required_fields` is the single string `name, email, country` "
                      "instead of a list.",
}


# ---- trees ---------------------------------------------------------------------------



def leaves(tree: Any, prefix: Path_ = ()) -> dict[Path_, Any]:
    """Every non-mapping value under a mapping, keyed by its path (lists count as leaves)."""
    if not isinstance(tree, dict):
        return {prefix: tree} if prefix else {}
    found: dict[Path_, Any] = {}
    for key, value in tree.items():
        path = (*prefix, str(key))
        found.update(leaves(value, path) if isinstance(value, dict) else {path: value})
    return found


def lookup(tree: Any, path: Path_) -> tuple[bool, Any]:
    """(found, value) following ``path`` through mappings only."""
    node = tree
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return False, None
        node = node[key]
    return True, node


def kind(value: Any) -> str:
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "list"
    return "null" if value is None else "scalar"


def dotted(path: Path_) -> str:
    return ".".join(path)


def count_paths(tree: Any, paths: list[Path_], accept) -> tuple[int, int, list[str]]:
    """(paths present in ``tree`` whose value ``accept(path, value)`` takes, all paths,
    dotted names of the others)."""
    missing = []
    for path in paths:
        found, value = lookup(tree, path)
        if not (found and accept(path, value)):
            missing.append(dotted(path))
    return len(paths) - len(missing), len(paths), missing


_BOOL_TAG, _INT_TAG = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int"


def canonical_literal(spelling: dict[str, Any] | None, want: Any) -> bool:
    """Whether a YAML scalar (an entry of ``yaml_scalars``) is written the one canonical way
    for the intended boolean or integer ``want``: plain (unquoted), with no tag or anchor,
    resolved by the loader to that type, and spelled ``true``/``false`` or as a decimal
    integer with no ``+``, underscores or leading zeros."""
    if not spelling or spelling["style"] != "plain" or spelling["tag"] is not None or spelling["anchor"]:
        return False
    value = spelling["value"]
    if isinstance(want, bool):
        return spelling["resolved"] == _BOOL_TAG and value in ("true", "false")
    try:
        return spelling["resolved"] == _INT_TAG and str(int(value, 10)) == value
    except ValueError:
        return False


def written(spelling: dict[str, Any] | None) -> str:
    """How a YAML scalar was written, quotes and tag included, for evidence."""
    if not spelling:
        return "missing"
    if spelling["style"] == "alias":
        return "an alias"
    quote = spelling["style"] if spelling["style"] in ("'", '"') else ""
    text = f"{quote}{spelling['value']}{quote}" if quote or spelling["style"] == "plain" else "a block scalar"
    tag = str(spelling["tag"] or "").replace("tag:yaml.org,2002:", "!!")
    return f"{tag} {text}" if tag else text


# ---- raw text layout -----------------------------------------------------------------



def trailing_space_lines(text: str) -> list[int]:
    """Line numbers of non-comment lines ending in spaces or tabs."""
    found = []
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip("\r")
        if line != line.rstrip(" \t") and not line.strip().startswith("#"):
            found.append(number)
    return found


def json_layout_problem(text: str, data: Any) -> tuple[int | None, str] | None:
    """None when the JSON is pretty-printed with 2-space steps, else (line, reason)."""
    lines = [raw.rstrip("\r") for raw in text.split("\n")]
    depths, _ = json_line_depths(text)
    content = [(n, line, depths[n - 1]) for n, line in enumerate(lines, 1) if line.strip()]
    if isinstance(data, (dict, list)) and data and len(content) < 3:
        return None, "not pretty-printed: the whole document is on one line"
    for number, line, depth in content:
        rest = line.lstrip(" \t")
        want = 2 * max(depth - (1 if rest[0] in "]}" else 0), 0)
        if line[: len(line) - len(rest)] != " " * want:
            width = len(line) - len(rest)
            return number, f"line {number} is indented {width} characters, {want} spaces expected"
    return None


def style_properties(yaml_text: str | None, json_text: str | None, json_data: Any,
                     json_loaded: bool) -> dict[str, bool | str]:
    """Each formatting property: True, or a short reason it does not hold."""
    layout = (json_layout_problem(json_text, json_data) if json_loaded and json_text is not None
              else (None, "did not load"))
    trailing = trailing_space_lines(yaml_text) if yaml_text is not None else None
    return {
        "JSON 2-space pretty-printing": True if layout is None else layout[1],
        "JSON final newline": bool(json_text and json_text.endswith("\n")) or "missing",
        "YAML free of trailing whitespace": "not usable" if trailing is None else (
            True if not trailing else "lines " + ", ".join(map(str, trailing[:5]))),
        "YAML final newline": bool(yaml_text and yaml_text.endswith("\n")) or "missing",
    }
