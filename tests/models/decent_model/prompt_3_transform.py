import json
import logging

logger = logging.getLogger(__name__)


def convert_to_int(value):
    """Convert a value to int if it represents a whole number, else return None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        return None
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def parse_purchases(value):
    """Parse total_purchases into a float, or None if it is not a number."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def get_tier(purchases):
    if purchases is None:
        return "Bronze"
    if purchases > 100:
        return "Gold"
    elif purchases >= 50:
        return "Silver"
    else:
        return "Bronze"


def get_email_provider(email):
    if not isinstance(email, str) or "@" not in email:
        return None
    provider = email.split("@")[-1].strip().lower()
    if not provider:
        return None
    return provider


def transform_user(user):
    """Transform a single user record into a new dict."""
    new_user = dict(user)

    # 1. id
    if "id" in user:
        converted = convert_to_int(user["id"])
        if converted is not None:
            new_user["id"] = converted
        else:
            logger.warning("Could not convert id %r to int", user["id"])

    # 2. contact / email provider
    contact = user.get("contact")
    if isinstance(contact, dict):
        new_contact = dict(contact)
    else:
        new_contact = {}
    new_contact["email_provider"] = get_email_provider(new_contact.get("email"))
    new_user["contact"] = new_contact

    # 3. stats / age
    stats = user.get("stats")
    if isinstance(stats, dict):
        new_stats = dict(stats)
    else:
        new_stats = {}
    new_stats["age"] = convert_to_int(new_stats.get("age"))
    new_user["stats"] = new_stats

    # 4. tier
    purchases = parse_purchases(new_stats.get("total_purchases"))
    new_user["account_tier"] = get_tier(purchases)
    return new_user


def transform_and_enrich_users(user_list):
    """Clean and enrich a list of user records.

    Returns a new list; the input is not modified. Non-dict entries are skipped.
    """
    if not isinstance(user_list, list):
        logger.error("Expected a list, got %s", type(user_list).__name__)
        return []

    results = []
    for user in user_list:
        if not isinstance(user, dict):
            logger.warning("Skipping non-dict record: %r", user)
            continue
        try:
            results.append(transform_user(user))
        except Exception as e:
            logger.error("Failed to transform record %r: %s", user.get("id"), e)
    return results


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("user_data.json", encoding="utf-8-sig") as f:
        data = json.load(f)
    for record in transform_and_enrich_users(data):
        print(json.dumps(record, ensure_ascii=False))
