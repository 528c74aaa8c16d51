"""Cleaning and enrichment of legacy user records.

``transform_and_enrich_users(user_list)`` returns a new list of new dicts; the
input is never modified and no value, however malformed, makes it raise.
"""
import json
import logging
import re
import sys
from typing import Any, Optional

logger = logging.getLogger(__name__)

# Optional sign + ASCII digits.  ``[0-9]`` (not ``\d``) so that Arabic-Indic or
# fullwidth digits, which ``int()`` would happily accept, are rejected.
WHOLE_NUMBER_RE = re.compile(r"[+-]?[0-9]+")
# Optional sign, ASCII digits and at most one dot, at least one digit.
DECIMAL_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")

GOLD_THRESHOLD = 100
SILVER_THRESHOLD = 50


def to_int(value: Any) -> Optional[int]:
    """Return ``value`` as an int when it is convertible, else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str) and WHOLE_NUMBER_RE.fullmatch(value.strip()):
        try:
            return int(value.strip())
        except ValueError:  # longer than sys.get_int_max_str_digits()
            logger.warning("integer string with %d characters ignored", len(value))
    return None


def to_number(value: Any) -> Optional[float]:
    """Return the numeric value of a purchase count, or ``None`` if it is not a number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and DECIMAL_RE.fullmatch(value.strip()):
        return float(value.strip())
    return None


def email_domain(email: Any) -> Optional[str]:
    """Lower-cased text after the last ``@``; ``None`` when absent or empty."""
    if not isinstance(email, str) or "@" not in email:
        return None
    return email.rsplit("@", 1)[1].strip().lower() or None


def tier_for(purchases: Any) -> str:
    count = to_number(purchases)
    if count is None:
        return "Bronze"
    if count >= GOLD_THRESHOLD:
        return "Gold"
    if count >= SILVER_THRESHOLD:
        return "Silver"
    return "Bronze"


def copy_mapping(value: Any) -> dict:
    return dict(value) if isinstance(value, dict) else {}


def build_contact(record: dict) -> dict:
    contact = copy_mapping(record.get("contact"))
    contact["email_provider"] = email_domain(contact.get("email"))
    return contact


def build_stats(record: dict) -> dict:
    stats = copy_mapping(record.get("stats"))
    stats["age"] = to_int(stats.get("age"))
    return stats


def clean_id(raw_id: Any) -> Any:
    converted = to_int(raw_id)
    return raw_id if converted is None else converted


def transform_record(record: dict) -> dict:
    """Build the transformed copy of a single user record."""
    result = dict(record)
    if "id" in record:
        result["id"] = clean_id(record["id"])
    result["contact"] = build_contact(record)
    result["stats"] = build_stats(record)
    raw_stats = record.get("stats")
    purchases = raw_stats.get("total_purchases") if isinstance(raw_stats, dict) else None
    result["account_tier"] = tier_for(purchases)
    return result


def transform_and_enrich_users(user_list: Any) -> list:
    """Standardise ids, add ``contact.email_provider``, normalise ``stats.age``
    and add ``account_tier`` for every dict in ``user_list`` (others are skipped)."""
    if not isinstance(user_list, list):
        logger.warning("user_list is %s, not a list; nothing to do", type(user_list).__name__)
        return []
    results = []
    for position, record in enumerate(user_list):
        if isinstance(record, dict):
            results.append(transform_record(record))
        else:
            logger.warning("skipping entry %d of type %s", position, type(record).__name__)
    return results


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    with open("user_data.json", encoding="utf-8-sig") as source:
        print(json.dumps(transform_and_enrich_users(json.load(source)), indent=2, ensure_ascii=False))
