#!/usr/bin/env python3
"""Nightly customer export.

Reads a YAML config, loads the customer records it points to, keeps the valid ones and
prints them to stdout as one JSON array. Diagnostics go to stderr through ``logging``.

Usage: python prompt_1_solution.py records_config.yaml
"""
from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from datetime import datetime, timezone
from functools import partial
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, NamedTuple, Optional

import yaml

LOGGER = logging.getLogger("prompt_1_solution")

CORE_FIELDS: tuple[str, ...] = ("id", "name", "email", "age", "country", "signup")
RULE_KEYS: tuple[str, ...] = ("min_age", "max_age", "required_fields", "allowed_countries")
ASCII_DIGITS = re.compile(r"[0-9]+")
TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:Z|[+-][0-9]{2}:[0-9]{2})"
)
TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S%z"

Normaliser = Callable[[Any], Optional[Any]]


class InputError(Exception):
    """The config or the records file cannot be used."""


class Settings(NamedTuple):
    """The validated configuration."""

    records_path: Path
    reference: datetime
    min_age: int
    max_age: int
    present_fields: tuple[str, ...]
    allowed_countries: frozenset[str]


class Outcome(NamedTuple):
    """The result of checking one record: the output record, or why it was dropped."""

    record: Optional[dict[str, Any]]
    reason: str


# --------------------------------------------------------------------------- values


def is_blank(value: Any) -> bool:
    """True for null and for strings that are empty or only whitespace."""
    return value is None or (isinstance(value, str) and not value.strip())


def ascii_int(value: Any) -> Optional[int]:
    """A JSON integer, or a string of ASCII digits with optional surrounding spaces."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and ASCII_DIGITS.fullmatch(value.strip()):
        return digits_to_int(value.strip())
    return None


def digits_to_int(digits: str) -> Optional[int]:
    """int() of an ASCII digit string; None beyond Python's digit limit for int()."""
    try:
        return int(digits)
    except ValueError:
        return None


def positive_id(value: Any) -> Optional[int]:
    """The id as an integer when it is at least 1."""
    number = ascii_int(value)
    return number if number is not None and number >= 1 else None


def stripped_name(value: Any) -> Optional[str]:
    """The name without surrounding whitespace."""
    return value.strip() if isinstance(value, str) else None


def normalised_email(value: Any) -> Optional[str]:
    """The stripped, lower-cased address when it has the shape local@domain.tld."""
    if not isinstance(value, str):
        return None
    address = value.strip().lower()
    local_part, _, domain = address.partition("@")
    well_formed = address.count("@") == 1 and bool(local_part) and "." in domain
    return address if well_formed else None


def age_within(min_age: int, max_age: int, value: Any) -> Optional[int]:
    """The age as an integer when it lies inside the inclusive bounds."""
    age = ascii_int(value)
    return age if age is not None and min_age <= age <= max_age else None


def allowed_country(allowed: frozenset[str], value: Any) -> Optional[str]:
    """The stripped, upper-cased country code when it is allowed."""
    if not isinstance(value, str):
        return None
    code = value.strip().upper()
    return code if code in allowed else None


def parse_timestamp(value: Any) -> Optional[datetime]:
    """An aware UTC datetime for ``YYYY-MM-DDTHH:MM:SS`` plus ``Z`` or ``+HH:MM``."""
    if not isinstance(value, str) or not TIMESTAMP.fullmatch(value):
        return None
    try:
        moment = datetime.strptime(value, TIMESTAMP_FORMAT)
        return moment.astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None


