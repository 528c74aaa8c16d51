"""Nightly customer export: validate customer records and print the valid ones as JSON.

    python prompt_1_solution.py records_config.yaml

stdout carries exactly one JSON array; every diagnostic goes to stderr via ``logging``.
Requires Python 3.11 and PyYAML.
"""

import argparse
import json
import logging
import re
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any

import yaml

log = logging.getLogger("customer_export")

CORE_FIELDS = ("id", "name", "email", "age", "country", "signup")

# [0-9] rather than \d: \d also matches Arabic-Indic, fullwidth and other digits.
ASCII_DIGITS = re.compile(r"[0-9]+")
TIMESTAMP = re.compile(
    r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})T(?P<time>[0-9]{2}:[0-9]{2}:[0-9]{2})"
    r"(?P<offset>Z|[+-][0-9]{2}:[0-5][0-9])"
)


class ExportError(Exception):
    """Fatal problem with the config or the records file (exit code 1)."""


class Drop(StrEnum):
    """Why a record was not exported."""

    NOT_AN_OBJECT = "entry is not a JSON object"
    MISSING_FIELD = "required field missing, null or blank"
    BAD_ID = "id is not a whole number >= 1"
    BAD_NAME = "name is not a string"
    BAD_EMAIL = "email is malformed"
    BAD_AGE = "age is not a whole number"
    AGE_OUT_OF_RANGE = "age outside the configured bounds"
    BAD_COUNTRY = "country is not a string"
    COUNTRY_NOT_ALLOWED = "country not allowed"
    BAD_SIGNUP = "signup is not a valid timestamp with a UTC offset"
    DUPLICATE_ID = "duplicate id"


@dataclass(slots=True, kw_only=True, frozen=True)
class Rules:
    min_age: int
    max_age: int
    required_fields: tuple[str, ...]
    allowed_countries: frozenset[str]
    reference: datetime


@dataclass(slots=True, kw_only=True, frozen=True)
class Customer:
    customer_id: int
    name: str
    email: str
    age: int
    country: str
    signup: datetime

    def to_json(self, reference: datetime) -> dict[str, Any]:
        return {
            "id": self.customer_id,
            "name": self.name,
            "email": self.email,
            "age": self.age,
            "country": self.country,
            "signup": self.signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "days_since_signup": (reference - self.signup).days,
        }


class Rejected(ValueError):
    def __init__(self, reason: Drop, detail: object = None) -> None:
        super().__init__(f"{reason}: {detail!r}" if detail is not None else str(reason))
        self.reason = reason


# ---------------------------------------------------------------- scalars ---

def whole_number(value: object) -> int | None:
    """A JSON integer (never a bool) or a string of ASCII digits with optional surrounding spaces."""
    match value:
        case bool():
            return None
        case int():
            return value
        case str() if ASCII_DIGITS.fullmatch(digits := value.strip()):
            try:
                return int(digits)
            except ValueError:  # more digits than sys.get_int_max_str_digits() allows
                return None
        case _:
            return None


@cache
def utc_instant(text: str) -> datetime | None:
    """Parse ``YYYY-MM-DDTHH:MM:SS`` + ``Z``/``±HH:MM`` into an aware UTC datetime.

    The regex does the strict shape check (fromisoformat alone would also take
    naive times, fractions, a space separator, ...); fromisoformat then rejects
    impossible dates such as February 30th.
    """
    if TIMESTAMP.fullmatch(text) is None:
        return None
    try:
        return datetime.fromisoformat(text).astimezone(UTC)
    except (ValueError, OverflowError):
        return None


def is_blank(value: object) -> bool:
    match value:
        case None:
            return True
        case str():
            return not value.strip()
        case _:
            return False


# ----------------------------------------------------------------- fields ---

def parse_id(value: object) -> int:
    if (number := whole_number(value)) is None or number < 1:
        raise Rejected(Drop.BAD_ID, value)
    return number


def parse_name(value: object) -> str:
    if not isinstance(value, str):
        raise Rejected(Drop.BAD_NAME, value)
    return value.strip()


def parse_email(value: object) -> str:
    if not isinstance(value, str):
        raise Rejected(Drop.BAD_EMAIL, value)
    email = value.strip().lower()
    local, at_sign, domain = email.partition("@")
    if not (at_sign and local and "@" not in domain and "." in domain):
        raise Rejected(Drop.BAD_EMAIL, value)
    return email


def parse_age(value: object, rules: Rules) -> int:
    if (age := whole_number(value)) is None:
        raise Rejected(Drop.BAD_AGE, value)
    if not rules.min_age <= age <= rules.max_age:
        raise Rejected(Drop.AGE_OUT_OF_RANGE, age)
    return age


def parse_country(value: object, rules: Rules) -> str:
    if not isinstance(value, str):
        raise Rejected(Drop.BAD_COUNTRY, value)
    if (country := value.strip().upper()) not in rules.allowed_countries:
        raise Rejected(Drop.COUNTRY_NOT_ALLOWED, country)
    return country


