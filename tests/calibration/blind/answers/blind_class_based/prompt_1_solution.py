#!/usr/bin/env python3
"""Customer export: validates customer records and prints the kept ones as a JSON array.

Usage:
    python prompt_1_solution.py <config.yaml>
"""
from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

import yaml

logger = logging.getLogger("customer_export")


class InputFileError(Exception):
    """Raised when the config or the records file cannot be used."""


class RecordRejected(Exception):
    """Raised by the validator when a record must be dropped."""


class Timestamp:
    """Parsing and formatting of the strict ``YYYY-MM-DDTHH:MM:SS(Z|+HH:MM)`` format."""

    _PATTERN = re.compile(
        r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})"
    )
    _FORMAT = "%Y-%m-%dT%H:%M:%S%z"

    @classmethod
    def parse(cls, value: Any) -> Optional[datetime]:
        """Return an aware UTC datetime, or None when the value is not a valid timestamp."""
        if not isinstance(value, str) or cls._PATTERN.fullmatch(value) is None:
            return None
        try:
            return datetime.strptime(value, cls._FORMAT).astimezone(timezone.utc)
        except (ValueError, OverflowError):
            return None

    @staticmethod
    def format_utc(moment: datetime) -> str:
        """Format an aware datetime as ``YYYY-MM-DDTHH:MM:SSZ``."""
        return moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


