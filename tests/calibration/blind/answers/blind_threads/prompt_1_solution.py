#!/usr/bin/env python3
"""Nightly customer export.

Reads a YAML config, loads the customer records it points to, keeps the valid
ones and prints them to stdout as one JSON array (sorted by id).  Diagnostics
go to stderr through ``logging``.

Usage::

    python prompt_1_solution.py records_config.yaml

Record validation is CPU-light but independent per record, so it is fanned out
over a small thread pool; ``Executor.map`` preserves input order, which the
duplicate-id rule ("first in file order wins") relies on.
"""

import argparse
import json
import logging
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

import yaml

LOGGER = logging.getLogger("nightly_export")

MANDATORY_FIELDS: tuple[str, ...] = ("id", "name", "email", "age", "country", "signup")
REQUIRED_CONFIG_KEYS: tuple[str, ...] = ("data_source", "reference_date", "validation_rules")
REQUIRED_RULE_KEYS: tuple[str, ...] = ("min_age", "max_age", "required_fields", "allowed_countries")

# ASCII digits only: ``\d`` would also accept Arabic-Indic or fullwidth digits.
ASCII_INTEGER = re.compile(r"[0-9]+")
TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:Z|[+-][0-9]{2}:[0-9]{2})")
TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S%z"
OUTPUT_TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
MAX_WORKERS = 4


class ConfigError(Exception):
    """The config or the records file is unusable; the run must stop."""


class RecordRejected(ValueError):
    """A single record fails validation; it is dropped and processing goes on."""


@dataclass(frozen=True)
class Rules:
    """Validation settings taken from the config."""

    min_age: int
    max_age: int
    required_fields: tuple[str, ...]
    allowed_countries: frozenset[str]
    reference: datetime


@dataclass(frozen=True)
class Verdict:
    """Result of validating one entry of the records array."""

    position: int
    record: Optional[dict[str, Any]]
    reason: str = ""


# --------------------------------------------------------------------------- #
# Reading input
# --------------------------------------------------------------------------- #
def read_text(path: Path) -> str:
    """Return the text of ``path`` or raise ConfigError."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read {path}: {error}") from error


def load_config(path: Path) -> dict[str, Any]:
    """Parse the YAML config safely and check that it is a mapping."""
    try:
        config = yaml.safe_load(read_text(path))
    except yaml.YAMLError as error:
        raise ConfigError(f"{path} is not valid YAML: {error}") from error
    if not isinstance(config, dict):
        raise ConfigError(f"{path} does not hold a YAML mapping")
    return config


def load_records(path: Path) -> list[Any]:
    """Parse the JSON records file and check that it is an array."""
    try:
        records = json.loads(read_text(path))
    except (ValueError, RecursionError) as error:  # JSONDecodeError is a ValueError
        raise ConfigError(f"{path} is not valid JSON: {error}") from error
    if not isinstance(records, list):
        raise ConfigError(f"{path} does not hold a JSON array")
    return records


# --------------------------------------------------------------------------- #
# Config interpretation
# --------------------------------------------------------------------------- #
def require_keys(mapping: dict[str, Any], keys: Iterable[str], where: str) -> None:
    """Raise ConfigError naming every key of ``keys`` missing from ``mapping``."""
    missing = [key for key in keys if key not in mapping]
    if missing:
        raise ConfigError(f"missing config key(s) in {where}: {', '.join(missing)}")


def config_int(value: Any, name: str) -> int:
    """Return ``value`` if it is a real integer (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"validation_rules.{name} must be an integer, got {value!r}")
    return value


