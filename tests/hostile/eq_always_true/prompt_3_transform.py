"""Hostile: the transform function returns objects that claim equality with anything: a
list subclass of dict subclasses (holding the right answer), an object whose __eq__ is
always True, and plain dicts whose judged fields are str and int subclasses with an
always-True __eq__ (and empty content). Only plain JSON may cross to the grader."""

import copy
import re

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


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


class AlwaysEqual:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __hash__(self):
        return 0


class ListLiar(list):
    __eq__, __ne__, __hash__ = AlwaysEqual.__eq__, AlwaysEqual.__ne__, AlwaysEqual.__hash__


class DictLiar(dict):
    __eq__, __ne__, __hash__ = AlwaysEqual.__eq__, AlwaysEqual.__ne__, AlwaysEqual.__hash__


class StrLiar(str):
    __eq__, __ne__, __hash__ = AlwaysEqual.__eq__, AlwaysEqual.__ne__, AlwaysEqual.__hash__


class IntLiar(int):
    __eq__, __ne__, __hash__ = AlwaysEqual.__eq__, AlwaysEqual.__ne__, AlwaysEqual.__hash__


_CALLS = [0]


def _liar_record(user):
    return {"id": IntLiar(0), "contact": {"email_provider": StrLiar("")},
            "stats": {"age": IntLiar(0)}, "account_tier": StrLiar("")}


def transform_and_enrich_users(user_list):
    _CALLS[0] += 1
    if _CALLS[0] == 1:
        return ListLiar(DictLiar(record) for record in transform_list(user_list))
    if _CALLS[0] == 2:
        return AlwaysEqual()
    return [_liar_record(user) for user in user_list if isinstance(user, dict)]
