"""Clean and enrich user records exported by the legacy system.

The public entry point is :func:`transform_and_enrich_users`.
"""

from __future__ import annotations

import enum
import json
import logging
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Final, TypeAlias, TypeGuard, TypeVar, cast, overload

logger: Final[logging.Logger] = logging.getLogger(__name__)

JSONValue: TypeAlias = (
    str | int | float | bool | None | list["JSONValue"] | dict[str, "JSONValue"]
)
UserRecord: TypeAlias = dict[str, JSONValue]
Number: TypeAlias = int | float | Decimal
_T = TypeVar("_T")

_INTEGER_TEXT: Final[re.Pattern[str]] = re.compile(r"[+-]?[0-9]+")
_DECIMAL_TEXT: Final[re.Pattern[str]] = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")

_GOLD_THRESHOLD: Final[int] = 100
_SILVER_THRESHOLD: Final[int] = 50


class AccountTier(str, enum.Enum):
    """Account tiers, ordered from the highest to the lowest."""

    GOLD = "Gold"
    SILVER = "Silver"
    BRONZE = "Bronze"


def _is_plain_int(value: object) -> TypeGuard[int]:
    """``bool`` is a subclass of ``int`` but never counts as an integer here."""
    return isinstance(value, int) and not isinstance(value, bool)


@overload
def _to_int(value: object) -> int | None: ...


@overload
def _to_int(value: object, default: _T) -> int | _T: ...


def _to_int(value: object, default: object = None) -> object:
    """Return the integer a value represents, or ``default`` when it is not convertible."""
    if _is_plain_int(value):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INTEGER_TEXT.fullmatch(value.strip()):
        return int(value.strip())
    return default


def _to_number(value: object) -> Number | None:
    """Return the numeric value of ``total_purchases``, or ``None`` when it is not a number."""
    if _is_plain_int(value) or isinstance(value, float):
        return value
    if not isinstance(value, str):
        return None
    text: str = value.strip()
    if _DECIMAL_TEXT.fullmatch(text) is None:
        return None
    try:
        return Decimal(text)
    except InvalidOperation:
        logger.warning("could not read %r as a decimal number", text)
        return None


def _copy_mapping(value: object) -> UserRecord:
    """Shallow copy of a JSON object, or a fresh empty dict for anything else."""
    if isinstance(value, dict):
        return dict(cast(UserRecord, value))
    return {}


def _email_provider(email: object) -> str | None:
    """Domain after the last ``@``, stripped and lower-cased; ``None`` when unavailable."""
    if not isinstance(email, str) or "@" not in email:
        return None
    domain: str = email.rpartition("@")[2].strip().lower()
    return domain or None


def _account_tier(purchases: object) -> AccountTier:
    """Map a purchase count onto a tier (inclusive lower bounds)."""
    amount: Number | None = _to_number(purchases)
    if amount is None:
        return AccountTier.BRONZE
    if amount >= _GOLD_THRESHOLD:
        return AccountTier.GOLD
    if amount >= _SILVER_THRESHOLD:
        return AccountTier.SILVER
    return AccountTier.BRONZE


def _standardise_id(record: Mapping[str, JSONValue], result: UserRecord) -> None:
    """Rule 1: convertible ids become ``int``; anything else is left untouched."""
    if "id" not in record:
        return
    original: JSONValue = record["id"]
    result["id"] = _to_int(original, default=original)
    if result["id"] is original and not _is_plain_int(original):
        logger.warning("keeping non-integer id %r unchanged", original)


def _enrich_contact(record: Mapping[str, JSONValue]) -> UserRecord:
    """Rule 2: copy ``contact`` and set ``email_provider``."""
    contact: UserRecord = _copy_mapping(record.get("contact"))
    contact["email_provider"] = _email_provider(contact.get("email"))
    return contact


def _normalise_stats(record: Mapping[str, JSONValue]) -> UserRecord:
    """Rule 3: copy ``stats`` and turn ``age`` into an ``int`` or ``None``."""
    stats: UserRecord = _copy_mapping(record.get("stats"))
    stats["age"] = _to_int(stats.get("age"))
    return stats


def _transform_record(record: Mapping[str, JSONValue]) -> UserRecord:
    """Build the transformed copy of one user record."""
    result: UserRecord = dict(record)
    _standardise_id(record, result)
    stats: UserRecord = _normalise_stats(record)
    result["contact"] = _enrich_contact(record)
    result["stats"] = stats
    result["account_tier"] = _account_tier(stats.get("total_purchases")).value
    return result


def transform_and_enrich_users(user_list: object) -> list[UserRecord]:
    """Return cleaned, enriched copies of the dict records in ``user_list``.

    Non-dict items are skipped, the input is never modified, and the function
    never raises for malformed data.
    """
    if not isinstance(user_list, list):
        logger.warning("expected a list of users, got %s", type(user_list).__name__)
        return []
    transformed: list[UserRecord] = []
    for item in cast(list[object], user_list):
        if not isinstance(item, dict):
            logger.warning("skipping non-object entry of type %s", type(item).__name__)
            continue
        transformed.append(_transform_record(cast(UserRecord, item)))
    return transformed


def _main() -> None:
    """Demo: transform ``user_data.json`` and print the result."""
    logging.basicConfig(level=logging.INFO)
    with open("user_data.json", encoding="utf-8-sig") as handle:
        users: list[UserRecord] = json.load(handle)
    print(json.dumps(transform_and_enrich_users(users), indent=2, ensure_ascii=False))


if __name__ == "__main__":
    _main()
