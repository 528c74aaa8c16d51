#!/usr/bin/env python3
"""
Nightly customer export (refactored).

Reads a YAML config, loads customer records from the JSON file it points to,
validates them and prints the valid records as a JSON array on stdout.

Usage:
    python prompt_1_solution.py records_config.yaml
"""

import json
import logging
import sys
from datetime import datetime, timezone
from pathlib import Path

import yaml

logger = logging.getLogger(__name__)


def load_config(config_path: Path) -> dict:
    """Load the YAML configuration file safely."""
    try:
        with open(config_path, "r", encoding="utf-8") as f:
            return yaml.safe_load(f)
    except FileNotFoundError:
        logger.error("Config file not found: %s", config_path)
        sys.exit(1)
    except yaml.YAMLError as e:
        logger.error("Invalid YAML in config file: %s", e)
        sys.exit(1)


def load_records(data_path: Path) -> list:
    """Load the customer records from the JSON file."""
    try:
        with open(data_path, "r", encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        logger.error("Records file not found: %s", data_path)
        sys.exit(1)
    except json.JSONDecodeError as e:
        logger.error("Invalid JSON in records file: %s", e)
        sys.exit(1)


def parse_timestamp(value: str) -> datetime:
    """Parse an ISO 8601 timestamp and convert it to UTC.

    Timestamps without a UTC offset are rejected instead of assuming UTC.
    """
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        raise ValueError(f"timestamp has no UTC offset: {value}")
    return parsed.astimezone(timezone.utc)


def parse_int(value) -> int:
    """Parse an integer that may be stored as a string (e.g. "42" or " 27 ")."""
    if isinstance(value, bool):
        raise ValueError("boolean is not a valid integer")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"not a whole number: {value}")
        return int(value)
    if isinstance(value, str):
        value = value.strip()
        if not value.isdigit():
            raise ValueError(f"not a valid integer: {value!r}")
    return int(value)


def is_valid_email(email: str) -> bool:
    """Check that the email has exactly one @ and a dot in the domain."""
    if email.count("@") != 1:
        return False
    local_part, domain = email.split("@")
    return bool(local_part) and "." in domain


def has_required_fields(record: dict, required_fields: list) -> bool:
    """Check that all required fields are present and not empty."""
    for field in required_fields:
        value = record.get(field)
        if value is None or (isinstance(value, str) and not value.strip()):
            logger.info("Dropping record %s: missing field '%s'", record.get("id"), field)
            return False
    return True


def validate_record(record: dict, rules: dict, reference_date: datetime) -> dict | None:
    """Validate and normalise a single record. Returns None if the record is invalid."""
    if not has_required_fields(record, rules["required_fields"]):
        return None

    try:
        record_id = parse_int(record.get("id"))
        age = parse_int(record.get("age"))
        signup = parse_timestamp(record.get("signup"))
    except ValueError as e:
        logger.info("Dropping record %s: %s", record.get("id"), e)
        return None

    if record_id < 1:
        logger.info("Dropping record %s: id must be positive", record_id)
        return None
    if not rules["min_age"] <= age <= rules["max_age"]:
        logger.info("Dropping record %s: age %s out of range", record_id, age)
        return None

    country = record["country"].strip().upper()
    allowed = [code.strip().upper() for code in rules["allowed_countries"]]
    if country not in allowed:
        logger.info("Dropping record %s: country %s not allowed", record_id, country)
        return None

    email = record["email"].strip().lower()
    if not is_valid_email(email):
        logger.info("Dropping record %s: invalid email %s", record_id, email)
        return None

    return {
        "id": record_id,
        "name": record["name"].strip(),
        "email": email,
        "age": age,
        "country": country,
        "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "days_since_signup": (reference_date - signup).days,
    }


def process_records(records: list, rules: dict, reference_date: datetime) -> list:
    """Validate all records, drop duplicates and sort by id."""
    valid_records = []
    seen_ids = set()
    for record in records:
        if record is None:
            logger.info("Skipping null record")
            continue
        cleaned = validate_record(record, rules, reference_date)
        if cleaned is None:
            continue
        if cleaned["id"] in seen_ids:
            logger.info("Dropping record %s: duplicate id", cleaned["id"])
            continue
        seen_ids.add(cleaned["id"])
        valid_records.append(cleaned)

    valid_records.sort(key=lambda rec: rec["id"])
    logger.info("Kept %d of %d records", len(valid_records), len(records))
    return valid_records


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s: %(message)s", stream=sys.stderr)

    if len(sys.argv) != 2:
        print("Usage: python prompt_1_solution.py <config.yaml>", file=sys.stderr)
        sys.exit(2)

    config_path = Path(sys.argv[1])
    config = load_config(config_path)

    rules = config["validation_rules"]
    reference_date = parse_timestamp(config["reference_date"])
    data_path = config_path.parent / config["data_source"]

    records = load_records(data_path)
    valid_records = process_records(records, rules, reference_date)

    print(json.dumps(valid_records, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