def config_str_list(value: Any, name: str) -> list[str]:
    """Return ``value`` if it is a list of strings."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"validation_rules.{name} must be a list of strings")
    return value


def country_codes(value: Any) -> frozenset[str]:
    """Normalise allowed_countries; non-string items cannot match and are skipped.

    (Unquoted ``NO`` in YAML 1.1 loads as ``False``, hence a warning, not a crash.)
    """
    if not isinstance(value, list):
        raise ConfigError("validation_rules.allowed_countries must be a list")
    skipped = [item for item in value if not isinstance(item, str)]
    if skipped:
        LOGGER.warning("ignoring non-string allowed_countries entries: %r (quote them in YAML)", skipped)
    return frozenset(item.strip().upper() for item in value if isinstance(item, str))


def parse_reference_date(value: Any) -> datetime:
    """Return the reference date as an aware UTC datetime.

    Quoted, it is a string in the signup format.  Unquoted, PyYAML already turns
    it into a datetime; that is accepted only when it carries a UTC offset.
    """
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(timezone.utc)
    try:
        return parse_timestamp(value)
    except RecordRejected as error:
        raise ConfigError(f"reference_date is invalid: {error}") from error


def build_rules(config: dict[str, Any]) -> Rules:
    """Validate the config's shape and turn it into a Rules object."""
    require_keys(config, REQUIRED_CONFIG_KEYS, "the config")
    rule_section = config["validation_rules"]
    if not isinstance(rule_section, dict):
        raise ConfigError("validation_rules must be a mapping")
    require_keys(rule_section, REQUIRED_RULE_KEYS, "validation_rules")
    return Rules(
        min_age=config_int(rule_section["min_age"], "min_age"),
        max_age=config_int(rule_section["max_age"], "max_age"),
        required_fields=tuple(config_str_list(rule_section["required_fields"], "required_fields")),
        allowed_countries=country_codes(rule_section["allowed_countries"]),
        reference=parse_reference_date(config["reference_date"]),
    )


def records_path(config: dict[str, Any], config_path: Path) -> Path:
    """Resolve ``data_source`` relative to the config file's folder."""
    source = config["data_source"]
    if not isinstance(source, str) or not source.strip():
        raise ConfigError("data_source must be a non-empty string")
    return config_path.parent / source


# --------------------------------------------------------------------------- #
# Field validators (each raises RecordRejected)
# --------------------------------------------------------------------------- #
def is_blank(value: Any) -> bool:
    """True for ``None`` and for strings that are empty or only whitespace."""
    return value is None or (isinstance(value, str) and not value.strip())


def check_present(record: dict[str, Any], fields: Iterable[str]) -> None:
    """Every field must be present, non-null and non-blank."""
    absent = [field for field in dict.fromkeys(fields) if field not in record or is_blank(record[field])]
    if absent:
        raise RecordRejected(f"missing or empty field(s): {', '.join(absent)}")


