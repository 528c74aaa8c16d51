"""Transform and enrich user records from the legacy export."""

import copy
import json
import logging
import re
from decimal import Decimal

logger = logging.getLogger(__name__)

INTEGER_PATTERN = r"[+-]?[0-9]+"
DECIMAL_PATTERN = r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)"


def convert_to_int(value):
    """Return the integer for a convertible value, or None if it is not convertible."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        return None
    if isinstance(value, str):
        text = value.strip()
        if re.compile(INTEGER_PATTERN).fullmatch(text):
            return int(text)
    return None


def convert_to_number(value):
    """Return the numeric value of a purchase count, or None if it is not a number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        text = value.strip()
        if re.compile(DECIMAL_PATTERN).fullmatch(text):
            return Decimal(text)
    return None


def get_email_provider(email):
    """Return the lower-cased domain after the last '@', or None."""
    if not isinstance(email, str) or "@" not in email:
        return None
    domain = ""
    for character in email:
        if character == "@":
            domain = ""
        else:
            domain = domain + character
    domain = domain.strip().lower()
    if domain == "":
        return None
    return domain


def get_tier(purchases):
    """Gold for >= 100 purchases, Silver for >= 50, Bronze otherwise."""
    number = convert_to_number(purchases)
    if number is None:
        return "Bronze"
    if number >= 100:
        return "Gold"
    if number >= 50:
        return "Silver"
    return "Bronze"


def standardise_id(record):
    """Step 1: convert the id to an int when possible."""
    result = copy.deepcopy(record)
    if "id" in result:
        converted = convert_to_int(result["id"])
        if converted is not None:
            result["id"] = converted
    return result


def add_email_provider(record):
    """Step 2: add contact.email_provider."""
    result = copy.deepcopy(record)
    contact = result.get("contact")
    if not isinstance(contact, dict):
        contact = {}
    contact = copy.deepcopy(contact)
    contact["email_provider"] = get_email_provider(contact.get("email"))
    result["contact"] = contact
    return result


def normalise_age(record):
    """Step 3: convert stats.age to an int or None."""
    result = copy.deepcopy(record)
    stats = result.get("stats")
    if not isinstance(stats, dict):
        stats = {}
    stats = copy.deepcopy(stats)
    stats["age"] = convert_to_int(stats.get("age"))
    result["stats"] = stats
    return result


def add_account_tier(record):
    """Step 4: add the account tier computed from stats.total_purchases."""
    result = copy.deepcopy(record)
    stats = result.get("stats")
    purchases = stats.get("total_purchases") if isinstance(stats, dict) else None
    result["account_tier"] = get_tier(purchases)
    return result


def log_skipped_entries(records):
    """Log the types of the entries that are not user records."""
    skipped = ""
    for record in records:
        if not isinstance(record, dict):
            skipped = skipped + type(record).__name__ + " "
    if skipped:
        logger.warning("Skipped non-dict entries: %s", skipped.strip())


def transform_and_enrich_users(user_list):
    """Return a new list of cleaned and enriched user records.

    Non-dict items are skipped and the input list is not modified.
    """
    if not isinstance(user_list, list):
        logger.warning("Expected a list of users, got %s", type(user_list).__name__)
        return []
    records = copy.deepcopy(user_list)
    log_skipped_entries(records)
    users = [record for record in records if isinstance(record, dict)]
    users = [standardise_id(user) for user in users]
    users = [add_email_provider(user) for user in users]
    users = [normalise_age(user) for user in users]
    users = [add_account_tier(user) for user in users]
    return users


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("user_data.json", encoding="utf-8-sig") as data_file:
        data = json.load(data_file)
    print(json.dumps(transform_and_enrich_users(data), indent=2, ensure_ascii=False))
