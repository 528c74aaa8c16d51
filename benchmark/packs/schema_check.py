"""JSON Schema validation of a YAML document, each error placed on its node's line.

``validate(doc, schema)`` returns Problems for every ``Draft202012Validator.iter_errors``
error, walked from ``error.absolute_path`` down the document's positions: a missing required
key points at the mapping that lacks it, an unknown key at that key's own line. Where the
schema wanted a string and an unquoted YAML 1.1 boolean (``on``, ``no``...) became a boolean,
the text as written is put back and a warning says to quote it.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from .problems import Problem
from .yamlpos import Document, JsonPath

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schema"


RELATIVE_PATH = "^(?!/)(?!(.*/)?\\.\\.(/|$))[^\\\\]+$"  # the schemas' pattern for a path in a folder


@cache
def manifest_validator(name: str) -> Draft202012Validator:
    """The validator of ``benchmark/schema/<name>.schema.json`` (name: pack or task)."""
    schema = json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))
    return Draft202012Validator(schema)


@cache
def case_validator() -> Draft202012Validator:
    """The validator of one call-mode case, taken from the task schema (a ``cases_file`` item)."""
    def find(node: Any) -> dict | None:
        if isinstance(node, dict):
            cases = node.get("properties", {}).get("cases")
            if isinstance(cases, dict) and "items" in cases:
                return cases["items"]
            return next((hit for value in node.values() if (hit := find(value)) is not None), None)
        if isinstance(node, list):
            return next((hit for value in node if (hit := find(value)) is not None), None)
        return None

    return Draft202012Validator(find(manifest_validator("task").schema))


def _extra_keys(error: ValidationError) -> list[str]:
    allowed = set(error.schema.get("properties", {}))
    return [key for key in error.instance if key not in allowed] if isinstance(error.instance, dict) else []


def _problems_of(error: ValidationError, doc: Document, prefix: JsonPath) -> list[Problem]:
    path = prefix + tuple(error.absolute_path)
    if error.validator == "additionalProperties" and error.validator_value is False:
        allowed = ", ".join(sorted(error.schema.get("properties", {}))) or "none"
        return [doc.problem(path + (key,), f"unknown key {key!r} (allowed here: {allowed})", key=True)
                for key in _extra_keys(error)]
    if error.validator == "propertyNames":
        return [doc.problem(path + (error.instance,), f"key {error.instance!r}: {error.message}", key=True)]
    if error.validator == "pattern" and error.validator_value == RELATIVE_PATH:
        return [doc.problem(path, f"{error.instance!r} must be a relative path with forward slashes "
                                  "that stays inside its folder (no leading /, no .., no backslash)")]
    if error.validator == "anyOf" and all(set(s) == {"required"} for s in error.validator_value):
        names = " or ".join(name for s in error.validator_value for name in s["required"])
        return [doc.problem(path, f"needs {names}")]
    if error.validator == "not" and set(error.validator_value) == {"required"}:
        names = " or ".join(error.validator_value["required"])
        return [doc.problem(path, f"give {names}, not both: each says what the run is of")]
    return [doc.problem(path, error.message)]


def _wants_string(error: ValidationError) -> bool:
    wanted = error.validator_value
    return error.validator == "type" and (wanted == "string" or isinstance(wanted, list) and "string" in wanted)


def _set(data: Any, path: JsonPath, value: Any) -> None:
    for part in path[:-1]:
        data = data[part]
    data[path[-1]] = value


def _restore_yaml11_strings(doc: Document, errors: list[ValidationError], prefix: JsonPath) -> list[Problem]:
    """Put back the text of unquoted YAML 1.1 booleans where a string was wanted; one warning each."""
    warnings = []
    for error in errors:
        path = prefix + tuple(error.absolute_path)
        written = doc.yaml11_booleans.get(path)
        if not path or written is None or not isinstance(error.instance, bool) or not _wants_string(error):
            continue
        _set(doc.data, path, written)
        warnings.append(doc.problem(path, f"unquoted {written} is a boolean in YAML 1.1; read here as the "
                                          f"string {written!r}: quote it", severity="warning"))
    return warnings


def validate(doc: Document, validator: Draft202012Validator, prefix: JsonPath = ()) -> list[Problem]:
    """Problems of the value at ``prefix`` in ``doc`` against ``validator``'s schema, placed by
    position; may replace unquoted YAML 1.1 booleans in ``doc.data`` by their text (with a warning)."""
    instance = doc.data
    for part in prefix:
        instance = instance[part]
    errors = list(validator.iter_errors(instance))
    warnings = _restore_yaml11_strings(doc, errors, prefix)
    if warnings:
        instance = doc.data
        for part in prefix:
            instance = instance[part]
        errors = list(validator.iter_errors(instance))
    problems = [problem for error in errors for problem in _problems_of(error, doc, prefix)]
    return warnings + problems


def params_validator(schema: dict[str, Any]) -> Draft202012Validator:
    """A validator for a check type's or generator's ``with:`` schema."""
    return Draft202012Validator(schema)
