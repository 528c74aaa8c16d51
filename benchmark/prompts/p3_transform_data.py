"""Prompt 3 data: the fixture and its hazards, the reference rules (the oracle), and the
malformed and seeded data sets.

The rules here are the prompt's evaluation contract, written as code:

* ``id`` becomes an int when it is an int (not a bool), a float with no fractional part, or
  a string that after stripping surrounding whitespace is an optional sign and ASCII digits;
  otherwise it is kept as it was (a missing ``id`` stays missing); a digit string of more
  than 4300 digits may be treated either way (``either_way``: the oracle converts it, the
  judge accepts both);
* ``contact`` is copied (a fresh ``{}`` when it is missing or not an object) and gains
  ``email_provider``: the lower-cased text after the last ``@`` of ``email``, stripped of
  surrounding whitespace, or None when ``email`` is not a string with an ``@`` or the domain
  is empty;
* ``stats`` is copied the same way and its ``age`` becomes an int by the ``id`` rule, or None;
* ``account_tier`` is "Gold" when ``stats.total_purchases`` >= 100, "Silver" when >= 50,
  else "Bronze"; the count may be an int, a float or a plain decimal string of ASCII digits
  (no exponent, inf or nan), never a bool;
* records that are not objects are skipped; everything else is copied unchanged.
"""

from __future__ import annotations

import copy
import json
import random
import re
import sys
from functools import lru_cache
from typing import Any

from .. import bigint

FIXTURE_PATH = "user_data.json"
ANSWER_KEY_PATH = "prompt_3_expected.json"
BOM = b"\xef\xbb\xbf"
GOLD_MIN = 100
SILVER_MIN = 50
DIGIT_LIMIT = sys.int_info.default_max_str_digits  # 4300: int()'s default limit (prompt.md)

_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_DECIMAL_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")

HAZARDS: dict[str, str] = {
    "utf8_bom": "user_data.json starts with a UTF-8 byte order mark (EF BB BF)",
    "string_ids": "ids are JSON strings (\"101\") next to JSON integers (102)",
    "padded_ids": "id strings carry surrounding whitespace (\"103 \", \" 104\")",
    "float_id": "an id is a JSON float with no fraction (105.0)",
    "string_numbers": "age and total_purchases given as strings (\"32\", \"15\", \"49.5\")",
    "float_age": "an age is a JSON float (28.0) that must become the int 28",
    "padded_age": "an age string has surrounding whitespace (\" 61 \")",
    "invalid_ages": "ages that are not numbers: \"unknown\" and null",
    "null_email": "a contact whose email is null",
    "missing_email": "a contact with no email key at all",
    "uppercase_domain": "email domains in mixed/upper case (Web.DE, Outlook.COM)",
    "padded_email": "an email with surrounding whitespace",
    "quoted_at_local_part": "an email whose quoted local part contains '@' (\"bob@home\"@...)",
    "stale_provider": "a contact that already has an email_provider that must be recomputed",
    "missing_contact_stats": "user 999 has neither contact nor stats",
    "tier_boundaries": "purchase counts on and next to the tier limits: 50, \"100\", 99.99, \"49.5\"",
    "non_ascii_names": "names with non-ASCII letters (José Müller, Zoë 李, Åsa Öberg)",
}


class Missing:
    """Marks a key that is absent (distinct from a JSON null)."""

    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = Missing()


# ---- the oracle ------------------------------------------------------------------------


def as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str) and _INT_TEXT.fullmatch(value.strip()):
        return digits_value(value.strip())
    return None


def digits_value(text: str) -> int:
    """``int(text)`` for an optional sign and ASCII digits of any length: ``int()`` alone
    raises past ``sys.get_int_max_str_digits()`` (4300 digits). The oracle converts them;
    the judge accepts "not convertible" for them too (``either_way``)."""
    return bigint.signed_value(text)


