#!/usr/bin/env python3
"""Nightly customer export: validate records and print the kept ones as JSON.

Usage:
    python prompt_1_solution.py <config.yaml>

stdout carries only the JSON array; every diagnostic goes to stderr via ``logging``
(configured with ``logging.config.dictConfig`` in :func:`main`).
"""

import argparse
import functools
import json
import logging
import logging.config
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, ParamSpec, TypeVar

import yaml

logger = logging.getLogger("customer_export")

ParamsT = ParamSpec("ParamsT")
ReturnT = TypeVar("ReturnT")

CORE_FIELDS = ("id", "name", "email", "age", "country", "signup")
RULE_KEYS = ("min_age", "max_age", "required_fields", "allowed_countries")
# Shape templates for timestamps: every ASCII digit is mapped to "9" before comparing.
DIGIT_MASK = str.maketrans("0123456789", "9999999999")
SIGNUP_SHAPES = frozenset({
    "9999-99-99T99:99:99Z",
    "9999-99-99T99:99:99+99:99",
    "9999-99-99T99:99:99-99:99",
})


class ExportError(Exception):
    """Fatal input problem: unreadable or malformed config/records file."""


class RecordRejected(ValueError):
    """A record fails a validation rule; ``reason`` is a short machine-readable code."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason} {detail}".strip())
        self.reason = reason
        self.detail = detail


def timed(func: Callable[ParamsT, ReturnT]) -> Callable[ParamsT, ReturnT]:
    """Log entry, exit and duration of ``func`` (arguments are deliberately not logged)."""

    @functools.wraps(func)
    def wrapper(*args: ParamsT.args, **kwargs: ParamsT.kwargs) -> ReturnT:
        started = time.perf_counter()
        logger.debug("event=start step=%s", func.__name__)
        try:
            return func(*args, **kwargs)
        finally:
            elapsed_ms = (time.perf_counter() - started) * 1000
            logger.debug("event=finish step=%s elapsed_ms=%.2f", func.__name__, elapsed_ms)

    return wrapper


# ---------------------------------------------------------------- value parsing


def ascii_int(value: Any) -> int | None:
    """JSON integer (not bool) or a string of ASCII digits padded with spaces."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if not isinstance(value, str):
        return None
    digits = value.strip(" ")
    if not (digits.isascii() and digits.isdigit()):
        return None
    try:
        return int(digits)
    except ValueError:  # exceeds sys.get_int_max_str_digits()
        return None


def parse_instant(value: Any) -> datetime | None:
    """Strict ``YYYY-MM-DDTHH:MM:SS`` + ``Z``/``±HH:MM`` timestamp -> aware UTC datetime."""
    if not isinstance(value, str) or value.translate(DIGIT_MASK) not in SIGNUP_SHAPES:
        return None
    try:
        return datetime.fromisoformat(value).astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None


def utc_text(instant: datetime) -> str:
    """Render an aware datetime as ``YYYY-MM-DDTHH:MM:SSZ`` in UTC."""
    return instant.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def is_plain_int(value: Any) -> bool:
    """True for an ``int`` that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_string_list(value: Any) -> bool:
    """True for a list whose items are all strings."""
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def is_blank(value: Any) -> bool:
    """``None`` or an empty / whitespace-only string."""
    return value is None or (isinstance(value, str) and not value.strip())


# ---------------------------------------------------------------- configuration


@timed
def load_config(config_path: Path) -> dict[str, Any]:
    """Read the YAML config with the safe loader and validate its shape."""
    try:
        with config_path.open("r", encoding="utf-8") as handle:
            config = yaml.safe_load(handle)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ExportError(f"cannot load config {config_path}: {exc}") from exc
    if not isinstance(config, dict):
        raise ExportError("config is not a mapping")
    missing = [key for key in ("data_source", "reference_date", "validation_rules") if key not in config]
    if missing:
        raise ExportError(f"config key missing: {missing[0]}")
    return {
        "records_path": resolve_source(config_path, config["data_source"]),
        "reference": resolve_reference(config["reference_date"]),
        **resolve_rules(config["validation_rules"]),
    }


def resolve_source(config_path: Path, data_source: Any) -> Path:
    """``data_source`` relative to the config file's folder."""
    if not isinstance(data_source, str) or is_blank(data_source):
        raise ExportError("data_source must be a non-empty string")
    return config_path.parent / data_source


def resolve_reference(raw_reference: Any) -> datetime:
    """``reference_date`` as an aware UTC datetime."""
    if isinstance(raw_reference, datetime) and raw_reference.tzinfo is not None:
        return raw_reference.astimezone(timezone.utc)
    reference = parse_instant(raw_reference)
    if reference is None:
        raise ExportError(f"reference_date is not a valid timestamp: {raw_reference!r}")
    return reference


def resolve_rules(rules: Any) -> dict[str, Any]:
    """Validate ``validation_rules`` and normalise the country codes."""
    if not isinstance(rules, dict):
        raise ExportError("validation_rules must be a mapping")
    missing = [key for key in RULE_KEYS if key not in rules]
    if missing:
        raise ExportError(f"config key missing: validation_rules.{missing[0]}")
    if not (is_plain_int(rules["min_age"]) and is_plain_int(rules["max_age"])):
        raise ExportError("validation_rules.min_age/max_age must be integers")
    if not (is_string_list(rules["required_fields"]) and is_string_list(rules["allowed_countries"])):
        raise ExportError("required_fields/allowed_countries must be lists of strings")
    return {
        "min_age": rules["min_age"],
        "max_age": rules["max_age"],
        "required": tuple(dict.fromkeys(CORE_FIELDS + tuple(rules["required_fields"]))),
        "countries": frozenset(code.strip().upper() for code in rules["allowed_countries"]),
    }


