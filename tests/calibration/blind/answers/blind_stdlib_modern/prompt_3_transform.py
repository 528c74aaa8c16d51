"""Clean and enrich legacy user records (Python 3.11).

``transform_and_enrich_users(user_list)`` returns new, transformed copies of the
dict records in ``user_list``; the input is never modified and nothing raises.
"""

import json
import logging
import re
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

# Explicit [0-9]: int() and \d also accept non-ASCII digits such as "٣٢" or "３２".
INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
DECIMAL_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")

class Tier(StrEnum):
    GOLD = "Gold"
    SILVER = "Silver"
    BRONZE = "Bronze"


# Highest threshold first; anything below the last one is Bronze.
TIER_THRESHOLDS: tuple[tuple[int, Tier], ...] = ((100, Tier.GOLD), (50, Tier.SILVER))


def type_name(value: object) -> str:
    return type(value).__name__


def as_int(value: object) -> int | None:
    """The integer a value stands for, or None when it is not convertible."""
    match value:
        case bool():
            return None
        case int():
            return value
        case float() if value.is_integer():
            return int(value)
        case str() if INTEGER_TEXT.fullmatch(text := value.strip()):
            return int(Decimal(text))  # exact, and free of int()'s 4300-digit string limit
        case _:
            return None


def as_purchase_count(value: object) -> int | float | Decimal | None:
    """A number (int, float or plain decimal string), or None for anything else."""
    match value:
        case bool():
            return None
        case int() | float():
            return value
        case str() if DECIMAL_TEXT.fullmatch(text := value.strip()):
            return Decimal(text)  # exact: "99.999999999999999999" must stay below 100
        case _:
            return None


def email_provider(email: object) -> str | None:
    """Lower-cased domain after the last '@', or None."""
    match email:
        case str() if "@" in email:
            return email.rpartition("@")[2].strip().lower() or None
        case _:
            return None


def account_tier(stats: dict[str, Any]) -> str:
    if (count := as_purchase_count(stats.get("total_purchases"))) is None:
        return Tier.BRONZE.value
    tier = next((tier for threshold, tier in TIER_THRESHOLDS if count >= threshold), Tier.BRONZE)
    return tier.value  # a plain str, not the enum member


def copied_mapping(user: dict[str, Any], key: str) -> dict[str, Any]:
    """A shallow copy of ``user[key]`` when it is a dict, else a fresh dict."""
    match user.get(key):
        case dict() as mapping:
            return dict(mapping)
        case None:
            return {}
        case other:
            logger.warning("user %r: %s is a %s, not an object; replaced", user.get("id"), key, type_name(other))
            return {}


def transform_user(user: dict[str, Any]) -> dict[str, Any]:
    """Transformed copy of one record: id, contact.email_provider, stats.age, account_tier."""
    result = dict(user)
    if "id" in user:
        if (new_id := as_int(user["id"])) is not None:
            result["id"] = new_id
        else:
            logger.warning("user id %r is not a whole number; left unchanged", user["id"])

    contact = copied_mapping(user, "contact")
    contact["email_provider"] = email_provider(contact.get("email"))
    result["contact"] = contact

    stats = copied_mapping(user, "stats")
    stats["age"] = as_int(stats.get("age"))
    result["stats"] = stats

    result["account_tier"] = account_tier(stats)
    return result


def is_user_record(item: object) -> bool:
    if isinstance(item, dict):
        return True
    logger.warning("skipping %s item: not a user record", type_name(item))
    return False


def transform_and_enrich_users(user_list: Any) -> list[dict[str, Any]]:
    """Clean and enrich every dict in ``user_list`` (other items are skipped).

    Returns a new list in input order; returns [] when ``user_list`` is not a list.
    """
    if not isinstance(user_list, list):
        logger.warning("expected a list of users, got %s", type_name(user_list))
        return []
    return [transform_user(item) for item in user_list if is_user_record(item)]


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    source = Path(__file__).with_name("user_data.json")
    if not source.exists():
        source = Path("user_data.json")
    with source.open(encoding="utf-8-sig") as handle:
        users = json.load(handle)
    print(json.dumps(transform_and_enrich_users(users), indent=2, ensure_ascii=False))
