"""Clean and enrich user records from the legacy export.

Entry point: :func:`transform_and_enrich_users`. Diagnostics are emitted through the
module logger as structured ``key=value`` messages; nothing is configured or printed at
import time (the demo under ``__main__`` configures logging with ``dictConfig``).
"""

import functools
import json
import logging
import logging.config
import time
from typing import Any, Callable, ParamSpec, TypeVar

logger = logging.getLogger(__name__)

ParamsT = ParamSpec("ParamsT")
ReturnT = TypeVar("ReturnT")

GOLD_THRESHOLD = 100
SILVER_THRESHOLD = 50


def log_timing(func: Callable[ParamsT, ReturnT]) -> Callable[ParamsT, ReturnT]:
    """Log how long ``func`` took (at DEBUG); arguments and results are not logged."""

    @functools.wraps(func)
    def wrapper(*args: ParamsT.args, **kwargs: ParamsT.kwargs) -> ReturnT:
        started = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            logger.debug(
                "event=timing function=%s elapsed_ms=%.3f",
                func.__name__,
                (time.perf_counter() - started) * 1000,
            )

    return wrapper


def _is_ascii_digits(text: str) -> bool:
    """Non-empty and made only of the ASCII digits 0-9."""
    return text.isascii() and text.isdigit()


def _without_sign(text: str) -> str:
    """Drop one leading ``+`` or ``-``."""
    return text[1:] if text[:1] in ("+", "-") else text


def convert_int(value: Any) -> int | None:
    """Integer value of a *convertible* value, else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        return _convert_int_text(value.strip())
    return None


def _convert_int_text(text: str) -> int | None:
    """``int(text)`` for an optionally signed ASCII digit string, else ``None``."""
    if not _is_ascii_digits(_without_sign(text)):
        return None
    try:
        return int(text)
    except ValueError:
        logger.warning("event=int_too_long length=%d", len(text))
        return None


def convert_purchases(value: Any) -> int | float | None:
    """Numeric value of ``total_purchases`` (plain decimal notation only), else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if not isinstance(value, str):
        return None
    text = value.strip()
    whole, _, fraction = _without_sign(text).partition(".")
    return float(text) if _is_ascii_digits(whole + fraction) else None


def extract_provider(email: Any) -> str | None:
    """Lower-cased domain after the last ``@``; ``None`` when absent or empty."""
    if not isinstance(email, str) or "@" not in email:
        return None
    return email.rsplit("@", 1)[1].strip().lower() or None


def pick_tier(purchases: int | float | None) -> str:
    """Gold (>= 100), Silver (>= 50) or Bronze."""
    if purchases is not None and purchases >= GOLD_THRESHOLD:
        return "Gold"
    if purchases is not None and purchases >= SILVER_THRESHOLD:
        return "Silver"
    return "Bronze"


def build_contact(record: dict[str, Any]) -> dict[str, Any]:
    """Copy of ``contact`` (or a new dict) with ``email_provider`` set."""
    original = record.get("contact")
    contact = dict(original) if isinstance(original, dict) else {}
    contact["email_provider"] = extract_provider(contact.get("email"))
    return contact


def build_stats(record: dict[str, Any]) -> dict[str, Any]:
    """Copy of ``stats`` (or a new dict) with ``age`` normalised."""
    original = record.get("stats")
    stats = dict(original) if isinstance(original, dict) else {}
    raw_age = stats.get("age")
    stats["age"] = convert_int(raw_age)
    if raw_age is not None and stats["age"] is None:
        logger.info("event=age_unusable user_id=%r raw_age=%r", record.get("id"), raw_age)
    return stats


def transform_record(record: dict[str, Any]) -> dict[str, Any]:
    """Return the transformed copy of one record; ``record`` itself is not modified."""
    transformed = dict(record)
    if "id" in record:
        converted_id = convert_int(record["id"])
        if converted_id is not None:
            transformed["id"] = converted_id
        else:
            logger.warning("event=id_not_convertible raw_id=%r", record["id"])
    transformed["contact"] = build_contact(record)
    transformed["stats"] = build_stats(record)
    stats = record.get("stats")
    purchases = convert_purchases(stats.get("total_purchases")) if isinstance(stats, dict) else None
    transformed["account_tier"] = pick_tier(purchases)
    return transformed


@log_timing
def transform_and_enrich_users(user_list: Any) -> list[dict[str, Any]]:
    """Transform every dict of ``user_list`` (in order); skip other items. Never raises."""
    if not isinstance(user_list, list):
        logger.warning("event=invalid_input expected=list got=%s", type(user_list).__name__)
        return []
    results: list[dict[str, Any]] = []
    for index, record in enumerate(user_list):
        if not isinstance(record, dict):
            logger.warning("event=item_skipped index=%d type=%s", index, type(record).__name__)
            continue
        results.append(transform_record(record))
    logger.info("event=transform_done received=%d transformed=%d", len(user_list), len(results))
    return results


def main() -> None:
    """Demo: transform ``user_data.json`` and print the result."""
    logging.config.dictConfig({
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"kv": {"format": "%(asctime)s level=%(levelname)s %(message)s"}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "kv"}},
        "root": {"level": "DEBUG", "handlers": ["stderr"]},
    })
    with open("user_data.json", encoding="utf-8-sig") as handle:
        users = json.load(handle)
    print(json.dumps(transform_and_enrich_users(users), indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
