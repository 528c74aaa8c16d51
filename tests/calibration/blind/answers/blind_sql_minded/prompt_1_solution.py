"""Customer export pipeline.

    extract (config + records)  ->  validate/transform each record  ->
    load into an in-memory SQLite table (dedupe on id, first wins)  ->
    query sorted by id  ->  emit JSON on stdout

Usage: python prompt_1_solution.py <config.yaml>
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sqlite3
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, NamedTuple

import yaml

log = logging.getLogger("customer_export")

CORE_FIELDS = ("id", "name", "email", "age", "country", "signup")
DIGITS = re.compile(r"[0-9]+")
TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:Z|[+-][0-9]{2}:[0-9]{2})")

SCHEMA = """
CREATE TABLE kept_records (
    id_text   TEXT    PRIMARY KEY,   -- canonical decimal id (ids may exceed 64 bits)
    position  INTEGER NOT NULL,      -- position in the records file
    payload   TEXT    NOT NULL       -- output object as JSON
)
"""
INSERT_ROW = "INSERT OR IGNORE INTO kept_records (id_text, position, payload) VALUES (?, ?, ?)"
# Canonical decimal strings without leading zeros sort numerically by (length, text).
SELECT_SORTED = "SELECT payload FROM kept_records ORDER BY LENGTH(id_text), id_text"


class PipelineError(Exception):
    """Fatal input problem: exit code 1."""


class Rejected(ValueError):
    """A record breaks a rule and is dropped."""


@dataclass(frozen=True)
class Rules:
    min_age: int
    max_age: int
    required_fields: tuple[str, ...]
    allowed_countries: frozenset[str]


@dataclass(frozen=True)
class Job:
    records_path: Path
    reference_date: datetime
    rules: Rules


class Row(NamedTuple):
    id_text: str
    position: int
    payload: str


# ---------------------------------------------------------------- extract


def read_yaml(path: Path) -> Any:
    try:
        with path.open(encoding="utf-8") as handle:
            return yaml.safe_load(handle)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise PipelineError(f"cannot load config {path}: {error}") from error


def read_json(path: Path) -> Any:
    try:
        with path.open(encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise PipelineError(f"cannot load records {path}: {error}") from error


def field(mapping: Any, key: str, where: str) -> Any:
    if not isinstance(mapping, dict):
        raise PipelineError(f"{where} is not a mapping")
    if key not in mapping:
        raise PipelineError(f"{where} lacks key {key!r}")
    return mapping[key]


def int_setting(rules: Any, key: str) -> int:
    value = field(rules, key, "validation_rules")
    if isinstance(value, bool) or not isinstance(value, int):
        raise PipelineError(f"validation_rules.{key} must be an integer")
    return value


def str_list_setting(rules: Any, key: str) -> tuple[str, ...]:
    value = field(rules, key, "validation_rules")
    if not isinstance(value, list):
        raise PipelineError(f"validation_rules.{key} must be a list")
    strings = tuple(item for item in value if isinstance(item, str))
    if len(strings) != len(value):
        log.warning("validation_rules.%s: ignored %d non-string entries", key, len(value) - len(strings))
    return strings


def reference_instant(value: Any) -> datetime:
    if isinstance(value, datetime) and value.utcoffset() is not None:
        return value.astimezone(timezone.utc)
    instant = to_utc(value)
    if instant is None:
        raise PipelineError(f"reference_date {value!r} is not a timestamp with a UTC offset")
    return instant


def build_job(config_path: Path) -> Job:
    config = read_yaml(config_path)
    source = field(config, "data_source", "config")
    if not isinstance(source, str) or not source.strip():
        raise PipelineError("data_source must be a non-empty string")
    reference = reference_instant(field(config, "reference_date", "config"))
    raw_rules = field(config, "validation_rules", "config")
    rules = Rules(
        min_age=int_setting(raw_rules, "min_age"),
        max_age=int_setting(raw_rules, "max_age"),
        required_fields=str_list_setting(raw_rules, "required_fields"),
        allowed_countries=frozenset(code.strip().upper() for code in str_list_setting(raw_rules, "allowed_countries")),
    )
    return Job(records_path=config_path.parent / source, reference_date=reference, rules=rules)


def extract_records(path: Path) -> list[Any]:
    data = read_json(path)
    if not isinstance(data, list):
        raise PipelineError(f"records file {path} does not contain a JSON array")
    return data


# ---------------------------------------------------------------- transform


def to_int(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and DIGITS.fullmatch(value.strip()):
        return int(value.strip())
    return None


def to_utc(value: Any) -> datetime | None:
    if not isinstance(value, str) or not TIMESTAMP.fullmatch(value):
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S%z").astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None


def require(condition: bool, reason: str) -> None:
    if not condition:
        raise Rejected(reason)


def blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def clean_email(value: Any) -> str:
    require(isinstance(value, str), "email is not a string")
    email = value.strip().lower()
    local, _, domain = email.partition("@")
    require(email.count("@") == 1 and bool(local) and "." in domain, f"invalid email {email!r}")
    return email


def transform(record: dict[str, Any], job: Job) -> dict[str, Any]:
    rules = job.rules
    missing = [name for name in CORE_FIELDS + rules.required_fields if name not in record or blank(record[name])]
    require(not missing, f"missing or blank: {', '.join(missing)}")
    record_id, age = to_int(record["id"]), to_int(record["age"])
    require(record_id is not None and record_id >= 1, f"invalid id {record['id']!r}")
    require(isinstance(record["name"], str), "name is not a string")
    require(age is not None, f"invalid age {record['age']!r}")
    require(rules.min_age <= age <= rules.max_age, f"age {age} out of range")
    country = record["country"].strip().upper() if isinstance(record["country"], str) else None
    require(country in rules.allowed_countries, f"country {record['country']!r} not allowed")
    signup = to_utc(record["signup"])
    require(signup is not None, f"invalid signup {record['signup']!r}")
    return {
        "id": record_id,
        "name": record["name"].strip(),
        "email": clean_email(record["email"]),
        "age": age,
        "country": country,
        "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "days_since_signup": (job.reference_date - signup).days,
    }


def valid_rows(records: Iterable[Any], job: Job) -> Iterator[Row]:
    for position, record in enumerate(records):
        if not isinstance(record, dict):
            log.info("#%d dropped: not a JSON object", position)
            continue
        try:
            cleaned = transform(record, job)
        except Rejected as reason:
            log.info("#%d dropped: %s", position, reason)
            continue
        yield Row(str(cleaned["id"]), position, json.dumps(cleaned))


# ---------------------------------------------------------------- load + query


def load_and_query(rows: Iterable[Row]) -> list[dict[str, Any]]:
    connection = sqlite3.connect(":memory:")
    try:
        connection.execute(SCHEMA)
        for row in rows:
            inserted = connection.execute(INSERT_ROW, row).rowcount
            if not inserted:
                log.info("#%d dropped: duplicate id %s", row.position, row.id_text)
        payloads = connection.execute(SELECT_SORTED).fetchall()
    finally:
        connection.close()
    return [json.loads(payload) for (payload,) in payloads]


# ---------------------------------------------------------------- main


def run(config_path: Path) -> int:
    try:
        job = build_job(config_path)
        records = extract_records(job.records_path)
    except PipelineError as error:
        log.error("%s", error)
        return 1
    kept = load_and_query(valid_rows(records, job))
    log.info("kept %d of %d records", len(kept), len(records))
    print(json.dumps(kept, indent=2))
    return 0


def main() -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(message)s")
    parser = argparse.ArgumentParser(description="Validate and export customer records.")
    parser.add_argument("config", type=Path, help="YAML config file")
    return run(parser.parse_args().config)


if __name__ == "__main__":
    sys.exit(main())
