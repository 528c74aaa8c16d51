#!/usr/bin/env python3
"""Nightly customer export: a safe, validated rewrite of ``process_records.py``.

Overview
========

The program reads a YAML configuration file, loads the customer records the configuration
points to (a JSON array), keeps only the records that pass every validation rule, and prints
the kept records to **stdout** as one JSON array, sorted by id.

Everything else (why a record was dropped, how many records were kept, fatal errors) is
written to **stderr** through the :mod:`logging` module, so stdout always stays clean,
machine-readable JSON.

Usage
-----

Run it from the config file's folder::

    $ python prompt_1_solution.py records_config.yaml > customers.json

Exit codes
----------

* ``0``: success (also when no record is kept; the output is then ``[]``);
* ``1``: the config or the records file cannot be read, parsed, or has the wrong shape;
* ``2``: wrong command line (reported by :mod:`argparse`).

Configuration
-------------

.. code-block:: yaml

    data_source: records.json            # relative to the config file's folder
    reference_date: "2025-01-01T00:00:00Z"
    validation_rules:
      min_age: 18                        # inclusive
      max_age: 65                        # inclusive
      required_fields: [name, email, country]
      allowed_countries: [US, CA, DE]

Example
-------

>>> rules = ValidationRules(18, 65, ("name",), frozenset({"CA"}))
>>> raw = {"id": 2, "name": "  Bob Jones ", "email": "Bob.Jones@Example.COM",
...        "age": "42", "country": "ca", "signup": "2024-06-01T23:30:00-05:00"}
>>> reference = parse_timestamp("2025-01-01T00:00:00Z")
>>> validate_record(raw, rules, reference)  # doctest: +NORMALIZE_WHITESPACE
{'id': 2, 'name': 'Bob Jones', 'email': 'bob.jones@example.com', 'age': 42,
 'country': 'CA', 'signup': '2024-06-02T04:30:00Z', 'days_since_signup': 212}
"""
from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

import yaml

logger = logging.getLogger("customer_export")

# The six fields every record must carry, whatever ``required_fields`` says.
CORE_FIELDS: tuple[str, ...] = ("id", "name", "email", "age", "country", "signup")

# Keys the config must define; a missing one is a fatal error (exit code 1).
TOP_LEVEL_KEYS: tuple[str, ...] = ("data_source", "reference_date", "validation_rules")
RULE_KEYS: tuple[str, ...] = ("min_age", "max_age", "required_fields", "allowed_countries")

# ``[0-9]`` on purpose: ``\d`` and ``str.isdigit()`` also accept Arabic-Indic or fullwidth
# digits, which ``int()`` would then happily convert.
ASCII_INTEGER = re.compile(r"[0-9]+")

# Exactly ``YYYY-MM-DDTHH:MM:SS`` followed by ``Z`` or ``+HH:MM`` / ``-HH:MM``. Used with
# ``fullmatch`` so that nothing (not even a trailing newline) may come before or after.
TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:Z|[+-][0-9]{2}:[0-9]{2})"
)


class ExportError(Exception):
    """A fatal problem with the config or the records file (leads to exit code 1)."""


@dataclass(frozen=True)
class ValidationRules:
    """The record-level rules taken from ``validation_rules`` in the config.

    ``allowed_countries`` holds codes that are already stripped and upper-cased.
    """

    min_age: int
    max_age: int
    required_fields: tuple[str, ...]
    allowed_countries: frozenset[str]


@dataclass(frozen=True)
class ExportSettings:
    """Everything the export needs, validated and resolved."""

    records_path: Path
    reference_date: datetime
    rules: ValidationRules


# ---------------------------------------------------------------------------------------
# Small value parsers. Each returns ``None`` for an unusable value instead of raising, so
# that a bad record can simply be dropped.
# ---------------------------------------------------------------------------------------


