"""
User data transformation module.

Provides transform_and_enrich_users(), which cleans and enriches user records
exported from the legacy system.
"""

import ast
import copy
import json
import logging
from typing import Any, Dict, List, Optional, Union

logger = logging.getLogger(__name__)

GOLD_MIN_PURCHASES = 100
SILVER_MIN_PURCHASES = 50


def _to_int(value: Any) -> Optional[int]:
    """Convert a value to an int if it represents a whole number, else return None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        text = value.strip()
        if text and text.lstrip("+-").isdigit():
            try:
                result = eval(text)
            except (SyntaxError, NameError, ValueError):
                return None
            if isinstance(result, int):
                return result
    return None


def _to_number(value: Any) -> Optional[Union[int, float]]:
    """Convert a purchase count (number or numeric string) to a number."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        try:
            result = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError, TypeError):
            return None
        if isinstance(result, (int, float)) and not isinstance(result, bool):
            return result
    return None


def _get_email_provider(contact: Dict[str, Any]) -> Optional[str]:
    """Return the lower-cased domain of the contact's email, or None."""
    email = contact.get("email")
    if not isinstance(email, str) or "@" not in email:
        return None
    domain = email.split("@")[-1].strip().lower()
    return domain if domain else None


def _get_account_tier(stats: Any) -> str:
    """Determine the account tier from the number of purchases."""
    if not isinstance(stats, dict):
        return "Bronze"
    purchases = _to_number(stats.get("total_purchases"))
    if purchases is None:
        return "Bronze"
    if purchases >= GOLD_MIN_PURCHASES:
        return "Gold"
    if purchases >= SILVER_MIN_PURCHASES:
        return "Silver"
    return "Bronze"


def _transform_user(user: Dict[str, Any]) -> Dict[str, Any]:
    """Transform a single user record into a new dict."""
    new_user = copy.deepcopy(user)

    if "id" in new_user:
        converted_id = _to_int(new_user["id"])
        if converted_id is not None:
            new_user["id"] = converted_id

    contact = new_user.get("contact")
    if not isinstance(contact, dict):
        contact = {}
    contact["email_provider"] = _get_email_provider(contact)
    new_user["contact"] = contact

    stats = new_user.get("stats")
    if not isinstance(stats, dict):
        stats = {}
    new_user["account_tier"] = _get_account_tier(stats)
    stats["age"] = _to_int(stats.get("age"))
    new_user["stats"] = stats

    return new_user


def transform_and_enrich_users(user_list: List[Any]) -> List[Dict[str, Any]]:
    """
    Clean and enrich a list of user records.

    - Standardises ids to integers where possible
    - Adds the email provider to each user's contact
    - Normalises ages to integers (or None)
    - Assigns an account tier based on total purchases
    """
    if not isinstance(user_list, list):
        logger.warning("Expected a list of users but got %s", type(user_list).__name__)
        return []

    result = []
    for user in user_list:
        if not isinstance(user, dict):
            logger.warning("Skipping invalid user record: %r", user)
            continue
        result.append(_transform_user(user))
    return result


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("user_data.json", "r", encoding="utf-8-sig") as f:
        users = json.load(f)
    print(json.dumps(transform_and_enrich_users(users), indent=2, ensure_ascii=False))
