"""Prompt 3's differential run: a few hundred records drawn from the contract's value classes.

Each dict record takes one class per column (``id``, ``email``, ``age``, ``count`` =
``stats.total_purchases``, and the shapes of ``contact`` and ``stats``); ``CLASSES`` lists
every class with what the contract says of it. Every class appears at least ``MIN_PER_CLASS``
times per seed, the rest of each column is drawn from all its classes, and a few non-dict
items are mixed in. ``differential_case(seed)`` returns the input list and, for each dict
record, its classes; the expected answer is the oracle's (``p3_transform_data.expected_output``),
computed in the parent. ``p3_transform_differential.judge_differential`` judges each class on
its own.
Like EvalPlus for HumanEval: an answer right on the fixture but wrong on a class loses points.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from .p3_transform_data import MISSING

RECORDS = 300
MIN_PER_CLASS = 3
NON_DICT_ITEMS = ("header row", None, 42, 3.5, True, ["a", "list"], "", [])
_FOREIGN = ("٠١٢٣٤٥٦٧٨٩", "０１２３４５６７８９", "०१२३४५६७८९")
_DOMAINS = ("gmail.com", "Yahoo.com", "OUTLOOK.COM", "web.de", "Mail.Example.co.uk", "proton.me")
_ODD_DOMAINS = ("Bücher.DE", "ÑANDÚ.es", "Example.Онлайн")


def _foreign(number: int, rng: random.Random) -> str:
    return str(number).translate(str.maketrans("0123456789", rng.choice(_FOREIGN)))


# A digit drawn by ``rng.choice("0123456789")`` is the top 4 bits of one 32-bit word of the
# generator, words of 10 and over redrawn (``Random._randbelow``); these tables map the top
# byte of a word to its digit and drop the redrawn ones.
_DIGIT_OF_TOP_BYTE = bytes(48 + (b >> 4) if b >> 4 < 10 else 0 for b in range(256))
_REDRAWN_TOP_BYTES = bytes(b for b in range(256) if b >> 4 >= 10)


def digit_string(rng: random.Random, count: int) -> str:
    """``"".join(rng.choice("0123456789") for _ in range(count))``: the same digits, leaving
    ``rng`` in the same state, about 20 times faster. Words are drawn in batches of as many
    as digits are still missing (each word gives at most one), so no word is drawn that the
    one-by-one draws would not have drawn; ``getrandbits(32 * n)`` holds n successive words,
    the first in the lowest bits. ``tests/test_prompt_3.py`` compares both."""
    digits = b""
    while len(digits) < count:
        need = count - len(digits)
        words = rng.getrandbits(32 * need).to_bytes(4 * need, "little")
        digits += words[3::4].translate(_DIGIT_OF_TOP_BYTE, _REDRAWN_TOP_BYTES)
    return digits.decode("ascii")


def _huge(rng: random.Random) -> str:
    """A whole number of 4,400-6,000 digits: past ``int()``'s default 4300-digit limit, so
    the contract lets it be converted or not (``p3_transform_data.either_way``)."""
    digits = str(rng.randint(1, 9)) + digit_string(rng, rng.randint(4400, 6000))
    return rng.choice((digits, f"-{digits}", f"  {digits} ", f"+{digits}"))


Draw = Callable[[random.Random, int], Any]
# integer conversion (rules 1 and 3): value class -> (what the contract says, a drawn value)
INTEGER_CLASSES: dict[str, tuple[str, Draw]] = {
    "int": ("an int: kept as it is", lambda r, n: r.choice((n, -n, 0))),
    "whole_float": ("a float without fraction: the int", lambda r, n: r.choice((float(n), -float(n), 1e16, 2.5e20))),
    "fraction_float": ("a float with a fraction: not convertible", lambda r, n: n + r.choice((0.5, 0.25, -0.75))),
    "digits": ("ASCII digits: the int", lambda r, n: str(n)),
    "padded": ("digits with surrounding whitespace", lambda r, n: r.choice((f" {n}", f"{n} ", f"\t{n}\n", f"  {n}  "))),
    "signed": ("an optional +/- sign", lambda r, n: r.choice((f"+{n}", f"-{n}", f" -{n} ", "+0"))),
    "huge": ("more than 4300 digits: the int or not convertible (never raise)", lambda r, n: _huge(r)),
    "decimal_text": ('"32.0": not convertible', lambda r, n: r.choice((f"{n}.0", f"{n}.", f".{n}"))),
    "underscore": ('"1_000": not convertible', lambda r, n: f"{n // 1000 or 1}_{n % 1000:03d}"),
    "foreign": ("digits of other scripts: not convertible", lambda r, n: _foreign(n, r)),
    "exponent": ('"1e3": not convertible', lambda r, n: r.choice((f"{n}e0", "1e3", "2E2"))),
    "text": ("other text: not convertible", lambda r, n: r.choice(("abc", f"user-{n}", "n/a", "0x1F", "1 2", "--5"))),
    "empty": ('"" or blanks: not convertible', lambda r, n: r.choice(("", "   "))),
    "bool": ("true/false: not convertible", lambda r, n: r.choice((True, False))),
    "null": ("null: not convertible", lambda r, n: None),
    "absent": ("no key", lambda r, n: MISSING),
    "container": ("a list or object: not convertible", lambda r, n: r.choice(([n], {"value": n}, []))),
}


def _email(rng: random.Random, kind: str, handle: str) -> Any:
    domain = rng.choice(_DOMAINS)
    return {
        "plain": f"{handle}@{domain.lower()}", "upper_domain": f"{handle.title()}@{domain.upper()}",
        "padded": f"  {handle}@{domain} ", "padded_domain": f"{handle}@ {domain}\t",
        "quoted_at": f'"{handle}@home"@{domain}', "two_at": f"{handle}@relay@{domain}",
        "trailing_at": rng.choice((f"{handle}@", f"{handle}@   ")), "leading_at": f"@{domain}",
        "only_at": "@", "no_dot": f"{handle}@localhost", "no_at": f"{handle}.{domain}",
        "non_ascii_domain": f"{handle}@{rng.choice(_ODD_DOMAINS)}", "null": None, "absent": MISSING,
        "not_a_string": rng.choice((12345, [f"{handle}@{domain}"], {"address": f"{handle}@{domain}"}, True)),
    }[kind]


EMAIL_CLASSES: dict[str, str] = {
    "plain": "the domain", "upper_domain": "the domain lower-cased",
    "padded": "the domain without surrounding whitespace",
    "padded_domain": "whitespace after the @ removed", "quoted_at": "after the *last* @",
    "two_at": "after the last @", "trailing_at": "nothing after @: null",
    "leading_at": "nothing before @: still the domain", "only_at": '"@": null',
    "no_dot": "a domain without a dot is still the domain", "no_at": "no @: null",
    "non_ascii_domain": "a non-ASCII domain lower-cased", "null": "null: null",
    "absent": "no email key: null", "not_a_string": "not a string: null",
}
CONTACT_CLASSES: dict[str, str] = {
    "dict": "copied, email_provider added", "stale_provider": "an old email_provider overwritten",
    "empty_dict": "{}: gains email_provider null", "absent": "no contact: {email_provider: null}",
    "null": "null: a new dict", "string": "a string (even an address): a new dict",
    "list": "a list: a new dict",
}
STATS_CLASSES: dict[str, str] = {
    "dict": "copied, age set", "empty_dict": "{}: age null, Bronze",
    "absent": "no stats: {age: null}, Bronze", "null": "null: a new dict, Bronze",
    "string": "a string: a new dict, Bronze", "list": "a list: a new dict, Bronze",
}
# account tier (rule 4): class -> (what the contract says, values)
COUNT_CLASSES: dict[str, tuple[str, tuple[Any, ...]]] = {
    "int_gold": (">= 100: Gold", (100, 101, 250, 1200)),
    "int_silver": ("50..99: Silver", (50, 51, 99)),
    "int_bronze": ("< 50: Bronze", (0, 9, 49, -150)),
    "float_edges": ("floats at the limits", (99.99, 49.99, 100.0, 50.0, 149.5)),
    "text_int": ("digit strings, padded or signed", ("100", " 50 ", "+100", "-200", "0099", "050")),
    "text_decimal": ("decimal strings", ("49.5", " 99.5 ", "100.0", "+50.0", "99.99")),
    "text_dot": ('"100." and ".5": plain decimals', ("100.", "50.", ".5", "150.", "+75.")),
    "text_huge": ("thousands of digits: still a number", ("1" + "0" * 5000, "0" * 5000 + "75", "9" * 4500 + ".5")),
    "exponent": ('"1e3": not a number, Bronze', ("1e3", "2E2", "1.5e2", "5e1")),
    "inf_nan": ('"inf"/"nan": Bronze', ("inf", "Infinity", "+inf", "nan", "NaN")),
    "underscore": ('"1_000": Bronze', ("1_000", "1_50", "10_0")),
    "foreign": ("other scripts' digits: Bronze", ("١٥٠", "７５", "१२०")),
    "word": ("other text: Bronze", ("lots", "", "   ", "n/a", "1 000", "1.0.0", "0x64")),
    "bool": ("true/false: Bronze", (True, False)),
    "null": ("null: Bronze", (None,)),
    "absent": ("no key: Bronze", (MISSING,)),
    "container": ("a list or object: Bronze", ([100], {"n": 100})),
}
# every class, by column, with what the contract says of it (docs and rationales)
CLASSES: dict[str, dict[str, str]] = {
    "id": {k: v[0] for k, v in INTEGER_CLASSES.items()},
    "email": EMAIL_CLASSES,
    "age": {k: v[0] for k, v in INTEGER_CLASSES.items()},
    "count": {k: v[0] for k, v in COUNT_CLASSES.items()},
    "contact": CONTACT_CLASSES,
    "stats": STATS_CLASSES,
    "record": {"other_keys": "every other key unchanged, none added"},
    "list": {"non_dict_items": "items that are not dicts skipped, input order kept"},
}


def _column(rng: random.Random, classes: list[str], length: int,
            common: list[str] | None = None) -> list[str]:
    """Each class MIN_PER_CLASS times, the rest drawn from ``common`` (default: all)."""
    picks = classes * MIN_PER_CLASS
    picks += [rng.choice(common or classes) for _ in range(length - len(picks))]
    rng.shuffle(picks)
    return picks


def _contact(rng: random.Random, shape: str, email_kind: str, handle: str) -> Any:
    if shape in ("absent", "null", "string", "list"):
        return {"absent": MISSING, "null": None, "string": f"{handle}@example.com",
                "list": [{"email": f"{handle}@example.com"}]}[shape]
    contact: dict[str, Any] = {} if shape == "empty_dict" else {"phone": f"+1-555-{rng.randint(1000, 9999)}"}
    email = _email(rng, email_kind, handle)
    if shape != "empty_dict" and email is not MISSING:
        contact["email"] = email
    if shape == "stale_provider":
        contact["email_provider"] = "stale.example"
    return contact


def _stats(rng: random.Random, shape: str, age: Any, count: Any) -> Any:
    if shape != "dict":
        return {"empty_dict": {}, "absent": MISSING, "null": None, "string": "n/a",
                "list": [30, 120]}[shape]
    stats = {"age": age, "total_purchases": count, "visits": rng.randint(0, 500)}
    return {k: v for k, v in stats.items() if v is not MISSING}


def _record(rng: random.Random, number: int, kinds: dict[str, str]) -> dict[str, Any]:
    handle = f"user.{number}"
    record: dict[str, Any] = {"id": INTEGER_CLASSES[kinds["id"]][1](rng, number),
                              "name": rng.choice(("Ana Okafor", "Zoë 李", "Björn Müller", "  ", 7))}
    contact = _contact(rng, kinds["contact"], kinds["email"], handle)
    age = INTEGER_CLASSES[kinds["age"]][1](rng, rng.randint(16, 90))
    stats = _stats(rng, kinds["stats"], age, rng.choice(COUNT_CLASSES[kinds["count"]][1]))
    for key, value in (("contact", contact), ("stats", stats)):
        if value is not MISSING:
            record[key] = value
    if rng.random() < 0.4:
        record["tags"] = rng.choice((["vip"], [], {"nested": [1, 2.0, None, True]}, "beta"))
    if record["id"] is MISSING:
        del record["id"]
    return record


def _judged(kinds: dict[str, str]) -> dict[str, str]:
    """The classes a record is judged on: email only in a dict contact, age and count only
    in a dict stats."""
    judged = dict(kinds, record="other_keys")
    if kinds["contact"] not in ("dict", "stale_provider"):
        judged.pop("email")
    if kinds["stats"] != "dict":
        judged.pop("age")
        judged.pop("count")
    return judged


_DICT_CONTACTS = ("dict", "stale_provider")


def _kinds(rng: random.Random) -> list[dict[str, str]]:
    """Each record's class per column. Email classes go to records with a dict contact, age
    and count classes to records with a dict stats, so each is met at least MIN_PER_CLASS
    times; records without them get "absent" there (not judged)."""
    contacts = _column(rng, list(CONTACT_CLASSES), RECORDS, ["dict"] * 12 + list(CONTACT_CLASSES))
    stats = _column(rng, list(STATS_CLASSES), RECORDS, ["dict"] * 12 + list(STATS_CLASSES))
    emails = iter(_column(rng, list(EMAIL_CLASSES), sum(c in _DICT_CONTACTS for c in contacts)))
    with_stats = sum(s == "dict" for s in stats)
    ages = iter(_column(rng, list(INTEGER_CLASSES), with_stats))
    counts = iter(_column(rng, list(COUNT_CLASSES), with_stats))
    ids = _column(rng, list(INTEGER_CLASSES), RECORDS)
    return [{"id": rid, "contact": contact, "stats": stat,
             "email": next(emails) if contact in _DICT_CONTACTS else "absent",
             "age": next(ages) if stat == "dict" else "absent",
             "count": next(counts) if stat == "dict" else "absent"}
            for rid, contact, stat in zip(ids, contacts, stats)]


def differential_case(seed: int) -> tuple[list[Any], list[dict[str, str]]]:
    """(the input list, the judged classes of each dict record in order), from ``seed``."""
    rng = random.Random(seed)
    kinds = _kinds(rng)
    numbers = rng.sample(range(1, 100_000), RECORDS)
    users: list[Any] = [_record(rng, n, k) for n, k in zip(numbers, kinds)]
    judged = [_judged(k) for k in kinds]
    for item in NON_DICT_ITEMS:
        users.insert(rng.randint(0, len(users)), item)
    return users, judged
