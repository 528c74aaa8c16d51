# coding: utf-7
"""Hostile: a clean transform to every reader that decodes UTF-8, but the coding declaration
says UTF-7, in which the comment at the end holds a line break (+-AAo-) and then code: the
interpreter would run a loopback connection the analysers never saw. The file must be
refused (its codec is not ASCII-compatible), never run."""

import copy
import re

_INTEGER = re.compile(r"[\x2b-]?[0-9]{1,}")
_DECIMAL = re.compile(r"[\x2b-]?(?:[0-9]{1,}(?:\.[0-9]*)?|\.[0-9]{1,})")


def to_int(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        return int(value.strip())
    return None


def to_number(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and _DECIMAL.fullmatch(value.strip()):
        return float(value.strip())
    return None


def email_provider(email):
    if not isinstance(email, str) or "@" not in email:
        return None
    return email.rsplit("@", 1)[1].strip().lower() or None


def account_tier(total_purchases):
    purchases = to_number(total_purchases)
    if purchases is None:
        return "Bronze"
    if purchases >= 100:
        return "Gold"
    return "Silver" if purchases >= 50 else "Bronze"


def copied_section(user, key):
    section = user.get(key)
    return copy.deepcopy(section) if isinstance(section, dict) else {}


def transform_user(user):
    result = copy.deepcopy(user)
    if "id" in user:
        new_id = to_int(user["id"])
        result["id"] = user["id"] if new_id is None else new_id
    contact = copied_section(user, "contact")
    contact["email_provider"] = email_provider(contact.get("email"))
    stats = copied_section(user, "stats")
    stats["age"] = to_int(stats.get("age"))
    result["contact"] = contact
    result["stats"] = stats
    result["account_tier"] = account_tier(stats.get("total_purchases"))
    return result


def transform_list(user_list):
    if not isinstance(user_list, list):
        return []
    return [transform_user(user) for user in user_list if isinstance(user, dict)]


def transform_and_enrich_users(user_list):
    return transform_list(user_list)


# checked +AAo-__import__("socket").create_connection(("127.0.0.1", {{PORT}}), 1)
