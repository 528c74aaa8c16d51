"""Clean and enrich user records from the legacy export.

Public API: ``transform_and_enrich_users(user_list)``.

The function is deliberately defensive: it accepts anything, never raises for
malformed data, never mutates its input, and logs a warning for odd records.
"""

import json
import logging
import re
from decimal import Decimal, InvalidOperation
from typing import Any, Dict, List, Optional, Union

logger = logging.getLogger(__name__)
logger.addHandler(logging.NullHandler())

TIER_GOLD = "Gold"
TIER_SILVER = "Silver"
TIER_BRONZE = "Bronze"
GOLD_MIN_PURCHASES = 100
SILVER_MIN_PURCHASES = 50

# [0-9] rather than \d: \d also matches non-ASCII digits such as "٣" or "３".
_SIGNED_INT_RE = re.compile(r"[+-]?[0-9]+")
_PLAIN_DECIMAL_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


class RecordTransformError(ValueError):
    """Raised internally when one record cannot be transformed at all."""


def to_int_or_none(value: Any) -> Optional[int]:
    """Convert ints, whole floats and ASCII integer strings; return None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        return None
    if isinstance(value, str):
        text = value.strip()
        if _SIGNED_INT_RE.fullmatch(text):
            return int(text)
    return None


def to_number_or_none(value: Any) -> Optional[Union[int, float, Decimal]]:
    """Numeric value of a purchase count, or None when it is not a plain number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not _PLAIN_DECIMAL_RE.fullmatch(text):
        return None
    try:
        return Decimal(text)
    except InvalidOperation:
        logger.warning("Unexpected decimal parse failure for %r", text)
        return None


def copy_dict_or_empty(value: Any, field_name: str, record_label: str) -> Dict[str, Any]:
    """Shallow-copy a nested object, or start from an empty dict if it is not one."""
    if isinstance(value, dict):
        return dict(value)
    if value is not None:
        logger.warning("%s: %r is %s, not an object; replacing it", record_label, field_name, type(value).__name__)
    return {}


def extract_email_provider(email: Any) -> Optional[str]:
    """Lower-cased domain after the last '@', or None."""
    if not isinstance(email, str):
        return None
    if "@" not in email:
        return None
    _, _, domain = email.rpartition("@")
    domain = domain.strip().lower()
    if not domain:
        return None
    return domain


def compute_account_tier(total_purchases: Any) -> str:
    """Gold >= 100, Silver >= 50, Bronze otherwise (including unusable values)."""
    amount = to_number_or_none(total_purchases)
    if amount is None:
        return TIER_BRONZE
    if amount >= GOLD_MIN_PURCHASES:
        return TIER_GOLD
    if amount >= SILVER_MIN_PURCHASES:
        return TIER_SILVER
    return TIER_BRONZE


def describe_record(record: Dict[str, Any], position: int) -> str:
    """Short label for log messages (never dumps the whole record)."""
    return "record #%d (id=%r)" % (position, record.get("id", "<none>"))


def normalise_id(record: Dict[str, Any], output: Dict[str, Any], label: str) -> None:
    """Rule 1: whole-number ids become int; others are left exactly as they were."""
    if "id" not in record:
        logger.warning("%s has no id", label)
        return
    converted = to_int_or_none(record["id"])
    if converted is None:
        logger.warning("%s: id is not a whole number; kept unchanged", label)
        return
    output["id"] = converted


def build_contact(record: Dict[str, Any], label: str) -> Dict[str, Any]:
    """Rule 2: copy of contact with email_provider set."""
    contact = copy_dict_or_empty(record.get("contact"), "contact", label)
    contact["email_provider"] = extract_email_provider(contact.get("email"))
    return contact


def build_stats(record: Dict[str, Any], label: str) -> Dict[str, Any]:
    """Rule 3: copy of stats with age normalised to int or None."""
    stats = copy_dict_or_empty(record.get("stats"), "stats", label)
    raw_age = stats.get("age")
    stats["age"] = to_int_or_none(raw_age)
    if stats["age"] is None and raw_age is not None:
        logger.warning("%s: unusable age %r replaced by null", label, raw_age)
    return stats


def transform_record(record: Dict[str, Any], position: int) -> Dict[str, Any]:
    """Transform a single dict record into a new dict."""
    if not isinstance(record, dict):
        raise RecordTransformError("record is not a dict")
    label = describe_record(record, position)
    output = dict(record)
    normalise_id(record, output, label)
    output["contact"] = build_contact(record, label)
    output["stats"] = build_stats(record, label)
    output["account_tier"] = compute_account_tier(output["stats"].get("total_purchases"))
    return output


def transform_and_enrich_users(user_list: Any) -> List[Dict[str, Any]]:
    """Return new, cleaned and enriched copies of the dict records in ``user_list``.

    Non-dict entries are skipped. If ``user_list`` is not a list, ``[]`` is returned.
    The input list and its records are never modified.
    """
    if not isinstance(user_list, list):
        logger.warning("transform_and_enrich_users expected a list, got %s", type(user_list).__name__)
        return []
    results: List[Dict[str, Any]] = []
    for position, item in enumerate(user_list):
        if not isinstance(item, dict):
            logger.warning("entry #%d skipped: %s is not an object", position, type(item).__name__)
            continue
        try:
            results.append(transform_record(item, position))
        except (RecordTransformError, TypeError, ValueError) as exc:
            logger.warning("entry #%d skipped: %s", position, exc)
    return results


def _demo(path: str = "user_data.json") -> None:
    """Load the sample export and print the transformed records."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    try:
        with open(path, encoding="utf-8-sig") as handle:
            users = json.load(handle)
    except (OSError, json.JSONDecodeError) as exc:
        logger.error("cannot load %s: %s", path, exc)
        return
    print(json.dumps(transform_and_enrich_users(users), indent=2, ensure_ascii=False))


if __name__ == "__main__":
    _demo()
