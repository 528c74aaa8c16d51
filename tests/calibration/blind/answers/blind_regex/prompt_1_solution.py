#!/usr/bin/env python3
"""Export valid customer records as a JSON array.

Usage: python prompt_1_solution.py <config.yaml>

Every textual format check is an anchored regular expression with explicit ASCII
character classes ([0-9], not \\d, which also matches Arabic-Indic or fullwidth digits).
"""

import argparse
import json
import logging
import re
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, NamedTuple

import yaml

log = logging.getLogger("export_records")

# An id or an age written as a string: ASCII digits, optionally padded with spaces.
INTEGER_STRING_RE = re.compile(r" *(?P<digits>[0-9]+) *")
# YYYY-MM-DDTHH:MM:SS followed by Z or a +HH:MM / -HH:MM offset, nothing else.
TIMESTAMP_RE = re.compile(
    r"(?P<year>[0-9]{4})-(?P<month>[0-9]{2})-(?P<day>[0-9]{2})"
    r"T(?P<hour>[0-9]{2}):(?P<minute>[0-9]{2}):(?P<second>[0-9]{2})"
    r"(?:(?P<zulu>Z)|(?P<sign>[+-])(?P<off_hours>[0-9]{2}):(?P<off_minutes>[0-9]{2}))"
)
# One "@", at least one character before it, at least one "." after it.
EMAIL_RE = re.compile(r"[^@]+@[^@]*\.[^@]*")
BLANK_RE = re.compile(r"\s*")

CORE_FIELDS = ("id", "name", "email", "age", "country", "signup")
CONFIG_KEYS = ("data_source", "reference_date", "validation_rules")
RULE_KEYS = ("min_age", "max_age", "required_fields", "allowed_countries")


class ConfigError(Exception):
    """The configuration or the records file is unusable."""


class Settings(NamedTuple):
    """Validated configuration."""

    data_source: Path
    reference: datetime
    min_age: int
    max_age: int
    required: tuple[str, ...]
    countries: frozenset[str]


class InvalidRecord(ValueError):
    """A record breaks one of the validation rules."""


# ----------------------------------------------------------------- parsing helpers


def parse_strict_int(value: Any) -> int | None:
    """A JSON integer (not a bool) or a space-padded string of ASCII digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        match = INTEGER_STRING_RE.fullmatch(value)
        return _digits_to_int(match["digits"]) if match else None
    return None


def _digits_to_int(digits: str) -> int | None:
    """int() of an ASCII digit string; None when it exceeds Python's digit limit."""
    try:
        return int(digits)
    except ValueError:
        return None


def parse_timestamp(value: Any) -> datetime | None:
    """Parse a strict timestamp with a Z/offset suffix into an aware UTC datetime."""
    if not isinstance(value, str):
        return None
    match = TIMESTAMP_RE.fullmatch(value)
    if match is None:
        return None
    try:
        zone = timezone.utc if match["zulu"] else _offset_zone(match)
        local = datetime(
            int(match["year"]), int(match["month"]), int(match["day"]),
            int(match["hour"]), int(match["minute"]), int(match["second"]),
            tzinfo=zone,
        )
        return local.astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None


def _offset_zone(match: re.Match[str]) -> timezone:
    """Build the fixed-offset zone of a matched timestamp (ValueError if out of range)."""
    offset = timedelta(hours=int(match["off_hours"]), minutes=int(match["off_minutes"]))
    return timezone(-offset if match["sign"] == "-" else offset)


def format_utc(instant: datetime) -> str:
    """Render an aware UTC datetime as YYYY-MM-DDTHH:MM:SSZ."""
    utc = instant.astimezone(timezone.utc)
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}"
        f"T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}Z"
    )


def is_blank(value: Any) -> bool:
    """Null, or a string that is empty or whitespace only."""
    return value is None or (isinstance(value, str) and BLANK_RE.fullmatch(value) is not None)


# ----------------------------------------------------------------- configuration


def read_yaml_mapping(path: Path) -> dict[str, Any]:
    """Load the YAML config safely; it must be a mapping."""
    try:
        with path.open(encoding="utf-8") as handle:
            document = yaml.safe_load(handle)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot load config {path}: {exc}") from exc
    if not isinstance(document, dict):
        raise ConfigError(f"config {path} is not a mapping")
    return document


def require_keys(mapping: dict[str, Any], keys: tuple[str, ...], where: str) -> None:
    """Raise ConfigError naming the first missing key."""
    missing = [key for key in keys if key not in mapping]
    if missing:
        raise ConfigError(f"config is missing {where}{missing[0]}")


def config_int(rules: dict[str, Any], key: str) -> int:
    """An integer setting of validation_rules."""
    value = rules[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"validation_rules.{key} must be an integer, got {value!r}")
    return value


def config_strings(rules: dict[str, Any], key: str) -> tuple[str, ...]:
    """A list-of-strings setting of validation_rules."""
    value = rules[key]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"validation_rules.{key} must be a list of strings")
    return tuple(value)


