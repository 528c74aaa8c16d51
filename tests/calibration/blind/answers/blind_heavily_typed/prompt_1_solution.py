#!/usr/bin/env python3
"""Nightly customer export: validate customer records and print the kept ones as JSON.

Usage::

    python prompt_1_solution.py records_config.yaml
"""

from __future__ import annotations

import argparse
import enum
import json
import logging
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Final, TypeAlias, TypedDict, TypeGuard, cast

import yaml

LOGGER: Final[logging.Logger] = logging.getLogger("process_records")

JSONScalar: TypeAlias = str | int | float | bool | None
JSONValue: TypeAlias = JSONScalar | list["JSONValue"] | dict[str, "JSONValue"]
RawRecord: TypeAlias = Mapping[str, JSONValue]

EXIT_OK: Final[int] = 0
EXIT_FAILURE: Final[int] = 1

CORE_FIELDS: Final[tuple[str, ...]] = ("id", "name", "email", "age", "country", "signup")
REQUIRED_CONFIG_KEYS: Final[tuple[str, ...]] = ("data_source", "reference_date", "validation_rules")
REQUIRED_RULE_KEYS: Final[tuple[str, ...]] = (
    "min_age",
    "max_age",
    "required_fields",
    "allowed_countries",
)

ASCII_INTEGER_PATTERN: Final[re.Pattern[str]] = re.compile(r"[0-9]+")
TIMESTAMP_PATTERN: Final[re.Pattern[str]] = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:Z|[+-][0-9]{2}:[0-9]{2})"
)
TIMESTAMP_FORMAT: Final[str] = "%Y-%m-%dT%H:%M:%S%z"
OUTPUT_TIMESTAMP_FORMAT: Final[str] = "%Y-%m-%dT%H:%M:%SZ"


class ConfigError(Exception):
    """The config or the records file is unreadable or has the wrong shape."""


class DropReason(enum.Enum):
    """Why a record was not kept."""

    NOT_AN_OBJECT = "entry is not a JSON object"
    MISSING_FIELD = "a required field is missing, null or blank"
    BAD_ID = "id is not a positive integer"
    BAD_NAME = "name is not a string"
    BAD_EMAIL = "email is not a valid address"
    BAD_AGE = "age is not an integer"
    AGE_OUT_OF_RANGE = "age is outside the configured bounds"
    BAD_COUNTRY = "country is not allowed"
    BAD_SIGNUP = "signup is not a timestamp with a UTC offset"
    DUPLICATE_ID = "id already seen in an earlier record"


# Functional syntax because the "id" key would shadow a built-in as a class attribute.
OutputRecord = TypedDict(
    "OutputRecord",
    {
        "id": int,
        "name": str,
        "email": str,
        "age": int,
        "country": str,
        "signup": str,
        "days_since_signup": int,
    },
)


@dataclass(frozen=True, slots=True)
class ValidationRules:
    """The ``validation_rules`` section of the config."""

    min_age: int
    max_age: int
    required_fields: tuple[str, ...]
    allowed_countries: frozenset[str]


@dataclass(frozen=True, slots=True)
class Settings:
    """The whole, validated config."""

    data_source: Path
    reference_date: datetime
    rules: ValidationRules


class RecordRejected(Exception):
    """Raised internally when a record fails one of the rules."""

    def __init__(self, reason: DropReason) -> None:
        super().__init__(reason.value)
        self.reason: Final[DropReason] = reason


# --------------------------------------------------------------------------- parsing helpers


def is_strict_int(value: object) -> TypeGuard[int]:
    """Return True for JSON integers; ``bool`` is a subclass of ``int`` but is excluded."""
    return isinstance(value, int) and not isinstance(value, bool)


def parse_ascii_integer(value: object) -> int | None:
    """Return the integer for a JSON int or an ASCII-digit string (spaces allowed around it)."""
    if is_strict_int(value):
        return value
    if isinstance(value, str):
        candidate: str = value.strip()
        if ASCII_INTEGER_PATTERN.fullmatch(candidate):
            return int(candidate)
    return None


def parse_utc_timestamp(value: object) -> datetime | None:
    """Parse ``YYYY-MM-DDTHH:MM:SS`` + ``Z``/``±HH:MM`` into an aware UTC datetime."""
    if not isinstance(value, str) or TIMESTAMP_PATTERN.fullmatch(value) is None:
        return None
    try:
        parsed: datetime = datetime.strptime(value, TIMESTAMP_FORMAT)
        return parsed.astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None


def is_blank(value: object) -> bool:
    """A value counts as absent when it is null or a whitespace-only string."""
    return value is None or (isinstance(value, str) and not value.strip())


# --------------------------------------------------------------------------- configuration