def parse_whole_number(value: Any, field: str) -> int:
    """A JSON integer (not a bool) or a string of ASCII digits, maybe space-padded."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and ASCII_INTEGER.fullmatch(value.strip()):
        try:
            return int(value.strip())
        except ValueError as error:  # beyond sys.get_int_max_str_digits()
            raise RecordRejected(f"{field} has too many digits") from error
    raise RecordRejected(f"{field} is not a whole number: {value!r}")


def parse_record_id(value: Any) -> int:
    """Validate the id: a whole number of at least 1."""
    record_id = parse_whole_number(value, "id")
    if record_id < 1:
        raise RecordRejected(f"id must be at least 1, got {record_id}")
    return record_id


def parse_age(value: Any, rules: Rules) -> int:
    """Validate the age: a whole number within the configured bounds."""
    age = parse_whole_number(value, "age")
    if not rules.min_age <= age <= rules.max_age:
        raise RecordRejected(f"age {age} outside [{rules.min_age}, {rules.max_age}]")
    return age


def parse_name(value: Any) -> str:
    """The name must be a string; it is returned stripped."""
    if not isinstance(value, str):
        raise RecordRejected(f"name is not a string: {value!r}")
    return value.strip()


def parse_email(value: Any) -> str:
    """Exactly one '@', something before it and a '.' somewhere after it."""
    if not isinstance(value, str):
        raise RecordRejected(f"email is not a string: {value!r}")
    email = value.strip().lower()
    local_part, _, domain = email.partition("@")
    if email.count("@") != 1 or not local_part or "." not in domain:
        raise RecordRejected(f"malformed email: {value!r}")
    return email


def parse_country(value: Any, rules: Rules) -> str:
    """The country code, stripped and upper-cased, must be allowed."""
    if not isinstance(value, str):
        raise RecordRejected(f"country is not a string: {value!r}")
    country = value.strip().upper()
    if country not in rules.allowed_countries:
        raise RecordRejected(f"country {country!r} is not allowed")
    return country


def parse_timestamp(value: Any) -> datetime:
    """Parse ``YYYY-MM-DDTHH:MM:SS`` + ``Z``/``±HH:MM`` into an aware UTC datetime."""
    if not isinstance(value, str) or not TIMESTAMP.fullmatch(value):
        raise RecordRejected(f"timestamp not in YYYY-MM-DDTHH:MM:SS(Z|+HH:MM) form: {value!r}")
    try:
        moment = datetime.strptime(value, TIMESTAMP_FORMAT)
        return moment.astimezone(timezone.utc)
    except (ValueError, OverflowError) as error:
        raise RecordRejected(f"impossible timestamp {value!r}: {error}") from error


# --------------------------------------------------------------------------- #
# Record pipeline
# --------------------------------------------------------------------------- #
def clean_record(record: dict[str, Any], rules: Rules) -> dict[str, Any]:
    """Validate one record and build its output object (rules 1 to 7)."""
    check_present(record, MANDATORY_FIELDS + rules.required_fields)
    signup = parse_timestamp(record["signup"])
    return {
        "id": parse_record_id(record["id"]),
        "name": parse_name(record["name"]),
        "email": parse_email(record["email"]),
        "age": parse_age(record["age"], rules),
        "country": parse_country(record["country"], rules),
        "signup": signup.strftime(OUTPUT_TIMESTAMP_FORMAT),
        "days_since_signup": (rules.reference - signup).days,
    }


def judge_entry(position: int, entry: Any, rules: Rules) -> Verdict:
    """Validate one array entry; never raises for a bad record."""
    if not isinstance(entry, dict):
        return Verdict(position, None, f"not a JSON object ({type(entry).__name__})")
    try:
        return Verdict(position, clean_record(entry, rules))
    except RecordRejected as error:
        return Verdict(position, None, str(error))


def judge_all(entries: list[Any], rules: Rules) -> Iterator[Verdict]:
    """Validate all entries concurrently, yielding verdicts in file order."""
    positions = range(len(entries))
    with ThreadPoolExecutor(max_workers=MAX_WORKERS, thread_name_prefix="validate") as pool:
        yield from pool.map(judge_entry, positions, entries, [rules] * len(entries))


def keep_first_per_id(verdicts: Iterable[Verdict]) -> list[dict[str, Any]]:
    """Log rejections and drop later duplicates of an id (rule 8)."""
    kept: dict[int, dict[str, Any]] = {}
    for verdict in verdicts:
        if verdict.record is None:
            LOGGER.info("dropping entry #%d: %s", verdict.position, verdict.reason)
        elif verdict.record["id"] in kept:
            LOGGER.info("dropping entry #%d: duplicate id %d", verdict.position, verdict.record["id"])
        else:
            kept[verdict.record["id"]] = verdict.record
    return sorted(kept.values(), key=lambda record: record["id"])


def run(config_path: Path) -> list[dict[str, Any]]:
    """Load everything, validate, and return the kept records sorted by id."""
    config = load_config(config_path)
    rules = build_rules(config)
    entries = load_records(records_path(config, config_path))
    kept = keep_first_per_id(judge_all(entries, rules))
    LOGGER.info("kept %d of %d entries", len(kept), len(entries))
    return kept


def parse_arguments(argv: Optional[list[str]] = None) -> argparse.Namespace:
    """Command line: the config path is the only argument."""
    parser = argparse.ArgumentParser(description="Validate and export customer records.")
    parser.add_argument("config", type=Path, help="path of the YAML config file")
    return parser.parse_args(argv)


def main(argv: Optional[list[str]] = None) -> int:
    """Program entry point; returns the process exit code."""
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(levelname)s %(threadName)s: %(message)s")
    arguments = parse_arguments(argv)
    try:
        kept = run(arguments.config)
    except ConfigError as error:
        LOGGER.error("%s", error)
        return 1
    json.dump(kept, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
