#!/usr/bin/env python3
"""Nightly customer export.

Reads a YAML config, loads the customer records it points to, keeps the valid
ones and prints them to stdout as one JSON array sorted by id.  Diagnostics go
to stderr through ``logging``.

Usage: python prompt_1_solution.py records_config.yaml
"""

import argparse
import json
import logging
import re
import sys
from collections import Counter, namedtuple
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple

import yaml

LOGGER = logging.getLogger("customer_export")

CORE_FIELDS: tuple[str, ...] = ("id", "name", "email", "age", "country", "signup")
CONFIG_KEYS: tuple[str, ...] = ("data_source", "reference_date", "validation_rules")
RULE_KEYS: tuple[str, ...] = ("min_age", "max_age", "required_fields", "allowed_countries")

# Only ASCII digits, optionally padded with spaces: str.isdigit()/int() would
# also accept Arabic-Indic or fullwidth digits.
ASCII_INTEGER = re.compile(r" *([0-9]+) *")
# Exactly YYYY-MM-DDTHH:MM:SS followed by Z or a +HH:MM / -HH:MM offset.
STRICT_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:Z|[+-][0-9]{2}:[0-9]{2})"
)
TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S%z"
OUTPUT_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


class ExportError(Exception):
    """The config or the records file is unusable; the run must stop."""


class ValidationRules(NamedTuple):
    """The ``validation_rules`` section of the config."""

    min_age: int
    max_age: int
    required_fields: tuple[str, ...] = ()
    allowed_countries: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ExportConfig:
    """The validated configuration of one run."""

    data_source: Path
    reference_date: datetime
    rules: ValidationRules


# Outcome of checking one field: either a value or the reason it was rejected.
FieldCheck = namedtuple("FieldCheck", ["value", "problem"], defaults=(None, None))


@dataclass(frozen=True, slots=True)
class Customer:
    """A record that passed every validation rule."""

    customer_id: int
    name: str
    email: str
    age: int
    country: str
    signup: datetime

    def to_json(self, reference_date: datetime) -> dict[str, Any]:
        """Render the record as the seven-key output object."""
        return {
            "id": self.customer_id,
            "name": self.name,
            "email": self.email,
            "age": self.age,
            "country": self.country,
            "signup": self.signup.strftime(OUTPUT_FORMAT),
            "days_since_signup": (reference_date - self.signup).days,
        }


@dataclass(slots=True)
class ExportSummary:
    """Counters reported at the end of a run."""

    total: int = 0
    kept: int = 0
    dropped: Counter[str] = field(default_factory=Counter)


# --------------------------------------------------------------------------- #
# Field parsers
# --------------------------------------------------------------------------- #
def parse_ascii_integer(value: Any) -> FieldCheck:
    """Accept a JSON integer (not a bool) or a string of ASCII digits."""
    match value:
        case bool():
            return FieldCheck(problem="is a boolean")
        case int():
            return FieldCheck(value=value)
        case str() if (digits := ASCII_INTEGER.fullmatch(value)):
            return FieldCheck(value=int(digits.group(1)))
        case _:
            return FieldCheck(problem=f"is not an integer: {value!r}")


def parse_timestamp(value: Any) -> FieldCheck:
    """Parse a strict ``YYYY-MM-DDTHH:MM:SS(Z|+HH:MM|-HH:MM)`` string to UTC."""
    if not isinstance(value, str) or not STRICT_TIMESTAMP.fullmatch(value):
        return FieldCheck(problem=f"is not a timestamp with a UTC offset: {value!r}")
    try:
        moment = datetime.strptime(value, TIMESTAMP_FORMAT)
    except ValueError as exc:
        return FieldCheck(problem=f"is not a valid timestamp: {exc}")
    return FieldCheck(value=moment.astimezone(timezone.utc))


def parse_customer_id(value: Any) -> FieldCheck:
    check = parse_ascii_integer(value)
    if check.problem is None and check.value < 1:
        return FieldCheck(problem=f"must be at least 1, got {check.value}")
    return check


def parse_name(value: Any) -> FieldCheck:
    if not isinstance(value, str):
        return FieldCheck(problem="is not a string")
    return FieldCheck(value=value.strip())


def parse_email(value: Any) -> FieldCheck:
    if not isinstance(value, str):
        return FieldCheck(problem="is not a string")
    email = value.strip().lower()
    local_part, _, domain = email.partition("@")
    if email.count("@") != 1 or not local_part or "." not in domain:
        return FieldCheck(problem=f"is not a valid address: {value!r}")
    return FieldCheck(value=email)


def parse_age(value: Any, rules: ValidationRules) -> FieldCheck:
    check = parse_ascii_integer(value)
    if check.problem is None and not rules.min_age <= check.value <= rules.max_age:
        return FieldCheck(problem=f"{check.value} is outside [{rules.min_age}, {rules.max_age}]")
    return check


def parse_country(value: Any, rules: ValidationRules) -> FieldCheck:
    if not isinstance(value, str):
        return FieldCheck(problem="is not a string")
    country = value.strip().upper()
    if country not in rules.allowed_countries:
        return FieldCheck(problem=f"{country!r} is not an allowed country")
    return FieldCheck(value=country)


# --------------------------------------------------------------------------- #
# Record validation
# --------------------------------------------------------------------------- #
def is_blank(value: Any) -> bool:
    """True for null values and for strings that are empty or only whitespace."""
    return value is None or (isinstance(value, str) and not value.strip())


def first_missing_field(record: Mapping[str, Any], names: Iterable[str]) -> str | None:
    """Name of the first field that is absent, null or blank, if any."""
    return next((name for name in names if is_blank(record.get(name))), None)


