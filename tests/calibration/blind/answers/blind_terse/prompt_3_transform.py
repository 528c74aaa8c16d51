"""Clean and enrich legacy user records."""
import json
import logging
import re
from typing import Any

log = logging.getLogger(__name__)
INT_RE = re.compile(r"[+-]?[0-9]+")
NUM_RE = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)")


def as_int(value: Any) -> int | None:
    """Whole number from int / integral float / ASCII-digit string, else None."""
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str) and INT_RE.fullmatch(value.strip()):
        try:
            return int(value)
        except ValueError:  # exceeds int max str digits
            return None
    return value if type(value) is int else None


def as_number(value: Any) -> float | None:
    if isinstance(value, str) and NUM_RE.fullmatch(value.strip()):
        return float(value)
    return value if type(value) in (int, float) else None


def provider(email: Any) -> str | None:
    return (email.rpartition("@")[2].strip().lower() or None) if isinstance(email, str) and "@" in email else None


def tier(purchases: Any) -> str:
    count = as_number(purchases)
    return "Bronze" if count is None else "Gold" if count >= 100 else "Silver" if count >= 50 else "Bronze"


def enrich(user: dict) -> dict:
    contact = dict(user["contact"]) if isinstance(user.get("contact"), dict) else {}
    stats = dict(user["stats"]) if isinstance(user.get("stats"), dict) else {}
    out = {**user, "contact": {**contact, "email_provider": provider(contact.get("email"))},
           "stats": {**stats, "age": as_int(stats.get("age"))}, "account_tier": tier(stats.get("total_purchases"))}
    if "id" in user and (uid := as_int(user["id"])) is not None:
        out["id"] = uid
    return out


def transform_and_enrich_users(user_list: Any) -> list[dict]:
    if not isinstance(user_list, list):
        log.warning("expected list, got %s", type(user_list).__name__)
        return []
    out = []
    for user in user_list:
        if isinstance(user, dict):
            out.append(enrich(user))
        else:
            log.warning("skipping non-dict entry of type %s", type(user).__name__)
    return out


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("user_data.json", encoding="utf-8-sig") as fh:
        print(json.dumps(transform_and_enrich_users(json.load(fh)), ensure_ascii=False, indent=2))