def parse_signup(value: object) -> datetime:
    if not isinstance(value, str) or (instant := utc_instant(value)) is None:
        raise Rejected(Drop.BAD_SIGNUP, value)
    return instant


def to_customer(entry: object, rules: Rules) -> Customer:
    """Apply validation rules 1-7 to one array entry."""
    if not isinstance(entry, dict):
        raise Rejected(Drop.NOT_AN_OBJECT, type(entry).__name__)
    if missing := [field for field in rules.required_fields if is_blank(entry.get(field))]:
        raise Rejected(Drop.MISSING_FIELD, missing)
    return Customer(
        customer_id=parse_id(entry["id"]),
        name=parse_name(entry["name"]),
        email=parse_email(entry["email"]),
        age=parse_age(entry["age"], rules),
        country=parse_country(entry["country"], rules),
        signup=parse_signup(entry["signup"]),
    )


def select_customers(entries: list[Any], rules: Rules) -> list[Customer]:
    """Validate every entry, keep the first record per id (rule 8), sort by id."""
    kept: dict[int, Customer] = {}
    for position, entry in enumerate(entries):
        try:
            customer = to_customer(entry, rules)
        except Rejected as rejection:
            log.info("entry %d dropped: %s", position, rejection)
            continue
        if customer.customer_id in kept:
            log.info("entry %d dropped: %s %d", position, Drop.DUPLICATE_ID, customer.customer_id)
            continue
        kept[customer.customer_id] = customer
    log.info("%d of %d entries kept", len(kept), len(entries))
    return sorted(kept.values(), key=lambda customer: customer.customer_id)


# ----------------------------------------------------------------- config ---

def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ExportError(f"cannot read {path}: {error}") from error


def section(mapping: object, key: str, where: str) -> Any:
    match mapping:
        case {**fields} if key in fields:
            return fields[key]
        case dict():
            raise ExportError(f"{where}: missing key {key!r}")
        case _:
            raise ExportError(f"{where}: expected a mapping, got {type(mapping).__name__}")


def config_int(rules_section: object, key: str) -> int:
    match section(rules_section, key, "validation_rules"):
        case bool() as flag:
            raise ExportError(f"validation_rules.{key} must be an integer, not {flag!r}")
        case int() as number:
            return number
        case other:
            raise ExportError(f"validation_rules.{key} must be an integer, not {other!r}")


def config_strings(rules_section: object, key: str) -> tuple[str, ...]:
    match section(rules_section, key, "validation_rules"):
        case list() as items if all(isinstance(item, str) for item in items):
            return tuple(items)
        case other:
            raise ExportError(f"validation_rules.{key} must be a list of strings, not {other!r}")


def reference_instant(value: object) -> datetime:
    """reference_date: a timestamp string, or an aware datetime if PyYAML parsed it unquoted."""
    match value:
        case datetime() if value.tzinfo is not None:
            return value.astimezone(UTC)
        case str() if (instant := utc_instant(value)) is not None:
            return instant
        case _:
            raise ExportError(f"reference_date is not a timestamp with a UTC offset: {value!r}")


def build_rules(config: object) -> Rules:
    validation = section(config, "validation_rules", "config")
    return Rules(
        min_age=config_int(validation, "min_age"),
        max_age=config_int(validation, "max_age"),
        required_fields=tuple(dict.fromkeys(CORE_FIELDS + config_strings(validation, "required_fields"))),
        allowed_countries=frozenset(code.strip().upper() for code in config_strings(validation, "allowed_countries")),
        reference=reference_instant(section(config, "reference_date", "config")),
    )


def load_config(path: Path) -> dict[str, Any]:
    try:
        config = yaml.safe_load(read_text(path))
    except yaml.YAMLError as error:
        raise ExportError(f"{path}: invalid YAML: {error}") from error
    if not isinstance(config, dict):
        raise ExportError(f"{path}: the config must be a YAML mapping")
    return config


def records_path(config: dict[str, Any], config_path: Path) -> Path:
    match section(config, "data_source", "config"):
        case str() as source if source.strip():
            return config_path.parent / source
        case other:
            raise ExportError(f"data_source must be a file path, not {other!r}")


def load_records(path: Path) -> list[Any]:
    try:
        records = json.loads(read_text(path))
    except (ValueError, RecursionError) as error:  # JSONDecodeError, or an over-long integer literal
        raise ExportError(f"{path}: invalid JSON: {error}") from error
    if not isinstance(records, list):
        raise ExportError(f"{path}: expected a JSON array, got {type(records).__name__}")
    return records


# ------------------------------------------------------------------- main ---

def export(config_path: Path) -> list[dict[str, Any]]:
    config = load_config(config_path)
    rules = build_rules(config)
    source = records_path(config, config_path)
    customers = select_customers(load_records(source), rules)
    return [customer.to_json(rules.reference) for customer in customers]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Export valid customer records as JSON.")
    parser.add_argument("config", type=Path, help="YAML config file")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s: %(message)s")
    try:
        exported = export(args.config)
    except ExportError as error:
        log.error("%s", error)
        return 1
    print(json.dumps(exported, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
