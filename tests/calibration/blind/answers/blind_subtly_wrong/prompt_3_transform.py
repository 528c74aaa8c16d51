"""Transform and enrich user records from the legacy export."""
import json
import logging
import re
from typing import Any, Dict, List, Optional

logger = logging.getLogger(__name__)

DECIMAL_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)$")

GOLD_THRESHOLD = 100
SILVER_THRESHOLD = 50


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
        digits = text[1:] if text[:1] in "+-" else text
        if digits.isdigit():
            try:
                return int(text)
            except ValueError:
                return None
    return None


def to_number(value: Any) -> Optional[float]:
    """Convert a purchase count to a number, or None if it is not numeric."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if text.isascii() and DECIMAL_RE.match(text):
            return float(text)
    return None


def get_email_provider(email: Any) -> Optional[str]:
    """Return the lower-cased domain part of an email address."""
    if not isinstance(email, str) or "@" not in email:
        return None
    domain = email.rsplit("@", 1)[1].strip().lower()
    return domain or None


def get_account_tier(total_purchases: Any) -> str:
    """Determine the account tier from the number of purchases."""
    purchases = to_number(total_purchases)
    if purchases is None:
        return "Bronze"
    if purchases > GOLD_THRESHOLD:
        return "Gold"
    if purchases >= SILVER_THRESHOLD:
        return "Silver"
    return "Bronze"


def transform_user(user: Dict[str, Any]) -> Dict[str, Any]:
    """Return a cleaned and enriched copy of a single user record."""
    result = dict(user)

    if "id" in user:
        converted_id = to_int(user["id"])
        if converted_id is not None:
            result["id"] = converted_id

    contact = user.get("contact") if isinstance(user.get("contact"), dict) else {}
    contact["email_provider"] = get_email_provider(contact.get("email"))
    result["contact"] = contact

    stats = dict(user["stats"]) if isinstance(user.get("stats"), dict) else {}
    stats["age"] = to_int(stats.get("age"))
    result["stats"] = stats

    result["account_tier"] = get_account_tier(stats.get("total_purchases"))
    return result


def transform_and_enrich_users(user_list: List[Any]) -> List[Dict[str, Any]]:
    """Clean and enrich a list of user records.

    Non-dict entries are skipped. The input list is not modified.
    """
    if not isinstance(user_list, list):
        logger.warning("Expected a list of users, got %s", type(user_list).__name__)
        return []

    transformed = []
    for user in user_list:
        if not isinstance(user, dict):
            logger.warning("Skipping invalid user entry: %r", user)
            continue
        transformed.append(transform_user(user))
    return transformed


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("user_data.json", encoding="utf-8-sig") as f:
        users = json.load(f)
    print(json.dumps(transform_and_enrich_users(users), indent=2, ensure_ascii=False))
