#!/usr/bin/env python3
"""Refactored nightly customer export.

Reads a YAML config, loads the customer records it points to, keeps the valid
ones and prints them as a JSON array on stdout. Diagnostics go to stderr.

Usage:
    python prompt_1_solution.py records_config.yaml
"""

import argparse
import copy
import json
import logging
import re
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Optional

import yaml

logger = logging.getLogger(__name__)

MANDATORY_FIELDS = ["id", "name", "email", "age", "country", "signup"]
CONFIG_KEYS = ["data_source", "reference_date", "validation_rules"]
RULE_KEYS = ["min_age", "max_age", "required_fields", "allowed_countries"]
TIMESTAMP_REGEX = r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})"


class InputError(Exception):
    """Raised when the config or the records file cannot be used."""


# --------------------------------------------------------------------------
# Parsing helpers
# --------------------------------------------------------------------------


def parse_int_value(value: Any) -> Optional[int]:
    """Return an int for a JSON integer or an ASCII-digit string (spaces allowed), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if re.compile(r"[0-9]+").fullmatch(text):
            return int(text)
    return None


def parse_timestamp(value: Any) -> Optional[datetime]:
    """Parse a strict timestamp with Z or +HH:MM/-HH:MM and return it in UTC, else None."""
    if not isinstance(value, str):
        return None
    if re.compile(TIMESTAMP_REGEX).fullmatch(value) is None:
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S%z").astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None


def is_blank(value: Any) -> bool:
    """True when the value is null or an empty / whitespace-only string."""
    if value is None:
        return True
    return isinstance(value, str) and value.strip() == ""


# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------


def load_config(config_path: Path) -> dict:
    """Load the YAML config safely and check its shape."""
    try:
        with open(config_path, encoding="utf-8") as config_file:
            config = yaml.safe_load(config_file)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise InputError(f"cannot read config {config_path}: {error}") from error
    if not isinstance(config, dict):
        raise InputError("config must be a mapping")
    for key in CONFIG_KEYS:
        if key not in config:
            raise InputError(f"config is missing key {key!r}")
    return config


def check_rules(rules: Any) -> dict:
    """Validate the validation_rules section."""
    if not isinstance(rules, dict):
        raise InputError("validation_rules must be a mapping")
    for key in RULE_KEYS:
        if key not in rules:
            raise InputError(f"validation_rules is missing key {key!r}")
    for key in ["min_age", "max_age"]:
        if isinstance(rules[key], bool) or not isinstance(rules[key], int):
            raise InputError(f"validation_rules.{key} must be an integer")
    for key in ["required_fields", "allowed_countries"]:
        if not isinstance(rules[key], list):
            raise InputError(f"validation_rules.{key} must be a list")
    return rules


def check_reference_date(raw_value: Any) -> str:
    """Make sure the reference date can be parsed; returns it in the string form."""
    if isinstance(raw_value, datetime) and raw_value.tzinfo is not None:
        raw_value = raw_value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if parse_timestamp(raw_value) is None:
        raise InputError(f"reference_date {raw_value!r} is not a valid timestamp with an offset")
    return raw_value


def load_records(records_path: Path) -> list:
    """Load the records JSON file; it must contain an array."""
    try:
        with open(records_path, encoding="utf-8") as records_file:
            records = json.load(records_file)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise InputError(f"cannot read records file {records_path}: {error}") from error
    if not isinstance(records, list):
        raise InputError("records file must contain a JSON array")
    return records


# --------------------------------------------------------------------------
# Validation passes (each pass keeps the records that satisfy one rule)
# --------------------------------------------------------------------------


def has_required_fields(record: dict, rules: dict) -> bool:
    """Rule 1: mandatory and configured fields present, not null, not blank."""
    field_names = copy.deepcopy(MANDATORY_FIELDS)
    for extra_field in rules["required_fields"]:
        if isinstance(extra_field, str) and extra_field not in field_names:
            field_names = field_names + [extra_field]
    for field_name in field_names:
        if field_name not in record or is_blank(record[field_name]):
            return False
    return True


def has_valid_email(record: dict) -> bool:
    """Rule 4: exactly one @, something before it, a dot after it."""
    if not isinstance(record["email"], str):
        return False
    email = record["email"].strip().lower()
    if email.count("@") != 1:
        return False
    return email.index("@") > 0 and "." in email.split("@")[1]


def has_allowed_country(record: dict, rules: dict) -> bool:
    """Rule 6: country (stripped, upper-cased) among the allowed codes."""
    if not isinstance(record["country"], str):
        return False
    allowed = []
    for code in rules["allowed_countries"]:
        if isinstance(code, str):
            allowed.append(code.strip().upper())
    return record["country"].strip().upper() in allowed


def has_valid_age(record: dict, rules: dict) -> bool:
    """Rule 5: integer age inside the inclusive bounds."""
    age = parse_int_value(record["age"])
    return age is not None and rules["min_age"] <= age <= rules["max_age"]


def has_valid_id(record: dict) -> bool:
    """Rule 2: integer id >= 1."""
    record_id = parse_int_value(record["id"])
    return record_id is not None and record_id >= 1


def apply_pass(records: list, predicate: Callable[[dict], bool]) -> list:
    """Return copies of the records that satisfy the predicate."""
    return [copy.deepcopy(record) for record in records if predicate(record)]


def filter_valid(records: list, rules: dict) -> list:
    """Run every rule as its own pass over the records."""
    candidates = apply_pass(records, lambda record: isinstance(record, dict))
    candidates = apply_pass(candidates, lambda record: has_required_fields(record, rules))
    candidates = apply_pass(candidates, has_valid_id)
    candidates = apply_pass(candidates, lambda record: isinstance(record["name"], str))
    candidates = apply_pass(candidates, has_valid_email)
    candidates = apply_pass(candidates, lambda record: has_valid_age(record, rules))
    candidates = apply_pass(candidates, lambda record: has_allowed_country(record, rules))
    candidates = apply_pass(candidates, lambda record: parse_timestamp(record["signup"]) is not None)
    logger.info("%d of %d records pass the field rules", len(candidates), len(records))
    return candidates


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------


def to_output(record: dict, reference_date: str) -> dict:
    """Build the seven-key output object for a valid record."""
    signup = parse_timestamp(record["signup"])
    reference = parse_timestamp(reference_date)
    return {
        "id": parse_int_value(record["id"]),
        "name": record["name"].strip(),
        "email": record["email"].strip().lower(),
        "age": parse_int_value(record["age"]),
        "country": record["country"].strip().upper(),
        "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "days_since_signup": (reference - signup).days,
    }


def deduplicate_and_sort(valid_records: list, reference_date: str) -> list:
    """Rule 8 (first occurrence of an id wins) and sort by id."""
    result = []
    dropped_ids = ""
    for record in valid_records:
        output = to_output(record, reference_date)
        if output["id"] in [kept["id"] for kept in result]:
            dropped_ids = dropped_ids + str(output["id"]) + " "
            continue
        result.append(output)
        result = sorted(result, key=lambda item: item["id"])
    if dropped_ids:
        logger.info("dropped duplicate ids: %s", dropped_ids.strip())
    return result


def run(config_path: Path) -> int:
    """Run the export and return the exit code."""
    try:
        config = load_config(config_path)
        rules = check_rules(config["validation_rules"])
        reference_date = check_reference_date(config["reference_date"])
        if not isinstance(config["data_source"], str):
            raise InputError("data_source must be a string")
        records = load_records(config_path.parent / config["data_source"])
    except InputError as error:
        logger.error("%s", error)
        return 1
    output = deduplicate_and_sort(filter_valid(records, rules), reference_date)
    logger.info("kept %d records", len(output))
    print(json.dumps(output, indent=2))
    return 0


def main() -> int:
    """Parse the command line and run."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s: %(message)s")
    parser = argparse.ArgumentParser(description="Export valid customer records as JSON.")
    parser.add_argument("config", help="path to the YAML config file")
    args = parser.parse_args()
    return run(Path(args.config))


if __name__ == "__main__":
    sys.exit(main())
