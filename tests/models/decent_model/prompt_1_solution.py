#!/usr/bin/env python
"""Refactored nightly customer export.

Reads a YAML config, validates customer records from a JSON file and prints the
valid ones as a JSON array on stdout. Diagnostics go to stderr via logging.
"""
import argparse
import json
import logging
import os
import sys
from datetime import datetime, timezone

import yaml

logger = logging.getLogger(__name__)

BASE_FIELDS = ["id", "name", "email", "age", "country", "signup"]


def load_config(config_path: str) -> dict:
    """Load and validate the YAML configuration."""
    try:
        with open(config_path, "r", encoding="utf-8") as fh:
            config = yaml.safe_load(fh)
    except Exception as e:
        logger.error("Could not load config %s: %s", config_path, e)
        sys.exit(1)

    if not isinstance(config, dict):
        logger.error("Config must be a mapping")
        sys.exit(1)
    for key in ("data_source", "reference_date", "validation_rules"):
        if key not in config:
            logger.error("Missing config key: %s", key)
            sys.exit(1)
    rules = config["validation_rules"]
    if not isinstance(rules, dict):
        logger.error("validation_rules must be a mapping")
        sys.exit(1)
    for key in ("min_age", "max_age", "required_fields", "allowed_countries"):
        if key not in rules:
            logger.error("Missing config key: validation_rules.%s", key)
            sys.exit(1)
    return config


def load_records(records_path: str) -> list:
    """Load the records file, which must contain a JSON array."""
    try:
        with open(records_path, "r", encoding="utf-8") as fh:
            records = json.load(fh)
    except (OSError, json.JSONDecodeError) as e:
        logger.error("Could not load records %s: %s", records_path, e)
        sys.exit(1)
    if not isinstance(records, list):
        logger.error("Records file must contain a JSON array")
        sys.exit(1)
    return records


def parse_timestamp(value: str) -> datetime:
    """Parse an ISO-8601 timestamp and return it as an aware UTC datetime."""
    if value.endswith("Z"):
        value = value[:-1] + "+00:00"
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        # assume UTC when no offset is given
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def parse_int(value) -> int:
    """Parse an integer from a JSON int or a digit string; raise ValueError otherwise."""
    if isinstance(value, bool):
        raise ValueError("booleans are not integers")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return int(value.strip())
    raise ValueError(f"not an integer: {value!r}")


def is_missing(value) -> bool:
    return value is None or (isinstance(value, str) and value.strip() == "")


def validate_record(record: dict, rules: dict, reference: datetime) -> dict:
    """Validate a single record. Returns the cleaned record or raises ValueError."""
    for field in BASE_FIELDS + list(rules["required_fields"]):
        if field not in record or is_missing(record[field]):
            raise ValueError(f"missing field {field}")

    record_id = parse_int(record["id"])
    if record_id < 1:
        raise ValueError(f"id must be positive: {record_id}")

    name = record["name"]
    if not isinstance(name, str):
        raise ValueError("name must be a string")

    email = str(record["email"]).strip().lower()
    local, _, domain = email.partition("@")
    if email.count("@") != 1 or not local or "." not in domain:
        raise ValueError(f"invalid email {email}")

    age = parse_int(record["age"])
    if age < rules["min_age"] or age > rules["max_age"]:
        raise ValueError(f"age {age} out of range")

    country = str(record["country"]).strip().upper()
    allowed = [c.strip().upper() for c in rules["allowed_countries"]]
    if country not in allowed:
        raise ValueError(f"country {country} not allowed")

    signup = parse_timestamp(record["signup"])
    return {
        "id": record_id,
        "name": name.strip(),
        "email": email,
        "age": age,
        "country": country,
        "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "days_since_signup": (reference - signup).days,
    }


def process_records(records: list, config: dict) -> list:
    """Validate all records, drop duplicates and sort by id."""
    rules = config["validation_rules"]
    reference = parse_timestamp(config["reference_date"])
    results = []
    seen_ids = set()
    dropped = 0
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            logger.warning("Record %d is not an object, skipping", index)
            dropped += 1
            continue
        try:
            cleaned = validate_record(record, rules, reference)
        except (ValueError, TypeError, AttributeError) as e:
            logger.warning("Record %d dropped: %s", index, e)
            dropped += 1
            continue
        if cleaned["id"] in seen_ids:
            logger.warning("Record %d dropped: duplicate id %s", index, cleaned["id"])
            dropped += 1
            continue
        seen_ids.add(cleaned["id"])
        results.append(cleaned)
    logger.info("Kept %d records, dropped %d", len(results), dropped)
    return sorted(results, key=lambda r: r["id"])


def main() -> None:
    parser = argparse.ArgumentParser(description="Validate customer records")
    parser.add_argument("config", help="path to the YAML config file")
    args = parser.parse_args()

    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(levelname)s: %(message)s")

    config = load_config(args.config)
    base_dir = os.path.dirname(os.path.abspath(args.config))
    records = load_records(os.path.join(base_dir, config["data_source"]))
    try:
        output = process_records(records, config)
    except Exception as e:
        logger.error("Processing failed: %s", e)
        sys.exit(1)
    print(json.dumps(output, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
