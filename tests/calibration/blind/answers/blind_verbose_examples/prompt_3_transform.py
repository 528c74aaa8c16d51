"""Clean and enrich user records exported from the legacy system.

The module exposes one public function, :func:`transform_and_enrich_users`, which takes the
list produced by ``json.load`` and returns a **new** list of cleaned records. The input is
never modified: every output record (and its ``contact`` and ``stats`` objects) is a copy.

What the transformation does
============================

1. ``id``: an id that represents a whole number becomes an ``int`` (``"103 "`` -> ``103``,
   ``105.0`` -> ``105``); any other id is kept exactly as it was.
2. ``contact.email_provider``: the lower-cased domain after the last ``@`` of the email, or
   ``None`` when there is no usable email.
3. ``stats.age``: an ``int``, or ``None`` when there is no usable age.
4. ``account_tier``: ``"Gold"`` from 100 purchases, ``"Silver"`` from 50, else ``"Bronze"``.

Example
=======

>>> users = [
...     {"id": "103 ", "name": "Zoë", "contact": {"email": None},
...      "stats": {"age": 28.0, "total_purchases": 50}},
...     "not a record",
...     {"id": 999, "name": "Legacy Account"},
... ]
>>> for user in transform_and_enrich_users(users):
...     print(user)
{'id': 103, 'name': 'Zoë', 'contact': {'email': None, 'email_provider': None}, \
'stats': {'age': 28, 'total_purchases': 50}, 'account_tier': 'Silver'}
{'id': 999, 'name': 'Legacy Account', 'contact': {'email_provider': None}, \
'stats': {'age': None}, 'account_tier': 'Bronze'}
>>> users[0]["id"]  # the input is left untouched
'103 '
"""
from __future__ import annotations

import json
import logging
import re
from typing import Any, Optional, Union

# A module-level logger; the application decides where log records go. Nothing here calls
# logging.basicConfig(), so importing this module has no side effects.
logger = logging.getLogger(__name__)

# An optional sign followed by ASCII digits only. We deliberately avoid ``\d`` and
# ``str.isdigit()``: both accept digits from other scripts (Arabic-Indic, fullwidth...).
_INTEGER_PATTERN = re.compile(r"[+-]?[0-9]+")

# A plain decimal number: optional sign, ASCII digits and at most one dot, with at least one
# digit. This refuses "1e3", "inf", "nan" and "1_000", which float() would accept.
_DECIMAL_PATTERN = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")

# Tier thresholds (inclusive lower bounds).
GOLD_THRESHOLD = 100
SILVER_THRESHOLD = 50

Number = Union[int, float]


def to_int(value: Any) -> Optional[int]:
    """Convert a loosely typed value to an ``int``, or return ``None``.

    Convertible values are ints (not bools), floats without a fractional part, and strings
    holding an optional sign and ASCII digits, possibly surrounded by whitespace.

    >>> to_int(32), to_int(28.0), to_int(" 104"), to_int("+5"), to_int("-7")
    (32, 28, 104, 5, -7)
    >>> [to_int(v) for v in (True, None, 30.5, "", "unknown", "32.0", "1_000", "٣٢", [])]
    [None, None, None, None, None, None, None, None, None]
    """
    if isinstance(value, bool):  # bool is a subclass of int: check it first
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        # is_integer() is False for nan and inf as well, so int() cannot fail here.
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        return _int_from_string(value)
    return None


def _int_from_string(value: str) -> Optional[int]:
    """Convert a string of ASCII digits (with optional sign and whitespace) to an int."""
    text = value.strip()
    if not _INTEGER_PATTERN.fullmatch(text):
        return None
    try:
        return int(text)
    except ValueError:
        # Python refuses to convert strings with more than 4300 digits by default.
        logger.warning("Number with %d characters is too long to convert", len(text))
        return None


