"""Clean and enrich user records exported from the legacy system.

The public entry point is :func:`transform_and_enrich_users`. Everything else is a small
pure function: no input record is ever modified, every output record is built fresh.
"""
from __future__ import annotations

import json
import logging
import re
from functools import singledispatch
from typing import Any, Iterable, Optional

logger = logging.getLogger(__name__)

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")

# (lower bound, tier), checked from the top; anything below the last bound is Bronze.
_TIERS: tuple[tuple[float, str], ...] = ((100, "Gold"), (50, "Silver"))
_DEFAULT_TIER = "Bronze"


# ------------------------------------------------------------------ value conversion


@singledispatch
def to_int(value: Any) -> Optional[int]:
    """The integer a value stands for, or None when it is not convertible."""
    return None


@to_int.register
def _(value: bool) -> Optional[int]:
    return None


@to_int.register
def _(value: int) -> Optional[int]:
    return value


@to_int.register
def _(value: float) -> Optional[int]:
    return int(value) if value.is_integer() else None


@to_int.register
def _(value: str) -> Optional[int]:
    text = value.strip()
    if not _INTEGER.fullmatch(text):
        return None
    try:
        return int(text)
    except ValueError:  # more digits than int() accepts by default
        logger.warning("integer string too long to convert (%d characters)", len(text))
        return None


@singledispatch
def to_number(value: Any) -> Optional[float]:
    """The purchase count as a number, or None when it is not a number."""
    return None


@to_number.register
def _(value: bool) -> Optional[float]:
    return None


@to_number.register(int)
@to_number.register(float)
def _(value: float) -> Optional[float]:
    return value


@to_number.register
def _(value: str) -> Optional[float]:
    text = value.strip()
    return float(text) if _DECIMAL.fullmatch(text) else None


# --------------------------------------------------------------------- field rules


def as_dict(value: Any) -> dict[str, Any]:
    """A shallow copy of value when it is a dict, otherwise a new empty dict."""
    return dict(value) if isinstance(value, dict) else {}


def standardise_id(value: Any) -> Any:
    """The id as an int when it is convertible, otherwise unchanged."""
    converted = to_int(value)
    return value if converted is None else converted


def email_provider(email: Any) -> Optional[str]:
    """The lower-cased domain after the last '@', or None."""
    if not isinstance(email, str) or "@" not in email:
        return None
    return email.rpartition("@")[2].strip().lower() or None


def account_tier(total_purchases: Any) -> str:
    """Gold from 100 purchases, Silver from 50, Bronze otherwise."""
    number = to_number(total_purchases)
    if number is None:
        return _DEFAULT_TIER
    return next((tier for bound, tier in _TIERS if number >= bound), _DEFAULT_TIER)


# ------------------------------------------------------------------------- records


def enrich_contact(contact: Any) -> dict[str, Any]:
    """A copy of contact with ``email_provider`` set."""
    copied = as_dict(contact)
    return {**copied, "email_provider": email_provider(copied.get("email"))}


def normalise_stats(stats: Any) -> dict[str, Any]:
    """A copy of stats with ``age`` converted to an int or None."""
    copied = as_dict(stats)
    return {**copied, "age": to_int(copied.get("age"))}


def transform_record(record: dict[str, Any]) -> dict[str, Any]:
    """One cleaned and enriched record, built without touching the input."""
    stats = record.get("stats")
    transformed = {
        **record,
        "contact": enrich_contact(record.get("contact")),
        "stats": normalise_stats(stats),
        "account_tier": account_tier(as_dict(stats).get("total_purchases")),
    }
    if "id" in record:
        transformed["id"] = standardise_id(record["id"])
    return transformed


def is_record(item: Any) -> bool:
    """True for dicts; other items are logged and skipped."""
    if isinstance(item, dict):
        return True
    logger.warning("skipping a non-object entry of type %s", type(item).__name__)
    return False


def transform_and_enrich_users(user_list: Any) -> list[dict[str, Any]]:
    """Return new, cleaned records for every dict in ``user_list``, in input order.

    Non-dict items are skipped; a ``user_list`` that is not a list gives ``[]``.
    The input list and its records are left untouched.
    """
    if not isinstance(user_list, list):
        logger.warning("expected a list of users, got %s", type(user_list).__name__)
        return []
    records: Iterable[dict[str, Any]] = filter(is_record, user_list)
    return list(map(transform_record, records))


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    with open("user_data.json", encoding="utf-8-sig") as source:
        users = json.load(source)
    print(json.dumps(transform_and_enrich_users(users), indent=2, ensure_ascii=False))