def field_parsers(rules: ValidationRules) -> dict[str, Callable[[Any], FieldCheck]]:
    return {
        "id": parse_customer_id,
        "name": parse_name,
        "email": parse_email,
        "age": lambda value: parse_age(value, rules),
        "country": lambda value: parse_country(value, rules),
        "signup": parse_timestamp,
    }


def parse_customer(record: Any, rules: ValidationRules) -> Customer | str:
    """Return the validated customer, or the reason the record is dropped."""
    if not isinstance(record, dict):
        return f"not a JSON object ({type(record).__name__})"
    missing = first_missing_field(record, CORE_FIELDS + rules.required_fields)
    if missing is not None:
        return f"field {missing!r} is missing, null or blank"
    values: dict[str, Any] = {}
    for name, parser in field_parsers(rules).items():
        check = parser(record[name])
        if check.problem is not None:
            return f"{name} {check.problem}"
        values[name] = check.value
    return Customer(customer_id=values.pop("id"), **values)


def select_customers(records: list[Any], rules: ValidationRules) -> tuple[list[Customer], ExportSummary]:
    """Validate every record, drop duplicates (first one wins), sort by id."""
    kept: dict[int, Customer] = {}
    summary = ExportSummary(total=len(records))
    for position, record in enumerate(records):
        outcome = parse_customer(record, rules)
        if isinstance(outcome, Customer) and outcome.customer_id in kept:
            outcome = f"duplicate id {outcome.customer_id}"
        if isinstance(outcome, str):
            LOGGER.info("dropping record #%d: %s", position, outcome)
            summary.dropped[outcome.split(" ", 1)[0]] += 1
            continue
        kept[outcome.customer_id] = outcome
    summary.kept = len(kept)
    return sorted(kept.values(), key=lambda customer: customer.customer_id), summary


# --------------------------------------------------------------------------- #
# Config and input files
# --------------------------------------------------------------------------- #
def read_yaml_mapping(path: Path) -> dict[str, Any]:
    try:
        with path.open(encoding="utf-8") as handle:
            document = yaml.safe_load(handle)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ExportError(f"cannot read config {path}: {exc}") from exc
    if not isinstance(document, dict):
        raise ExportError(f"config {path} is not a YAML mapping")
    return document


def require_keys(section: Mapping[str, Any], keys: Iterable[str], where: str) -> None:
    missing = [key for key in keys if key not in section]
    if missing:
        raise ExportError(f"{where} lacks required key(s): {', '.join(missing)}")


def parse_reference_date(value: Any) -> datetime:
    # An unquoted timestamp in YAML is already loaded as a datetime.
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(timezone.utc)
    check = parse_timestamp(value)
    if check.problem is not None:
        raise ExportError(f"reference_date {check.problem}")
    return check.value


def strict_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ExportError(f"validation_rules.{name} must be an integer, got {value!r}")
    return value


def string_list(value: Any, name: str) -> list[str]:
    if not isinstance(value, list):
        raise ExportError(f"validation_rules.{name} must be a list")
    strings = [item for item in value if isinstance(item, str)]
    if len(strings) != len(value):
        LOGGER.warning("ignoring non-string entries in validation_rules.%s", name)
    return strings


def parse_rules(section: Any) -> ValidationRules:
    if not isinstance(section, dict):
        raise ExportError("validation_rules must be a mapping")
    require_keys(section, RULE_KEYS, "validation_rules")
    countries = string_list(section["allowed_countries"], "allowed_countries")
    return ValidationRules(
        min_age=strict_int(section["min_age"], "min_age"),
        max_age=strict_int(section["max_age"], "max_age"),
        required_fields=tuple(string_list(section["required_fields"], "required_fields")),
        allowed_countries=frozenset(code.strip().upper() for code in countries),
    )


def load_config(path: Path) -> ExportConfig:
    document = read_yaml_mapping(path)
    require_keys(document, CONFIG_KEYS, f"config {path}")
    source = document["data_source"]
    if not isinstance(source, str) or not source.strip():
        raise ExportError("data_source must be a non-empty path string")
    config = ExportConfig(
        data_source=Path(source),
        reference_date=parse_reference_date(document["reference_date"]),
        rules=parse_rules(document["validation_rules"]),
    )
    # data_source is relative to the folder holding the config file.
    return replace(config, data_source=path.parent / config.data_source)


def load_records(path: Path) -> list[Any]:
    try:
        with path.open(encoding="utf-8-sig") as handle:
            document = json.load(handle)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ExportError(f"cannot read records file {path}: {exc}") from exc
    if not isinstance(document, list):
        raise ExportError(f"records file {path} does not hold a JSON array")
    return document


# --------------------------------------------------------------------------- #
# Entry point
# --------------------------------------------------------------------------- #
def parse_arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Validate and export customer records.")
    parser.add_argument("config", type=Path, help="path of the YAML config file")
    return parser.parse_args(argv)


def run(config_path: Path) -> list[dict[str, Any]]:
    config = load_config(config_path)
    records = load_records(config.data_source)
    customers, summary = select_customers(records, config.rules)
    LOGGER.info(
        "kept %d of %d records; dropped by reason: %s",
        summary.kept, summary.total, dict(summary.dropped) or "none",
    )
    return [customer.to_json(config.reference_date) for customer in customers]


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(levelname)s %(name)s: %(message)s")
    arguments = parse_arguments(argv)
    try:
        exported = run(arguments.config)
    except ExportError as exc:
        LOGGER.error("%s", exc)
        return 1
    json.dump(exported, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
