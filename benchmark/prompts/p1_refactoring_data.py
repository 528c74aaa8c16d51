"""Prompt 1's oracle, perturbed data sets and the plain-data helpers its checks use.

The oracle (``expected_output``) is the evaluation contract of ``benchmark/packs/core/prompt_1/prompt.md`` written
as code; it runs in the grader's process on data the grader generated, never on anything a
submission produced. ``perturbed_case(seed)`` builds another config and another record set
(other countries, other age bounds, another reference date, an extra required field, other
file names), so hard-coded filters or canned output fail there. It also holds the contract's
edge cases that lenient parsers keep: offset-less signups in three shapes, a signup with a
trailing newline, an age written in Arabic-Indic digits, and non-object entries that are not
null.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from .p1_refactoring_fixtures import config_bytes, records_bytes

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


# ---- perturbed data sets ----------------------------------------------------------------

@dataclass(frozen=True)
class PerturbedCase:
    config_name: str
    data_name: str
    config: bytes
    records: bytes
    expected: list[dict[str, Any]]


_COUNTRIES = ("US", "CA", "DE", "FR", "GB", "MX", "JP", "BR", "IN", "AU", "NL", "SE")
_OFFSETS = ("Z", "+00:00", "+02:00", "-05:00", "+05:30", "-07:00", "+09:00", "-03:30")
_FIRST = ("Ada", "Ben", "Cleo", "Dev", "Ela", "Finn", "Gia", "Hal", "Ivy", "Joel", "Kai",
          "Lena", "Milo", "Nia", "Otto", "Pax", "Rhea", "Sami", "Tess", "Uma")
_LAST = ("Stone", "Rivera", "Okafor", "Berg", "Nakamura", "Silva", "Novak", "Haas", "Ibsen")
# Kinds of record: "ok*" are kept (after normalising), the rest break one rule each; the
# "junk" entries are not objects (the fixture has a null, these are a number and a string/list).
# Offset-less signups come in three common shapes (plain, ``isoformat()`` with microseconds,
# date only), so treating naive times as UTC costs as much as the contract says it is worth.
_KINDS = ("ok", "ok", "ok", "ok", "ok", "ok", "ok_strings", "ok_strings", "ok_strings",
          "ok_min_age", "ok_max_age", "too_young", "too_old", "float_age", "bad_age",
          "unicode_age", "bad_country", "null_email", "bad_email", "blank_name", "naive_time",
          "naive_micro", "naive_date", "newline_signup", "impossible_date", "missing_extra",
          "blank_extra", "bad_id", "duplicate", "junk_number", "junk_text")
# Arabic-Indic digits: str.isdigit(), int() and the regex \d accept them; the contract does not.
_ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")


def _config(rng: random.Random) -> dict[str, Any]:
    reference = datetime(2025, rng.randint(2, 11), rng.randint(1, 28), rng.randint(0, 23),
                         tzinfo=timezone.utc)
    return {
        "data_source": f"batch_{rng.randint(100, 999)}.json",
        "reference_date": reference.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "validation_rules": {
            "min_age": rng.randint(19, 25),
            "max_age": rng.randint(50, 64),
            "required_fields": ["name", "email", "country", rng.choice(("plan", "consent"))],
            "allowed_countries": sorted(rng.sample(_COUNTRIES, 4)),
        },
    }


def _timestamp(rng: random.Random, reference: datetime, naive: bool = False) -> str:
    moment = reference - timedelta(seconds=rng.randint(3600, 900 * 86400))
    zone = rng.choice(_OFFSETS)
    offset = timedelta(0) if zone == "Z" else (
        (-1 if zone[0] == "-" else 1) * timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
    local = moment.astimezone(timezone(offset)).strftime("%Y-%m-%dT%H:%M:%S")
    return local if naive else local + zone


def _base(rng: random.Random, rid: int, config: dict[str, Any]) -> dict[str, Any]:
    rules = config["validation_rules"]
    first, last = rng.choice(_FIRST), rng.choice(_LAST)
    extra = rules["required_fields"][-1]
    return {"id": rid, "name": f"{first} {last}",
            "email": f"{first}.{last}@example.{rng.choice(('com', 'org', 'net'))}".lower(),
            "age": rng.randint(rules["min_age"], rules["max_age"]),
            "country": rng.choice(rules["allowed_countries"]),
            "signup": _timestamp(rng, parse_timestamp(config["reference_date"])),
            extra: rng.choice((True, "basic", "pro")) if extra == "consent" else "pro"}


def _stringify(rng: random.Random, record: dict[str, Any]) -> None:
    record["id"] = str(record["id"])
    record["age"] = rng.choice((str(record["age"]), f" {record['age']} "))
    record["country"] = rng.choice((record["country"].lower(), f" {record['country']} "))
    record["name"] = f"  {record['name']} "
    record["email"] = record["email"].upper()


def _mutate(rng: random.Random, kind: str, record: dict[str, Any], config: dict[str, Any],
            earlier: list[int]) -> Any:
    rules = config["validation_rules"]
    extra = rules["required_fields"][-1]
    naive = _timestamp(rng, parse_timestamp(config["reference_date"]), naive=True)
    changes: dict[str, dict[str, Any]] = {
        "ok_min_age": {"age": rules["min_age"]}, "ok_max_age": {"age": str(rules["max_age"])},
        "too_young": {"age": rules["min_age"] - rng.randint(1, 5)},
        "too_old": {"age": str(rules["max_age"] + rng.randint(1, 20))},
        "float_age": {"age": rules["min_age"] + 2.5}, "bad_age": {"age": "unknown"},
        "bad_country": {"country": rng.choice([c for c in _COUNTRIES
                                               if c not in rules["allowed_countries"]])},
        "null_email": {"email": None}, "bad_email": {"email": "no-at-sign.example.com"},
        "blank_name": {"name": "  "}, "blank_extra": {extra: " "}, "bad_id": {"id": "X-7"},
        "naive_time": {"signup": naive},
        "naive_micro": {"signup": f"{naive}.{rng.randint(1, 999999):06d}"},
        "naive_date": {"signup": naive[:10]},
        "newline_signup": {"signup": record["signup"] + "\n"},
        "unicode_age": {"age": str(record["age"]).translate(_ARABIC_INDIC)},
        "impossible_date": {"signup": "2024-04-31T12:00:00Z"},
        "duplicate": {"id": rng.choice(earlier)} if earlier else {},
    }
    if kind == "junk_number":
        return rng.randint(0, 99)
    if kind == "junk_text":
        return rng.choice(("corrupted", "", ["a", "list"]))
    if kind == "ok_strings":
        _stringify(rng, record)
    if kind == "missing_extra":
        del record[extra]
    record.update(changes.get(kind, {}))
    return record


def perturbed_case(seed: int) -> PerturbedCase:
    rng = random.Random(seed)
    config = _config(rng)
    kinds = list(_KINDS)
    rng.shuffle(kinds)
    ids = rng.sample(range(100, 1000), len(kinds))
    records: list[Any] = []
    for kind, rid in zip(kinds, ids):
        earlier = [r["id"] for r in records if isinstance(r, dict) and isinstance(r["id"], int)]
        records.append(_mutate(rng, kind, _base(rng, rid, config), config, earlier))
    return PerturbedCase("batch_config.yaml", config["data_source"], config_bytes(config),
                         records_bytes(records), expected_output(config, records))
