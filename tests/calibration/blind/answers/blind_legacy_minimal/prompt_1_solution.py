#!/usr/bin/env python
# process_records.py -- nightly customer export
# Usage: python prompt_1_solution.py records_config.yaml
import json
import logging
import os
import sys
from datetime import datetime, timezone

import yaml

logger = logging.getLogger("process_records")

CORE_FIELDS = ["id", "name", "email", "age", "country", "signup"]


class ConfigError(Exception):
    pass


def load_config(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            config = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        raise ConfigError("cannot load config %s: %s" % (path, e))
    if not isinstance(config, dict):
        raise ConfigError("config %s is not a mapping" % path)
    for key in ("data_source", "reference_date", "validation_rules"):
        if key not in config:
            raise ConfigError("config is missing key: %s" % key)
    rules = config["validation_rules"]
    if not isinstance(rules, dict):
        raise ConfigError("validation_rules is not a mapping")
    for key in ("min_age", "max_age", "required_fields", "allowed_countries"):
        if key not in rules:
            raise ConfigError("config is missing key: validation_rules.%s" % key)
    return config


def load_records(path: str) -> list:
    try:
        with open(path, encoding="utf-8") as f:
            records = json.load(f)
    except (OSError, ValueError) as e:
        raise ConfigError("cannot load records %s: %s" % (path, e))
    if not isinstance(records, list):
        raise ConfigError("records file %s does not contain a list" % path)
    return records


def parse_timestamp(value: object) -> datetime:
    """Parse an ISO timestamp that carries a UTC offset; return it in UTC."""
    if not isinstance(value, str):
        raise ValueError("timestamp is not a string")
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        raise ValueError("timestamp %r has no UTC offset" % value)
    return parsed.astimezone(timezone.utc)


def to_int(value: object) -> int:
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    raise ValueError("not an integer: %r" % (value,))


def is_blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and value.strip() == "")


def clean_record(record: dict, rules: dict, countries: set, reference: datetime) -> dict:
    record_id = to_int(record["id"])
    if record_id < 1:
        raise ValueError("id must be >= 1")
    if not isinstance(record["name"], str):
        raise ValueError("name is not a string")
    email = str(record["email"]).strip().lower()
    if email.count("@") != 1 or email.startswith("@") or "." not in email.split("@")[1]:
        raise ValueError("invalid email %r" % record["email"])
    age = to_int(record["age"])
    if age < rules["min_age"] or age > rules["max_age"]:
        raise ValueError("age %d out of range" % age)
    country = str(record["country"]).strip().upper()
    if country not in countries:
        raise ValueError("country %s not allowed" % country)
    signup = parse_timestamp(record["signup"])
    return {"id": record_id, "name": record["name"].strip(), "email": email,
            "age": age, "country": country,
            "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "days_since_signup": (reference - signup).days}


def process(config: dict, base_dir: str) -> list:
    records = load_records(os.path.join(base_dir, config["data_source"]))
    rules = config["validation_rules"]
    reference = parse_timestamp(str(config["reference_date"]))
    countries = set(str(c).strip().upper() for c in rules["allowed_countries"])
    required = CORE_FIELDS + list(rules["required_fields"])
    kept = {}
    dropped = 0
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            logger.info("record %d dropped: not an object", index)
            dropped += 1
            continue
        missing = None
        for field in required:
            if field not in record or is_blank(record[field]):
                missing = field
                break
        if missing is not None:
            logger.info("record %d dropped: missing %s", index, missing)
            dropped += 1
            continue
        try:
            cleaned = clean_record(record, rules, countries, reference)
        except (ValueError, TypeError, KeyError) as e:
            logger.info("record %d dropped: %s", index, e)
            dropped += 1
            continue
        if cleaned["id"] in kept:
            logger.info("record %d dropped: duplicate id %s", index, cleaned["id"])
            dropped += 1
            continue
        kept[cleaned["id"]] = cleaned
    logger.info("processed %d records: %d kept, %d dropped", len(records), len(kept), dropped)
    return [kept[key] for key in sorted(kept)]


if __name__ == "__main__":
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(levelname)s: %(message)s")
    if len(sys.argv) != 2:
        sys.stderr.write("usage: %s <config.yaml>\n" % sys.argv[0])
        sys.exit(2)
    try:
        config = load_config(sys.argv[1])
        result = process(config, os.path.dirname(os.path.abspath(sys.argv[1])))
    except (ConfigError, ValueError) as e:
        logger.error("%s", e)
        sys.exit(1)
    print(json.dumps(result))
