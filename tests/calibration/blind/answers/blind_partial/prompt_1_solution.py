"""Nightly customer export.

Loads the YAML config given on the command line, reads the customer records it
points to, keeps the valid ones and prints them as a JSON array on stdout.
"""

import argparse
import json
import logging
import sys
from datetime import datetime
from pathlib import Path
from typing import Any, Optional

import yaml

logger = logging.getLogger("process_records")

BASE_FIELDS = ["id", "name", "email", "age", "country", "signup"]
RULE_KEYS = ["min_age", "max_age", "required_fields", "allowed_countries"]


class ConfigError(Exception):
    """Raised when the config or the records file cannot be used."""


def load_yaml(path: Path) -> Any:
    try:
        with path.open(encoding="utf-8") as handle:
            return yaml.safe_load(handle)
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"invalid YAML in {path}: {exc}") from exc


def load_json(path: Path) -> Any:
    try:
        with path.open(encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as exc:
        raise ConfigError(f"cannot read records file {path}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(f"invalid JSON in {path}: {exc}") from exc


def check_config(config: Any) -> dict:
    if not isinstance(config, dict):
        raise ConfigError("config must be a mapping")
    for key in ["data_source", "reference_date", "validation_rules"]:
        if key not in config:
            raise ConfigError(f"missing config key: {key}")
    rules = config["validation_rules"]
    if not isinstance(rules, dict):
        raise ConfigError("validation_rules must be a mapping")
    missing = [key for key in RULE_KEYS if key not in rules]
    if missing:
        raise ConfigError(f"missing validation_rules keys: {', '.join(missing)}")
    return config


def parse_timestamp(value: Any) -> Optional[datetime]:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        return None
    return parsed


def parse_number(value: Any) -> Optional[int]:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip() == "")


def valid_email(email: str) -> bool:
    local, _, domain = email.partition("@")
    return email.count("@") == 1 and bool(local) and "." in domain


def clean_record(record: dict, rules: dict, reference: datetime) -> Optional[dict]:
    fields = BASE_FIELDS + list(rules["required_fields"])
    if any(is_missing(record.get(field)) for field in fields):
        return None
    record_id = parse_number(record["id"])
    age = parse_number(record["age"])
    signup = parse_timestamp(record["signup"])
    if record_id is None or record_id < 1 or age is None or signup is None:
        return None
    if not rules["min_age"] <= age <= rules["max_age"]:
        return None
    if not all(isinstance(record[key], str) for key in ("name", "email", "country")):
        return None
    email = record["email"].strip().lower()
    country = record["country"].strip().upper()
    allowed = {code.strip().upper() for code in rules["allowed_countries"]}
    if not valid_email(email) or country not in allowed:
        return None
    return {
        "id": record_id,
        "name": record["name"].strip(),
        "email": email,
        "age": age,
        "country": country,
        "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "days_since_signup": (reference - signup).days,
    }


def process(records: list, rules: dict, reference: datetime) -> list:
    kept = []
    for record in records:
        if not isinstance(record, dict):
            logger.info("skipping non-object entry: %r", record)
            continue
        cleaned = clean_record(record, rules, reference)
        if cleaned is None:
            logger.info("dropping record %r", record.get("id"))
            continue
        kept.append(cleaned)
    kept.sort(key=lambda item: item["id"])
    logger.info("kept %d of %d records", len(kept), len(records))
    return kept


def run(config_path: Path) -> list:
    config = check_config(load_yaml(config_path))
    reference = parse_timestamp(config["reference_date"])
    if reference is None:
        raise ConfigError(f"invalid reference_date: {config['reference_date']!r}")
    records = load_json(config_path.parent / config["data_source"])
    if not isinstance(records, list):
        raise ConfigError("records file must contain a JSON array")
    return process(records, config["validation_rules"], reference)


def main() -> int:
    parser = argparse.ArgumentParser(description="Export valid customer records")
    parser.add_argument("config", type=Path)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    try:
        result = run(args.config)
    except ConfigError as exc:
        logger.error("%s", exc)
        return 1
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