class ExportConfig:
    """The validated contents of the YAML config file."""

    _TOP_LEVEL_KEYS = ("data_source", "reference_date", "validation_rules")
    _RULE_KEYS = ("min_age", "max_age", "required_fields", "allowed_countries")

    def __init__(self, raw: Any, base_dir: Path) -> None:
        if not isinstance(raw, dict):
            raise InputFileError("the config is not a YAML mapping")
        self._require(raw, self._TOP_LEVEL_KEYS, "config")
        rules = raw["validation_rules"]
        if not isinstance(rules, dict):
            raise InputFileError("validation_rules is not a mapping")
        self._require(rules, self._RULE_KEYS, "validation_rules")
        self._records_path = base_dir / self._string(raw["data_source"], "data_source")
        self._reference_date = self._timestamp(raw["reference_date"])
        self._min_age = self._integer(rules["min_age"], "min_age")
        self._max_age = self._integer(rules["max_age"], "max_age")
        self._required_fields = self._strings(rules["required_fields"], "required_fields")
        countries = self._strings(rules["allowed_countries"], "allowed_countries")
        self._allowed_countries = frozenset(code.strip().upper() for code in countries)

    @classmethod
    def from_file(cls, path: Path) -> ExportConfig:
        """Read and validate a config file."""
        try:
            with path.open(encoding="utf-8") as handle:
                raw = yaml.safe_load(handle)
        except (OSError, UnicodeDecodeError) as error:
            raise InputFileError(f"cannot read config {path}: {error}") from error
        except yaml.YAMLError as error:
            raise InputFileError(f"config {path} is not valid YAML: {error}") from error
        return cls(raw, path.parent)

    @property
    def records_path(self) -> Path:
        return self._records_path

    @property
    def reference_date(self) -> datetime:
        return self._reference_date

    @property
    def min_age(self) -> int:
        return self._min_age

    @property
    def max_age(self) -> int:
        return self._max_age

    @property
    def required_fields(self) -> tuple[str, ...]:
        return self._required_fields

    @property
    def allowed_countries(self) -> frozenset[str]:
        return self._allowed_countries

    @staticmethod
    def _require(mapping: dict[str, Any], keys: tuple[str, ...], section: str) -> None:
        missing = [key for key in keys if key not in mapping]
        if missing:
            raise InputFileError(f"{section} lacks required key(s): {', '.join(missing)}")

    @staticmethod
    def _string(value: Any, name: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise InputFileError(f"{name} must be a non-empty string")
        return value

    @staticmethod
    def _integer(value: Any, name: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputFileError(f"{name} must be an integer")
        return value

    @staticmethod
    def _strings(value: Any, name: str) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise InputFileError(f"{name} must be a list of strings")
        return tuple(value)

    @staticmethod
    def _timestamp(value: Any) -> datetime:
        if isinstance(value, datetime) and value.tzinfo is not None:
            return value.astimezone(timezone.utc)
        moment = Timestamp.parse(value)
        if moment is None:
            raise InputFileError(f"reference_date is not a valid timestamp: {value!r}")
        return moment


class Customer:
    """A record that passed validation, with normalised values."""

    def __init__(self, customer_id: int, name: str, email: str, age: int, country: str,
                 signup: datetime) -> None:
        self.customer_id = customer_id
        self.name = name
        self.email = email
        self.age = age
        self.country = country
        self.signup = signup

    def to_dict(self, reference_date: datetime) -> dict[str, Any]:
        """The output representation, with the days elapsed up to reference_date."""
        return {
            "id": self.customer_id,
            "name": self.name,
            "email": self.email,
            "age": self.age,
            "country": self.country,
            "signup": Timestamp.format_utc(self.signup),
            "days_since_signup": (reference_date - self.signup).days,
        }


class RecordValidator:
    """Checks one raw record against the rules and builds a Customer from it."""

    CORE_FIELDS = ("id", "name", "email", "age", "country", "signup")
    _ASCII_DIGITS = re.compile(r"[0-9]+")

    def __init__(self, config: ExportConfig) -> None:
        self._config = config
        self._present_fields = tuple(dict.fromkeys(self.CORE_FIELDS + config.required_fields))

    def validate(self, raw: Any) -> Customer:
        """Return the normalised Customer, or raise RecordRejected with the reason."""
        if not isinstance(raw, dict):
            raise RecordRejected("not a JSON object")
        self._check_present(raw)
        if not isinstance(raw["name"], str):
            raise RecordRejected("name is not a string")
        return Customer(
            customer_id=self._customer_id(raw["id"]),
            name=raw["name"].strip(),
            email=self._email(raw["email"]),
            age=self._age(raw["age"]),
            country=self._country(raw["country"]),
            signup=self._signup(raw["signup"]),
        )

    def _check_present(self, raw: dict[str, Any]) -> None:
        missing = [field for field in self._present_fields if self._is_blank(raw.get(field))]
        if missing:
            raise RecordRejected(f"missing or empty field(s): {', '.join(missing)}")

    @staticmethod
    def _is_blank(value: Any) -> bool:
        return value is None or (isinstance(value, str) and not value.strip())

    @classmethod
    def _ascii_integer(cls, value: Any) -> Optional[int]:
        if isinstance(value, bool):
            return None
        if isinstance(value, int):
            return value
        if isinstance(value, str) and cls._ASCII_DIGITS.fullmatch(value.strip()):
            return cls._digits_to_int(value.strip())
        return None

    @staticmethod
    def _digits_to_int(digits: str) -> Optional[int]:
        try:
            return int(digits)
        except ValueError:  # longer than Python's integer string limit
            return None

    def _customer_id(self, value: Any) -> int:
        customer_id = self._ascii_integer(value)
        if customer_id is None or customer_id < 1:
            raise RecordRejected(f"invalid id {value!r}")
        return customer_id

    def _email(self, value: Any) -> str:
        if not isinstance(value, str):
            raise RecordRejected("email is not a string")
        email = value.strip().lower()
        local_part, _, domain = email.partition("@")
        if email.count("@") != 1 or not local_part or "." not in domain:
            raise RecordRejected(f"invalid email {email!r}")
        return email

    def _age(self, value: Any) -> int:
        age = self._ascii_integer(value)
        if age is None:
            raise RecordRejected(f"invalid age {value!r}")
        if not self._config.min_age <= age <= self._config.max_age:
            raise RecordRejected(f"age {age} outside the allowed range")
        return age

    def _country(self, value: Any) -> str:
        if not isinstance(value, str):
            raise RecordRejected("country is not a string")
        country = value.strip().upper()
        if country not in self._config.allowed_countries:
            raise RecordRejected(f"country {country!r} is not allowed")
        return country

    @staticmethod
    def _signup(value: Any) -> datetime:
        signup = Timestamp.parse(value)
        if signup is None:
            raise RecordRejected(f"invalid signup timestamp {value!r}")
        return signup


class RecordsRepository:
    """Loads the records array from its JSON file."""

    def __init__(self, path: Path) -> None:
        self._path = path

    def load(self) -> list[Any]:
        """Return the array of raw records, or raise InputFileError."""
        try:
            with self._path.open(encoding="utf-8") as handle:
                records = json.load(handle)
        except (OSError, UnicodeDecodeError) as error:
            raise InputFileError(f"cannot read records {self._path}: {error}") from error
        except json.JSONDecodeError as error:
            raise InputFileError(f"records {self._path} are not valid JSON: {error}") from error
        if not isinstance(records, list):
            raise InputFileError(f"records {self._path} do not hold a JSON array")
        return records


class CustomerExportService:
    """Validates the raw records, drops duplicates and sorts the result."""

    def __init__(self, config: ExportConfig) -> None:
        self._config = config
        self._validator = RecordValidator(config)

    def export(self, raw_records: list[Any]) -> list[dict[str, Any]]:
        """Return the output objects of the kept records, sorted by id."""
        kept: dict[int, Customer] = {}
        for position, raw in enumerate(raw_records, start=1):
            try:
                customer = self._validator.validate(raw)
            except RecordRejected as rejection:
                logger.info("record #%d dropped: %s", position, rejection)
                continue
            if customer.customer_id in kept:
                logger.info("record #%d dropped: duplicate id %d", position, customer.customer_id)
                continue
            kept[customer.customer_id] = customer
        logger.info("kept %d of %d record(s)", len(kept), len(raw_records))
        ordered = sorted(kept.values(), key=lambda customer: customer.customer_id)
        return [customer.to_dict(self._config.reference_date) for customer in ordered]


class ExportApplication:
    """Command-line front end."""

    def __init__(self, argv: Optional[list[str]] = None) -> None:
        parser = argparse.ArgumentParser(description="Export validated customer records.")
        parser.add_argument("config", type=Path, help="path of the YAML config file")
        self._arguments = parser.parse_args(argv)

    def run(self) -> int:
        """Run the export; return the process exit code."""
        try:
            config = ExportConfig.from_file(self._arguments.config)
            raw_records = RecordsRepository(config.records_path).load()
        except InputFileError as error:
            logger.error("%s", error)
            return 1
        result = CustomerExportService(config).export(raw_records)
        print(json.dumps(result, indent=2))
        return 0


def main() -> int:
    """Program entry point."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return ExportApplication().run()


if __name__ == "__main__":
    sys.exit(main())
