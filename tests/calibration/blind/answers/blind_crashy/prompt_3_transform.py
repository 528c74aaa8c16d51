"""
User data transformation module.

Cleans and enriches user records exported from the legacy system:
- standardises ids to integers
- adds the email provider to the contact info
- normalises ages to integers
- assigns an account tier based on the purchase count
"""

import json
import logging

logger = logging.getLogger(__name__)

GOLD_THRESHOLD = 100
SILVER_THRESHOLD = 50


def _standardize_id(user_id):
    """Convert an id that represents a whole number to an int."""
    if isinstance(user_id, bool):
        return user_id
    if isinstance(user_id, float) and user_id.is_integer():
        return int(user_id)
    if isinstance(user_id, str):
        stripped = user_id.strip()
        if stripped.lstrip("+-").isdigit():
            return int(stripped)
    return user_id


def _get_email_provider(contact):
    """Return the domain part of the email address, lower-cased."""
    email = contact.get("email")
    if email and "@" in email:
        return email.split("@")[-1].strip().lower()
    return None


def _normalize_age(age):
    """Convert the age to an int, or None if it cannot be parsed."""
    if age is None:
        return None
    try:
        return int(float(age))
    except ValueError:
        logger.warning("Could not parse age: %r", age)
        return None


def _get_account_tier(total_purchases):
    """Determine the account tier from the total number of purchases."""
    if total_purchases is None:
        return "Bronze"
    try:
        purchases = float(total_purchases)
    except (ValueError, TypeError):
        logger.warning("Invalid total_purchases value: %r", total_purchases)
        return "Bronze"

    if purchases >= GOLD_THRESHOLD:
        return "Gold"
    if purchases >= SILVER_THRESHOLD:
        return "Silver"
    return "Bronze"


def _transform_user(user):
    """Transform a single user record without modifying the original."""
    new_user = user.copy()

    if "id" in user:
        new_user["id"] = _standardize_id(user["id"])

    contact = user.get("contact")
    contact = contact.copy() if contact is not None else {}
    contact["email_provider"] = _get_email_provider(contact)
    new_user["contact"] = contact

    stats = user.get("stats")
    stats = stats.copy() if stats is not None else {}
    stats["age"] = _normalize_age(stats.get("age"))
    new_user["stats"] = stats

    new_user["account_tier"] = _get_account_tier(stats.get("total_purchases"))
    return new_user


def transform_and_enrich_users(user_list):
    """
    Clean and enrich a list of user records.

    Args:
        user_list: list of user dicts (as loaded from user_data.json)

    Returns:
        A new list of transformed user dicts. Non-dict entries are skipped.
    """
    result = []
    for user in user_list:
        if not isinstance(user, dict):
            logger.warning("Skipping non-dict record: %r", user)
            continue
        result.append(_transform_user(user))
    return result


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("user_data.json", "r", encoding="utf-8-sig") as f:
        users = json.load(f)
    transformed = transform_and_enrich_users(users)
    print(json.dumps(transformed, indent=2, ensure_ascii=False))
