#!/usr/bin/env python3
"""Nightly customer export.

Reads a YAML configuration, loads customer records from the JSON file it names,
validates every record against the configured rules and prints the kept records
as one JSON array on stdout. Diagnostics go to stderr through ``logging``.

Usage:
    python prompt_1_solution.py <config.yaml>

Architecture (one layer per concern):
    * configuration layer  - ``ConfigLoader`` -> ``ExportConfig``
    * data access layer     - ``RecordRepository``
    * validation layer      - ``FieldRule`` strategies composed by ``RecordValidator``
    * processing layer      - ``ExportService`` (validation, de-duplication, ordering)
    * output layer          - ``JsonArrayWriter``
"""

import argparse
import json
import logging
import sys
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum, IntEnum
from pathlib import Path
from typing import Any, Mapping, Sequence, TextIO

import yaml

LOGGER = logging.getLogger("customer_export")

MANDATORY_FIELDS: tuple[str, ...] = ("id", "name", "email", "age", "country", "signup")
ASCII_DIGITS = frozenset("0123456789")
TIMESTAMP_TEMPLATE = "DDDD-DD-DDTDD:DD:DD"


class ExitCode(IntEnum):
    """Process exit codes."""

    SUCCESS = 0
    FAILURE = 1


class DropReason(str, Enum):
    """Why a record was not exported."""

    NOT_AN_OBJECT = "entry is not a JSON object"
    MISSING_FIELD = "required field missing, null or blank"
    INVALID_ID = "id is not a positive integer"
    INVALID_NAME = "name is not a string"
    INVALID_EMAIL = "email is malformed"
    INVALID_AGE = "age is not an integer"
    AGE_OUT_OF_RANGE = "age outside the configured bounds"
    COUNTRY_NOT_ALLOWED = "country is not an allowed country"
    INVALID_SIGNUP = "signup is not a timestamp with a UTC offset"
    DUPLICATE_ID = "duplicate id"


class ExportError(Exception):
    """A fatal problem with the configuration or the records file."""


# --------------------------------------------------------------------------- #
# Configuration layer
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class ValidationRules:
    """Validation settings taken from ``validation_rules``."""

    min_age: int
    max_age: int
    required_fields: tuple[str, ...]
    allowed_countries: frozenset[str]


@dataclass(frozen=True)
class ExportConfig:
    """The complete, validated export configuration."""

    data_source: Path
    reference_date: datetime
    rules: ValidationRules


class TimestampParser:
    """Strict parser for ``YYYY-MM-DDTHH:MM:SS`` followed by ``Z`` or ``+HH:MM``/``-HH:MM``."""

    def parse(self, raw_value: Any) -> datetime | None:
        """Return the instant as an aware UTC datetime, or ``None`` when invalid."""
        if not isinstance(raw_value, str) or not self._has_valid_shape(raw_value):
            return None
        normalised = raw_value[:-1] + "+00:00" if raw_value.endswith("Z") else raw_value
        try:
            parsed = datetime.strptime(normalised, "%Y-%m-%dT%H:%M:%S%z")
            return parsed.astimezone(timezone.utc)
        except (ValueError, OverflowError):
            return None

    @staticmethod
    def _has_valid_shape(raw_value: str) -> bool:
        if raw_value.endswith("Z"):
            return TimestampParser._matches_template(raw_value[:-1], TIMESTAMP_TEMPLATE)
        offset_template = TIMESTAMP_TEMPLATE + "?DD:DD"
        if len(raw_value) != len(offset_template) or raw_value[-6] not in "+-":
            return False
        return TimestampParser._matches_template(raw_value, offset_template)

    @staticmethod
    def _matches_template(text: str, template: str) -> bool:
        if len(text) != len(template):
            return False
        return all(
            (expected == "D" and char in ASCII_DIGITS)
            or expected == "?"
            or char == expected
            for char, expected in zip(text, template)
        )