def format_utc(moment: datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SSZ`` for an aware datetime."""
    return moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


# -------------------------------------------------------------------------- records


def normalisers(settings: Settings) -> dict[str, Normaliser]:
    """One normalising function per output field; each returns None for bad input."""
    return {
        "id": positive_id,
        "name": stripped_name,
        "email": normalised_email,
        "age": partial(age_within, settings.min_age, settings.max_age),
        "country": partial(allowed_country, settings.allowed_countries),
        "signup": parse_timestamp,
    }


def missing_fields(record: dict[str, Any], fields: Iterable[str]) -> list[str]:
    """Names of the fields that are absent, null or blank."""
    return [field for field in fields if is_blank(record.get(field))]


def invalid_fields(values: dict[str, Any]) -> list[str]:
    """Names of the fields whose normalised value is None."""
    return [field for field, value in values.items() if value is None]


def build_output(values: dict[str, Any], reference: datetime) -> dict[str, Any]:
    """The seven output keys from the normalised values."""
    signup: datetime = values["signup"]
    return {
        **values,
        "signup": format_utc(signup),
        "days_since_signup": (reference - signup).days,
    }


def evaluate(settings: Settings, checks: dict[str, Normaliser], entry: Any) -> Outcome:
    """Check one entry of the records array."""
    if not isinstance(entry, dict):
        return Outcome(None, "not a JSON object")
    missing = missing_fields(entry, settings.present_fields)
    if missing:
        return Outcome(None, "missing or empty: " + ", ".join(missing))
    values = {field: check(entry[field]) for field, check in checks.items()}
    invalid = invalid_fields(values)
    if invalid:
        return Outcome(None, "invalid: " + ", ".join(invalid))
    return Outcome(build_output(values, settings.reference), "")


def report(numbered: tuple[int, Outcome]) -> Optional[dict[str, Any]]:
    """Log a dropped record; pass the kept record on."""
    position, outcome = numbered
    if outcome.record is None:
        LOGGER.info("record #%d dropped: %s", position, outcome.reason)
    return outcome.record


def first_per_id(records: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Sort by id (stably, so file order decides ties) and keep the first of each id."""
    by_id = itemgetter("id")
    return (next(group) for _, group in groupby(sorted(records, key=by_id), key=by_id))


def select_records(entries: list[Any], settings: Settings) -> list[dict[str, Any]]:
    """The kept records, unique by id, sorted by id."""
    check = partial(evaluate, settings, normalisers(settings))
    outcomes = enumerate(map(check, entries), start=1)
    valid = [record for record in map(report, outcomes) if record is not None]
    kept = list(first_per_id(valid))
    if len(kept) < len(valid):
        LOGGER.info("dropped %d record(s) with a duplicate id", len(valid) - len(kept))
    LOGGER.info("kept %d of %d record(s)", len(kept), len(entries))
    return kept


# --------------------------------------------------------------------------- inputs


def read_text(path: Path) -> str:
    """The whole text file, or InputError."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {path}: {error}") from error


def load_yaml_mapping(path: Path) -> dict[str, Any]:
    """Parse the config safely; it must be a mapping."""
    try:
        document = yaml.safe_load(read_text(path))
    except yaml.YAMLError as error:
        raise InputError(f"{path} is not valid YAML: {error}") from error
    if not isinstance(document, dict):
        raise InputError(f"{path} does not hold a YAML mapping")
    return document


def load_json_array(path: Path) -> list[Any]:
    """Parse the records file; it must hold a JSON array."""
    try:
        document = json.loads(read_text(path))
    except (ValueError, RecursionError) as error:
        raise InputError(f"{path} is not valid JSON: {error}") from error
    if not isinstance(document, list):
        raise InputError(f"{path} does not hold a JSON array")
    return document


def require(mapping: dict[str, Any], keys: Iterable[str], where: str) -> None:
    """Raise InputError naming every key that is missing from the mapping."""
    absent = [key for key in keys if key not in mapping]
    if absent:
        raise InputError(f"config is missing {where}: {', '.join(absent)}")


def strict_int(value: Any, name: str) -> int:
    """An integer config value (booleans are refused)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"config value {name} must be an integer, got {value!r}")
    return value


def string_list(value: Any, name: str) -> tuple[str, ...]:
    """A config value that must be a list of strings."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InputError(f"config value {name} must be a list of strings")
    return tuple(value)


def reference_moment(value: Any) -> datetime:
    """The reference date as an aware UTC datetime."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(timezone.utc)
    moment = parse_timestamp(value)
    if moment is None:
        raise InputError(f"config value reference_date is not a valid timestamp: {value!r}")
    return moment


def present_fields(required_fields: tuple[str, ...]) -> tuple[str, ...]:
    """The six core fields plus the configured ones, without repetitions."""
    return tuple(dict.fromkeys(CORE_FIELDS + required_fields))


def parse_settings(config: dict[str, Any], base_dir: Path) -> Settings:
    """Validate the config mapping and turn it into Settings."""
    require(config, ("data_source", "reference_date", "validation_rules"), "keys")
    rules = config["validation_rules"]
    if not isinstance(rules, dict):
        raise InputError("config value validation_rules must be a mapping")
    require(rules, RULE_KEYS, "validation_rules keys")
    if not isinstance(config["data_source"], str) or not config["data_source"].strip():
        raise InputError("config value data_source must be a non-empty string")
    countries = string_list(rules["allowed_countries"], "allowed_countries")
    return Settings(
        records_path=base_dir / config["data_source"],
        reference=reference_moment(config["reference_date"]),
        min_age=strict_int(rules["min_age"], "min_age"),
        max_age=strict_int(rules["max_age"], "max_age"),
        present_fields=present_fields(string_list(rules["required_fields"], "required_fields")),
        allowed_countries=frozenset(code.strip().upper() for code in countries),
    )


# ----------------------------------------------------------------------------- main


def parse_arguments(argv: Optional[list[str]]) -> argparse.Namespace:
    """The command line: the config file's path."""
    parser = argparse.ArgumentParser(description="Validate and export customer records.")
    parser.add_argument("config", type=Path, help="path of the YAML config file")
    return parser.parse_args(argv)


def run(config_path: Path) -> list[dict[str, Any]]:
    """Load everything and return the kept records."""
    settings = parse_settings(load_yaml_mapping(config_path), config_path.parent)
    return select_records(load_json_array(settings.records_path), settings)


def main(argv: Optional[list[str]] = None) -> int:
    """Entry point; returns the process exit code."""
    arguments = parse_arguments(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        kept = run(arguments.config)
    except InputError as error:
        LOGGER.error("%s", error)
        return 1
    print(json.dumps(kept, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
