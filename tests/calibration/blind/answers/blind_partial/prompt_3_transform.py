"""Transform and enrich user records from the legacy export."""

import json
import logging
from decimal import Decimal
from typing import Any, Optional, Union

logger = logging.getLogger(__name__)


def _is_ascii_digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _split_sign(text: str) -> str:
    """Drop one leading '+' or '-' (the sign is kept by int()/Decimal() later)."""
    if text.startswith(("+", "-")):
        return text[1:]
    return text


def to_int(value: Any) -> Optional[int]:
    """Return value as an int if it is convertible, otherwise None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        text = value.strip()
        if _is_ascii_digits(_split_sign(text)):
            return int(Decimal(text))
    return None


def to_number(value: Any) -> Optional[Union[int, float, Decimal]]:
    """Return total_purchases as a number, or None if it is not a plain number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if not isinstance(value, str):
        return None
    text = value.strip()
    whole, _, fraction = _split_sign(text).partition(".")
    if not (whole or fraction):
        return None
    if (whole and not _is_ascii_digits(whole)) or (fraction and not _is_ascii_digits(fraction)):
        return None
    return Decimal(text)


def get_email_provider(contact: dict) -> Optional[str]:
    email = contact.get("email")
    if not isinstance(email, str) or "@" not in email:
        return None
    provider = email.rsplit("@", 1)[1].strip().lower()
    return provider or None


def get_account_tier(stats: dict) -> str:
    purchases = to_number(stats.get("total_purchases"))
    if purchases is None:
        return "Bronze"
    if purchases >= 100:
        return "Gold"
    if purchases >= 50:
        return "Silver"
    return "Bronze"


def copy_section(user: dict, key: str) -> dict:
    section = user.get(key)
    if isinstance(section, dict):
        return dict(section)
    if section is not None:
        logger.warning("record %r: '%s' is not an object, using an empty one", user.get("id"), key)
    return {}


def transform_user(user: dict) -> dict:
    new_user = dict(user)

    if "id" in user:
        new_id = to_int(user["id"])
        if new_id is not None:
            new_user["id"] = new_id

    contact = copy_section(user, "contact")
    contact["email_provider"] = get_email_provider(contact)
    new_user["contact"] = contact

    stats = copy_section(user, "stats")
    stats["age"] = to_int(stats.get("age"))
    new_user["stats"] = stats

    new_user["account_tier"] = get_account_tier(stats)
    return new_user


def transform_and_enrich_users(user_list: Any) -> list:
    if not isinstance(user_list, list):
        logger.warning("transform_and_enrich_users expected a list, got %s", type(user_list).__name__)
        return []
    result = []
    for user in user_list:
        if isinstance(user, dict):
            result.append(transform_user(user))
        else:
            logger.warning("skipping non-dict entry: %r", user)
    return result


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("user_data.json", encoding="utf-8-sig") as handle:
        data = json.load(handle)
    print(json.dumps(transform_and_enrich_users(data), indent=2, ensure_ascii=False))
