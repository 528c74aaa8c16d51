#!/usr/bin/env python3
"""Customer records export.

Loads a YAML config, validates the customer records it names with a registry of field
rules, and prints the kept records as one JSON array on stdout.

Usage: python prompt_1_solution.py <config.yaml>
"""
from __future__ import annotations

import argparse
import enum
import inspect
import json
import logging
import re
import sys
from abc import ABC, ABCMeta, abstractmethod
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, ClassVar, Iterator, Optional

import yaml

log = logging.getLogger("records_export")

ASCII_DIGITS = re.compile(r"[0-9]+")
STRICT_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:Z|[+-][0-9]{2}:[0-9]{2})"
)


class ExitCode(enum.IntEnum):
    """Process exit codes (2, for a wrong command line, is produced by argparse)."""

    SUCCESS = 0
    INPUT_ERROR = 1


class DropReason(enum.Enum):
    """Why a record was dropped."""

    NOT_AN_OBJECT = "not a JSON object"
    MISSING_FIELD = "missing, null or blank field"
    INVALID_VALUE = "invalid value"
    DUPLICATE_ID = "duplicate id"


class InputError(Exception):
    """The config or the records file is unusable: the program exits with code 1."""


class RecordDropped(Exception):
    """A record fails a rule."""

    def __init__(self, reason: DropReason, detail: str) -> None:
        super().__init__(f"{reason.value}: {detail}")
        self.reason = reason


@contextmanager
def input_errors(description: str) -> Iterator[None]:
    """Turn read and parse errors raised inside the block into InputError."""
    try:
        yield
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {description}: {error}") from error
    except (yaml.YAMLError, json.JSONDecodeError) as error:
        raise InputError(f"cannot parse {description}: {error}") from error


# ----------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class Settings:
    """The validated configuration."""

    records_path: Path
    reference_date: datetime
    min_age: int
    max_age: int
    required_fields: tuple[str, ...]
    allowed_countries: frozenset[str]


def parse_utc_timestamp(value: Any) -> Optional[datetime]:
    """An aware UTC datetime for a strict timestamp with Z or +HH:MM, else None."""
    if not isinstance(value, str) or STRICT_TIMESTAMP.fullmatch(value) is None:
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S%z").astimezone(timezone.utc)
    except (ValueError, OverflowError):
        return None


def parse_ascii_int(value: Any) -> Optional[int]:
    """A JSON integer (not a boolean) or a string of ASCII digits, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and ASCII_DIGITS.fullmatch(value.strip()):
        with suppress(ValueError):  # longer than Python's integer string limit
            return int(value.strip())
    return None


# ------------------------------------------------------------------------- field rules


class RuleRegistry(ABCMeta):
    """Metaclass that records every concrete FieldRule under the field it validates."""

    rules: ClassVar[dict[str, RuleRegistry]] = {}

    def __new__(cls, name: str, bases: tuple[type, ...],
                namespace: dict[str, Any]) -> RuleRegistry:
        rule_class = super().__new__(cls, name, bases, namespace)
        if not inspect.isabstract(rule_class) and namespace.get("field"):
            cls.rules[namespace["field"]] = rule_class
        return rule_class


class FieldRule(ABC, metaclass=RuleRegistry):
    """Validates and normalises one output field of a record."""

    field: ClassVar[str] = ""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @abstractmethod
    def normalise(self, value: Any) -> Optional[Any]:
        """The output value, or None when the value breaks the rule."""

    def apply(self, record: dict[str, Any]) -> Any:
        """Normalise the record's value for this field, or raise RecordDropped."""
        value = record[self.field]
        result = self.normalise(value)
        if result is None:
            raise RecordDropped(DropReason.INVALID_VALUE, f"{self.field}={value!r}")
        return result


class IdRule(FieldRule):
    field = "id"

    def normalise(self, value: Any) -> Optional[int]:
        number = parse_ascii_int(value)
        return number if number is not None and number >= 1 else None


class NameRule(FieldRule):
    field = "name"

    def normalise(self, value: Any) -> Optional[str]:
        return value.strip() if isinstance(value, str) else None


class EmailRule(FieldRule):
    field = "email"

    def normalise(self, value: Any) -> Optional[str]:
        if not isinstance(value, str):
            return None
        email = value.strip().lower()
        local_part, _, domain = email.partition("@")
        return email if email.count("@") == 1 and local_part and "." in domain else None


class AgeRule(FieldRule):
    field = "age"

    def normalise(self, value: Any) -> Optional[int]:
        age = parse_ascii_int(value)
        if age is None or not self.settings.min_age <= age <= self.settings.max_age:
            return None
        return age


class CountryRule(FieldRule):
    field = "country"

    def normalise(self, value: Any) -> Optional[str]:
        if not isinstance(value, str):
            return None
        country = value.strip().upper()
        return country if country in self.settings.allowed_countries else None


class SignupRule(FieldRule):
    field = "signup"

    def normalise(self, value: Any) -> Optional[datetime]:
        return parse_utc_timestamp(value)


# ---------------------------------------------------------------------------- records