def read_yaml_mapping(config_path: Path) -> Mapping[str, object]:
    """Read the config file with a safe loader and make sure it is a mapping."""
    try:
        with config_path.open(encoding="utf-8") as handle:
            loaded: object = yaml.safe_load(handle)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise ConfigError(f"cannot read config {config_path}: {error}") from error
    if not isinstance(loaded, dict):
        raise ConfigError(f"config {config_path} is not a YAML mapping")
    return cast(Mapping[str, object], loaded)


def require_keys(section: Mapping[str, object], keys: Sequence[str], where: str) -> None:
    """Raise ConfigError naming the first key that is missing from ``section``."""
    missing: list[str] = [key for key in keys if key not in section]
    if missing:
        raise ConfigError(f"config {where} lacks required key(s): {', '.join(missing)}")


def require_int(section: Mapping[str, object], key: str) -> int:
    """Return an integer setting, rejecting booleans and other types."""
    value: object = section[key]
    if not is_strict_int(value):
        raise ConfigError(f"validation_rules.{key} must be an integer, got {value!r}")
    return value


def require_string_list(section: Mapping[str, object], key: str) -> tuple[str, ...]:
    """Return a list-of-strings setting; non-string items are skipped with a warning."""
    value: object = section[key]
    if not isinstance(value, list):
        raise ConfigError(f"validation_rules.{key} must be a list, got {value!r}")
    items: list[object] = cast(list[object], value)
    ignored: list[object] = [item for item in items if not isinstance(item, str)]
    if ignored:
        LOGGER.warning("ignoring non-string entries in validation_rules.%s: %r", key, ignored)
    return tuple(item for item in items if isinstance(item, str))


