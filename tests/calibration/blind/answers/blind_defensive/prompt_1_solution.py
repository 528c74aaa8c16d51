#!/usr/bin/env python3
"""Validate nightly customer records and print the kept ones as a JSON array.

Usage: python prompt_1_solution.py <config.yaml>

Only the JSON array is written to stdout. All diagnostics go to stderr via logging.
Exit codes: 0 success, 1 unreadable/invalid config or records file, 2 bad command line.
"""

import argparse
import contextlib
import json
import logging
import os
import re
import sys
from datetime import datetime, timezone
from typing import Any, Dict, Iterator, List, Optional, Tuple

import yaml

LOG = logging.getLogger("prompt_1_solution")

BASE_FIELDS = ("id", "name", "email", "age", "country", "signup")
RULE_KEYS = ("min_age", "max_age", "required_fields", "allowed_countries")
TOP_LEVEL_KEYS = ("data_source", "reference_date", "validation_rules")

# ASCII only on purpose: \d would also accept Arabic-Indic or fullwidth digits.
_ASCII_DIGITS_RE = re.compile(r"[0-9]+")
_TIMESTAMP_RE = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})"
)


class ExportError(Exception):
    """Base class for fatal errors of this program (exit code 1)."""


class ConfigError(ExportError):
    """The config file is unreadable, is not valid YAML or has the wrong shape."""


class RecordsFileError(ExportError):
    """The records file is unreadable, is not valid JSON or is not an array."""


class InvalidRecord(ValueError):
    """A single record breaks a rule; it is dropped, never fatal."""


@contextlib.contextmanager
def translate_errors(error_class: type, what: str) -> Iterator[None]:
    """Turn low-level I/O and parsing errors into one of our fatal error types."""
    try:
        yield
    except FileNotFoundError as exc:
        raise error_class(f"{what}: file not found ({exc.filename})") from exc
    except OSError as exc:
        raise error_class(f"{what}: cannot read file ({exc})") from exc
    except UnicodeDecodeError as exc:
        raise error_class(f"{what}: file is not valid UTF-8 ({exc})") from exc
    except yaml.YAMLError as exc:
        raise error_class(f"{what}: invalid YAML ({exc})") from exc
    except json.JSONDecodeError as exc:
        raise error_class(f"{what}: invalid JSON ({exc})") from exc
    except RecursionError as exc:
        raise error_class(f"{what}: document is nested too deeply") from exc


# ---------------------------------------------------------------------------
# Value parsing helpers
# ---------------------------------------------------------------------------