def to_purchase_count(value: Any) -> Optional[Number]:
    """Interpret ``total_purchases`` as a number, or return ``None``.

    >>> to_purchase_count(120), to_purchase_count("49.5"), to_purchase_count(" 100 ")
    (120, 49.5, 100.0)
    >>> to_purchase_count(".5"), to_purchase_count("5."), to_purchase_count("+50")
    (0.5, 5.0, 50.0)
    >>> [to_purchase_count(v) for v in (True, None, "lots", "", "1e3", "inf", "nan", "1_000")]
    [None, None, None, None, None, None, None, None]
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and _DECIMAL_PATTERN.fullmatch(value.strip()):
        return float(value.strip())
    return None


def standardize_id(value: Any) -> Any:
    """Return the id as an int when it represents a whole number, else unchanged.

    >>> standardize_id("101"), standardize_id(105.0), standardize_id("abc"), standardize_id(None)
    (101, 105, 'abc', None)
    """
    converted = to_int(value)
    return value if converted is None else converted


def extract_email_provider(email: Any) -> Optional[str]:
    """Return the lower-cased domain after the *last* ``@``, or ``None``.

    >>> extract_email_provider("Jose.Mueller@Web.DE")
    'web.de'
    >>> extract_email_provider('"bob@home"@Mail.Example.co.uk')
    'mail.example.co.uk'
    >>> extract_email_provider(" asa.oberg@Outlook.COM ")
    'outlook.com'
    >>> [extract_email_provider(v) for v in ("user@", "no-at-sign", None, 42)]
    [None, None, None, None]
    """
    if not isinstance(email, str) or "@" not in email:
        return None
    domain = email.rsplit("@", 1)[1].strip().lower()
    return domain or None  # "user@" has an empty domain


def determine_account_tier(total_purchases: Any) -> str:
    """Map a purchase count to ``"Gold"``, ``"Silver"`` or ``"Bronze"``.

    Boundaries are inclusive: exactly 50 is Silver and exactly 100 is Gold.

    >>> [determine_account_tier(v) for v in (100, "100", 99.99, 50, "49.5", None, "lots")]
    ['Gold', 'Gold', 'Silver', 'Silver', 'Bronze', 'Bronze', 'Bronze']
    """
    purchases = to_purchase_count(total_purchases)
    if purchases is None:
        return "Bronze"
    if purchases >= GOLD_THRESHOLD:
        return "Gold"
    if purchases >= SILVER_THRESHOLD:
        return "Silver"
    return "Bronze"


def _copy_mapping(value: Any) -> dict[str, Any]:
    """Return a shallow copy of a dict, or a new empty dict for anything else."""
    return dict(value) if isinstance(value, dict) else {}


def transform_user(record: dict[str, Any]) -> dict[str, Any]:
    """Build the cleaned, enriched copy of one user record.

    Every key of the input is kept; only ``id``, ``contact``, ``stats`` and the new
    ``account_tier`` key are (re)computed.

    >>> transform_user({"id": " 104", "contact": "n/a", "stats": {"age": "unknown"}})
    {'id': 104, 'contact': {'email_provider': None}, 'stats': {'age': None}, \
'account_tier': 'Bronze'}
    """
    transformed = dict(record)  # a new top-level dict; the input stays as it is
    if "id" in record:  # a record without an id does not get one
        transformed["id"] = standardize_id(record["id"])

    contact = _copy_mapping(record.get("contact"))
    contact["email_provider"] = extract_email_provider(contact.get("email"))
    transformed["contact"] = contact

    stats = _copy_mapping(record.get("stats"))
    stats["age"] = to_int(stats.get("age"))
    transformed["stats"] = stats

    transformed["account_tier"] = determine_account_tier(stats.get("total_purchases"))
    return transformed


def transform_and_enrich_users(user_list: Any) -> list[dict[str, Any]]:
    """Clean and enrich a list of user records.

    Args:
        user_list: the records, as produced by ``json.load``. Items that are not dicts are
            skipped (with a warning); if ``user_list`` is not a list, ``[]`` is returned.

    Returns:
        A new list with one transformed record per input dict, in input order.

    >>> transform_and_enrich_users(None)
    []
    >>> [user["id"] for user in transform_and_enrich_users([{"id": "7"}, 42, {"id": "x"}])]
    [7, 'x']
    """
    if not isinstance(user_list, list):
        logger.warning("Expected a list of users, got %s", type(user_list).__name__)
        return []

    results: list[dict[str, Any]] = []
    for index, record in enumerate(user_list):
        if not isinstance(record, dict):
            logger.warning("Skipping item %d: expected an object, got %s",
                           index, type(record).__name__)
            continue
        results.append(transform_user(record))
    return results


if __name__ == "__main__":
    # Demo: transform the sample export and show the result.
    # The file starts with a UTF-8 byte order mark, hence "utf-8-sig".
    logging.basicConfig(level=logging.INFO, format="%(levelname)s: %(message)s")
    with open("user_data.json", encoding="utf-8-sig") as handle:
        sample_users = json.load(handle)
    enriched = transform_and_enrich_users(sample_users)
    print(json.dumps(enriched, indent=2, ensure_ascii=False))
    logger.info("Transformed %d of %d records", len(enriched), len(sample_users))
