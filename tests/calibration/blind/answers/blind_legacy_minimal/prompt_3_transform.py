import json
import logging

logger = logging.getLogger(__name__)


def to_int(value):
    """Return value as an int if it is a whole number, otherwise None."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, int):
        return value
    if not isinstance(value, str):
        return None
    try:
        return int(value.strip())
    except ValueError:
        return None


def to_number(value):
    """Return value as a number (int or float), otherwise None."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if not isinstance(value, str):
        return None
    try:
        return float(value.strip())
    except ValueError:
        return None


def get_email_provider(email):
    if not isinstance(email, str) or "@" not in email:
        return None
    provider = email.rsplit("@", 1)[1].strip().lower()
    return provider or None


def get_account_tier(total_purchases):
    purchases = to_number(total_purchases)
    if purchases is None:
        return "Bronze"
    if purchases >= 100:
        return "Gold"
    if purchases >= 50:
        return "Silver"
    return "Bronze"


def transform_user(user):
    new_user = dict(user)

    if "id" in user:
        user_id = to_int(user["id"])
        if user_id is not None:
            new_user["id"] = user_id

    contact = dict(user["contact"]) if isinstance(user.get("contact"), dict) else {}
    contact["email_provider"] = get_email_provider(contact.get("email"))
    new_user["contact"] = contact

    stats = dict(user["stats"]) if isinstance(user.get("stats"), dict) else {}
    stats["age"] = to_int(stats.get("age"))
    new_user["stats"] = stats

    original_stats = user.get("stats") if isinstance(user.get("stats"), dict) else {}
    new_user["account_tier"] = get_account_tier(original_stats.get("total_purchases"))
    return new_user


def transform_and_enrich_users(user_list):
    if not isinstance(user_list, list):
        logger.warning("transform_and_enrich_users expects a list, got %s", type(user_list).__name__)
        return []
    result = []
    for user in user_list:
        if not isinstance(user, dict):
            logger.warning("skipping non-dict entry: %r", user)
            continue
        result.append(transform_user(user))
    return result


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("user_data.json", encoding="utf-8-sig") as f:
        users = json.load(f)
    for user in transform_and_enrich_users(users):
        print(user)