def parse_ascii_int(value: Any) -> Optional[int]:
    """Parse an integer that is a JSON integer or a string of ASCII digits.

    Booleans are rejected even though ``bool`` is a subclass of ``int``, and so are floats
    (``30.0`` included) and digits from other scripts.

    >>> parse_ascii_int(42), parse_ascii_int(" 27 "), parse_ascii_int("007")
    (42, 27, 7)
    >>> [parse_ascii_int(bad) for bad in (True, 30.0, "4 2", "-5", "\\u0664\\u0662", "")]
    [None, None, None, None, None, None]
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if ASCII_INTEGER.fullmatch(text):
            return _digits_to_int(text)
    return None


def _digits_to_int(digits: str) -> Optional[int]:
    """Convert ASCII digits to an int; None when Python refuses the length.

    Python 3.11 limits ``int()`` on strings to 4300 digits by default.

    >>> _digits_to_int("0042"), _digits_to_int("9" * 5000)
    (42, None)
    """
    try:
        return int(digits)
    except ValueError:
        return None


def parse_timestamp(value: Any) -> Optional[datetime]:
    """Parse a strict timestamp with a UTC offset into an aware UTC datetime.

    >>> parse_timestamp("2024-06-01T23:30:00-05:00")
    datetime.datetime(2024, 6, 2, 4, 30, tzinfo=datetime.timezone.utc)

    Timestamps without an offset are refused rather than silently assumed to be UTC, and
    so are fractional seconds, impossible dates and surrounding whitespace:

    >>> [parse_timestamp(bad) for bad in ("2024-05-10T12:00:00", "2024-02-30T10:00:00Z",
    ...                                   "2024-05-10T12:00:00.5Z", "2024-05-10T12:00:00Z\\n")]
    [None, None, None, None]
    """
    if not isinstance(value, str) or not TIMESTAMP.fullmatch(value):
        return None
    try:
        # ``%z`` understands both "Z" and "+HH:MM" and checks the offset's range.
        parsed = datetime.strptime(value, "%Y-%m-%dT%H:%M:%S%z")
        return parsed.astimezone(timezone.utc)
    except (ValueError, OverflowError):  # impossible date, or out of range once in UTC
        return None


def format_utc(moment: datetime) -> str:
    """Format an aware datetime in UTC as ``YYYY-MM-DDTHH:MM:SSZ``.

    >>> format_utc(parse_timestamp("2024-11-30T18:45:00+05:30"))
    '2024-11-30T13:15:00Z'
    """
    # isoformat() always writes a four-digit year, unlike strftime("%Y") on some platforms.
    return moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def normalise_email(value: Any) -> Optional[str]:
    """Strip and lower-case an address; it needs one ``@``, a local part and a dot after.

    >>> normalise_email("  Kara.Nowak@Example.ORG ")
    'kara.nowak@example.org'
    >>> [normalise_email(bad) for bad in ("not-an-email", "@example.com", "a@b@c.com", "a@com")]
    [None, None, None, None]
    """
    if not isinstance(value, str):
        return None
    email = value.strip().lower()
    local_part, _, domain = email.partition("@")
    if email.count("@") != 1 or not local_part or "." not in domain:
        return None
    return email


def normalise_country(value: Any, allowed: frozenset[str]) -> Optional[str]:
    """Strip and upper-case a country code and check it against the allowed codes.

    >>> normalise_country(" us ", frozenset({"US", "CA"}))
    'US'
    >>> normalise_country("FR", frozenset({"US", "CA"})) is None
    True
    """
    if not isinstance(value, str):
        return None
    country = value.strip().upper()
    return country if country in allowed else None


# ---------------------------------------------------------------------------------------
# Record validation
# ---------------------------------------------------------------------------------------


class InvalidRecord(ValueError):
    """Raised for a record that must be dropped; the message says why."""


def is_blank(value: Any) -> bool:
    """Return True for ``None`` and for strings that are empty or whitespace only.

    >>> is_blank(None), is_blank("   "), is_blank(""), is_blank(0), is_blank("x")
    (True, True, True, False, False)
    """
    return value is None or (isinstance(value, str) and not value.strip())


def check_presence(raw: dict[str, Any], rules: ValidationRules) -> None:
    """Raise InvalidRecord unless every core and required field is present and non-blank.

    Fields from ``required_fields`` that are not core fields are only checked here; their
    values are not validated further and do not appear in the output.
    """
    wanted = dict.fromkeys(CORE_FIELDS + rules.required_fields)  # ordered, no repeats
    missing = [field for field in wanted if is_blank(raw.get(field))]
    if missing:
        raise InvalidRecord(f"missing or empty field(s): {', '.join(missing)}")


def valid_or_raise(field: str, parsed: Optional[Any], original: Any) -> Any:
    """Return ``parsed`` unless it is None, in which case the field is reported invalid."""
    if parsed is None:
        raise InvalidRecord(f"invalid {field}: {original!r}")
    return parsed


def parse_record_id(value: Any) -> Optional[int]:
    """Parse an id: an ASCII integer that is at least 1.

    >>> parse_record_id(" 8 "), parse_record_id(0), parse_record_id("A-20")
    (8, None, None)
    """
    record_id = parse_ascii_int(value)
    return record_id if record_id is not None and record_id >= 1 else None


def parse_age(value: Any, rules: ValidationRules) -> Optional[int]:
    """Parse an age and check the inclusive bounds ``min_age <= age <= max_age``.

    >>> rules = ValidationRules(18, 65, (), frozenset())
    >>> parse_age(18, rules), parse_age("65", rules), parse_age(17, rules), parse_age(30.5, rules)
    (18, 65, None, None)
    """
    age = parse_ascii_int(value)
    return age if age is not None and rules.min_age <= age <= rules.max_age else None


def parse_name(value: Any) -> Optional[str]:
    """Return the name stripped of surrounding whitespace (only strings are names)."""
    return value.strip() if isinstance(value, str) else None


def validate_record(raw: Any, rules: ValidationRules, reference: datetime) -> dict[str, Any]:
    """Validate one raw record and return its seven-key output object.

    Raises InvalidRecord (with a human-readable reason) when the record must be dropped.
    """
    if not isinstance(raw, dict):
        raise InvalidRecord(f"not a JSON object but {type(raw).__name__}")
    check_presence(raw, rules)
    signup = valid_or_raise("signup", parse_timestamp(raw["signup"]), raw["signup"])
    country = normalise_country(raw["country"], rules.allowed_countries)
    return {
        "id": valid_or_raise("id", parse_record_id(raw["id"]), raw["id"]),
        "name": valid_or_raise("name", parse_name(raw["name"]), raw["name"]),
        "email": valid_or_raise("email", normalise_email(raw["email"]), raw["email"]),
        "age": valid_or_raise("age", parse_age(raw["age"], rules), raw["age"]),
        "country": valid_or_raise("country", country, raw["country"]),
        "signup": format_utc(signup),
        # timedelta.days rounds towards minus infinity, i.e. "whole days, rounded down".
        "days_since_signup": (reference - signup).days,
    }


def select_records(raw_records: list[Any], settings: ExportSettings) -> list[dict[str, Any]]:
    """Validate every record, keep the first record per id, and sort by id.

    >>> rules = ValidationRules(18, 65, (), frozenset({"US"}))
    >>> settings = ExportSettings(Path("x.json"), parse_timestamp("2025-01-01T00:00:00Z"), rules)
    >>> good = {"id": "8", "name": "A", "email": "a@b.co", "age": 30, "country": "US",
    ...         "signup": "2024-12-31T00:00:00Z"}
    >>> later = dict(good, id=8, name="Duplicate")
    >>> [(out["id"], out["name"]) for out in select_records([later | {"id": 9}, good, later],
    ...                                                      settings)]
    [(8, 'A'), (9, 'Duplicate')]
    """
    kept: dict[int, dict[str, Any]] = {}
    for position, raw in enumerate(raw_records, start=1):
        try:
            output = validate_record(raw, settings.rules, settings.reference_date)
        except InvalidRecord as reason:
            logger.info("record #%d dropped: %s", position, reason)
            continue
        if output["id"] in kept:
            logger.info("record #%d dropped: duplicate id %d", position, output["id"])
            continue
        kept[output["id"]] = output
    logger.info("kept %d of %d record(s)", len(kept), len(raw_records))
    return [kept[record_id] for record_id in sorted(kept)]


# ---------------------------------------------------------------------------------------
# Reading and checking the input files
# ---------------------------------------------------------------------------------------


def read_text_file(path: Path, what: str) -> str:
    """Read a whole UTF-8 text file, turning I/O problems into ExportError."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ExportError(f"cannot read the {what} {path}: {error}") from error


