"""Clean and enrich user records exported from the legacy system."""
from __future__ import annotations

import json
import logging
import re
from typing import Any, Optional

logger = logging.getLogger(__name__)

_INTEGER_TEXT = re.compile(r"[+-]?\d+")
_DECIMAL_TEXT = re.compile(r"[+-]?\d+(?:\.\d+)?")

GOLD_THRESHOLD = 100
SILVER_THRESHOLD = 50


def to_int(value: Any) -> Optional[int]:
    """Return the integer a value represents, or None when it is not convertible."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        text = value.strip()
        return int(text) if _INTEGER_TEXT.fullmatch(text) else None
    return None


def to_number(value: Any) -> Optional[float]:
    """Return a purchase count as a number, or None when it is not a plain number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        text = value.strip()
        return float(text) if _DECIMAL_TEXT.fullmatch(text) else None
    return None


def email_provider(email: Any) -> Optional[str]:
    """Domain after the last '@', stripped and lower-cased; None if unavailable."""
    if not isinstance(email, str) or "@" not in email:
        return None
    domain = email.rsplit("@", 1)[1].strip().lower()
    return domain or None


def account_tier(stats: Any) -> str:
    """Gold (>= 100 purchases), Silver (>= 50) or Bronze (anything else)."""
    purchases = to_number(stats.get("total_purchases")) if isinstance(stats, dict) else None
    if purchases is None:
        return "Bronze"
    if purchases >= GOLD_THRESHOLD:
        return "Gold"
    if purchases >= SILVER_THRESHOLD:
        return "Silver"
    return "Bronze"


def _enriched_contact(contact: Any) -> dict:
    new_contact = dict(contact) if isinstance(contact, dict) else {}
    new_contact["email_provider"] = email_provider(new_contact.get("email"))
    return new_contact


def _normalised_stats(stats: Any) -> dict:
    new_stats = dict(stats) if isinstance(stats, dict) else {}
    new_stats["age"] = to_int(new_stats.get("age"))
    return new_stats


def transform_user(record: dict) -> dict:
    """Return a transformed copy of one user record (the input is left untouched)."""
    result = dict(record)
    if "id" in record:
        converted_id = to_int(record["id"])
        if converted_id is not None:
            result["id"] = converted_id
        else:
            logger.warning("Keeping non-numeric id %r", record["id"])
    result["contact"] = _enriched_contact(record.get("contact"))
    result["stats"] = _normalised_stats(record.get("stats"))
    result["account_tier"] = account_tier(record.get("stats"))
    return result


def transform_and_enrich_users(user_list: Any) -> list:
    """Transform every dict in ``user_list``; non-dict items are skipped."""
    if not isinstance(user_list, list):
        logger.warning("Expected a list of users, got %s", type(user_list).__name__)
        return []
    transformed = []
    for item in user_list:
        if isinstance(item, dict):
            transformed.append(transform_user(item))
        else:
            logger.warning("Skipping non-dict entry: %r", item)
    return transformed


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("user_data.json", encoding="utf-8-sig") as handle:
        users = json.load(handle)
    print(json.dumps(transform_and_enrich_users(users), indent=2, ensure_ascii=False))