@timed
def load_records(records_path: Path) -> list[Any]:
    """Read the records file once; it must hold a JSON array."""
    try:
        with records_path.open("r", encoding="utf-8-sig") as handle:
            records = json.load(handle)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ExportError(f"cannot load records {records_path}: {exc}") from exc
    if not isinstance(records, list):
        raise ExportError(f"records file {records_path} does not hold a JSON array")
    logger.info("event=records_loaded path=%s count=%d", records_path, len(records))
    return records


# ---------------------------------------------------------------- record rules


def check_required(record: dict[str, Any], required: tuple[str, ...]) -> None:
    """Rule 1: present, not null, not blank."""
    blank = [name for name in required if is_blank(record.get(name))]
    if blank:
        raise RecordRejected("missing_field", blank[0])


def valid_id(value: Any) -> int:
    """Rule 2: positive integer id."""
    record_key = ascii_int(value)
    if record_key is None or record_key < 1:
        raise RecordRejected("invalid_id", repr(value))
    return record_key


def valid_text(value: Any, field_name: str) -> str:
    """Rule 3 (and shared by 4 and 6): a string, returned stripped."""
    if not isinstance(value, str):
        raise RecordRejected(f"invalid_{field_name}", type(value).__name__)
    return value.strip()


def valid_email(value: Any) -> str:
    """Rule 4: exactly one ``@``, something before it, a ``.`` after it."""
    email = valid_text(value, "email").lower()
    local, _, domain = email.partition("@")
    if email.count("@") != 1 or not local or "." not in domain:
        raise RecordRejected("invalid_email", repr(value))
    return email


def valid_age(value: Any, config: dict[str, Any]) -> int:
    """Rule 5: an integer age within the inclusive bounds."""
    age = ascii_int(value)
    if age is None:
        raise RecordRejected("invalid_age", repr(value))
    if not config["min_age"] <= age <= config["max_age"]:
        raise RecordRejected("age_out_of_range", str(age))
    return age


def valid_country(value: Any, config: dict[str, Any]) -> str:
    """Rule 6: an allowed country code."""
    country = valid_text(value, "country").upper()
    if country not in config["countries"]:
        raise RecordRejected("country_not_allowed", country)
    return country


def valid_signup(value: Any) -> datetime:
    """Rule 7: strict timestamp with ``Z`` or an explicit offset."""
    instant = parse_instant(value)
    if instant is None:
        raise RecordRejected("invalid_signup", repr(value))
    return instant


def build_output(record: Any, config: dict[str, Any]) -> dict[str, Any]:
    """Apply rules 1-7 to one entry and return its output object."""
    if not isinstance(record, dict):
        raise RecordRejected("not_an_object", type(record).__name__)
    check_required(record, config["required"])
    signup = valid_signup(record["signup"])
    return {
        "id": valid_id(record["id"]),
        "name": valid_text(record["name"], "name"),
        "email": valid_email(record["email"]),
        "age": valid_age(record["age"], config),
        "country": valid_country(record["country"], config),
        "signup": utc_text(signup),
        "days_since_signup": (config["reference"] - signup).days,
    }


@timed
def select_records(records: list[Any], config: dict[str, Any]) -> list[dict[str, Any]]:
    """Rules 1-8: validate, keep the first record per id, sort by id."""
    kept: dict[int, dict[str, Any]] = {}
    for index, record in enumerate(records):
        try:
            output = build_output(record, config)
        except RecordRejected as rejection:
            logger.warning("event=record_dropped index=%d reason=%s detail=%s", index, rejection.reason, rejection.detail)
            continue
        if output["id"] in kept:
            logger.warning("event=record_dropped index=%d reason=duplicate_id detail=%d", index, output["id"])
            continue
        kept[output["id"]] = output
    logger.info("event=selection_done total=%d kept=%d dropped=%d", len(records), len(kept), len(records) - len(kept))
    return sorted(kept.values(), key=lambda item: item["id"])


# ---------------------------------------------------------------- entry point


LOGGING_CONFIG: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"structured": {"format": "%(asctime)s level=%(levelname)s logger=%(name)s %(message)s"}},
    "handlers": {
        "stderr": {"class": "logging.StreamHandler", "stream": "ext://sys.stderr", "formatter": "structured"},
    },
    "root": {"level": "INFO", "handlers": ["stderr"]},
}


@timed
def run_export(config_path: Path) -> int:
    """Run the whole export; return the process exit code."""
    try:
        config = load_config(config_path)
        records = load_records(config["records_path"])
    except ExportError as exc:
        logger.error("event=export_failed error=%s", exc)
        return 1
    kept = select_records(records, config)
    sys.stdout.write(json.dumps(kept, indent=2) + "\n")
    return 0


def main() -> int:
    """Parse the command line, configure logging and run the export."""
    parser = argparse.ArgumentParser(description="Export valid customer records as JSON.")
    parser.add_argument("config", type=Path, help="YAML configuration file")
    arguments = parser.parse_args()
    logging.config.dictConfig(LOGGING_CONFIG)
    started = time.perf_counter()
    exit_code = run_export(arguments.config)
    logger.info("event=export_finished exit_code=%d elapsed_s=%.3f", exit_code, time.perf_counter() - started)
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
