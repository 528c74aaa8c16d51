"""Clean and enrich user records exported by the legacy system.

The public entry point is :func:`transform_and_enrich_users`.  It never mutates
its input and never raises: every malformed value has a defined result.
"""

import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

logger = logging.getLogger(__name__)

_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_DECIMAL_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)")


class Parsed(NamedTuple):
    """Result of a lenient conversion: ``ok`` tells whether ``value`` is usable."""

    ok: bool = False
    value: int | float | None = None


NOT_PARSED = Parsed()


@dataclass(frozen=True, slots=True)
class Tier:
    name: str
    minimum: float


# Highest tier first; anything below the last threshold is the default tier.
TIERS: tuple[Tier, ...] = (Tier("Gold", 100), Tier("Silver", 50))
DEFAULT_TIER = "Bronze"


def parse_integer(value: Any) -> Parsed:
    """Convert ints, integral floats and ASCII-digit strings to ``int``."""
    match value:
        case bool():
            return NOT_PARSED
        case int():
            return Parsed(True, value)
        case float() if value.is_integer():
            return Parsed(True, int(value))
        case str() if _INTEGER_TEXT.fullmatch(value.strip()):
            return _int_from_text(value.strip())
        case _:
            return NOT_PARSED


def _int_from_text(text: str) -> Parsed:
    try:
        return Parsed(True, int(text))
    except ValueError:  # e.g. more digits than int() allows by default
        logger.warning("integer string too long to convert: %.20s...", text)
        return NOT_PARSED


def parse_number(value: Any) -> Parsed:
    """Convert ints, floats and plain decimal strings (no exponent, no inf/nan)."""
    match value:
        case bool():
            return NOT_PARSED
        case int() | float():
            return Parsed(True, value)
        case str() if _DECIMAL_TEXT.fullmatch(value.strip()):
            return Parsed(True, float(value.strip()))
        case _:
            return NOT_PARSED


def email_provider(email: Any) -> str | None:
    """Domain after the last ``@``, stripped and lower-cased; ``None`` if unusable."""
    if not isinstance(email, str) or "@" not in email:
        return None
    domain = email.rpartition("@")[2].strip().lower()
    return domain or None


def account_tier(total_purchases: Any) -> str:
    parsed = parse_number(total_purchases)
    if not parsed.ok:
        return DEFAULT_TIER
    return next((tier.name for tier in TIERS if parsed.value >= tier.minimum), DEFAULT_TIER)


def _as_dict(value: Any) -> dict[str, Any]:
    """A shallow copy of ``value`` if it is a dict, else a fresh empty dict."""
    return dict(value) if isinstance(value, dict) else {}


def enrich_contact(contact: Any) -> dict[str, Any]:
    enriched = _as_dict(contact)
    enriched["email_provider"] = email_provider(enriched.get("email"))
    return enriched


def normalise_stats(stats: Any) -> dict[str, Any]:
    normalised = _as_dict(stats)
    age = parse_integer(normalised.get("age"))
    normalised["age"] = age.value if age.ok else None
    return normalised


def transform_user(record: dict[str, Any]) -> dict[str, Any]:
    """Return a new, cleaned copy of one user record."""
    stats = record.get("stats")
    transformed = {
        **record,
        "contact": enrich_contact(record.get("contact")),
        "stats": normalise_stats(stats),
        "account_tier": account_tier(stats.get("total_purchases") if isinstance(stats, dict) else None),
    }
    if "id" in record:
        user_id = parse_integer(record["id"])
        transformed["id"] = user_id.value if user_id.ok else record["id"]
    return transformed


def transform_and_enrich_users(user_list: Any) -> list[dict[str, Any]]:
    """Clean and enrich every dict in ``user_list``; other items are skipped.

    Returns a new list; neither the list nor the records in it are modified.
    """
    if not isinstance(user_list, list):
        logger.warning("expected a list of users, got %s", type(user_list).__name__)
        return []
    transformed: list[dict[str, Any]] = []
    for position, record in enumerate(user_list):
        if not isinstance(record, dict):
            logger.warning("skipping item %d: not an object (%s)", position, type(record).__name__)
            continue
        transformed.append(transform_user(record))
    return transformed


def _demo(path: Path = Path("user_data.json")) -> None:
    with path.open(encoding="utf-8-sig") as handle:
        users = json.load(handle)
    print(json.dumps(transform_and_enrich_users(users), indent=2, ensure_ascii=False))


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    _demo()
