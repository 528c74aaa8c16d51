"""Cleaning and enrichment of user records exported from the legacy system.

Public entry point: :func:`transform_and_enrich_users`.

Design:
    * parsing layer     - :class:`IntegerParser`, :class:`DecimalParser` (pure value parsing)
    * enrichment layer  - one :class:`RecordEnricher` strategy per contract rule
    * orchestration     - :class:`UserTransformer`, which applies the enrichers in order
"""

import json
import logging
from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import Enum
from typing import Any, Sequence

logger = logging.getLogger(__name__)

_ASCII_DIGITS = frozenset("0123456789")
_SIGNS = ("+", "-")


class AccountTier(str, Enum):
    """Account tiers derived from the purchase count."""

    GOLD = "Gold"
    SILVER = "Silver"
    BRONZE = "Bronze"


@dataclass(frozen=True)
class TierPolicy:
    """Inclusive lower bounds of the paid tiers."""

    gold_threshold: float = 100
    silver_threshold: float = 50

    def tier_for(self, purchases: float | None) -> AccountTier:
        """Return the tier for a purchase count (``None`` means no usable count)."""
        if purchases is None:
            return AccountTier.BRONZE
        if purchases >= self.gold_threshold:
            return AccountTier.GOLD
        if purchases >= self.silver_threshold:
            return AccountTier.SILVER
        return AccountTier.BRONZE


# --------------------------------------------------------------------------- #
# Parsing layer
# --------------------------------------------------------------------------- #


def _strip_sign(text: str) -> str:
    """Remove one leading ``+``/``-`` sign, if any."""
    return text[1:] if text.startswith(_SIGNS) else text


def _is_ascii_digits(text: str) -> bool:
    """True when ``text`` is non-empty and made only of ASCII digits 0-9."""
    return bool(text) and set(text) <= _ASCII_DIGITS


class IntegerParser:
    """Implements the contract's notion of a *convertible* value."""

    def parse(self, value: Any) -> int | None:
        """Return the integer value, or ``None`` when the value is not convertible."""
        if isinstance(value, bool):
            return None
        if isinstance(value, int):
            return value
        if isinstance(value, float):
            return int(value) if value.is_integer() else None
        if isinstance(value, str):
            return self._parse_text(value)
        return None

    @staticmethod
    def _parse_text(value: str) -> int | None:
        text = value.strip()
        if not _is_ascii_digits(_strip_sign(text)):
            return None
        try:
            return int(text)
        except ValueError:  # beyond the interpreter's int/str digit limit
            logger.warning("integer string with %d characters is too long to convert", len(text))
            return None


class DecimalParser:
    """Parses purchase counts: numbers or plain decimal strings (no exponents, inf, nan)."""

    def parse(self, value: Any) -> float | None:
        """Return the numeric value, or ``None`` when the value is not a number."""
        if isinstance(value, bool):
            return None
        if isinstance(value, (int, float)):
            return value
        if isinstance(value, str):
            return self._parse_text(value)
        return None

    @staticmethod
    def _parse_text(value: str) -> float | None:
        text = value.strip()
        integer_part, _, fraction_part = _strip_sign(text).partition(".")
        if not _is_ascii_digits(integer_part + fraction_part):
            return None
        return float(text)


# --------------------------------------------------------------------------- #
# Enrichment layer
# --------------------------------------------------------------------------- #


def _copy_mapping(value: Any) -> dict[str, Any]:
    """Shallow copy of a dict, or a new empty dict for anything else."""
    return dict(value) if isinstance(value, dict) else {}


class RecordEnricher(ABC):
    """Strategy interface: reads the original record and updates the output record."""

    @abstractmethod
    def enrich(self, source: dict[str, Any], target: dict[str, Any]) -> None:
        """Apply one transformation rule; ``source`` must not be modified."""


