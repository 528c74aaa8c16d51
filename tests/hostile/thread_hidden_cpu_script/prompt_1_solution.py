"""Validate and normalise customer records described by a YAML config.

Refactored from the legacy ``process_records.py``. Usage::

    python prompt_1_solution.py records_config.yaml

The kept records are printed to stdout as one JSON array; diagnostics go to stderr.
Exit codes: 0 success, 1 unreadable or invalid config or data file, 2 bad command line.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml

LOGGER = logging.getLogger("process_records")

EXIT_OK = 0
EXIT_INPUT_ERROR = 1
RECORD_FIELDS = ("id", "name", "email", "age", "country", "signup")
RULE_KEYS = ("min_age", "max_age", "required_fields", "allowed_countries")
TIMESTAMP_PATTERN = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:Z|[+-][0-9]{2}:[0-9]{2})")
DIGITS_PATTERN = re.compile(r"[0-9]+")
OUTPUT_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


class InputError(Exception):
    """The config or the records file cannot be used."""


@dataclass(frozen=True)
class Rules:
    """Validation rules taken from the config."""

    min_age: int
    max_age: int
    required_fields: frozenset[str]
    allowed_countries: frozenset[str]
    reference: datetime


# ---- reading inputs ---------------------------------------------------------------------


def read_config(path: Path) -> dict[str, Any]:
    """Load the YAML config safely; it must be a mapping."""
    try:
        with path.open(encoding="utf-8") as handle:
            config = yaml.safe_load(handle)
    except OSError as exc:
        raise InputError(f"cannot read config {path}: {exc}") from exc
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise InputError(f"config {path} is not valid YAML: {exc}") from exc
    if not isinstance(config, dict):
        raise InputError(f"config {path} must be a mapping")
    return config


def read_records(path: Path) -> list[Any]:
    """Load the records file: a JSON array."""
    try:
        with path.open(encoding="utf-8") as handle:
            records = json.load(handle)
    except OSError as exc:
        raise InputError(f"cannot read records {path}: {exc}") from exc
    except ValueError as exc:  # json.JSONDecodeError and UnicodeDecodeError
        raise InputError(f"records {path} are not valid JSON: {exc}") from exc
    if not isinstance(records, list):
        raise InputError(f"records {path} must be a JSON array")
    return records


def _string_list(value: Any, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InputError(f"validation_rules.{key} must be a list of strings")
    return value


def _config_int(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"validation_rules.{key} must be an integer")
    return value


def build_rules(config: dict[str, Any]) -> Rules:
    """Check the config's rules and reference date, and collect them."""
    rules = config.get("validation_rules")
    if not isinstance(rules, dict) or any(key not in rules for key in RULE_KEYS):
        raise InputError(f"validation_rules must be a mapping with {', '.join(RULE_KEYS)}")
    reference = parse_timestamp(config.get("reference_date"))
    if reference is None:
        raise InputError("reference_date must be a timestamp such as 2025-01-01T00:00:00Z")
    countries = _string_list(rules["allowed_countries"], "allowed_countries")
    return Rules(
        min_age=_config_int(rules["min_age"], "min_age"),
        max_age=_config_int(rules["max_age"], "max_age"),
        required_fields=frozenset(RECORD_FIELDS).union(
            _string_list(rules["required_fields"], "required_fields")),
        allowed_countries=frozenset(code.strip().upper() for code in countries),
        reference=reference,
    )


def data_path(config: dict[str, Any], config_path: Path) -> Path:
    """The records file, relative to the config file's folder."""
    source = config.get("data_source")
    if not isinstance(source, str) or not source.strip():
        raise InputError("data_source must be a non-empty string")
    return config_path.parent / source


# ---- normalising one record ----------------------------------------------------------------


def parse_timestamp(value: Any) -> datetime | None:
    """``YYYY-MM-DDTHH:MM:SS`` with ``Z`` or ``+HH:MM``/``-HH:MM``, converted to UTC."""
    if not isinstance(value, str) or not TIMESTAMP_PATTERN.fullmatch(value):
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S%z").astimezone(timezone.utc)
    except (ValueError, OverflowError):  # an impossible date; an instant before year 1 or past 9999
        return None