class ConfigLoader:
    """Reads and validates the YAML configuration file."""

    REQUIRED_RULE_KEYS: tuple[str, ...] = (
        "min_age",
        "max_age",
        "required_fields",
        "allowed_countries",
    )

    def __init__(self, timestamp_parser: TimestampParser | None = None) -> None:
        self._timestamps = timestamp_parser or TimestampParser()

    def load(self, config_path: Path) -> ExportConfig:
        """Load ``config_path`` and build an ``ExportConfig``; raise ``ExportError``."""
        document = self._read_yaml(config_path)
        for key in ("data_source", "reference_date", "validation_rules"):
            if key not in document:
                raise ExportError(f"config key {key!r} is missing")
        data_source = document["data_source"]
        if not isinstance(data_source, str) or not data_source.strip():
            raise ExportError("config key 'data_source' must be a non-empty string")
        return ExportConfig(
            data_source=config_path.parent / data_source,
            reference_date=self._reference_date(document["reference_date"]),
            rules=self._rules(document["validation_rules"]),
        )

    @staticmethod
    def _read_yaml(config_path: Path) -> Mapping[str, Any]:
        try:
            with config_path.open("r", encoding="utf-8") as handle:
                document = yaml.safe_load(handle)
        except (OSError, UnicodeDecodeError) as exc:
            raise ExportError(f"cannot read config {config_path}: {exc}") from exc
        except yaml.YAMLError as exc:
            raise ExportError(f"config {config_path} is not valid YAML: {exc}") from exc
        if not isinstance(document, dict):
            raise ExportError(f"config {config_path} is not a YAML mapping")
        return document

    def _reference_date(self, raw_value: Any) -> datetime:
        if isinstance(raw_value, datetime) and raw_value.tzinfo is not None:
            return raw_value.astimezone(timezone.utc)
        parsed = self._timestamps.parse(raw_value)
        if parsed is None:
            raise ExportError(f"config key 'reference_date' is not a valid timestamp: {raw_value!r}")
        return parsed

    def _rules(self, raw_rules: Any) -> ValidationRules:
        if not isinstance(raw_rules, dict):
            raise ExportError("config key 'validation_rules' must be a mapping")
        for key in self.REQUIRED_RULE_KEYS:
            if key not in raw_rules:
                raise ExportError(f"config key 'validation_rules.{key}' is missing")
        min_age = self._integer(raw_rules, "min_age")
        max_age = self._integer(raw_rules, "max_age")
        required = self._string_list(raw_rules, "required_fields")
        countries = self._string_list(raw_rules, "allowed_countries")
        return ValidationRules(
            min_age=min_age,
            max_age=max_age,
            required_fields=tuple(required),
            allowed_countries=frozenset(code.strip().upper() for code in countries),
        )

    @staticmethod
    def _integer(raw_rules: Mapping[str, Any], key: str) -> int:
        value = raw_rules[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise ExportError(f"config key 'validation_rules.{key}' must be an integer")
        return value

    @staticmethod
    def _string_list(raw_rules: Mapping[str, Any], key: str) -> list[str]:
        value = raw_rules[key]
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ExportError(f"config key 'validation_rules.{key}' must be a list of strings")
        return value


# --------------------------------------------------------------------------- #
# Data access layer
# --------------------------------------------------------------------------- #


class RecordRepository:
    """Loads the raw records array from a JSON file."""

    def load(self, records_path: Path) -> list[Any]:
        """Return the JSON array stored in ``records_path``; raise ``ExportError``."""
        try:
            with records_path.open("r", encoding="utf-8-sig") as handle:
                document = json.load(handle)
        except (OSError, UnicodeDecodeError) as exc:
            raise ExportError(f"cannot read records file {records_path}: {exc}") from exc
        except json.JSONDecodeError as exc:
            raise ExportError(f"records file {records_path} is not valid JSON: {exc}") from exc
        if not isinstance(document, list):
            raise ExportError(f"records file {records_path} does not hold a JSON array")
        return document


# --------------------------------------------------------------------------- #
# Validation layer
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class RuleOutcome:
    """Result of one field rule: a normalised value or a drop reason."""

    value: Any = None
    reason: DropReason | None = None

    @property
    def ok(self) -> bool:
        """True when the field passed its rule."""
        return self.reason is None


def parse_ascii_integer(raw_value: Any) -> int | None:
    """Return the integer for a JSON integer or a space-padded ASCII digit string."""
    if isinstance(raw_value, bool):
        return None
    if isinstance(raw_value, int):
        return raw_value
    if not isinstance(raw_value, str):
        return None
    digits = raw_value.strip()
    if not digits or not set(digits) <= ASCII_DIGITS:
        return None
    try:
        return int(digits)
    except ValueError:  # longer than the interpreter's int/str conversion limit
        return None


def is_blank(value: Any) -> bool:
    """True for ``None`` and for strings that are empty or whitespace only."""
    return value is None or (isinstance(value, str) and not value.strip())


class FieldRule(ABC):
    """Strategy interface: validates and normalises a single field."""

    field_name: str

    @abstractmethod
    def apply(self, raw_value: Any) -> RuleOutcome:
        """Validate ``raw_value`` and return its normalised form."""


class IdRule(FieldRule):
    """``id``: positive integer, JSON integer or ASCII digit string."""

    field_name = "id"

    def apply(self, raw_value: Any) -> RuleOutcome:
        number = parse_ascii_integer(raw_value)
        if number is None or number < 1:
            return RuleOutcome(reason=DropReason.INVALID_ID)
        return RuleOutcome(value=number)


class NameRule(FieldRule):
    """``name``: a string, output stripped."""

    field_name = "name"

    def apply(self, raw_value: Any) -> RuleOutcome:
        if not isinstance(raw_value, str):
            return RuleOutcome(reason=DropReason.INVALID_NAME)
        return RuleOutcome(value=raw_value.strip())


class EmailRule(FieldRule):
    """``email``: one ``@`` with a local part and a dot after it."""

    field_name = "email"

    def apply(self, raw_value: Any) -> RuleOutcome:
        if not isinstance(raw_value, str):
            return RuleOutcome(reason=DropReason.INVALID_EMAIL)
        email = raw_value.strip().lower()
        local_part, separator, domain = email.partition("@")
        if not separator or not local_part or "@" in domain or "." not in domain:
            return RuleOutcome(reason=DropReason.INVALID_EMAIL)
        return RuleOutcome(value=email)


class AgeRule(FieldRule):
    """``age``: integer within the inclusive configured bounds."""

    field_name = "age"

    def __init__(self, min_age: int, max_age: int) -> None:
        self._min_age = min_age
        self._max_age = max_age

    def apply(self, raw_value: Any) -> RuleOutcome:
        age = parse_ascii_integer(raw_value)
        if age is None:
            return RuleOutcome(reason=DropReason.INVALID_AGE)
        if not self._min_age <= age <= self._max_age:
            return RuleOutcome(reason=DropReason.AGE_OUT_OF_RANGE)
        return RuleOutcome(value=age)


class CountryRule(FieldRule):
    """``country``: stripped, upper-cased and one of the allowed codes."""

    field_name = "country"

    def __init__(self, allowed_countries: frozenset[str]) -> None:
        self._allowed = allowed_countries

    def apply(self, raw_value: Any) -> RuleOutcome:
        if not isinstance(raw_value, str):
            return RuleOutcome(reason=DropReason.COUNTRY_NOT_ALLOWED)
        country = raw_value.strip().upper()
        if country not in self._allowed:
            return RuleOutcome(reason=DropReason.COUNTRY_NOT_ALLOWED)
        return RuleOutcome(value=country)


class SignupRule(FieldRule):
    """``signup``: strict timestamp with ``Z`` or a UTC offset, normalised to UTC."""

    field_name = "signup"

    def __init__(self, timestamp_parser: TimestampParser | None = None) -> None:
        self._timestamps = timestamp_parser or TimestampParser()

    def apply(self, raw_value: Any) -> RuleOutcome:
        instant = self._timestamps.parse(raw_value)
        if instant is None:
            return RuleOutcome(reason=DropReason.INVALID_SIGNUP)
        return RuleOutcome(value=instant)


@dataclass(frozen=True)
class ValidationResult:
    """Normalised fields of a valid record, or the reason it was dropped."""

    fields: dict[str, Any] = field(default_factory=dict)
    reason: DropReason | None = None
    detail: str = ""


class RecordValidator:
    """Composes the field rules into a whole-record validation."""

    def __init__(self, rules: ValidationRules, field_rules: Sequence[FieldRule] | None = None) -> None:
        self._required = tuple(dict.fromkeys(MANDATORY_FIELDS + rules.required_fields))
        self._field_rules = tuple(field_rules) if field_rules is not None else (
            IdRule(),
            NameRule(),
            EmailRule(),
            AgeRule(rules.min_age, rules.max_age),
            CountryRule(rules.allowed_countries),
            SignupRule(),
        )

    def validate(self, record: Any) -> ValidationResult:
        """Validate one raw entry of the records array."""
        if not isinstance(record, dict):
            return ValidationResult(reason=DropReason.NOT_AN_OBJECT)
        missing = self._first_missing_field(record)
        if missing is not None:
            return ValidationResult(reason=DropReason.MISSING_FIELD, detail=missing)
        return self._apply_field_rules(record)

    def _first_missing_field(self, record: Mapping[str, Any]) -> str | None:
        return next((name for name in self._required if is_blank(record.get(name))), None)

    def _apply_field_rules(self, record: Mapping[str, Any]) -> ValidationResult:
        normalised: dict[str, Any] = {}
        for rule in self._field_rules:
            outcome = rule.apply(record[rule.field_name])
            if not outcome.ok:
                return ValidationResult(reason=outcome.reason, detail=rule.field_name)
            normalised[rule.field_name] = outcome.value
        return ValidationResult(fields=normalised)


# --------------------------------------------------------------------------- #
# Processing layer
# --------------------------------------------------------------------------- #


def format_utc(instant: datetime) -> str:
    """Format an aware UTC datetime as ``YYYY-MM-DDTHH:MM:SSZ``."""
    return instant.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class ExportRecord:
    """One record of the output array."""

    record_id: int
    name: str
    email: str
    age: int
    country: str
    signup: datetime
    days_since_signup: int

    def to_json_object(self) -> dict[str, Any]:
        """Return the output object with exactly the seven contract keys."""
        return {
            "id": self.record_id,
            "name": self.name,
            "email": self.email,
            "age": self.age,
            "country": self.country,
            "signup": format_utc(self.signup),
            "days_since_signup": self.days_since_signup,
        }


class ExportService:
    """Turns raw records into the ordered, de-duplicated export."""

    def __init__(self, config: ExportConfig, validator: RecordValidator | None = None) -> None:
        self._reference_date = config.reference_date
        self._validator = validator or RecordValidator(config.rules)

    def run(self, raw_records: Sequence[Any]) -> list[ExportRecord]:
        """Validate, de-duplicate (first wins) and sort the records by id."""
        kept: dict[int, ExportRecord] = {}
        for position, raw_record in enumerate(raw_records):
            result = self._validator.validate(raw_record)
            if result.reason is not None:
                self._log_drop(position, raw_record, result.reason, result.detail)
                continue
            record = self._build(result.fields)
            if record.record_id in kept:
                self._log_drop(position, raw_record, DropReason.DUPLICATE_ID, str(record.record_id))
                continue
            kept[record.record_id] = record
        LOGGER.info("kept %d of %d records", len(kept), len(raw_records))
        return sorted(kept.values(), key=lambda record: record.record_id)

    def _build(self, fields: Mapping[str, Any]) -> ExportRecord:
        signup: datetime = fields["signup"]
        return ExportRecord(
            record_id=fields["id"],
            name=fields["name"],
            email=fields["email"],
            age=fields["age"],
            country=fields["country"],
            signup=signup,
            days_since_signup=(self._reference_date - signup).days,
        )

    @staticmethod
    def _log_drop(position: int, raw_record: Any, reason: DropReason, detail: str) -> None:
        record_ref = raw_record.get("id") if isinstance(raw_record, dict) else None
        LOGGER.warning(
            "dropped record #%d (id=%r): %s%s",
            position,
            record_ref,
            reason.value,
            f" [{detail}]" if detail else "",
        )


# --------------------------------------------------------------------------- #
# Output layer
# --------------------------------------------------------------------------- #


class JsonArrayWriter:
    """Writes the export as a single JSON array."""

    def __init__(self, stream: TextIO | None = None, indent: int | None = 2) -> None:
        self._stream = stream
        self._indent = indent

    def write(self, records: Sequence[ExportRecord]) -> None:
        """Serialise ``records`` to the configured stream (stdout by default)."""
        stream = self._stream if self._stream is not None else sys.stdout
        payload = [record.to_json_object() for record in records]
        stream.write(json.dumps(payload, indent=self._indent) + "\n")
        stream.flush()


# --------------------------------------------------------------------------- #
# Application wiring
# --------------------------------------------------------------------------- #


class ExportApplication:
    """Wires the layers together; every collaborator can be replaced."""

    def __init__(
        self,
        config_loader: ConfigLoader | None = None,
        repository: RecordRepository | None = None,
        writer: JsonArrayWriter | None = None,
    ) -> None:
        self._config_loader = config_loader or ConfigLoader()
        self._repository = repository or RecordRepository()
        self._writer = writer or JsonArrayWriter()

    def run(self, config_path: Path) -> ExitCode:
        """Execute the export and return the process exit code."""
        try:
            config = self._config_loader.load(config_path)
            raw_records = self._repository.load(config.data_source)
        except ExportError as exc:
            LOGGER.error("export aborted: %s", exc)
            return ExitCode.FAILURE
        records = ExportService(config).run(raw_records)
        self._writer.write(records)
        return ExitCode.SUCCESS


def parse_arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the command line (exits with code 2 on misuse)."""
    parser = argparse.ArgumentParser(description="Export valid customer records as JSON.")
    parser.add_argument("config", type=Path, help="path of the YAML configuration file")
    return parser.parse_args(argv)


def configure_logging(level: int = logging.INFO) -> None:
    """Send diagnostics to stderr."""
    logging.basicConfig(
        level=level,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Program entry point."""
    arguments = parse_arguments(argv)
    configure_logging()
    return int(ExportApplication().run(arguments.config))


if __name__ == "__main__":
    sys.exit(main())
