"""Prompt 1's seeded perturbed data sets: another config and records with every form of the
contract.

``perturbed_case(seed)`` builds another config (other countries, some written lower-case or
padded, other age bounds, another reference date, an extra required field, other file names)
and one record per form the evaluation contract of ``benchmark/packs/core/prompt_1/prompt.md``
lists (``FORMS``: the contract line each kind tests and whether a correct answer keeps it),
plus more plain valid records. Each record of a dropped kind breaks exactly one rule, so
hard-coded filters, canned output and lenient (or over-strict) parsers fail there. The
expected output comes from the oracle, ``p1_refactoring_data.expected_output``; each record's
``forms`` entry says which kind it is and under which id a lenient reader would report it, so
``p1_refactoring_judge.form_verdicts`` can judge every form on its own.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from .p1_refactoring_data import (_whole_number, expected_output, lenient_id, normalise,
                                  parse_timestamp)
from .p1_refactoring_fixtures import config_bytes, records_bytes



@dataclass(frozen=True)
class PerturbedCase:
    config_name: str
    data_name: str
    config: bytes
    records: bytes
    expected: list[dict[str, Any]]
    forms: tuple[tuple[str, int | None], ...] = ()  # (kind, lenient id key) per record


_COUNTRIES = ("US", "CA", "DE", "FR", "GB", "MX", "JP", "BR", "IN", "AU", "NL", "SE")
_OFFSETS = ("Z", "+00:00", "+02:00", "-05:00", "+05:30", "-07:00", "+09:00", "-03:30")
_FIRST = ("Ada", "Ben", "Cleo", "Dev", "Ela", "Finn", "Gia", "Hal", "Ivy", "Joel", "Kai",
          "Lena", "Milo", "Nia", "Otto", "Pax", "Rhea", "Sami", "Tess", "Uma")
_LAST = ("Stone", "Rivera", "Okafor", "Berg", "Nakamura", "Silva", "Novak", "Haas", "Ibsen")
FORMS: dict[str, tuple[str, bool]] = {
    "ok": ("a plain valid record", True),
    "ok_strings": ("id, age as digit strings; padded/lower-case country; padded name; "
                   "upper-case email (rules 2-6)", True),
    "ok_padded_id": ('id " 123 ": ASCII digits surrounded by spaces (rule 2)', True),
    "ok_min_age": ("age == min_age (rule 5, inclusive)", True),
    "ok_max_age": ('age "max_age" as a string (rule 5, inclusive)', True),
    "ok_config_lower": ("a country listed lower-case in the config (rule 6)", True),
    "ok_config_padded": ("a country listed with spaces in the config (rule 6)", True),
    "ok_falsy_extra": ("extra required field false/0/[]: present (rule 1)", True),
    "ok_after_invalid": ("the id of an earlier dropped record: first *valid* one kept (rule 8)", True),
    "future_signup": ("signup after reference_date: negative days, rounded down (output)", True),
    "too_young": ("age below min_age (rule 5)", False),
    "too_old": ("age above max_age, as a string (rule 5)", False),
    "float_age": ("age 30.5 (rule 5)", False),
    "integral_float_age": ("age 30.0 (rule 5)", False),
    "bool_age": ("age true (rule 5)", False),
    "bad_age": ('age "unknown" (rule 5)', False),
    "unicode_age": ("age in Arabic-Indic digits (rule 5)", False),
    "bad_country": ("a country not allowed (rule 6)", False),
    "null_email": ("email null (rule 1)", False),
    "bad_email": ("email without @ (rule 4)", False),
    "two_at_email": ("email with two @ (rule 4)", False),
    "no_local_email": ("email with nothing before @ (rule 4)", False),
    "no_dot_email": ("email without . after @ (rule 4)", False),
    "blank_name": ("name only whitespace (rule 1)", False),
    "number_name": ("name a number, not a string (rule 3)", False),
    "missing_core": ("one of the six fields absent (rule 1)", False),
    "missing_extra": ("the extra required field absent (rule 1)", False),
    "blank_extra": ("the extra required field blank (rule 1)", False),
    "bad_id": ('id "X-7" (rule 2)', False),
    "bool_id": ("id true (rule 2)", False),
    "zero_id": ("id 0 / \"0\": below 1 (rule 2)", False),
    "negative_id": ("id negative (rule 2)", False),
    "float_id": ("id 123.0, a float (rule 2)", False),
    "signed_id": ('id "+123" (rule 2)', False),
    "unicode_id": ("id in full-width digits (rule 2)", False),
    "naive_time": ("signup without offset (rule 7)", False),
    "naive_micro": ("signup without offset, with microseconds (rule 7)", False),
    "naive_date": ("signup a date only (rule 7)", False),
    "fraction_offset": ("signup with fractional seconds and an offset (rule 7)", False),
    "fraction_z": ("signup with fractional seconds and Z (rule 7)", False),
    "space_signup": ("signup with a space instead of T (rule 7)", False),
    "padded_signup": ("signup with a leading space (rule 7: not stripped)", False),
    "newline_signup": ("signup with a trailing newline (rule 7)", False),
    "compact_offset": ("signup offset +HHMM without colon (rule 7)", False),
    "lower_z": ("signup ending in lower-case z (rule 7)", False),
    "unicode_signup": ("signup year in Arabic-Indic digits (rule 7: ASCII digits)", False),
    "impossible_date": ("signup 2024-04-31 (rule 7)", False),
    "duplicate": ("an id already kept, as an int (rule 8)", False),
    "duplicate_string": ('an id already kept, as a padded string (rule 8: 8 and "8")', False),
    "junk_number": ("a number in the array, not an object", False),
    "junk_text": ("a string or list in the array, not an object", False),
}
_KINDS = tuple(FORMS) + ("ok",) * 5 + ("ok_strings",) * 2
# kinds that reuse the id of an earlier record: built once an earlier record qualifies
REUSING = frozenset({"duplicate", "duplicate_string", "ok_after_invalid"})
# Arabic-Indic and full-width digits: str.isdigit(), int() and the regex \d accept them;
# the contract does not.
_ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
_FULLWIDTH = str.maketrans("0123456789", "０１２３４５６７８９")


def canonical_countries(config: dict[str, Any]) -> list[str]:
    return [str(code).strip().upper() for code in config["validation_rules"]["allowed_countries"]]


def _config(rng: random.Random) -> dict[str, Any]:
    """Another config; of its four countries the first is written lower-case and the second
    padded with spaces (the contract compares them stripped and upper-cased)."""
    reference = datetime(2025, rng.randint(2, 11), rng.randint(1, 28), rng.randint(0, 23),
                         tzinfo=timezone.utc)
    codes = sorted(rng.sample(_COUNTRIES, 4))
    codes[0], codes[1] = codes[0].lower(), f" {codes[1]} "
    return {
        "data_source": f"batch_{rng.randint(100, 999)}.json",
        "reference_date": reference.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "validation_rules": {
            "min_age": rng.randint(19, 25),
            "max_age": rng.randint(50, 64),
            "required_fields": ["name", "email", "country", rng.choice(("plan", "consent"))],
            "allowed_countries": codes,
        },
    }


def _timestamp(rng: random.Random, reference: datetime, naive: bool = False,
               after: bool = False) -> str:
    shift = timedelta(seconds=rng.randint(3600, 900 * 86400))
    moment = reference + timedelta(seconds=rng.randint(60, 3 * 86400)) if after else reference - shift
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
            "country": rng.choice(canonical_countries(config)),
            "signup": _timestamp(rng, parse_timestamp(config["reference_date"])),
            extra: rng.choice((True, "basic", "pro")) if extra == "consent" else "pro"}


def _stringify(rng: random.Random, record: dict[str, Any]) -> None:
    record["id"] = str(record["id"])
    record["age"] = rng.choice((str(record["age"]), f" {record['age']} "))
    record["country"] = rng.choice((record["country"].lower(), f" {record['country']} "))
    record["name"] = f"  {record['name']} "
    record["email"] = record["email"].upper()


def _signup_changes(rng: random.Random, record: dict[str, Any],
                    config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    reference = parse_timestamp(config["reference_date"])
    naive = _timestamp(rng, reference, naive=True)
    zone = rng.choice(_OFFSETS[1:])
    return {
        "naive_time": {"signup": naive},
        "naive_micro": {"signup": f"{naive}.{rng.randint(1, 999999):06d}"},
        "naive_date": {"signup": naive[:10]},
        "fraction_offset": {"signup": f"{naive}.{rng.randint(1, 999):03d}{zone}"},
        "fraction_z": {"signup": f"{naive}.{rng.randint(1, 9)}Z"},
        "space_signup": {"signup": f"{naive[:10]} {naive[11:]}{zone}"},
        "padded_signup": {"signup": f" {record['signup']}"},
        "newline_signup": {"signup": record["signup"] + "\n"},
        "compact_offset": {"signup": f"{naive}{zone.replace(':', '')}"},
        "lower_z": {"signup": f"{naive}z"},
        "unicode_signup": {"signup": naive[:4].translate(_ARABIC_INDIC) + naive[4:] + "Z"},
        "impossible_date": {"signup": "2024-04-31T12:00:00Z"},
        "future_signup": {"signup": _timestamp(rng, reference, after=True)},
    }


def _changes(rng: random.Random, record: dict[str, Any], config: dict[str, Any],
             reuse: int | None) -> dict[str, dict[str, Any]]:
    rules = config["validation_rules"]
    extra = rules["required_fields"][-1]
    rid, age = record["id"], record["age"]
    codes = canonical_countries(config)
    return {
        "ok_padded_id": {"id": f" {rid} "},
        "ok_min_age": {"age": rules["min_age"]}, "ok_max_age": {"age": str(rules["max_age"])},
        "ok_config_lower": {"country": codes[0]}, "ok_config_padded": {"country": codes[1]},
        "ok_falsy_extra": {extra: rng.choice((False, 0, []))},
        "ok_after_invalid": {"id": reuse},
        "too_young": {"age": rules["min_age"] - rng.randint(1, 5)},
        "too_old": {"age": str(rules["max_age"] + rng.randint(1, 20))},
        "float_age": {"age": rules["min_age"] + 2.5}, "integral_float_age": {"age": float(age)},
        "bool_age": {"age": True}, "bad_age": {"age": "unknown"},
        "unicode_age": {"age": str(age).translate(_ARABIC_INDIC)},
        "bad_country": {"country": rng.choice([c for c in _COUNTRIES if c not in codes])},
        "null_email": {"email": None}, "bad_email": {"email": "no-at-sign.example.com"},
        "two_at_email": {"email": record["email"].replace("@", "@mail@")},
        "no_local_email": {"email": "@" + record["email"].split("@")[1]},
        "no_dot_email": {"email": record["email"].split("@")[0] + "@localhost"},
        "blank_name": {"name": "  "}, "number_name": {"name": rng.randint(10, 99)},
        "blank_extra": {extra: " "}, "bad_id": {"id": "X-7"}, "bool_id": {"id": True},
        "zero_id": {"id": rng.choice((0, "0"))}, "negative_id": {"id": -rid},
        "float_id": {"id": float(rid)}, "signed_id": {"id": f"+{rid}"},
        "unicode_id": {"id": str(rid).translate(_FULLWIDTH)},
        "duplicate": {"id": reuse}, "duplicate_string": {"id": f" {reuse} "},
        **_signup_changes(rng, record, config),
    }


def _mutate(rng: random.Random, kind: str, record: dict[str, Any], config: dict[str, Any],
            reuse: int | None) -> Any:
    if kind == "junk_number":
        return rng.randint(0, 99)
    if kind == "junk_text":
        return rng.choice(("corrupted", "", ["a", "list"]))
    changes = _changes(rng, record, config, reuse).get(kind, {})
    if kind == "ok_strings":
        _stringify(rng, record)
    if kind == "missing_extra":
        del record[config["validation_rules"]["required_fields"][-1]]
    if kind == "missing_core":
        del record[rng.choice(("name", "email", "age", "country", "signup"))]
    record.update(changes)
    return record


def _reusable(kind: str, records: list[Any], config: dict[str, Any]) -> list[int]:
    """Ids a dependent kind may reuse: kept ids for duplicates; for ``ok_after_invalid`` the
    ids of dropped records that no record keeps."""
    reference = parse_timestamp(config["reference_date"])
    rows = [(r, normalise(r, config["validation_rules"], reference)) for r in records]
    kept = {row["id"] for _, row in rows if row is not None}
    if kind != "ok_after_invalid":
        return sorted(kept)
    dropped = {_whole_number(r["id"]) for r, row in rows if isinstance(r, dict) and row is None}
    return sorted(rid for rid in dropped if isinstance(rid, int) and rid >= 1 and rid not in kept)


def _records(rng: random.Random, config: dict[str, Any]) -> tuple[list[Any], list[str]]:
    """The records in file order and the kind of each; a dependent kind waits until an
    earlier record gives it an id to reuse."""
    queue = list(_KINDS)
    rng.shuffle(queue)
    ids = iter(rng.sample(range(100, 1000), len(queue)))
    records: list[Any] = []
    kinds: list[str] = []
    while queue:
        kind = queue.pop(0)
        candidates = _reusable(kind, records, config) if kind in REUSING else [0]
        if not candidates and any(k not in REUSING for k in queue):
            queue.insert(rng.randint(1, len(queue)), kind)
            continue
        reuse = rng.choice(candidates) if candidates else None
        records.append(_mutate(rng, kind, _base(rng, next(ids), config), config, reuse))
        kinds.append(kind)
    return records, kinds


def perturbed_case(seed: int) -> PerturbedCase:
    rng = random.Random(seed)
    config = _config(rng)
    records, kinds = _records(rng, config)
    forms = tuple((kind, lenient_id(r.get("id")) if isinstance(r, dict) else None)
                  for kind, r in zip(kinds, records))
    return PerturbedCase("batch_config.yaml", config["data_source"], config_bytes(config),
                         records_bytes(records), expected_output(config, records), forms)


# ---- a scaled data set (measured performance) ----------------------------------------

SCALED_INVALID = 0.2  # share of a scaled set drawn from the non-dependent kinds (the rest: "ok")


@dataclass(frozen=True)
class ScaledCase:
    config_name: str
    data_name: str
    config: bytes
    records: bytes
    expected: tuple[dict[str, Any], ...] = ()  # the oracle's output (read only: shared per process)


def scaled_case(seed: int, count: int, label: str) -> ScaledCase:
    """``count`` records under a config drawn from ``seed``, in files named after ``label``:
    mostly valid (as real batches are, so the work an answer keeps per record is what grows),
    with the other generated kinds mixed in. Timed; the oracle's answer (``expected``) is what
    the timed run must print before its time earns credit."""
    config = _config(random.Random(f"{seed}:scaled"))
    config["data_source"] = f"{label}.json"
    rng = random.Random(f"{seed}:scaled:{count}")
    kinds = [k for k in _KINDS if k not in REUSING]
    records = [_mutate(rng, rng.choice(kinds) if rng.random() < SCALED_INVALID else "ok",
                       _base(rng, rid, config), config, None)
               for rid in rng.sample(range(100, 100 + 100 * count), count)]
    return ScaledCase(f"{label}_config.yaml", config["data_source"], config_bytes(config),
                      records_bytes(records), tuple(expected_output(config, records)))
