"""Clean and enrich user records exported from the legacy system.

All string formats are recognised with anchored regular expressions that use explicit
ASCII classes ([0-9]); Python's int()/float() alone would also accept other scripts'
digits, underscores, exponents, "inf" and "nan".
"""

import json
import logging
import re
from typing import Any

logger = logging.getLogger(__name__)

# Optional sign, then one or more ASCII digits ("32", "+5", "-7").
INTEGER_RE = re.compile(r"[+-]?[0-9]+")
# Optional sign, ASCII digits with at most one ".", at least one digit ("15", "49.5", ".5", "5.").
DECIMAL_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")

GOLD_MINIMUM = 100
SILVER_MINIMUM = 50


def to_int(value: Any) -> int | None:
    """Return the integer a value converts to, or None when it is not convertible."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str) and INTEGER_RE.fullmatch(value.strip()):
        return _int_or_none(value.strip())
    return None


def _int_or_none(digits: str) -> int | None:
    """int() of a validated digit string; None if it exceeds Python's digit limit."""
    try:
        return int(digits)
    except ValueError:
        logger.warning("numeric string of %d characters is too long to convert", len(digits))
        return None


def to_number(value: Any) -> float | int | None:
    """Return a purchase count as a number, or None when it is not a plain number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and DECIMAL_RE.fullmatch(value.strip()):
        return float(value.strip())
    return None


def email_provider(email: Any) -> str | None:
    """Lower-cased part after the last "@", or None."""
    if not isinstance(email, str) or "@" not in email:
        return None
    provider = email.rsplit("@", 1)[1].strip().lower()
    return provider or None


def account_tier(stats: Any) -> str:
    """Gold / Silver / Bronze from stats.total_purchases."""
    purchases = to_number(stats.get("total_purchases")) if isinstance(stats, dict) else None
    if purchases is None:
        return "Bronze"
    if purchases >= GOLD_MINIMUM:
        return "Gold"
    if purchases >= SILVER_MINIMUM:
        return "Silver"
    return "Bronze"


def transform_record(record: dict[str, Any]) -> dict[str, Any]:
    """Build the transformed copy of one user record (the input is left untouched)."""
    result = dict(record)
    if "id" in record:
        converted_id = to_int(record["id"])
        result["id"] = record["id"] if converted_id is None else converted_id

    contact = dict(record["contact"]) if isinstance(record.get("contact"), dict) else {}
    contact["email_provider"] = email_provider(contact.get("email"))
    result["contact"] = contact

    stats = dict(record["stats"]) if isinstance(record.get("stats"), dict) else {}
    stats["age"] = to_int(stats.get("age"))
    result["stats"] = stats

    result["account_tier"] = account_tier(record.get("stats"))
    return result


def transform_and_enrich_users(user_list: Any) -> list[dict[str, Any]]:
    """Return new, transformed records for every dict in user_list, in input order."""
    if not isinstance(user_list, list):
        logger.warning("expected a list, got %s; returning []", type(user_list).__name__)
        return []
    transformed = []
    for position, record in enumerate(user_list):
        if isinstance(record, dict):
            transformed.append(transform_record(record))
        else:
            logger.warning("skipping item %d: %s is not a user record", position, type(record).__name__)
    return transformed


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("user_data.json", encoding="utf-8-sig") as handle:
        users = json.load(handle)
    print(json.dumps(transform_and_enrich_users(users), indent=2, ensure_ascii=False))