def load_config(path: Path) -> dict[str, Any]:
    """Load the YAML config with the *safe* loader; it must be a mapping."""
    try:
        config = yaml.safe_load(read_text_file(path, "config file"))
    except yaml.YAMLError as error:
        raise ExportError(f"the config file {path} is not valid YAML: {error}") from error
    if not isinstance(config, dict):
        raise ExportError(f"the config file {path} does not contain a mapping")
    return config


def load_records(path: Path) -> list[Any]:
    """Load the records file; it must contain a JSON array."""
    try:
        records = json.loads(read_text_file(path, "records file"))
    except json.JSONDecodeError as error:
        raise ExportError(f"the records file {path} is not valid JSON: {error}") from error
    if not isinstance(records, list):
        raise ExportError(f"the records file {path} does not contain a JSON array")
    return records


def require_keys(mapping: dict[str, Any], keys: tuple[str, ...], section: str) -> None:
    """Raise ExportError listing the keys of ``keys`` that ``mapping`` lacks."""
    missing = [key for key in keys if key not in mapping]
    if missing:
        raise ExportError(f"the config lacks {section} key(s): {', '.join(missing)}")


def config_int(rules: dict[str, Any], key: str) -> int:
    """Return an integer rule (YAML booleans are not accepted as integers)."""
    value = rules[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ExportError(f"validation_rules.{key} must be an integer, not {value!r}")
    return value


def config_strings(rules: dict[str, Any], key: str) -> tuple[str, ...]:
    """Return a rule that must be a list of strings."""
    value = rules[key]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ExportError(f"validation_rules.{key} must be a list of strings")
    return tuple(value)


def config_reference_date(config: dict[str, Any]) -> datetime:
    """Return the reference date as an aware UTC datetime.

    An unquoted timestamp is turned into a ``datetime`` by the YAML loader already; it is
    accepted when it carries a UTC offset.
    """
    value = config["reference_date"]
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(timezone.utc)
    reference = parse_timestamp(value)
    if reference is None:
        raise ExportError(f"reference_date is not a valid timestamp: {value!r}")
    return reference


def build_settings(config: dict[str, Any], config_dir: Path) -> ExportSettings:
    """Check the config's shape and resolve it into ExportSettings."""
    require_keys(config, TOP_LEVEL_KEYS, "top-level")
    rules = config["validation_rules"]
    if not isinstance(rules, dict):
        raise ExportError("validation_rules must be a mapping")
    require_keys(rules, RULE_KEYS, "validation_rules")
    data_source = config["data_source"]
    if not isinstance(data_source, str) or not data_source.strip():
        raise ExportError("data_source must be a non-empty string")
    countries = config_strings(rules, "allowed_countries")
    return ExportSettings(
        records_path=config_dir / data_source,  # relative to the config file's folder
        reference_date=config_reference_date(config),
        rules=ValidationRules(
            min_age=config_int(rules, "min_age"),
            max_age=config_int(rules, "max_age"),
            required_fields=config_strings(rules, "required_fields"),
            allowed_countries=frozenset(code.strip().upper() for code in countries),
        ),
    )


# ---------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    """Parse the command line; argparse exits with code 2 on a wrong command line."""
    parser = argparse.ArgumentParser(
        description="Validate customer records and print the kept ones as JSON.")
    parser.add_argument("config", type=Path, help="the YAML config file")
    return parser.parse_args(argv)


def main(argv: Optional[list[str]] = None) -> int:
    """Run the export and return the exit code (0 on success, 1 on a fatal error)."""
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(levelname)s: %(message)s")
    try:
        settings = build_settings(load_config(args.config), args.config.parent)
        raw_records = load_records(settings.records_path)
    except ExportError as error:
        logger.error("%s", error)
        return 1
    kept = select_records(raw_records, settings)
    # Only the JSON array goes to stdout; everything else went to stderr above.
    print(json.dumps(kept, indent=2))
    return 0


if __name__ == "__main__":
    # Demo / real run: ``python prompt_1_solution.py records_config.yaml``.
    sys.exit(main())
