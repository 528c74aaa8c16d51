"""Transformation and enrichment of legacy user records."""

import json
import logging
import re
from typing import Any, Dict, List, Optional, Union

logger = logging.getLogger(__name__)

INTEGER_PATTERN = re.compile(r"-?[0-9]+")
DECIMAL_PATTERN = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)")

GOLD_MIN_PURCHASES = 100
SILVER_MIN_PURCHASES = 50


def to_int(value: Any) -> Optional[int]:
    """Convert a value to int if it represents a whole number, else return None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        text = value.strip()
        if INTEGER_PATTERN.fullmatch(text):
            try:
                return int(text)
            except ValueError:
                return None
    return None


def to_number(value: Any) -> Optional[Union[int, float]]:
    """Parse a purchase count given as a number or a plain decimal string."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and DECIMAL_PATTERN.fullmatch(value.strip()):
        return float(value.strip())
    return None


def get_email_provider(contact: Dict[str, Any]) -> Optional[str]:
    """Return the lower-cased domain of contact['email'], or None."""
    email = contact.get("email")
    if not isinstance(email, str) or "@" not in email:
        return None
    domain = email.rsplit("@", 1)[-1].strip().lower()
    return domain or None


def get_account_tier(stats: Any) -> str:
    """Map stats.total_purchases to Gold / Silver / Bronze."""
    if not isinstance(stats, dict):
        return "Bronze"
    purchases = to_number(stats.get("total_purchases"))
    if purchases is None:
        return "Bronze"
    if purchases >= GOLD_MIN_PURCHASES:
        return "Gold"
    if purchases >= SILVER_MIN_PURCHASES:
        return "Silver"
    return "Bronze"


def transform_user(user: Dict[str, Any]) -> Dict[str, Any]:
    """Return a transformed copy of a single user record."""
    result = dict(user)

    if "id" in user:
        user_id = to_int(user["id"])
        if user_id is not None:
            result["id"] = user_id
        else:
            logger.warning("Could not convert id %r to int; keeping it as is", user["id"])

    contact = dict(user["contact"]) if isinstance(user.get("contact"), dict) else {}
    contact["email_provider"] = get_email_provider(contact)
    result["contact"] = contact

    stats = dict(user["stats"]) if isinstance(user.get("stats"), dict) else {}
    stats["age"] = to_int(stats.get("age"))
    result["stats"] = stats

    result["account_tier"] = get_account_tier(user.get("stats"))
    return result


def transform_and_enrich_users(user_list: List[Any]) -> List[Dict[str, Any]]:
    """Clean and enrich a list of user records.

    Non-dict items are skipped; the input list and its records are not modified.
    """
    if not isinstance(user_list, list):
        logger.error("Expected a list of users, got %s", type(user_list).__name__)
        return []

    transformed = []
    for user in user_list:
        if not isinstance(user, dict):
            logger.warning("Skipping non-dict entry: %r", user)
            continue
        transformed.append(transform_user(user))
    return transformed


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("user_data.json", encoding="utf-8-sig") as handle:
        users = json.load(handle)
    print(json.dumps(transform_and_enrich_users(users), indent=2, ensure_ascii=False))
