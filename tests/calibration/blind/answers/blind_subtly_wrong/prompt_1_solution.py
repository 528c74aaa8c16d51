#!/usr/bin/env python3
"""Process customer records: validate, normalise and export them as JSON.

Usage: python prompt_1_solution.py records_config.yaml
"""
import argparse
import json
import logging
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import yaml

logger = logging.getLogger(__name__)

BASE_FIELDS = ["id", "name", "email", "age", "country", "signup"]
REQUIRED_CONFIG_KEYS = ["data_source", "reference_date", "validation_rules"]
REQUIRED_RULE_KEYS = ["min_age", "max_age", "required_fields", "allowed_countries"]


class ConfigError(Exception):
    """Raised when the configuration or data file is invalid."""


def load_config(config_path: Path) -> Dict[str, Any]:
    """Load and validate the YAML configuration file."""
    try:
        with open(config_path, "r", encoding="utf-8") as config_file:
            config = yaml.safe_load(config_file)
    except OSError as e:
        raise ConfigError(f"Cannot read config file {config_path}: {e}") from e
    except yaml.YAMLError as e:
        raise ConfigError(f"Invalid YAML in {config_path}: {e}") from e

    check_keys(config, REQUIRED_CONFIG_KEYS, "config")
    check_keys(config["validation_rules"], REQUIRED_RULE_KEYS, "validation_rules")
    return config


def check_keys(section: Any, keys: List[str], name: str) -> None:
    """Ensure a config section is a mapping containing all the given keys."""
    if not isinstance(section, dict):
        raise ConfigError(f"{name} must be a mapping")
    missing = [key for key in keys if key not in section]
    if missing:
        raise ConfigError(f"{name} is missing keys: {', '.join(missing)}")


def load_records(records_path: Path) -> List[Any]:
    """Load the JSON records file, which must contain an array."""
    try:
        with open(records_path, "r", encoding="utf-8") as records_file:
            records = json.load(records_file)
    except OSError as e:
        raise ConfigError(f"Cannot read records file {records_path}: {e}") from e
    except json.JSONDecodeError as e:
        raise ConfigError(f"Invalid JSON in {records_path}: {e}") from e

    if not isinstance(records, list):
        raise ConfigError("Records file must contain a JSON array")
    return records


def parse_timestamp(value: Any) -> Optional[datetime]:
    """Parse an ISO 8601 timestamp and return it as an aware UTC datetime."""
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=timezone.utc)
        return parsed.astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None


def parse_int(value: Any) -> Optional[int]:
    """Parse an integer from a JSON int or a digit string like " 42 "."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def is_missing(value: Any) -> bool:
    """Return True if a value is None or a blank string."""
    if value is None:
        return True
    return isinstance(value, str) and value.strip() == ""


def validate_email(value: Any) -> Optional[str]:
    """Return the normalised email, or None if it is not valid."""
    if not isinstance(value, str):
        return None
    email = value.strip().lower()
    if email.count("@") != 1:
        return None
    local, domain = email.split("@")
    if not local or "." not in domain:
        return None
    return email


def check_required(record: Dict[str, Any], required_fields: List[str]) -> Optional[str]:
    """Return the name of the first missing/blank field, or None."""
    for field in BASE_FIELDS + list(required_fields):
        if field not in record or is_missing(record[field]):
            return field
    return None


def normalise_country(value: Any, allowed: List[str]) -> Optional[str]:
    """Return the upper-cased country code if it is allowed."""
    if not isinstance(value, str):
        return None
    country = value.strip().upper()
    allowed_codes = {code.strip().upper() for code in allowed}
    return country if country in allowed_codes else None


def check_age(value: Any, rules: Dict[str, Any]) -> Optional[int]:
    """Return the age as an int if it is within the configured range."""
    age = parse_int(value)
    if age is None or not rules["min_age"] <= age < rules["max_age"]:
        return None
    return age


def validate_record(record: Any, rules: Dict[str, Any],
                    reference: datetime) -> Tuple[Optional[Dict[str, Any]], str]:
    """Validate a single record. Returns (normalised_record, reason_if_rejected)."""
    if not isinstance(record, dict):
        return None, "not an object"
    missing = check_required(record, rules["required_fields"])
    if missing:
        return None, f"missing field '{missing}'"

    record_id = parse_int(record["id"])
    email = validate_email(record["email"])
    age = check_age(record["age"], rules)
    country = normalise_country(record["country"], rules["allowed_countries"])
    signup = parse_timestamp(record["signup"])
    values = {"id": record_id, "email": email, "age": age, "country": country, "signup": signup}
    invalid = [name for name, value in values.items() if value is None]
    if record_id is not None and record_id < 1:
        invalid.append("id")
    if not isinstance(record["name"], str):
        invalid.append("name")
    if invalid:
        return None, f"invalid field(s): {', '.join(invalid)}"

    return {
        "id": record_id,
        "name": record["name"].strip(),
        "email": email,
        "age": age,
        "country": country,
        "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "days_since_signup": (reference - signup).days,
    }, ""


def process_records(records: List[Any], rules: Dict[str, Any],
                    reference: datetime) -> List[Dict[str, Any]]:
    """Validate all records, drop duplicates (first wins) and sort by id."""
    kept: Dict[int, Dict[str, Any]] = {}
    for index, record in enumerate(records):
        result, reason = validate_record(record, rules, reference)
        if result is None:
            logger.info("Dropping record %d: %s", index, reason)
            continue
        if result["id"] in kept:
            logger.info("Dropping record %d: duplicate id %s", index, result["id"])
            continue
        kept[result["id"]] = result
    logger.info("Kept %d of %d records", len(kept), len(records))
    return sorted(kept.values(), key=lambda item: item["id"])


def run(config_path: Path) -> List[Dict[str, Any]]:
    """Load the config and records, and return the processed records."""
    config = load_config(config_path)
    reference = parse_timestamp(config["reference_date"])
    if reference is None:
        raise ConfigError(f"Invalid reference_date: {config['reference_date']!r}")
    records_path = config_path.parent / config["data_source"]
    records = load_records(records_path)
    return process_records(records, config["validation_rules"], reference)


def main() -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description="Validate and export customer records")
    parser.add_argument("config", help="Path to the YAML config file")
    args = parser.parse_args()

    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(levelname)s: %(message)s")
    try:
        result = run(Path(args.config))
    except ConfigError as e:
        logger.error("%s", e)
        return 1
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
