#!/usr/bin/env python3
"""Validate the nightly customer export and print the kept records as JSON.

Usage: python prompt_1_solution.py records_config.yaml

The input files are read off the event loop (``asyncio.to_thread``); the
validation itself is plain synchronous code.
stdout carries only the JSON array; every diagnostic goes to stderr via logging.
"""
import argparse
import asyncio
import json
import logging
import re
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypedDict

import yaml

log = logging.getLogger("records")

MANDATORY_FIELDS = ("id", "name", "email", "age", "country", "signup")
TOP_LEVEL_KEYS = ("data_source", "reference_date", "validation_rules")
RULE_KEYS = ("min_age", "max_age", "required_fields", "allowed_countries")
SIGNUP_PATTERN = re.compile(
    r"(?P<stamp>[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2})"
    r"(?P<offset>Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
)


class ConfigError(Exception):
    """The config or the records file cannot be used (exit code 1)."""


class InvalidRecord(Exception):
    """A single record fails validation; it is dropped, never fatal."""


class Settings(TypedDict):
    data_source: Path
    reference_date: datetime
    min_age: int
    max_age: int
    required_fields: list[str]
    allowed_countries: set[str]


CleanRecord = TypedDict("CleanRecord", {
    "id": int,
    "name": str,
    "email": str,
    "age": int,
    "country": str,
    "signup": str,
    "days_since_signup": int,
})


# ---------------------------------------------------------------- parsing ----
def parse_timestamp(raw: Any) -> datetime:
    """Strict ``YYYY-MM-DDTHH:MM:SS`` + ``Z``/``±HH:MM``, returned as aware UTC."""
    match = SIGNUP_PATTERN.fullmatch(raw) if isinstance(raw, str) else None
    if match is None:
        raise InvalidRecord(f"bad timestamp {raw!r} (offset required, no fractions)")
    offset = "+00:00" if match["offset"] == "Z" else match["offset"]
    try:
        moment = datetime.fromisoformat(match["stamp"] + offset)
    except ValueError as exc:
        raise InvalidRecord(f"impossible timestamp {raw!r}: {exc}") from exc
    return moment.astimezone(timezone.utc)


