"""Nightly customer export: validate records and print the kept ones as JSON.

Usage: python prompt_1_solution.py <config.yaml>
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

CORE_FIELDS = ("id", "name", "email", "age", "country", "signup")
REQUIRED_CONFIG_KEYS = ("data_source", "reference_date", "validation_rules")
REQUIRED_RULE_KEYS = ("min_age", "max_age", "required_fields", "allowed_countries")
TIMESTAMP_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(Z|[+-]\d{2}:\d{2})$"
)


class ConfigError(Exception):
    """Raised when the config or the records file is unusable."""


@dataclass(frozen=True)
class Rules:
    """Validation rules taken from the config."""

    min_age: int
    max_age: int
    required_fields: tuple[str, ...]
    allowed_countries: frozenset[str]
    reference: datetime


def parse_timestamp(text: Any) -> datetime | None:
    """Parse 'YYYY-MM-DDTHH:MM:SS' + 'Z' or '+HH:MM'/'-HH:MM' into an aware UTC datetime."""
    if not isinstance(text, str):
        return None
    match = TIMESTAMP_RE.match(text)
    if match is None:
        return None
    suffix = match.group(7)
    iso_text = text[:19] + ("+00:00" if suffix == "Z" else suffix)
    try:
        parsed = datetime.fromisoformat(iso_text)
    except ValueError:
        return None
    return parsed.astimezone(timezone.utc)


def parse_whole_number(value: Any) -> int | None:
    """Return an int for a JSON integer or a digit string (spaces allowed), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def is_blank(value: Any) -> bool:
    """True for None and for strings that are empty or whitespace only."""
    return value is None or (isinstance(value, str) and not value.strip())


def missing_fields(record: dict[str, Any], rules: Rules) -> list[str]:
    """Names of required fields that are absent, null or blank."""
    wanted = dict.fromkeys(CORE_FIELDS + rules.required_fields)
    return [field for field in wanted if is_blank(record.get(field))]


def normalise_email(value: Any) -> str | None:
    """Return the stripped, lower-cased email when it is well formed, else None."""
    if not isinstance(value, str):
        return None
    email = value.strip().lower()
    local, sep, domain = email.partition("@")
    if not sep or not local or "@" in domain or "." not in domain:
        return None
    return email


def normalise_country(value: Any, rules: Rules) -> str | None:
    """Return the upper-cased country code when it is allowed, else None."""
    if not isinstance(value, str):
        return None
    country = value.strip().upper()
    return country if country in rules.allowed_countries else None


def validate_record(record: dict[str, Any], rules: Rules) -> tuple[dict[str, Any] | None, str]:
    """Return (output record, '') when the record is kept, or (None, reason)."""
    missing = missing_fields(record, rules)
    if missing:
        return None, f"missing fields {missing}"
    record_id = parse_whole_number(record["id"])
    if record_id is None or record_id < 1:
        return None, f"invalid id {record['id']!r}"
    if not isinstance(record["name"], str):
        return None, "name is not a string"
    email = normalise_email(record["email"])
    if email is None:
        return None, f"invalid email {record['email']!r}"
    age = parse_whole_number(record["age"])
    if age is None or not rules.min_age <= age <= rules.max_age:
        return None, f"invalid or out-of-range age {record['age']!r}"
    country = normalise_country(record["country"], rules)
    if country is None:
        return None, f"country not allowed {record['country']!r}"
    signup = parse_timestamp(record["signup"])
    if signup is None:
        return None, f"invalid signup {record['signup']!r}"
    return {
        "id": record_id,
        "name": record["name"].strip(),
        "email": email,
        "age": age,
        "country": country,
        "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "days_since_signup": (rules.reference - signup).days,
    }, ""


def select_records(entries: list[Any], rules: Rules) -> list[dict[str, Any]]:
    """Validate every entry, drop duplicates by id and sort by id."""
    kept: dict[int, dict[str, Any]] = {}
    for position, entry in enumerate(entries):
        if not isinstance(entry, dict):
            LOGGER.info("entry %d dropped: not an object", position)
            continue
        output, reason = validate_record(entry, rules)
        if output is None:
            LOGGER.info("entry %d dropped: %s", position, reason)
        elif output["id"] in kept:
            LOGGER.info("entry %d dropped: duplicate id %d", position, output["id"])
        else:
            kept[output["id"]] = output
    LOGGER.info("kept %d of %d entries", len(kept), len(entries))
    return [kept[key] for key in sorted(kept)]


def load_yaml_mapping(path: Path) -> dict[str, Any]:
    """Read the config file and check its shape."""
    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from exc
    if not isinstance(config, dict):
        raise ConfigError("config is not a mapping")
    missing = [key for key in REQUIRED_CONFIG_KEYS if key not in config]
    rules = config.get("validation_rules")
    if not isinstance(rules, dict):
        raise ConfigError("validation_rules is not a mapping")
    missing += [key for key in REQUIRED_RULE_KEYS if key not in rules]
    if missing:
        raise ConfigError(f"config lacks keys: {missing}")
    return config


def build_rules(config: dict[str, Any]) -> Rules:
    """Turn the validated config into a Rules object."""
    section = config["validation_rules"]
    reference = parse_timestamp(config["reference_date"])
    if reference is None:
        raise ConfigError(f"invalid reference_date {config['reference_date']!r}")
    try:
        return Rules(
            min_age=int(section["min_age"]),
            max_age=int(section["max_age"]),
            required_fields=tuple(str(field) for field in section["required_fields"]),
            allowed_countries=frozenset(
                str(code).strip().upper() for code in section["allowed_countries"]
            ),
            reference=reference,
        )
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"invalid validation_rules: {exc}") from exc


def load_records(path: Path) -> list[Any]:
    """Read the records file, which must hold a JSON array."""
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read records {path}: {exc}") from exc
    if not isinstance(entries, list):
        raise ConfigError("records file does not hold a JSON array")
    return entries


def run(config_path: Path) -> list[dict[str, Any]]:
    """Load config and records and return the kept output records."""
    config = load_yaml_mapping(config_path)
    rules = build_rules(config)
    data_path = config_path.parent / str(config["data_source"])
    return select_records(load_records(data_path), rules)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("config", type=Path, help="path of the YAML config")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(levelname)s %(message)s")
    try:
        result = run(args.config)
    except ConfigError as exc:
        LOGGER.error("%s", exc)
        return 1
    json.dump(result, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
