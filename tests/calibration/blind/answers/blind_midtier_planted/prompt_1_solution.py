#!/usr/bin/env python3
"""Refactored nightly customer export.

Usage:
    python prompt_1_solution.py <config.yaml>

Reads the YAML config, loads the records file it points to, keeps the valid records and
prints them to stdout as a JSON array sorted by id. Diagnostics are logged to stderr.
"""

import argparse
import json
import logging
import re
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

import yaml

logger = logging.getLogger(__name__)

BASE_FIELDS = ("id", "name", "email", "age", "country", "signup")
REQUIRED_RULE_KEYS = ("min_age", "max_age", "required_fields", "allowed_countries")
SIGNUP_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$")


class ConfigError(Exception):
    """Raised when the configuration or the data file cannot be used."""


@dataclass(frozen=True)
class Config:
    """Validated configuration values."""

    data_source: Path
    reference_date: datetime
    min_age: int
    max_age: int
    required_fields: tuple
    allowed_countries: frozenset


def parse_int(value: Any) -> Optional[int]:
    """Return an int for a JSON integer or a numeric string, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def parse_timestamp(value: Any) -> Optional[datetime]:
    """Parse an ISO-8601 timestamp with an explicit UTC offset into UTC."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not SIGNUP_PATTERN.match(text):
        return None
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        return parsed.astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None


def is_blank(value: Any) -> bool:
    """True for None or a whitespace-only string."""
    return value is None or (isinstance(value, str) and not value.strip())


def load_config(path: Path) -> Config:
    """Load and validate the YAML configuration."""
    try:
        with path.open(encoding="utf-8") as handle:
            raw = yaml.safe_load(handle)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"Cannot read config {path}: {exc}") from exc
    if not isinstance(raw, dict):
        raise ConfigError("Config must be a mapping")
    for key in ("data_source", "reference_date", "validation_rules"):
        if key not in raw:
            raise ConfigError(f"Missing config key: {key}")
    rules = raw["validation_rules"]
    if not isinstance(rules, dict) or any(key not in rules for key in REQUIRED_RULE_KEYS):
        raise ConfigError("validation_rules is missing required keys")
    return build_config(path, raw, rules)


def build_config(path: Path, raw: dict, rules: dict) -> Config:
    """Convert the raw config mapping into a Config object."""
    reference = raw["reference_date"]
    if isinstance(reference, datetime) and reference.tzinfo is not None:
        reference = reference.astimezone(timezone.utc)
    else:
        reference = parse_timestamp(reference)
    if reference is None:
        raise ConfigError("reference_date is not a valid timestamp")
    if any(isinstance(rules[key], bool) or not isinstance(rules[key], int) for key in ("min_age", "max_age")):
        raise ConfigError("min_age and max_age must be integers")
    if not isinstance(rules["required_fields"], list) or not isinstance(rules["allowed_countries"], list):
        raise ConfigError("required_fields and allowed_countries must be lists")
    return Config(
        data_source=path.parent / str(raw["data_source"]),
        reference_date=reference,
        min_age=rules["min_age"],
        max_age=rules["max_age"],
        required_fields=tuple(rules["required_fields"]),
        allowed_countries=frozenset(str(code).strip().upper() for code in rules["allowed_countries"]),
    )


def load_records(path: Path) -> list:
    """Load the records file, which must contain a JSON array."""
    try:
        with path.open(encoding="utf-8-sig") as handle:
            data = json.load(handle)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"Cannot read records file {path}: {exc}") from exc
    if not isinstance(data, list):
        raise ConfigError("Records file must contain a JSON array")
    return data


def missing_field(record: dict, config: Config) -> Optional[str]:
    """Return the first required field that is missing or blank, if any."""
    for field_name in BASE_FIELDS + config.required_fields:
        if is_blank(record.get(field_name)):
            return field_name
    return None


def validate_email(value: Any) -> Optional[str]:
    """Return the normalised email, or None if it is invalid."""
    if not isinstance(value, str):
        return None
    email = value.strip().lower()
    local, _, domain = email.partition("@")
    if not local or email.count("@") != 1 or "." not in domain:
        return None
    return email


def validate_country(value: Any, config: Config) -> Optional[str]:
    """Return the normalised country code if it is allowed, else None."""
    if not isinstance(value, str):
        return None
    country = value.strip().upper()
    return country if country in config.allowed_countries else None


def validate_age(value: Any, config: Config) -> Optional[int]:
    """Return the age if it is an integer within the configured bounds, else None."""
    age = parse_int(value)
    if age is None or not config.min_age <= age <= config.max_age:
        return None
    return age


def check_fields(record: dict, config: Config) -> Optional[str]:
    """Return the reason the record is invalid, or None if all fields are valid."""
    missing = missing_field(record, config)
    if missing:
        return f"missing field '{missing}'"
    record_id = parse_int(record["id"])
    checks = (
        ("id", record_id is not None and record_id >= 1),
        ("name", isinstance(record["name"], str)),
        ("email", validate_email(record["email"]) is not None),
        ("age", validate_age(record["age"], config) is not None),
        ("country", validate_country(record["country"], config) is not None),
        ("signup", parse_timestamp(record["signup"]) is not None),
    )
    for field_name, valid in checks:
        if not valid:
            return f"invalid {field_name} {record[field_name]!r}"
    return None


def validate_record(record: Any, config: Config) -> tuple[Optional[dict], str]:
    """Validate one record. Returns (clean_record, "") or (None, reason)."""
    if not isinstance(record, dict):
        return None, "not an object"
    reason = check_fields(record, config)
    if reason:
        return None, reason
    signup = parse_timestamp(record["signup"])
    return {
        "id": parse_int(record["id"]),
        "name": record["name"].strip(),
        "email": validate_email(record["email"]),
        "age": parse_int(record["age"]),
        "country": validate_country(record["country"], config),
        "signup": signup.isoformat().replace("+00:00", "Z"),
        "days_since_signup": (config.reference_date - signup).days,
    }, ""


def process_records(records: list, config: Config) -> list:
    """Validate all records, drop duplicates (first wins) and sort by id."""
    kept = {}
    for index, record in enumerate(records):
        clean, reason = validate_record(record, config)
        if clean is None:
            logger.info("Dropping record #%d: %s", index, reason)
            continue
        if clean["id"] in kept:
            logger.info("Dropping record #%d: duplicate id %d", index, clean["id"])
            continue
        kept[clean["id"]] = clean
    logger.info("Kept %d of %d records", len(kept), len(records))
    return sorted(kept.values(), key=lambda item: item["id"])


def main() -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description="Export valid customer records as JSON.")
    parser.add_argument("config", help="Path to the YAML config file")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s: %(message)s")
    try:
        config = load_config(Path(args.config))
        records = load_records(config.data_source)
    except ConfigError as exc:
        logger.error("%s", exc)
        return 1
    print(json.dumps(process_records(records, config), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