def parse_whole_number(raw: Any, label: str) -> int:
    """JSON integer (not bool) or ASCII digits with optional surrounding spaces."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str):
        digits = raw.strip(" ")
        if digits.isascii() and digits.isdigit():
            return int(digits)
    raise InvalidRecord(f"{label} is not a whole number: {raw!r}")


def is_blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip() == "")


def check_presence(record: dict[str, Any], fields: list[str]) -> None:
    blank = [name for name in fields if name not in record or is_blank(record[name])]
    if blank:
        raise InvalidRecord(f"missing/empty field(s): {', '.join(blank)}")


def clean_email(raw: Any) -> str:
    email = raw.strip().lower() if isinstance(raw, str) else ""
    local, at_sign, domain = email.partition("@")
    if not at_sign or email.count("@") != 1 or not local or "." not in domain:
        raise InvalidRecord(f"invalid email {raw!r}")
    return email


def clean_country(raw: Any, allowed: set[str]) -> str:
    country = raw.strip().upper() if isinstance(raw, str) else None
    if country not in allowed:
        raise InvalidRecord(f"country {raw!r} not allowed")
    return country


def clean_age(raw: Any, settings: Settings) -> int:
    age = parse_whole_number(raw, "age")
    if not settings["min_age"] <= age <= settings["max_age"]:
        raise InvalidRecord(f"age {age} outside {settings['min_age']}..{settings['max_age']}")
    return age


def clean_id(raw: Any) -> int:
    record_id = parse_whole_number(raw, "id")
    if record_id < 1:
        raise InvalidRecord(f"id {record_id} is below 1")
    return record_id


def clean_record(record: Any, settings: Settings) -> CleanRecord:
    """Validate one raw entry; raise InvalidRecord explaining why it is dropped."""
    if not isinstance(record, dict):
        raise InvalidRecord(f"entry is a {type(record).__name__}, not an object")
    check_presence(record, [*MANDATORY_FIELDS, *settings["required_fields"]])
    if not isinstance(record["name"], str):
        raise InvalidRecord("name is not a string")
    signup = parse_timestamp(record["signup"])
    return {
        "id": clean_id(record["id"]),
        "name": record["name"].strip(),
        "email": clean_email(record["email"]),
        "age": clean_age(record["age"], settings),
        "country": clean_country(record["country"], settings["allowed_countries"]),
        "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "days_since_signup": (settings["reference_date"] - signup).days,
    }


def keep_valid(records: list[Any], settings: Settings) -> list[CleanRecord]:
    """Validate, drop duplicates (first occurrence wins) and sort by id."""
    kept: dict[int, CleanRecord] = {}
    for index, record in enumerate(records):
        try:
            cleaned = clean_record(record, settings)
        except InvalidRecord as reason:
            log.info("record %d dropped: %s", index, reason)
            continue
        if cleaned["id"] in kept:
            log.info("record %d dropped: duplicate id %d", index, cleaned["id"])
            continue
        kept[cleaned["id"]] = cleaned
    log.info("%d of %d records kept", len(kept), len(records))
    return [kept[key] for key in sorted(kept)]


# ----------------------------------------------------------------- config ----
def as_int(section: dict[str, Any], key: str) -> int:
    value = section[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"validation_rules.{key} must be an integer")
    return value


def as_str_list(section: dict[str, Any], key: str) -> list[str]:
    value = section[key]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"validation_rules.{key} must be a list of strings")
    return value


def reference_instant(raw: Any) -> datetime:
    if isinstance(raw, datetime) and raw.tzinfo is not None:  # unquoted YAML timestamp
        return raw.astimezone(timezone.utc)
    try:
        return parse_timestamp(raw)
    except InvalidRecord as exc:
        raise ConfigError(f"reference_date: {exc}") from exc


def require_keys(config: dict[str, Any]) -> dict[str, Any]:
    """Check every required key is there; return the validation_rules section."""
    missing = [key for key in TOP_LEVEL_KEYS if key not in config]
    rules = config.get("validation_rules")
    if isinstance(rules, dict):
        missing += [f"validation_rules.{key}" for key in RULE_KEYS if key not in rules]
    elif "validation_rules" in config:
        raise ConfigError("validation_rules is not a mapping")
    if missing:
        raise ConfigError(f"config lacks key(s): {', '.join(missing)}")
    return rules


def build_settings(config: Any, config_path: Path) -> Settings:
    if not isinstance(config, dict):
        raise ConfigError("config is not a YAML mapping")
    rules = require_keys(config)
    if not isinstance(config["data_source"], str):
        raise ConfigError("data_source must be a string")
    return {
        "data_source": config_path.parent / config["data_source"],
        "reference_date": reference_instant(config["reference_date"]),
        "min_age": as_int(rules, "min_age"),
        "max_age": as_int(rules, "max_age"),
        "required_fields": as_str_list(rules, "required_fields"),
        "allowed_countries": {code.strip().upper() for code in as_str_list(rules, "allowed_countries")},
    }


# -------------------------------------------------------------------- I/O ----
async def read_text(path: Path, what: str) -> str:
    try:
        return await asyncio.to_thread(path.read_text, encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {what} {path}: {exc}") from exc


async def load_settings(config_path: Path) -> Settings:
    text = await read_text(config_path, "config")
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"config {config_path} is not valid YAML: {exc}") from exc
    return build_settings(config, config_path)


async def load_records(path: Path) -> list[Any]:
    text = await read_text(path, "records file")
    try:
        records = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"records file {path} is not valid JSON: {exc}") from exc
    if not isinstance(records, list):
        raise ConfigError(f"records file {path} does not contain a JSON array")
    return records


async def export(config_path: Path) -> list[CleanRecord]:
    settings = await load_settings(config_path)
    records = await load_records(settings["data_source"])
    return keep_valid(records, settings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", type=Path, help="YAML config file")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)-7s %(message)s")
    try:
        cleaned = asyncio.run(export(args.config))
    except ConfigError as exc:
        log.error("%s", exc)
        return 1
    print(json.dumps(cleaned, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