def parse_strict_int(value: Any) -> Optional[int]:
    """Return an int for a JSON integer or an ASCII digit string, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        stripped = value.strip()
        if stripped and _ASCII_DIGITS_RE.fullmatch(stripped):
            return int(stripped)
    return None


def parse_timestamp(value: Any) -> Optional[datetime]:
    """Parse 'YYYY-MM-DDTHH:MM:SS' + 'Z' or '+HH:MM'/'-HH:MM' into an aware UTC datetime."""
    if not isinstance(value, str):
        return None
    if _TIMESTAMP_RE.fullmatch(value) is None:
        return None
    try:
        parsed = datetime.strptime(value, "%Y-%m-%dT%H:%M:%S%z")
    except ValueError:
        return None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        return None
    try:
        return parsed.astimezone(timezone.utc)
    except OverflowError:
        return None


def is_missing(value: Any) -> bool:
    """True for null and for strings that are empty or whitespace only."""
    if value is None:
        return True
    if isinstance(value, str) and value.strip() == "":
        return True
    return False


# ---------------------------------------------------------------------------
# Config
# ---------------------------------------------------------------------------


def read_config_file(config_path: str) -> Dict[str, Any]:
    """Read and safely parse the YAML config; it must be a mapping."""
    with translate_errors(ConfigError, f"config {config_path!r}"):
        with open(config_path, "r", encoding="utf-8-sig") as handle:
            loaded = yaml.safe_load(handle)
    if not isinstance(loaded, dict):
        raise ConfigError(f"config {config_path!r}: top level must be a mapping, got {type(loaded).__name__}")
    return loaded


def require_mapping_keys(mapping: Dict[str, Any], keys: Tuple[str, ...], where: str) -> None:
    """Raise ConfigError if any of `keys` is missing from `mapping`."""
    missing = [key for key in keys if key not in mapping]
    if missing:
        raise ConfigError(f"{where}: missing required key(s): {', '.join(missing)}")


def require_int_setting(rules: Dict[str, Any], key: str) -> int:
    """Return rules[key] if it is a real integer (bools are rejected)."""
    value = rules[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"validation_rules.{key} must be an integer, got {value!r}")
    return value


def require_string_list_setting(rules: Dict[str, Any], key: str) -> List[str]:
    """Return rules[key] as a list of strings; non-string items are skipped with a warning."""
    value = rules[key]
    if not isinstance(value, list):
        raise ConfigError(f"validation_rules.{key} must be a list, got {type(value).__name__}")
    strings = [item for item in value if isinstance(item, str)]
    if len(strings) != len(value):
        LOG.warning("validation_rules.%s: ignoring %d non-string item(s) (quote them in YAML, "
                    "e.g. 'NO' would otherwise be read as a boolean)", key, len(value) - len(strings))
    return strings


def parse_reference_date(raw_value: Any) -> datetime:
    """Parse the reference date; an aware datetime already produced by YAML is accepted too."""
    if isinstance(raw_value, datetime):
        if raw_value.tzinfo is None or raw_value.utcoffset() is None:
            raise ConfigError("reference_date has no UTC offset")
        return raw_value.astimezone(timezone.utc)
    parsed = parse_timestamp(raw_value)
    if parsed is None:
        raise ConfigError(
            f"reference_date {raw_value!r} is not of the form YYYY-MM-DDTHH:MM:SS followed by Z or +HH:MM/-HH:MM"
        )
    return parsed


def resolve_data_source(raw_value: Any, config_path: str) -> str:
    """Resolve data_source relative to the folder that contains the config file."""
    if not isinstance(raw_value, str) or raw_value.strip() == "":
        raise ConfigError(f"data_source must be a non-empty string, got {raw_value!r}")
    config_folder = os.path.dirname(os.path.abspath(config_path))
    return os.path.join(config_folder, raw_value)


def load_settings(config_path: str) -> Dict[str, Any]:
    """Read the config file and return validated, normalised settings."""
    config = read_config_file(config_path)
    require_mapping_keys(config, TOP_LEVEL_KEYS, "config")
    rules = config["validation_rules"]
    if not isinstance(rules, dict):
        raise ConfigError("validation_rules must be a mapping")
    require_mapping_keys(rules, RULE_KEYS, "validation_rules")
    countries = require_string_list_setting(rules, "allowed_countries")
    return {
        "records_path": resolve_data_source(config["data_source"], config_path),
        "reference_date": parse_reference_date(config["reference_date"]),
        "min_age": require_int_setting(rules, "min_age"),
        "max_age": require_int_setting(rules, "max_age"),
        "required_fields": require_string_list_setting(rules, "required_fields"),
        "allowed_countries": frozenset(code.strip().upper() for code in countries),
    }


def load_records(records_path: str) -> List[Any]:
    """Read the records file (once) and check that it holds a JSON array."""
    with translate_errors(RecordsFileError, f"records file {records_path!r}"):
        with open(records_path, "r", encoding="utf-8-sig") as handle:
            loaded = json.load(handle)
    if not isinstance(loaded, list):
        raise RecordsFileError(f"records file {records_path!r}: expected a JSON array, got {type(loaded).__name__}")
    return loaded


# ---------------------------------------------------------------------------
# Record validation (each check raises InvalidRecord with a reason)
# ---------------------------------------------------------------------------


def check_required_fields(record: Dict[str, Any], required_fields: List[str]) -> None:
    """Rule 1: base fields and configured fields are present, non-null and non-blank."""
    for field_name in BASE_FIELDS + tuple(required_fields):
        if field_name not in record:
            raise InvalidRecord(f"field {field_name!r} is missing")
        if is_missing(record[field_name]):
            raise InvalidRecord(f"field {field_name!r} is null or blank")


def validate_id(value: Any) -> int:
    """Rule 2: JSON integer or ASCII digit string, at least 1."""
    record_id = parse_strict_int(value)
    if record_id is None:
        raise InvalidRecord(f"id {value!r} is not an integer")
    if record_id < 1:
        raise InvalidRecord(f"id {record_id} is below 1")
    return record_id


def validate_name(value: Any) -> str:
    """Rule 3: name must be a string; returned stripped."""
    if not isinstance(value, str):
        raise InvalidRecord(f"name has type {type(value).__name__}, expected a string")
    return value.strip()


def validate_email(value: Any) -> str:
    """Rule 4: one '@', a non-empty local part and a '.' after the '@'."""
    if not isinstance(value, str):
        raise InvalidRecord(f"email has type {type(value).__name__}, expected a string")
    email = value.strip().lower()
    if email.count("@") != 1:
        raise InvalidRecord(f"email {email!r} must contain exactly one '@'")
    local_part, domain = email.split("@")
    if not local_part or "." not in domain:
        raise InvalidRecord(f"email {email!r} is malformed")
    return email


def validate_age(value: Any, min_age: int, max_age: int) -> int:
    """Rule 5: integer (or ASCII digit string) within [min_age, max_age]."""
    age = parse_strict_int(value)
    if age is None:
        raise InvalidRecord(f"age {value!r} is not an integer")
    if age < min_age or age > max_age:
        raise InvalidRecord(f"age {age} is outside [{min_age}, {max_age}]")
    return age


def validate_country(value: Any, allowed_countries: frozenset) -> str:
    """Rule 6: country code (stripped, upper-cased) must be allowed."""
    if not isinstance(value, str):
        raise InvalidRecord(f"country has type {type(value).__name__}, expected a string")
    country = value.strip().upper()
    if country not in allowed_countries:
        raise InvalidRecord(f"country {country!r} is not allowed")
    return country


def validate_signup(value: Any) -> datetime:
    """Rule 7: strict timestamp with 'Z' or an explicit UTC offset."""
    signup = parse_timestamp(value)
    if signup is None:
        raise InvalidRecord(f"signup {value!r} is not a valid timestamp with a UTC offset")
    return signup


def build_clean_record(record: Dict[str, Any], settings: Dict[str, Any]) -> Dict[str, Any]:
    """Apply rules 1-7 to one record and return the output object."""
    check_required_fields(record, settings["required_fields"])
    signup = validate_signup(record["signup"])
    return {
        "id": validate_id(record["id"]),
        "name": validate_name(record["name"]),
        "email": validate_email(record["email"]),
        "age": validate_age(record["age"], settings["min_age"], settings["max_age"]),
        "country": validate_country(record["country"], settings["allowed_countries"]),
        "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "days_since_signup": (settings["reference_date"] - signup).days,
    }


def try_clean_record(index: int, entry: Any, settings: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """Return the cleaned record, or None (with a log line) if it must be dropped."""
    if not isinstance(entry, dict):
        LOG.info("record #%d dropped: not a JSON object (%s)", index, type(entry).__name__)
        return None
    try:
        return build_clean_record(entry, settings)
    except InvalidRecord as exc:
        LOG.info("record #%d (id=%r) dropped: %s", index, entry.get("id"), exc)
        return None


def select_records(entries: List[Any], settings: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Validate all entries, keep the first record per id, sort by id."""
    kept_by_id: Dict[int, Dict[str, Any]] = {}
    for index, entry in enumerate(entries):
        cleaned = try_clean_record(index, entry, settings)
        if cleaned is None:
            continue
        if cleaned["id"] in kept_by_id:
            LOG.info("record #%d dropped: duplicate id %d", index, cleaned["id"])
            continue
        kept_by_id[cleaned["id"]] = cleaned
    LOG.info("kept %d of %d record(s)", len(kept_by_id), len(entries))
    return [kept_by_id[record_id] for record_id in sorted(kept_by_id)]


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    """Command line: exactly one positional argument, the config path."""
    parser = argparse.ArgumentParser(description="Validate customer records and print them as JSON.")
    parser.add_argument("config_path", help="path to the YAML config file")
    return parser.parse_args(argv)


def run(config_path: str) -> int:
    """Load everything, print the result and return the exit code."""
    try:
        settings = load_settings(config_path)
        entries = load_records(settings["records_path"])
    except ExportError as exc:
        LOG.error("%s", exc)
        return 1
    result = select_records(entries, settings)
    sys.stdout.write(json.dumps(result, indent=2, ensure_ascii=True) + "\n")
    sys.stdout.flush()
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    """Configure logging to stderr and run the export."""
    logging.basicConfig(
        level=logging.INFO,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    args = parse_args(argv)
    return run(args.config_path)


if __name__ == "__main__":
    sys.exit(main())
