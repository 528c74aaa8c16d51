"""Cleaning and enrichment of user records from the legacy export."""
from __future__ import annotations

import json
import logging
import re
from typing import Any, Optional

logger = logging.getLogger(__name__)


class NumberParser:
    """Strict conversions of loosely typed JSON values."""

    _INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
    _DECIMAL_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")

    def to_int(self, value: Any) -> Optional[int]:
        """The integer value, or None when the value is not convertible."""
        if isinstance(value, bool):
            return None
        if isinstance(value, int):
            return value
        if isinstance(value, float):
            return int(value) if value.is_integer() else None
        if isinstance(value, str):
            return self._int_from_text(value.strip())
        return None

    def to_number(self, value: Any) -> Optional[float]:
        """The numeric value of a count, or None when it is not a plain number."""
        if isinstance(value, bool):
            return None
        if isinstance(value, (int, float)):
            return value
        if isinstance(value, str) and self._DECIMAL_TEXT.fullmatch(value.strip()):
            return float(value.strip())
        return None

    def _int_from_text(self, text: str) -> Optional[int]:
        if not self._INTEGER_TEXT.fullmatch(text):
            return None
        try:
            return int(text)
        except ValueError:
            logger.warning("numeric string of %d characters is too long to convert", len(text))
            return None


class TierPolicy:
    """Maps a purchase count to an account tier."""

    def __init__(self, gold_from: float = 100, silver_from: float = 50) -> None:
        self._gold_from = gold_from
        self._silver_from = silver_from

    @property
    def gold_from(self) -> float:
        return self._gold_from

    @property
    def silver_from(self) -> float:
        return self._silver_from

    def tier_for(self, purchases: Optional[float]) -> str:
        """Gold, Silver or Bronze; a missing count is Bronze."""
        if purchases is None:
            return "Bronze"
        if purchases >= self._gold_from:
            return "Gold"
        if purchases >= self._silver_from:
            return "Silver"
        return "Bronze"


class UserRecordTransformer:
    """Builds the cleaned, enriched copy of a single user record."""

    def __init__(self, parser: Optional[NumberParser] = None,
                 tiers: Optional[TierPolicy] = None) -> None:
        self._parser = parser or NumberParser()
        self._tiers = tiers or TierPolicy()

    def transform(self, record: dict[str, Any]) -> dict[str, Any]:
        """Return a new dict; the input record is not modified."""
        result = dict(record)
        if "id" in record:
            result["id"] = self._standardise_id(record["id"])
        stats = self._copy_of(record.get("stats"))
        tier = self._tier(stats)
        stats["age"] = self._parser.to_int(stats.get("age"))
        result["contact"] = self._enrich_contact(record.get("contact"))
        result["stats"] = stats
        result["account_tier"] = tier
        return result

    @staticmethod
    def _copy_of(value: Any) -> dict[str, Any]:
        return dict(value) if isinstance(value, dict) else {}

    def _standardise_id(self, value: Any) -> Any:
        converted = self._parser.to_int(value)
        return value if converted is None else converted

    def _enrich_contact(self, contact: Any) -> dict[str, Any]:
        enriched = self._copy_of(contact)
        enriched["email_provider"] = self._email_provider(enriched.get("email"))
        return enriched

    @staticmethod
    def _email_provider(email: Any) -> Optional[str]:
        if not isinstance(email, str) or "@" not in email:
            return None
        domain = email.rsplit("@", 1)[1].strip().lower()
        return domain or None

    def _tier(self, stats: dict[str, Any]) -> str:
        purchases = self._parser.to_number(stats.get("total_purchases"))
        return self._tiers.tier_for(purchases)


class UserListService:
    """Applies the record transformer to a whole export."""

    def __init__(self, transformer: Optional[UserRecordTransformer] = None) -> None:
        self._transformer = transformer or UserRecordTransformer()

    def process(self, user_list: Any) -> list[dict[str, Any]]:
        """Transform every dict in user_list, in order; skip everything else."""
        if not isinstance(user_list, list):
            logger.warning("expected a list of users, got %s", type(user_list).__name__)
            return []
        transformed = []
        for position, item in enumerate(user_list):
            if not isinstance(item, dict):
                logger.warning("skipping entry %d: not an object (%s)", position,
                               type(item).__name__)
                continue
            transformed.append(self._transformer.transform(item))
        return transformed


def transform_and_enrich_users(user_list: Any) -> list[dict[str, Any]]:
    """Clean and enrich the user records; see UserRecordTransformer for the rules."""
    return UserListService().process(user_list)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("user_data.json", encoding="utf-8-sig") as handle:
        users = json.load(handle)
    print(json.dumps(transform_and_enrich_users(users), indent=2, ensure_ascii=False))
