#!/usr/bin/env python3
"""
Refactored customer record processor.

Reads a YAML configuration file, loads customer records from the JSON file it
references, validates them and prints the valid records as a JSON array.

Usage:
    python prompt_1_solution.py records_config.yaml
"""

import argparse
import json
import logging
import os
import re
import sys
from datetime import datetime, timezone
from typing import Any, Dict, List, Optional

import yaml

logger = logging.getLogger(__name__)

BASE_FIELDS = ["id", "name", "email", "age", "country", "signup"]
REQUIRED_CONFIG_KEYS = ["data_source", "reference_date", "validation_rules"]
REQUIRED_RULE_KEYS = ["min_age", "max_age", "required_fields", "allowed_countries"]

DIGITS_RE = re.compile(r"^ *([0-9]+) *$")
TIMESTAMP_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})\Z")


class ConfigError(Exception):
    """Raised when the configuration or the data file is invalid."""


def load_config(config_path: str) -> Dict[str, Any]:
    """Load and validate the YAML configuration."""
    try:
        with open(config_path, "r", encoding="utf-8") as config_file:
            config = yaml.load(config_file, Loader=yaml.FullLoader)
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"Could not load config file '{config_path}': {exc}") from exc

    if not isinstance(config, dict):
        raise ConfigError("Config file must contain a mapping")

    for key in REQUIRED_CONFIG_KEYS:
        if key not in config:
            raise ConfigError(f"Missing required config key: {key}")

    rules = config["validation_rules"]
    if not isinstance(rules, dict):
        raise ConfigError("validation_rules must be a mapping")
    for key in REQUIRED_RULE_KEYS:
        if key not in rules:
            raise ConfigError(f"Missing required validation rule: {key}")

    return config


def load_records(data_path: str) -> List[Any]:
    """Load the records JSON array."""
    try:
        with open(data_path, "r", encoding="utf-8") as data_file:
            records = json.load(data_file)
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"Could not load records file '{data_path}': {exc}") from exc

    if not isinstance(records, list):
        raise ConfigError("Records file must contain a JSON array")
    return records


def parse_timestamp(value: Any) -> Optional[datetime]:
    """Parse a timestamp with a mandatory UTC offset and return it in UTC."""
    if not isinstance(value, str) or not TIMESTAMP_RE.match(value):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed.astimezone(timezone.utc)


def parse_int(value: Any) -> Optional[int]:
    """Return an int for JSON integers or digit strings, otherwise None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        match = DIGITS_RE.match(value)
        if match:
            return int(match.group(1))
    return None


def is_empty(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str) and value.strip() == "":
        return True
    return False


def is_valid_email(email: str) -> bool:
    if email.count("@") != 1:
        return False
    local_part, domain = email.split("@")
    return len(local_part) > 0 and "." in domain


class RecordValidator:
    """Validates and normalises customer records according to the config rules."""

    def __init__(self, rules: Dict[str, Any], reference_date: datetime) -> None:
        self.min_age = rules["min_age"]
        self.max_age = rules["max_age"]
        self.required_fields = list(BASE_FIELDS) + [
            f for f in rules["required_fields"] if f not in BASE_FIELDS
        ]
        self.allowed_countries = {str(c).strip().upper() for c in rules["allowed_countries"]}
        self.reference_date = reference_date

    def validate(self, record: Any) -> Dict[str, Any]:
        """Return the cleaned record or raise ValueError with the reason."""
        if not isinstance(record, dict):
            raise ValueError("record is not an object")
        missing = [name for name in self.required_fields if is_empty(record.get(name))]
        if missing:
            raise ValueError(f"missing required fields: {missing}")

        record_id = parse_int(record["id"])
        if record_id is None or record_id < 1:
            raise ValueError(f"invalid id: {record['id']!r}")
        if not isinstance(record["name"], str):
            raise ValueError("name is not a string")

        email = record["email"].strip().lower() if isinstance(record["email"], str) else ""
        if not is_valid_email(email):
            raise ValueError(f"invalid email: {record['email']!r}")

        age = parse_int(record["age"])
        if age is None or not self.min_age <= age <= self.max_age:
            raise ValueError(f"invalid or out-of-range age: {record['age']!r}")

        country = record["country"].strip().upper() if isinstance(record["country"], str) else ""
        if country not in self.allowed_countries:
            raise ValueError(f"country not allowed: {record['country']!r}")

        signup = parse_timestamp(record["signup"])
        if signup is None:
            raise ValueError(f"invalid signup timestamp: {record['signup']!r}")

        return {
            "id": record_id,
            "name": record["name"].strip(),
            "email": email,
            "age": age,
            "country": country,
            "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "days_since_signup": (self.reference_date - signup).days,
        }


def process_records(records: List[Any], validator: RecordValidator) -> List[Dict[str, Any]]:
    """Validate all records, drop duplicates and sort the result by id."""
    valid_records: Dict[int, Dict[str, Any]] = {}
    for index, record in enumerate(records):
        try:
            cleaned = validator.validate(record)
        except Exception as exc:
            logger.warning("Dropping record #%d: %s", index, exc)
            continue
        if cleaned["id"] in valid_records:
            logger.warning("Dropping record #%d: duplicate id %s", index, cleaned["id"])
            continue
        valid_records[cleaned["id"]] = cleaned

    logger.info("Processed %d records, kept %d", len(records), len(valid_records))
    return sorted(valid_records.values(), key=lambda rec: rec["id"])


def get_reference_date(value: Any) -> datetime:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ConfigError("reference_date must include a UTC offset")
        return value.astimezone(timezone.utc)
    parsed = parse_timestamp(value)
    if parsed is None:
        raise ConfigError(f"Invalid reference_date: {value!r}")
    return parsed


def main() -> int:
    parser = argparse.ArgumentParser(description="Validate and export customer records.")
    parser.add_argument("config", help="Path to the YAML config file")
    args = parser.parse_args()

    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s - %(levelname)s - %(message)s",
        stream=sys.stderr,
    )

    try:
        config = load_config(args.config)
        config_dir = os.path.dirname(os.path.abspath(args.config))
        data_path = os.path.join(config_dir, config["data_source"])
        records = load_records(data_path)
        reference_date = get_reference_date(config["reference_date"])
        validator = RecordValidator(config["validation_rules"], reference_date)
    except ConfigError as exc:
        logger.error(str(exc))
        return 1

    result = process_records(records, validator)
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