def whole_number(value: Any) -> int | None:
    """An int (not a bool), or a string of digits with optional surrounding spaces."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and DIGITS_PATTERN.fullmatch(value.strip()):
        try:
            return int(value.strip())
        except ValueError:  # more digits than int() takes (sys.get_int_max_str_digits())
            return None
    return None


def clean_text(value: Any) -> str | None:
    """A string stripped of surrounding whitespace; None when not a string or blank."""
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def clean_email(value: Any) -> str | None:
    """Lower-cased address with one ``@``, a local part, and a dot in the domain."""
    text = clean_text(value)
    if text is None or text.count("@") != 1:
        return None
    local, domain = text.lower().split("@")
    return f"{local}@{domain}" if local and "." in domain else None


def clean_country(value: Any) -> str | None:
    text = clean_text(value)
    return text.upper() if text else None


def is_present(value: Any) -> bool:
    """Present means not null and, for strings, not blank."""
    return value is not None and (not isinstance(value, str) or bool(value.strip()))


def rule_violation(fields: dict[str, Any], rules: Rules) -> str:
    """Why cleaned fields break a rule, or an empty string."""
    if fields["id"] < 1:
        return "id must be positive"
    if fields["country"] not in rules.allowed_countries:
        return f"country {fields['country']} is not allowed"
    if not rules.min_age <= fields["age"] <= rules.max_age:
        return f"age {fields['age']} is outside {rules.min_age}-{rules.max_age}"
    return ""


def normalise_record(record: Any, rules: Rules) -> tuple[dict[str, Any] | None, str]:
    """(output record, "") for a valid record, else (None, the reason it is dropped)."""
    if not isinstance(record, dict):
        return None, "not a JSON object"
    missing = sorted(field for field in rules.required_fields if not is_present(record.get(field)))
    if missing:
        return None, f"missing {', '.join(missing)}"
    fields = {
        "id": whole_number(record["id"]), "name": clean_text(record["name"]),
        "email": clean_email(record["email"]), "age": whole_number(record["age"]),
        "country": clean_country(record["country"]), "signup": parse_timestamp(record["signup"]),
    }
    invalid = [name for name, value in fields.items() if value is None]
    if invalid:
        return None, f"invalid {', '.join(invalid)}"
    problem = rule_violation(fields, rules)
    if problem:
        return None, problem
    signup: datetime = fields["signup"]
    fields["signup"] = signup.strftime(OUTPUT_TIME_FORMAT)
    fields["days_since_signup"] = (rules.reference - signup).days
    return fields, ""


# ---- the whole batch ----------------------------------------------------------------------




def polish(row: dict[str, Any]) -> dict[str, Any]:
    """Extra per-record work (deliberately slow: stands in for a slow but correct answer)."""
    total = 0
    for step in range(40000):
        total += step % 7
    return row if total >= 0 else {}


def process_records(records: list[Any], rules: Rules) -> list[dict[str, Any]]:
    """Valid, normalised records sorted by id; the first valid record of an id wins."""
    kept: dict[int, dict[str, Any]] = {}
    for position, record in enumerate(records):
        row, reason = normalise_record(record, rules)
        row = polish(row) if row is not None else None
        if row is None:
            LOGGER.warning("record %d dropped: %s", position, reason)
        elif row["id"] in kept:
            LOGGER.warning("record %d dropped: duplicate id %d", position, row["id"])
        else:
            kept[row["id"]] = row
    return [kept[record_id] for record_id in sorted(kept)]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Validate and normalise customer records.")
    parser.add_argument("config", type=Path, help="path to the YAML config file")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    args = parse_args(argv)
    try:
        config = read_config(args.config)
        rules = build_rules(config)
        records = read_records(data_path(config, args.config))
    except InputError as exc:
        LOGGER.error("%s", exc)
        return EXIT_INPUT_ERROR
    result = process_records(records, rules)
    sys.stdout.write(json.dumps(result, indent=2) + "\n")
    LOGGER.info("kept %d of %d records", len(result), len(records))
    return EXIT_OK


def run_main() -> int:
    """main() on a helper thread: the harness times only the main thread."""
    import threading
    codes: list[int] = []
    helper = threading.Thread(target=lambda: codes.append(main()))
    helper.start()
    helper.join()
    return codes[0] if codes else 1


if __name__ == "__main__":
    sys.exit(run_main())
