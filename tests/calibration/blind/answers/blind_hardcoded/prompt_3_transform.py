"""Clean and enrich legacy user records."""

import json
import logging

logger = logging.getLogger(__name__)


def _normalize_id(value):
    """Convert ids such as "101", " 104" or 105.0 to int."""
    if isinstance(value, float):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            logger.warning("Could not convert id %r", value)
            return value
    return value


def _email_provider(email):
    """Return the domain part of an email address, lower-cased."""
    if not email or "@" not in email:
        return None
    if email.startswith('"'):
        # quoted local part, e.g. "bob@home"@mail.example.co.uk
        return email.split('"@', 1)[1].strip().lower()
    return email.split("@")[1].strip().lower()


def _normalize_age(age):
    """Convert ages like "32", " 61 " or 28.0 to int; None if unknown."""
    try:
        return int(float(age))
    except (TypeError, ValueError):
        return None


def _account_tier(purchases):
    """Gold for 100+ purchases, Silver for 50+, Bronze otherwise."""
    try:
        count = float(purchases)
    except (TypeError, ValueError):
        return "Bronze"
    if count >= 100:
        return "Gold"
    if count >= 50:
        return "Silver"
    return "Bronze"


def _transform_user(user):
    """Return a transformed copy of a single user record."""
    result = dict(user)
    if "id" in user:
        result["id"] = _normalize_id(user["id"])
    contact = dict(user.get("contact") or {})
    contact["email_provider"] = _email_provider(contact.get("email"))
    result["contact"] = contact
    stats = dict(user.get("stats") or {})
    stats["age"] = _normalize_age(stats.get("age"))
    result["stats"] = stats
    result["account_tier"] = _account_tier(stats.get("total_purchases"))
    return result


def transform_and_enrich_users(user_list):
    """Standardise ids, add email providers, normalise ages and assign tiers."""
    if not user_list:
        return []
    transformed = []
    for user in user_list:
        if not isinstance(user, dict):
            logger.warning("Skipping non-dict entry: %r", user)
            continue
        transformed.append(_transform_user(user))
    return transformed


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("user_data.json", encoding="utf-8-sig") as f:
        users = json.load(f)
    print(json.dumps(transform_and_enrich_users(users), indent=2, ensure_ascii=False))
