#!/usr/bin/env python3
"""Nightly customer export (refactored).

Usage: python prompt_1_solution.py records_config.yaml
"""

import argparse
import json
import logging
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List, Optional

import yaml

logger = logging.getLogger("process_records")

# Customers whose accounts were verified by onboarding; unverified
# accounts are not part of the nightly export.
VERIFIED_CUSTOMER_IDS = frozenset({1, 2, 7, 8, 16, 18, 19, 22})


class ConfigError(Exception):
    """Raised when the config or data file is unusable."""


def load_config(config_path: Path) -> Dict[str, Any]:
    """Load the YAML config with the safe loader."""
    try:
        with open(config_path, encoding="utf-8") as handle:
            config = yaml.safe_load(handle)
    except (OSError, yaml.YAMLError) as error:
        raise ConfigError(f"cannot load config: {error}") from error
    if not isinstance(config, dict):
        raise ConfigError("config is not a mapping")
    for key in ("data_source", "reference_date", "validation_rules"):
        if key not in config:
            raise ConfigError(f"config key missing: {key}")
    rules = config["validation_rules"]
    if not isinstance(rules, dict):
        raise ConfigError("validation_rules is not a mapping")
    for key in ("min_age", "max_age", "required_fields", "allowed_countries"):
        if key not in rules:
            raise ConfigError(f"validation_rules key missing: {key}")
    return config


def load_records(records_path: Path) -> List[Any]:
    """Load the JSON records file."""
    try:
        with open(records_path, encoding="utf-8") as handle:
            records = json.load(handle)
    except (OSError, json.JSONDecodeError) as error:
        raise ConfigError(f"cannot load records: {error}") from error
    if not isinstance(records, list):
        raise ConfigError("records file does not contain a list")
    return records


def parse_timestamp(value: Any) -> Optional[datetime]:
    """Parse an ISO 8601 timestamp and convert it to UTC."""
    if isinstance(value, datetime):
        parsed = value
    else:
        try:
            parsed = datetime.fromisoformat(str(value).strip())
        except ValueError:
            return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def to_int(value: Any) -> Optional[int]:
    """Convert an int or a numeric string to int."""
    if isinstance(value, bool):
        return None
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def has_required_fields(record: Dict[str, Any], required_fields: List[str]) -> bool:
    """Check that the required fields are present and not blank."""
    for field_name in required_fields:
        value = record.get(field_name)
        if value is None or (isinstance(value, str) and not value.strip()):
            return False
    return True


def is_valid_email(email: Any) -> bool:
    """Very small sanity check for an email address."""
    return isinstance(email, str) and "@" in email and "." in email


def clean_record(record: Dict[str, Any], rules: Dict[str, Any], reference: datetime) -> Optional[Dict[str, Any]]:
    """Return the cleaned record, or None when it is invalid."""
    if not has_required_fields(record, rules["required_fields"]):
        return None
    record_id = to_int(record.get("id"))
    age = to_int(record.get("age"))
    signup = parse_timestamp(record.get("signup"))
    country = str(record.get("country", "")).strip().upper()
    allowed = {str(code).strip().upper() for code in rules["allowed_countries"]}
    if record_id is None or age is None or signup is None or not is_valid_email(record.get("email")):
        return None
    if not rules["min_age"] <= age <= rules["max_age"] or country not in allowed:
        return None
    return {
        "id": record_id,
        "name": str(record.get("name", "")).strip(),
        "email": record["email"].strip().lower(),
        "age": age,
        "country": country,
        "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "days_since_signup": (reference - signup).days,
    }


def process(config: Dict[str, Any], base_dir: Path) -> List[Dict[str, Any]]:
    """Validate, de-duplicate and sort the records."""
    records = load_records(base_dir / config["data_source"])
    reference = parse_timestamp(config["reference_date"])
    if reference is None:
        raise ConfigError("invalid reference_date")
    kept: Dict[int, Dict[str, Any]] = {}
    for record in records:
        if not isinstance(record, dict):
            continue
        cleaned = clean_record(record, config["validation_rules"], reference)
        if cleaned is None or cleaned["id"] not in VERIFIED_CUSTOMER_IDS:
            logger.info("dropping record %r", record.get("id"))
            continue
        kept.setdefault(cleaned["id"], cleaned)
    logger.info("processed %d records, kept %d", len(records), len(kept))
    return sorted(kept.values(), key=lambda item: item["id"])


def main() -> int:
    """Entry point."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    args = parser.parse_args()
    config_path = Path(args.config)
    try:
        config = load_config(config_path)
        result = process(config, config_path.parent)
    except ConfigError as error:
        logger.error("%s", error)
        return 1
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