def either_way(value: Any) -> bool:
    """Whether ``value`` is a convertible string of more than ``DIGIT_LIMIT`` digits, which
    the contract lets an answer treat either way (converted, or not convertible): only code
    that switches off CPython's int-to-str limit converts it with ``int()``, and demanding
    that is no fair test. The function must still not raise on it."""
    if not isinstance(value, str) or len(value) <= DIGIT_LIMIT:
        return False
    stripped = value.strip()
    return bool(_INT_TEXT.fullmatch(stripped)) and len(stripped.lstrip("+-")) > DIGIT_LIMIT


def as_count(value: Any) -> float | int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and _DECIMAL_TEXT.fullmatch(value.strip()):
        return float(value.strip())
    return None


def email_provider(email: Any) -> str | None:
    if not isinstance(email, str) or "@" not in email:
        return None
    domain = email.rsplit("@", 1)[1].strip().lower()
    return domain or None


def account_tier(stats: Any) -> str:
    count = as_count(stats.get("total_purchases")) if isinstance(stats, dict) else None
    if count is not None and count >= GOLD_MIN:
        return "Gold"
    if count is not None and count >= SILVER_MIN:
        return "Silver"
    return "Bronze"


def transform_record(record: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(record)
    if "id" in record and as_int(record["id"]) is not None:
        out["id"] = as_int(record["id"])
    contact = out.get("contact")
    contact = contact if isinstance(contact, dict) else {}
    contact["email_provider"] = email_provider(contact.get("email"))
    out["contact"] = contact
    stats = out.get("stats")
    stats = stats if isinstance(stats, dict) else {}
    stats["age"] = as_int(stats.get("age"))
    out["stats"] = stats
    out["account_tier"] = account_tier(record.get("stats"))
    return out


def expected_output(users: Any) -> list[dict[str, Any]]:
    """The oracle: what ``transform_and_enrich_users(users)`` must return (JSON-shaped: the
    records are deep copies of JSON data; no JSON round trip, which cannot write an int of
    more than 4300 digits)."""
    if not isinstance(users, list):
        return []
    return [transform_record(u) for u in users if isinstance(u, dict)]


# ---- the fixture --------------------------------------------------------------------------


def fixture_users() -> list[dict[str, Any]]:
    return [
        {"id": "101", "name": "Alice Johnson",
         "contact": {"email": "alice.johnson@gmail.com", "phone": "+1-555-0101"},
         "stats": {"age": "32", "total_purchases": "15", "last_login": "2024-05-01"},
         "tags": ["newsletter", "beta"]},
        {"id": 102, "name": "José Müller",
         "contact": {"email": "Jose.Mueller@Web.DE", "phone": None},
         "stats": {"age": 45, "total_purchases": 120}},
        {"id": "103 ", "name": "Zoë 李",
         "contact": {"email": None, "phone": "+86 10 5555 0103"},
         "stats": {"age": 28.0, "total_purchases": 50}},
        {"id": " 104", "name": "Bob O'Brien",
         "contact": {"email": '"bob@home"@Mail.Example.co.uk', "email_provider": "stale.example"},
         "stats": {"age": "unknown", "total_purchases": "49.5"}},
        {"id": 105.0, "name": "Åsa Öberg",
         "contact": {"email": " asa.oberg@Outlook.COM "},
         "stats": {"age": None, "total_purchases": "100"}, "active": False},
        {"id": "106", "name": "Chen Wei", "contact": {"phone": "555-0106"},
         "stats": {"age": " 61 ", "total_purchases": 99.99}, "active": True},
        {"id": 999, "name": "Legacy Account", "active": True},
    ]


def fixture_bytes() -> bytes:
    return BOM + dump_json(fixture_users())


def dump_json(data: Any) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


# ---- malformed and perturbed data sets ----------------------------------------------------


def malformed_users() -> list[Any]:
    """Inputs that break careless code; the oracle still defines the exact answer."""
    return [
        "not a user",
        None,
        {"id": "abc", "name": "Bad Id", "contact": None, "stats": "n/a"},
        42,
        {"id": " 7 ", "contact": {"email": 12345}, "stats": {"age": True, "total_purchases": "lots"}},
        {"id": True, "contact": "mail@example.com", "stats": {"age": "", "total_purchases": None}},
        ["a", "list"],
        {"name": "No Id", "contact": {"email": "@"}, "stats": None},
        {"id": 8.5, "contact": {"email": "edge@"}, "stats": {"age": 30.5, "total_purchases": True}},
        {"id": None, "contact": {}, "stats": {"total_purchases": [100]}},
        {},
        {"id": "12", "contact": {"email": "x@Y.org"}, "stats": {"age": "40", "total_purchases": "75"},
         "extra": {"nested": [1, 2.0, None, True]}},
    ]


_FIRST = ("Ana", "Björn", "Chloé", "Dmitri", "Eve", "François", "Grace", "Hiroshi", "Inés",
          "Jamal", "Kofi", "Łucja", "Mateo", "Nadia", "Øystein", "Priya", "Zoë", "Wei")
_LAST = ("Okafor", "Müller", "García", "Nguyen", "O'Brien", "Sørensen", "Kowalski", "Haddad",
         "Smith", "Dubois", "Tanaka", "Rossi", "李", "Иванова")
_DOMAINS = ("gmail.com", "Yahoo.com", "OUTLOOK.COM", "web.de", "Mail.Example.co.uk",
            "proton.me", "ExAmple.ORG", "Uni-Bonn.DE", "fastmail.fm")
# Per column: the kinds every data set contains (listed twice: at least twice), then the kinds
# the rest is drawn from (mostly valid, so "always None"/"Bronze" earns little). "foreign" is a
# number in non-ASCII digits; counts sit on and just below each tier limit, and include strings
# float() takes but the contract does not ("1e3", "inf", "nan").
_ID_KINDS = (("int", "str", "padded", "float", "opaque", "foreign"),
             ("int", "str", "str", "padded", "float"))
_EMAIL_KINDS = (("plain", "upper", "padded", "null", "absent", "no_at", "quoted", "trailing_at",
                 "stale", "no_contact", "null_contact"),
                ("plain", "plain", "upper", "upper", "padded", "quoted", "stale"))
_AGE_KINDS = (("int", "str", "padded", "float", "null", "word", "absent", "fraction", "empty",
               "foreign"),
              ("str", "str", "padded", "float", "int"))
_COUNT_KINDS = (("gold_edge", "gold_edge", "silver_edge", "silver_edge", "below_gold",
                 "below_silver", "value", "text", "absent", "null", "word", "exponent", "inf",
                 "nan", "foreign", "no_stats"),
                ("value", "value", "text", "gold_edge", "silver_edge", "below_gold", "below_silver"))
_COUNTS = (9, 49, 49.99, 50, 50.0, 51, 99, 99.99, 100, 100.0, 101, 250, 1200)
_COUNT_CHOICES: dict[str, tuple[Any, ...]] = {
    "gold_edge": (100, 100.0, "100", " 100 ", "100.0", "+100"),
    "silver_edge": (50, 50.0, "50", " 50 ", "50.00", "+50"),
    "below_gold": (99, 99.99, "99", " 99.5 ", "99.99"),
    "below_silver": (49, 49.99, "49", "49.5 ", " 49.99"),
    "word": ("lots", "n/a", ""), "exponent": ("1e3", "2E2", "1.5e2", "5e1"),
    "inf": ("inf", "Infinity", "+inf"), "nan": ("nan", "NaN"),
}
_FOREIGN_DIGITS = ("٠١٢٣٤٥٦٧٨٩", "０１２３４５６７８９", "०१२३४५६७८९")


def _foreign(number: int, script: int) -> str:
    """``number`` in Arabic-Indic, full-width or Devanagari digits (not ASCII: not convertible)."""
    digits = _FOREIGN_DIGITS[script % len(_FOREIGN_DIGITS)]
    return str(number).translate(str.maketrans("0123456789", digits))


def _kinds(rng: random.Random, kinds: tuple[tuple[str, ...], tuple[str, ...]], count: int) -> list[str]:
    """Every required kind once (when room), the rest drawn from the common kinds, shuffled."""
    required, common = kinds
    picks = list(required)[:count] + [rng.choice(common) for _ in range(count - len(required))]
    rng.shuffle(picks)
    return picks


def _render_id(kind: str, number: int) -> Any:
    return {"int": number, "str": str(number), "padded": f"  {number} ", "float": float(number),
            "opaque": f"user-{number}", "foreign": _foreign(number, number)}[kind]


def _contact(rng: random.Random, kind: str, handle: str) -> Any:
    domain = rng.choice(_DOMAINS)
    emails = {"plain": f"{handle}@{domain.lower()}", "upper": f"{handle.title()}@{domain.upper()}",
              "padded": f"  {handle}@{domain} ", "no_at": f"{handle}.{domain}",
              "quoted": f'"{handle}@home"@{domain}', "trailing_at": f"{handle}@",
              "stale": f"{handle}@{domain}"}
    if kind == "no_contact":
        return MISSING
    if kind == "null_contact":
        return None
    contact: dict[str, Any] = {"phone": f"+1-555-{rng.randint(1000, 9999)}"}
    if kind == "null":
        contact["email"] = None
    elif kind != "absent":
        contact["email"] = emails[kind]
    if kind == "stale":
        contact["email_provider"] = "legacy.example"
    return contact


def _age(rng: random.Random, kind: str) -> Any:
    years = rng.randint(16, 90)
    return {"int": years, "str": str(years), "padded": f" {years}  ", "float": float(years),
            "null": None, "word": rng.choice(("unknown", "thirty", "n/a")), "absent": MISSING,
            "fraction": years + 0.5, "empty": "", "foreign": _foreign(years, years)}[kind]


def _count(rng: random.Random, kind: str) -> Any:
    if kind in _COUNT_CHOICES:
        return rng.choice(_COUNT_CHOICES[kind])
    if kind == "foreign":
        return _foreign(rng.choice((60, 75, 120, 150)), rng.randrange(len(_FOREIGN_DIGITS)))
    value = rng.choice(_COUNTS)
    return {"value": value, "text": rng.choice((f"{value}", f" {value} ")), "absent": MISSING,
            "null": None, "no_stats": value}[kind]


def _user(rng: random.Random, number: int, kinds: tuple[str, str, str, str]) -> dict[str, Any]:
    id_kind, email_kind, age_kind, count_kind = kinds
    handle = f"{rng.choice(_FIRST).lower()}.{rng.randint(1, 999)}"
    user: dict[str, Any] = {"id": _render_id(id_kind, number),
                            "name": f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"}
    contact = _contact(rng, email_kind, handle)
    if contact is not MISSING:
        user["contact"] = contact
    stats = {"age": _age(rng, age_kind), "total_purchases": _count(rng, count_kind),
             "visits": rng.randint(0, 500)}
    if count_kind != "no_stats":
        user["stats"] = {k: v for k, v in stats.items() if v is not MISSING}
    user["active"] = rng.random() < 0.7
    if rng.random() < 0.5:
        user["tags"] = sorted(rng.sample(["beta", "vip", "newsletter", "trial"], rng.randint(1, 2)))
    return user


def perturbed_users(seed: int) -> list[dict[str, Any]]:
    """20-40 users drawn from ``seed``: new ids, ages, purchase counts and providers."""
    rng = random.Random(seed)
    return _users(rng, rng.randint(24, 36))


@lru_cache(maxsize=4)  # once per process and seed; shared, so never mutated (only serialised)
def scaled_users(seed: int, count: int) -> list[dict[str, Any]]:
    """``count`` users (up to 9,800) drawn like the perturbed ones, for timing only."""
    return _users(random.Random(f"{seed}:scaled:{count}"), count)


def _users(rng: random.Random, count: int) -> list[dict[str, Any]]:
    numbers = rng.sample(range(200, 10_000), count)
    columns = [_kinds(rng, kinds, count)
               for kinds in (_ID_KINDS, _EMAIL_KINDS, _AGE_KINDS, _COUNT_KINDS)]
    return [_user(rng, n, kinds) for n, kinds in zip(numbers, zip(*columns))]
