"""User-record cleaning pipeline.

Each dict record flows through a fixed sequence of steps. A step reads the
original record and writes into a fresh output record, so the input is never
touched:

    standardise_id -> add_email_provider -> normalise_age -> assign_account_tier
"""

from __future__ import annotations

import json
import logging
import re
from decimal import Decimal
from typing import Any, Callable

logger = logging.getLogger(__name__)

Record = dict[str, Any]
Step = Callable[[Record, Record], None]

INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
DECIMAL_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")
TIERS = ((100, "Gold"), (50, "Silver"))  # (inclusive lower bound, tier), highest first
DEFAULT_TIER = "Bronze"


# ---------------------------------------------------------------- value parsers


def as_int(value: Any) -> int | None:
    """Whole-number value of an int, integral float or ASCII integer string."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str) and INTEGER_TEXT.fullmatch(value.strip()):
        return int(value.strip())
    return None


def as_number(value: Any) -> int | float | Decimal | None:
    """Numeric value of an int/float or plain decimal string; bools are not numbers."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and DECIMAL_TEXT.fullmatch(value.strip()):
        return Decimal(value.strip())
    return None


def as_dict(value: Any) -> Record:
    """Fresh shallow copy of a dict, or an empty dict."""
    return dict(value) if isinstance(value, dict) else {}


def email_domain(email: Any) -> str | None:
    if not isinstance(email, str) or "@" not in email:
        return None
    return email.rpartition("@")[2].strip().lower() or None


def tier_for(purchases: Any) -> str:
    amount = as_number(purchases)
    if amount is None:
        return DEFAULT_TIER
    return next((tier for threshold, tier in TIERS if amount >= threshold), DEFAULT_TIER)


# ---------------------------------------------------------------- pipeline steps


def standardise_id(source: Record, target: Record) -> None:
    if "id" in source:
        converted = as_int(source["id"])
        target["id"] = source["id"] if converted is None else converted


def add_email_provider(source: Record, target: Record) -> None:
    contact = as_dict(source.get("contact"))
    contact["email_provider"] = email_domain(contact.get("email"))
    target["contact"] = contact


def normalise_age(source: Record, target: Record) -> None:
    stats = as_dict(source.get("stats"))
    stats["age"] = as_int(stats.get("age"))
    target["stats"] = stats


def assign_account_tier(source: Record, target: Record) -> None:
    stats = source.get("stats")
    purchases = stats.get("total_purchases") if isinstance(stats, dict) else None
    target["account_tier"] = tier_for(purchases)


PIPELINE: tuple[Step, ...] = (standardise_id, add_email_provider, normalise_age, assign_account_tier)


def run_pipeline(record: Record) -> Record:
    output = dict(record)
    for step in PIPELINE:
        step(record, output)
    return output


# ---------------------------------------------------------------- entry point


def transform_and_enrich_users(user_list: Any) -> list[Record]:
    """Cleaned, enriched copies of the dict records of ``user_list``, in input order."""
    if not isinstance(user_list, list):
        logger.warning("expected a list of user records, got %s", type(user_list).__name__)
        return []
    transformed = [run_pipeline(item) for item in user_list if isinstance(item, dict)]
    skipped = len(user_list) - len(transformed)
    if skipped:
        logger.warning("skipped %d non-object entries", skipped)
    return transformed


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("user_data.json", encoding="utf-8-sig") as handle:
        users = json.load(handle)
    print(json.dumps(transform_and_enrich_users(users), indent=2, ensure_ascii=False))
