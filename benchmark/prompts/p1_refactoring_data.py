"""Prompt 1's oracle and the plain-data helpers its checks use.

The oracle (``expected_output``) is the evaluation contract of
``benchmark/packs/core/prompt_1/prompt.md`` written as code; it runs in the grader's process on
data the grader generated, never on anything a submission produced. The seeded perturbed data
sets it judges live in ``p1_refactoring_cases``.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any


OUTPUT_KEYS: tuple[str, ...] = ("id", "name", "email", "age", "country", "signup",
                                "days_since_signup")
OUTPUT_TYPES: dict[str, type] = {"id": int, "name": str, "email": str, "age": int,
                                 "country": str, "signup": str, "days_since_signup": int}
INPUT_FIELDS: tuple[str, ...] = ("id", "name", "email", "age", "country", "signup")

_TIMESTAMP = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})"
                        r"(Z|[+-][0-9]{2}:[0-9]{2})")
_DIGITS = re.compile(r"[0-9]+")


# ---- the oracle ------------------------------------------------------------------------

def parse_timestamp(value: Any) -> datetime | None:
    """``YYYY-MM-DDTHH:MM:SS`` plus ``Z`` or ``±HH:MM``, as an aware UTC datetime; else None."""
    match = _TIMESTAMP.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        return None
    *parts, zone = match.groups()
    offset = timedelta(0)
    if zone != "Z":
        hours, minutes = int(zone[1:3]), int(zone[4:6])
        if hours > 23 or minutes > 59:
            return None
        offset = timedelta(hours=hours, minutes=minutes) * (-1 if zone[0] == "-" else 1)
    try:
        local = datetime(*(int(p) for p in parts), tzinfo=timezone(offset))
    except ValueError:
        return None
    return local.astimezone(timezone.utc)


def _whole_number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _DIGITS.fullmatch(value.strip()):
        return int(value.strip())
    return None


def lenient_id(value: Any) -> int | None:
    """The id a lenient reader makes of ``value``: bools and ints as numbers, an integral
    float, or text ``int()`` accepts (other scripts' digits, a sign). The judge finds records
    by it, so a record kept with a wrong id, or in the wrong type, is still found."""
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, int):
        return int(value)
    if isinstance(value, str) and len(value) < 100:
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _email(value: Any) -> str | None:
    text = _text(value)
    if text is None or text.count("@") != 1:
        return None
    local, domain = text.lower().split("@")
    return f"{local}@{domain}" if local and "." in domain else None


def _present(record: dict[str, Any], field: str) -> bool:
    value = record.get(field)
    return value is not None and (not isinstance(value, str) or bool(value.strip()))


def normalise(record: Any, rules: dict[str, Any], reference: datetime) -> dict[str, Any] | None:
    """The output record for one input record, or None when the contract drops it."""
    if not isinstance(record, dict):
        return None
    required = set(INPUT_FIELDS) | set(rules["required_fields"])
    if not all(_present(record, field) for field in required):
        return None
    allowed = {str(code).strip().upper() for code in rules["allowed_countries"]}
    rid, age = _whole_number(record["id"]), _whole_number(record["age"])
    name, email = _text(record["name"]), _email(record["email"])
    country = _text(record["country"])
    country = country.upper() if country else None
    signup = parse_timestamp(record["signup"])
    if rid is None or rid < 1 or age is None or name is None or email is None:
        return None
    if signup is None or country not in allowed:
        return None
    if not rules["min_age"] <= age <= rules["max_age"]:
        return None
    return {"id": rid, "name": name, "email": email, "age": age, "country": country,
            "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "days_since_signup": (reference - signup).days}


def expected_output(config: dict[str, Any], records: list[Any]) -> list[dict[str, Any]]:
    """What a correct solution prints for ``config`` and ``records`` (sorted by id)."""
    reference = parse_timestamp(config["reference_date"])
    if reference is None:
        raise ValueError("oracle given an invalid reference_date")
    kept: dict[int, dict[str, Any]] = {}
    for record in records:
        row = normalise(record, config["validation_rules"], reference)
        if row is not None and row["id"] not in kept:
            kept[row["id"]] = row
    return [kept[rid] for rid in sorted(kept)]