class RecordValidator:
    """Applies the presence check and every registered field rule to a record."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._rules = [rule_class(settings) for rule_class in RuleRegistry.rules.values()]
        self._present_fields = tuple(dict.fromkeys(
            [*RuleRegistry.rules, *settings.required_fields]))

    def validate(self, raw: Any) -> dict[str, Any]:
        """The output object for a valid record; RecordDropped otherwise."""
        if not isinstance(raw, dict):
            raise RecordDropped(DropReason.NOT_AN_OBJECT, type(raw).__name__)
        self._check_presence(raw)
        values = {rule.field: rule.apply(raw) for rule in self._rules}
        signup: datetime = values["signup"]
        values["signup"] = signup.isoformat().replace("+00:00", "Z")
        values["days_since_signup"] = (self._settings.reference_date - signup).days
        return values

    def _check_presence(self, raw: dict[str, Any]) -> None:
        missing = [name for name in self._present_fields if self._is_blank(raw.get(name))]
        if missing:
            raise RecordDropped(DropReason.MISSING_FIELD, ", ".join(missing))

    @staticmethod
    def _is_blank(value: Any) -> bool:
        return value is None or (isinstance(value, str) and not value.strip())


def keep_records(raw_records: list[Any], validator: RecordValidator) -> list[dict[str, Any]]:
    """Validate each record, keep the first one per id, and sort the result by id."""
    kept: dict[int, dict[str, Any]] = {}
    for position, raw in enumerate(raw_records, start=1):
        try:
            record = validator.validate(raw)
            if record["id"] in kept:
                raise RecordDropped(DropReason.DUPLICATE_ID, str(record["id"]))
        except RecordDropped as dropped:
            log.info("record #%d dropped (%s)", position, dropped)
            continue
        kept[record["id"]] = record
    log.info("kept %d of %d record(s)", len(kept), len(raw_records))
    return [kept[record_id] for record_id in sorted(kept)]


# ----------------------------------------------------------------------------- loading


class ConfigReader:
    """Reads the YAML config and builds Settings from it."""

    TOP_KEYS = ("data_source", "reference_date", "validation_rules")
    RULE_KEYS = ("min_age", "max_age", "required_fields", "allowed_countries")

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> Settings:
        """Load, check and convert the config."""
        with input_errors(f"config {self.path}"):
            with self.path.open(encoding="utf-8") as handle:
                config = yaml.safe_load(handle)
        rules = self._mapping(config, self.TOP_KEYS, "config")
        rules = self._mapping(rules["validation_rules"], self.RULE_KEYS, "validation_rules")
        countries = self._strings(rules, "allowed_countries")
        return Settings(
            records_path=self.path.parent / self._data_source(config["data_source"]),
            reference_date=self._reference_date(config["reference_date"]),
            min_age=self._integer(rules, "min_age"),
            max_age=self._integer(rules, "max_age"),
            required_fields=self._strings(rules, "required_fields"),
            allowed_countries=frozenset(code.strip().upper() for code in countries),
        )

    @staticmethod
    def _mapping(value: Any, keys: tuple[str, ...], section: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise InputError(f"{section} is not a mapping")
        missing = [key for key in keys if key not in value]
        if missing:
            raise InputError(f"{section} lacks key(s): {', '.join(missing)}")
        return value

    @staticmethod
    def _data_source(value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise InputError("data_source must be a non-empty string")
        return value

    @staticmethod
    def _reference_date(value: Any) -> datetime:
        if isinstance(value, datetime) and value.tzinfo is not None:
            return value.astimezone(timezone.utc)
        reference = parse_utc_timestamp(value)
        if reference is None:
            raise InputError(f"reference_date is not a valid timestamp: {value!r}")
        return reference

    @staticmethod
    def _integer(rules: dict[str, Any], key: str) -> int:
        value = rules[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{key} must be an integer")
        return value

    @staticmethod
    def _strings(rules: dict[str, Any], key: str) -> tuple[str, ...]:
        value = rules[key]
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise InputError(f"{key} must be a list of strings")
        return tuple(value)


def read_records(path: Path) -> list[Any]:
    """The records array from the JSON file."""
    with input_errors(f"records file {path}"):
        with path.open(encoding="utf-8") as handle:
            records = json.load(handle)
    if not isinstance(records, list):
        raise InputError(f"records file {path} does not hold a JSON array")
    return records


# -------------------------------------------------------------------------------- main


def main(argv: Optional[list[str]] = None) -> ExitCode:
    """Run the export; the kept records are the only thing written to stdout."""
    parser = argparse.ArgumentParser(description="Export validated customer records.")
    parser.add_argument("config", type=Path, help="YAML config file")
    arguments = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        settings = ConfigReader(arguments.config).read()
        raw_records = read_records(settings.records_path)
    except InputError as error:
        log.error("%s", error)
        return ExitCode.INPUT_ERROR
    kept = keep_records(raw_records, RecordValidator(settings))
    print(json.dumps(kept, indent=2))
    return ExitCode.SUCCESS


if __name__ == "__main__":
    sys.exit(main())