class IdEnricher(RecordEnricher):
    """Rule 1: convertible ids become ``int``; anything else is kept as it was."""

    def __init__(self, parser: IntegerParser | None = None) -> None:
        self._parser = parser or IntegerParser()

    def enrich(self, source: dict[str, Any], target: dict[str, Any]) -> None:
        if "id" not in source:
            return
        converted = self._parser.parse(source["id"])
        if converted is None:
            logger.debug("id %r is not convertible; kept unchanged", source["id"])
            return
        target["id"] = converted


class EmailProviderEnricher(RecordEnricher):
    """Rule 2: ``contact.email_provider`` is the lower-cased domain of the email."""

    def enrich(self, source: dict[str, Any], target: dict[str, Any]) -> None:
        contact = _copy_mapping(source.get("contact"))
        contact["email_provider"] = self.provider_of(contact.get("email"))
        target["contact"] = contact

    @staticmethod
    def provider_of(email: Any) -> str | None:
        """Return the part after the last ``@`` (stripped, lower-cased) or ``None``."""
        if not isinstance(email, str) or "@" not in email:
            return None
        domain = email.rpartition("@")[2].strip().lower()
        return domain or None


class AgeEnricher(RecordEnricher):
    """Rule 3: ``stats.age`` becomes an integer, or ``None`` when not usable."""

    def __init__(self, parser: IntegerParser | None = None) -> None:
        self._parser = parser or IntegerParser()

    def enrich(self, source: dict[str, Any], target: dict[str, Any]) -> None:
        stats = _copy_mapping(source.get("stats"))
        stats["age"] = self._parser.parse(stats.get("age"))
        target["stats"] = stats


class AccountTierEnricher(RecordEnricher):
    """Rule 4: ``account_tier`` from ``stats.total_purchases``."""

    def __init__(self, policy: TierPolicy | None = None, parser: DecimalParser | None = None) -> None:
        self._policy = policy or TierPolicy()
        self._parser = parser or DecimalParser()

    def enrich(self, source: dict[str, Any], target: dict[str, Any]) -> None:
        stats = source.get("stats")
        raw_purchases = stats.get("total_purchases") if isinstance(stats, dict) else None
        purchases = self._parser.parse(raw_purchases)
        target["account_tier"] = self._policy.tier_for(purchases).value


def default_enrichers() -> tuple[RecordEnricher, ...]:
    """The enrichers required by the contract, in application order."""
    return (IdEnricher(), EmailProviderEnricher(), AgeEnricher(), AccountTierEnricher())


# --------------------------------------------------------------------------- #
# Orchestration
# --------------------------------------------------------------------------- #


class UserTransformer:
    """Applies a sequence of enrichers to every record of a user list."""

    def __init__(self, enrichers: Sequence[RecordEnricher] | None = None) -> None:
        self._enrichers = tuple(enrichers) if enrichers is not None else default_enrichers()

    def transform_all(self, user_list: Any) -> list[dict[str, Any]]:
        """Transform every dict in ``user_list``; skip everything else."""
        if not isinstance(user_list, list):
            logger.warning("expected a list of users, got %s", type(user_list).__name__)
            return []
        results: list[dict[str, Any]] = []
        for position, record in enumerate(user_list):
            if not isinstance(record, dict):
                logger.warning("skipping item %d: not an object (%s)", position, type(record).__name__)
                continue
            results.append(self.transform_one(record))
        return results

    def transform_one(self, record: dict[str, Any]) -> dict[str, Any]:
        """Return a new, transformed copy of ``record``."""
        transformed = dict(record)
        for enricher in self._enrichers:
            enricher.enrich(record, transformed)
        return transformed


def transform_and_enrich_users(
    user_list: Any,
    transformer: UserTransformer | None = None,
) -> list[dict[str, Any]]:
    """Clean and enrich ``user_list`` according to the data contract.

    Returns a new list with one transformed record per dict in ``user_list``
    (in input order); the input list and its records are left untouched.
    """
    return (transformer or UserTransformer()).transform_all(user_list)


def _demo(path: str = "user_data.json") -> None:
    """Transform the sample export and print the result."""
    with open(path, encoding="utf-8-sig") as handle:
        users = json.load(handle)
    print(json.dumps(transform_and_enrich_users(users), indent=2, ensure_ascii=False))


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    _demo()
