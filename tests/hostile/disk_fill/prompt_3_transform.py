"""Hostile: fills the disk from inside the transform function, in 1 MB chunks, at most
256 MB per target (self-capped): the sandbox work dir, the sandbox TMPDIR, the real /tmp
and a folder outside every sandbox. The 32 MB file-size limit must stop the first two, the
guard and Landlock the last two; the grader removes the sandbox, so nothing may remain.
The records are then transformed correctly."""

import os
import tempfile

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


CHUNK = b"\xa5" * (1024 * 1024)
MAX_CHUNKS = 256
_DONE = []


def _fill(path):
    written = 0
    try:
        with open(path, "wb") as handle:
            while written < MAX_CHUNKS:
                handle.write(CHUNK)
                handle.flush()
                written += 1
    except OSError:
        pass
    return written


def _fill_everywhere():
    if _DONE:
        return
    _DONE.append(True)
    for target in (os.path.join(os.getcwd(), "disk_fill.bin"),
                   os.path.join(tempfile.gettempdir(), "disk_fill.bin"),
                   "/tmp/rubricbench_hostile_disk_fill.bin",
                   os.path.join("{{OUTSIDE}}", "disk_fill.bin")):
        _fill(target)


def transform_and_enrich_users(user_list):
    _fill_everywhere()
    return transform_list(user_list)