def parse_reference_date(value: object) -> datetime:
    """Accept the documented string form, or an aware datetime produced by YAML itself."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(timezone.utc)
    parsed: datetime | None = parse_utc_timestamp(value)
    if parsed is None:
        raise ConfigError(f"reference_date is not a timestamp with a UTC offset: {value!r}")
    return parsed


def parse_rules(raw_rules: object) -> ValidationRules:
    """Validate the ``validation_rules`` mapping."""
    if not isinstance(raw_rules, dict):
        raise ConfigError("validation_rules must be a mapping")
    section: Mapping[str, object] = cast(Mapping[str, object], raw_rules)
    require_keys(section, REQUIRED_RULE_KEYS, "validation_rules")
    countries: tuple[str, ...] = require_string_list(section, "allowed_countries")
    return ValidationRules(
        min_age=require_int(section, "min_age"),
        max_age=require_int(section, "max_age"),
        required_fields=require_string_list(section, "required_fields"),
        allowed_countries=frozenset(code.strip().upper() for code in countries),
    )


def load_settings(config_path: Path) -> Settings:
    """Load and validate the whole config file."""
    raw_config: Mapping[str, object] = read_yaml_mapping(config_path)
    require_keys(raw_config, REQUIRED_CONFIG_KEYS, "file")
    data_source: object = raw_config["data_source"]
    if not isinstance(data_source, str) or not data_source.strip():
        raise ConfigError(f"data_source must be a non-empty string, got {data_source!r}")
    return Settings(
        data_source=config_path.parent / data_source,
        reference_date=parse_reference_date(raw_config["reference_date"]),
        rules=parse_rules(raw_config["validation_rules"]),
    )


def load_records(records_path: Path) -> list[JSONValue]:
    """Read the records file once; it must hold a JSON array."""
    try:
        with records_path.open(encoding="utf-8") as handle:
            loaded: object = json.load(handle)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise ConfigError(f"cannot read records file {records_path}: {error}") from error
    if not isinstance(loaded, list):
        raise ConfigError(f"records file {records_path} does not hold a JSON array")
    return cast(list[JSONValue], loaded)


# --------------------------------------------------------------------------- record rules


def check_presence(record: RawRecord, rules: ValidationRules) -> None:
    """Rule 1: every core and configured field is present, non-null and non-blank."""
    field_names: tuple[str, ...] = CORE_FIELDS + rules.required_fields
    if any(name not in record or is_blank(record[name]) for name in field_names):
        raise RecordRejected(DropReason.MISSING_FIELD)


def clean_id(value: JSONValue) -> int:
    """Rule 2: a positive integer id."""
    record_id: int | None = parse_ascii_integer(value)
    if record_id is None or record_id < 1:
        raise RecordRejected(DropReason.BAD_ID)
    return record_id


def clean_name(value: JSONValue) -> str:
    """Rule 3: the name is a string, output stripped."""
    if not isinstance(value, str):
        raise RecordRejected(DropReason.BAD_NAME)
    return value.strip()


def clean_email(value: JSONValue) -> str:
    """Rule 4: exactly one ``@``, something before it and a ``.`` after it."""
    if not isinstance(value, str):
        raise RecordRejected(DropReason.BAD_EMAIL)
    email: str = value.strip().lower()
    local_part, _, domain = email.partition("@")
    if email.count("@") != 1 or not local_part or "." not in domain:
        raise RecordRejected(DropReason.BAD_EMAIL)
    return email


def clean_age(value: JSONValue, rules: ValidationRules) -> int:
    """Rule 5: an integer age within the inclusive bounds."""
    age: int | None = parse_ascii_integer(value)
    if age is None:
        raise RecordRejected(DropReason.BAD_AGE)
    if not rules.min_age <= age <= rules.max_age:
        raise RecordRejected(DropReason.AGE_OUT_OF_RANGE)
    return age


def clean_country(value: JSONValue, rules: ValidationRules) -> str:
    """Rule 6: an allowed country code, output stripped and upper-cased."""
    if not isinstance(value, str):
        raise RecordRejected(DropReason.BAD_COUNTRY)
    country: str = value.strip().upper()
    if country not in rules.allowed_countries:
        raise RecordRejected(DropReason.BAD_COUNTRY)
    return country


def clean_signup(value: JSONValue) -> datetime:
    """Rule 7: a timestamp with an explicit offset, converted to UTC."""
    signup: datetime | None = parse_utc_timestamp(value)
    if signup is None:
        raise RecordRejected(DropReason.BAD_SIGNUP)
    return signup


def build_output_record(record: RawRecord, settings: Settings) -> OutputRecord:
    """Apply rules 1 to 7 and return the cleaned record (raises RecordRejected)."""
    check_presence(record, settings.rules)
    signup: datetime = clean_signup(record["signup"])
    cleaned: OutputRecord = {
        "id": clean_id(record["id"]),
        "name": clean_name(record["name"]),
        "email": clean_email(record["email"]),
        "age": clean_age(record["age"], settings.rules),
        "country": clean_country(record["country"], settings.rules),
        "signup": signup.strftime(OUTPUT_TIMESTAMP_FORMAT),
        "days_since_signup": (settings.reference_date - signup).days,
    }
    return cleaned


# --------------------------------------------------------------------------- pipeline


def validate_entry(position: int, entry: JSONValue, settings: Settings) -> OutputRecord | None:
    """Validate one array entry, logging why it is dropped."""
    if not isinstance(entry, dict):
        LOGGER.info("entry #%d dropped: %s", position, DropReason.NOT_AN_OBJECT.value)
        return None
    try:
        return build_output_record(entry, settings)
    except RecordRejected as rejection:
        LOGGER.info("entry #%d (id=%r) dropped: %s", position, entry.get("id"), rejection)
        return None


def keep_first_per_id(records: Iterable[tuple[int, OutputRecord]]) -> list[OutputRecord]:
    """Rule 8: keep only the first record for every id, in file order."""
    kept: dict[int, OutputRecord] = {}
    for position, record in records:
        if record["id"] in kept:
            LOGGER.info(
                "entry #%d (id=%d) dropped: %s", position, record["id"], DropReason.DUPLICATE_ID.value
            )
            continue
        kept[record["id"]] = record
    return list(kept.values())


def select_records(entries: Sequence[JSONValue], settings: Settings) -> list[OutputRecord]:
    """Validate, de-duplicate and sort the records."""
    validated: list[tuple[int, OutputRecord | None]] = [
        (position, validate_entry(position, entry, settings))
        for position, entry in enumerate(entries)
    ]
    valid: list[tuple[int, OutputRecord]] = [
        (position, record) for position, record in validated if record is not None
    ]
    unique: list[OutputRecord] = keep_first_per_id(valid)
    LOGGER.info("kept %d of %d entries", len(unique), len(entries))
    return sorted(unique, key=lambda record: record["id"])


def parse_arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the command line (argparse exits with status 2 on misuse)."""
    parser = argparse.ArgumentParser(description="Validate customer records and print them as JSON.")
    parser.add_argument("config", type=Path, help="path of the YAML config file")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Program entry point; returns the process exit code."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s: %(message)s")
    arguments: argparse.Namespace = parse_arguments(argv)
    config_path: Path = cast(Path, arguments.config)
    try:
        settings: Settings = load_settings(config_path)
        entries: list[JSONValue] = load_records(settings.data_source)
    except ConfigError as error:
        LOGGER.error("%s", error)
        return EXIT_FAILURE
    result: list[OutputRecord] = select_records(entries, settings)
    sys.stdout.write(json.dumps(result, indent=2) + "\n")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