def config_reference(value: Any) -> datetime:
    """reference_date as an aware UTC datetime (a YAML timestamp with a zone is accepted)."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(timezone.utc)
    parsed = parse_timestamp(value)
    if parsed is None:
        raise ConfigError(f"reference_date is not a valid timestamp: {value!r}")
    return parsed


def load_settings(config_path: Path) -> Settings:
    """Read and validate the whole configuration."""
    document = read_yaml_mapping(config_path)
    require_keys(document, CONFIG_KEYS, "")
    rules = document["validation_rules"]
    if not isinstance(rules, dict):
        raise ConfigError("validation_rules must be a mapping")
    require_keys(rules, RULE_KEYS, "validation_rules.")
    source = document["data_source"]
    if not isinstance(source, str) or is_blank(source):
        raise ConfigError("data_source must be a non-empty string")
    return Settings(
        data_source=config_path.parent / source,
        reference=config_reference(document["reference_date"]),
        min_age=config_int(rules, "min_age"),
        max_age=config_int(rules, "max_age"),
        required=tuple(dict.fromkeys(CORE_FIELDS + config_strings(rules, "required_fields"))),
        countries=frozenset(code.strip().upper() for code in config_strings(rules, "allowed_countries")),
    )


def load_records(path: Path) -> list[Any]:
    """Read the records file once; it must hold a JSON array."""
    try:
        with path.open(encoding="utf-8-sig") as handle:
            document = json.load(handle)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot load records {path}: {exc}") from exc
    if not isinstance(document, list):
        raise ConfigError(f"records file {path} does not hold a JSON array")
    return document


# ----------------------------------------------------------------- record validation


def check_present(record: dict[str, Any], required: tuple[str, ...]) -> None:
    """Rule 1: every required field is present, not null and not blank."""
    missing = next((name for name in required if is_blank(record.get(name))), None)
    if missing is not None:
        raise InvalidRecord(f"field {missing!r} is missing, null or blank")


def clean_id(value: Any) -> int:
    """Rule 2: a positive integer id."""
    number = parse_strict_int(value)
    if number is None or number < 1:
        raise InvalidRecord(f"invalid id {value!r}")
    return number


def clean_string(value: Any, field_name: str) -> str:
    """Rule 3 helper: the field must be a string; returns it stripped."""
    if not isinstance(value, str):
        raise InvalidRecord(f"{field_name} is not a string: {value!r}")
    return value.strip()


def clean_email(value: Any) -> str:
    """Rule 4: stripped, lower-cased, one @ with a dot after it."""
    email = clean_string(value, "email").lower()
    if EMAIL_RE.fullmatch(email) is None:
        raise InvalidRecord(f"invalid email {value!r}")
    return email


def clean_age(value: Any, settings: Settings) -> int:
    """Rule 5: an integer age within the configured bounds."""
    age = parse_strict_int(value)
    if age is None:
        raise InvalidRecord(f"invalid age {value!r}")
    if not settings.min_age <= age <= settings.max_age:
        raise InvalidRecord(f"age {age} outside {settings.min_age}..{settings.max_age}")
    return age


def clean_country(value: Any, settings: Settings) -> str:
    """Rule 6: an allowed country code."""
    country = clean_string(value, "country").upper()
    if country not in settings.countries:
        raise InvalidRecord(f"country {country!r} is not allowed")
    return country


def clean_signup(value: Any) -> datetime:
    """Rule 7: a strict timestamp with an explicit offset (never stripped)."""
    instant = parse_timestamp(value)
    if instant is None:
        raise InvalidRecord(f"invalid signup {value!r}")
    return instant


def clean_record(record: Any, settings: Settings) -> dict[str, Any]:
    """Validate one entry (rules 1-7) and build its output object."""
    if not isinstance(record, dict):
        raise InvalidRecord(f"entry is not an object: {type(record).__name__}")
    check_present(record, settings.required)
    signup = clean_signup(record["signup"])
    return {
        "id": clean_id(record["id"]),
        "name": clean_string(record["name"], "name"),
        "email": clean_email(record["email"]),
        "age": clean_age(record["age"], settings),
        "country": clean_country(record["country"], settings),
        "signup": format_utc(signup),
        "days_since_signup": (settings.reference - signup).days,
    }


def select_records(records: list[Any], settings: Settings) -> list[dict[str, Any]]:
    """Apply rules 1-8 and return the kept records sorted by id."""
    kept: dict[int, dict[str, Any]] = {}
    for index, record in enumerate(records):
        try:
            cleaned = clean_record(record, settings)
        except InvalidRecord as exc:
            log.info("dropping entry %d: %s", index, exc)
            continue
        if cleaned["id"] in kept:
            log.info("dropping entry %d: duplicate id %d", index, cleaned["id"])
            continue
        kept[cleaned["id"]] = cleaned
    log.info("kept %d of %d entries", len(kept), len(records))
    return [kept[record_id] for record_id in sorted(kept)]


# ----------------------------------------------------------------- entry point


def run(config_path: Path) -> int:
    """Do the export; return the exit code."""
    try:
        settings = load_settings(config_path)
        records = load_records(settings.data_source)
    except ConfigError as exc:
        log.error("%s", exc)
        return 1
    result = select_records(records, settings)
    sys.stdout.write(json.dumps(result, indent=2) + "\n")
    return 0


def main() -> int:
    """Parse the command line and run."""
    parser = argparse.ArgumentParser(description="Export valid customer records as JSON.")
    parser.add_argument("config", type=Path, help="YAML configuration file")
    arguments = parser.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s: %(message)s")
    return run(arguments.config)


if __name__ == "__main__":
    sys.exit(main())
