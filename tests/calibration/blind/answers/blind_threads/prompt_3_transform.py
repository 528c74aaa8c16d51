"""Clean and enrich user records exported from the legacy system.

Public entry point: :func:`transform_and_enrich_users`.

Each record is transformed independently of the others, so the work is handed
to a small thread pool; ``ThreadPoolExecutor.map`` yields results in input
order, so the output order always matches the input order.  Every helper is
total (it has a defined result for any input value), so no worker can raise.
"""

import json
import logging
import re
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal, InvalidOperation
from typing import Any, Optional, Union

logger = logging.getLogger(__name__)

MAX_WORKERS = 8

GOLD_THRESHOLD = 100
SILVER_THRESHOLD = 50

# ASCII digits only: ``\d`` and ``int()`` also accept e.g. Arabic-Indic digits.
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_DECIMAL_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")

Number = Union[int, float, Decimal]


def _as_int(value: Any) -> Optional[int]:
    """Return the integer ``value`` stands for, or ``None`` if it is not convertible."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str) and _INTEGER_TEXT.fullmatch(value.strip()):
        # via Decimal: int() refuses strings longer than sys.get_int_max_str_digits()
        return int(Decimal(value.strip()))
    return None


def _as_number(value: Any) -> Optional[Number]:
    """Return the purchase count as a number, or ``None`` if it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if not isinstance(value, str) or not _DECIMAL_TEXT.fullmatch(value.strip()):
        return None
    try:
        return Decimal(value.strip())
    except InvalidOperation:
        return None


def _standardise_id(record: dict[str, Any], result: dict[str, Any]) -> None:
    """Rule 1: replace a convertible id by its ``int``; leave anything else alone."""
    if "id" not in record:
        return
    converted = _as_int(record["id"])
    if converted is not None:
        result["id"] = converted
    else:
        logger.warning("id %r is not a whole number; kept as is", record["id"])


def _email_provider(email: Any) -> Optional[str]:
    """Domain after the last '@', stripped and lower-cased; ``None`` if absent."""
    if not isinstance(email, str) or "@" not in email:
        return None
    domain = email.rpartition("@")[2].strip().lower()
    return domain or None


def _enrich_contact(record: dict[str, Any]) -> dict[str, Any]:
    """Rule 2: a copy of ``contact`` with ``email_provider`` set."""
    original = record.get("contact")
    contact = dict(original) if isinstance(original, dict) else {}
    if not isinstance(original, dict) and original is not None:
        logger.warning("contact of user %r is a %s, not an object", record.get("id"), type(original).__name__)
    contact["email_provider"] = _email_provider(contact.get("email"))
    return contact


def _normalise_stats(record: dict[str, Any]) -> dict[str, Any]:
    """Rule 3: a copy of ``stats`` with ``age`` as an int or ``None``."""
    original = record.get("stats")
    stats = dict(original) if isinstance(original, dict) else {}
    stats["age"] = _as_int(stats.get("age"))
    return stats


def _account_tier(stats: dict[str, Any]) -> str:
    """Rule 4: Gold (>= 100), Silver (>= 50) or Bronze, from total_purchases."""
    purchases = _as_number(stats.get("total_purchases"))
    if purchases is None:
        return "Bronze"
    if purchases >= GOLD_THRESHOLD:
        return "Gold"
    if purchases >= SILVER_THRESHOLD:
        return "Silver"
    return "Bronze"


def _transform_record(record: dict[str, Any]) -> dict[str, Any]:
    """Build the transformed copy of one user record (the input is not touched)."""
    result = dict(record)
    _standardise_id(record, result)
    result["contact"] = _enrich_contact(record)
    result["stats"] = _normalise_stats(record)
    result["account_tier"] = _account_tier(result["stats"])
    return result


def _is_record(item: Any) -> bool:
    """True for dict items; anything else is logged and skipped."""
    if isinstance(item, dict):
        return True
    logger.warning("skipping non-object entry of type %s", type(item).__name__)
    return False


def transform_and_enrich_users(user_list: Any, max_workers: int = MAX_WORKERS) -> list[dict[str, Any]]:
    """Return a new list with one cleaned, enriched copy of every dict in ``user_list``.

    Non-dict items are skipped; the output keeps the input order.  Neither the
    list nor its records are modified.  A non-list argument gives ``[]``.
    """
    if not isinstance(user_list, list):
        logger.warning("expected a list of users, got %s", type(user_list).__name__)
        return []
    records = [item for item in user_list if _is_record(item)]
    if not records:
        return []
    workers = max(1, min(max_workers, len(records)))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="enrich") as pool:
        return list(pool.map(_transform_record, records))


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(threadName)s %(message)s")
    with open("user_data.json", encoding="utf-8-sig") as handle:
        users = json.load(handle)
    print(json.dumps(transform_and_enrich_users(users), indent=2, ensure_ascii=False))
