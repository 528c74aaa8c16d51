"""Prompt 3's differential run judged: each value class of the contract on its own.

``judge_differential`` compares, type-strictly, what each class feeds (``class_value``) in
every generated record with the oracle's answer; an id or age of more than 4300 digits may
also come back "not convertible" (``accepted``). Each class answered wrongly costs
``CLASS_COST`` of the check. When the call failed as a whole, each record is judged on its
own call (``p3_transform_items``) and a record whose call raised costs the value class that
explains it (``items.blame``), named with the input, never the others. Pure, like the judge.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import p3_transform_items as items
from .base import CheckContext, Outcome, excerpt, strict_equal
from .p3_transform_cases import CLASSES
from .p3_transform_data import MISSING, either_way
from .p3_transform_judge import DIFFERENTIAL, FIELDS, align, blocker, how_it_went, returned_list

CLASS_COST = 1 / 6  # of the differential check, per contract value class answered wrongly
NOTE_COUNT = 4

_COLUMN_FIELD = {"id": "id", "email": "email_provider", "age": "age", "count": "account_tier"}


_JUDGED_INSIDE = {("contact", "dict"): "email_provider", ("stats", "dict"): "age"}


def class_value(column: str, name: str, record: Any) -> Any:
    """What a class is judged on: the field a value class feeds; for a ``contact``/``stats``
    shape the whole object (less the field its value class judges, for a plain dict: one
    mistake, one class); for ``other_keys`` every other top-level key."""
    if not isinstance(record, dict):
        return MISSING
    if column in _COLUMN_FIELD:
        return FIELDS[_COLUMN_FIELD[column]](record)
    if column in ("contact", "stats"):
        value = record.get(column, MISSING)
        inner = _JUDGED_INSIDE.get((column, name))
        return {k: v for k, v in value.items() if k != inner} if inner and isinstance(value, dict) else value
    return {k: v for k, v in record.items() if k not in ("id", "contact", "stats", "account_tier")}


def show(value: Any) -> str:
    """A short, safe rendering of a JSON value (ints past the digit limit by their size)."""
    return "nothing" if value is MISSING else excerpt(value, 60)


def accepted(column: str, raw: Any, want: Any) -> tuple[Any, ...]:
    """The values a class in ``column`` may take for input record ``raw``: the oracle's, and
    for an id or age of more than 4300 digits (``either_way``) also "not convertible" (the
    id kept as it was, the age null)."""
    if column == "id" and isinstance(raw, dict) and either_way(raw.get("id")):
        return want, raw["id"]
    if column == "age" and isinstance(raw, dict) and isinstance(raw.get("stats"), dict) \
            and either_way(raw["stats"].get("age")):
        return want, None
    return (want,)


def class_failures(judged: list[dict[str, str]], expected: list[Any], inputs: list[Any],
                   output: Any, skip: frozenset[int] = frozenset()) -> dict[tuple[str, str], str]:
    """(column, class) -> the first wrong record, for each class some record got wrong; the
    dict records numbered in ``skip`` (their own calls failed: see ``items.blame``) are left
    out."""
    failures: dict[tuple[str, str], str] = {}
    if not isinstance(output, list) or len(output) != len(expected):
        count = len(output) if isinstance(output, list) else 0
        failures[("list", "non_dict_items")] = f"{count} items back for {len(expected)} dicts"
    records = [u for u in inputs if isinstance(u, dict)]
    rows = zip(judged, expected, align(inputs, expected, output), records)
    for index, (classes, want, got, raw) in enumerate(rows):
        if index in skip or (got is not None and strict_equal(got, want)):
            continue  # every class value of a record equal to the oracle's is equal too
        for column, name in classes.items():
            if (column, name) in failures:
                continue
            if got is None:
                failures[(column, name)] = f"dict #{index + 1} not returned"
                continue
            got_value, want_value = class_value(column, name, got), class_value(column, name, want)
            if not any(strict_equal(got_value, w) for w in accepted(column, raw, want_value)):
                failures[(column, name)] = (f"dict #{index + 1}: got {show(got_value)}, "
                                            f"expected {show(want_value)}")
    return failures


def _raised_failures(judged: list[dict[str, str]], inputs: list[Any],
                     result: Mapping[str, Any]) -> tuple[dict[tuple[str, str], str], frozenset[int]]:
    """For a differential call made again item by item: (column, class) -> why, for the
    classes that explain the records whose own call failed (``items.blame``), each shown
    with the input that made it fail; and those records' numbers."""
    failed, odd = items.failures(result, inputs)
    records = [u for u in inputs if isinstance(u, dict)]
    notes = {pair: (f"dict #{number + 1} {failed[number]}, on {pair[0]} "
                    f"{items.shown(items.class_input(pair[0], records[number]))}")
             for pair, number in items.blame(judged, failed).items()}
    if odd:
        notes[("list", "non_dict_items")] = odd[0]
    return notes, frozenset(failed)


def judge_differential(ctx: CheckContext) -> Outcome:
    """Each contract value class answered wrongly costs CLASS_COST of the check. When the
    call failed as a whole (raised, returned no list, or a list of other than one record per
    dict record), the calls made again item by item are judged: a record whose own call
    raised or dropped it costs the value class that explains it (``items.blame``), never the
    others."""
    blocked = blocker(ctx)
    if blocked:
        return blocked
    facts = ctx.facts
    if DIFFERENTIAL in facts.get("unobserved", {}):
        return Outcome.fail(f"the differential call was lost: {facts['unobserved'][DIFFERENTIAL]}")
    result = facts["results"].get(DIFFERENTIAL)
    total = sum(len(classes) for classes in CLASSES.values())
    inputs, expected = facts["inputs"][DIFFERENTIAL], facts["expected"][DIFFERENTIAL]
    judged_on = f"{len(expected)} generated records"
    if items.has_items(result):
        raised, skip = _raised_failures(facts["classes"], inputs, result)
        output = items.merged(result, inputs)
        judged_on += f" (the call over all of them {how_it_went(result)}; each judged on its own call)"
    elif returned_list(result):
        raised, skip, output = {}, frozenset(), result["value"]
    else:
        return Outcome.fail(f"the differential call over {len(expected)} "
                            f"records {how_it_went(result)}: none of {total} value classes judged")
    wrong = class_failures(facts["classes"], expected, inputs, output, skip)
    failures = {**raised, **{pair: why for pair, why in wrong.items() if pair not in raised}}
    notes = [f"{column} {name} ({CLASSES[column][name]}): {why}"
             for (column, name), why in failures.items()]
    more = f"; and {len(notes) - NOTE_COUNT} more" if len(notes) > NOTE_COUNT else ""
    detail = "; ".join(notes[:NOTE_COUNT]) + more if notes else "every class exact"
    return Outcome(max(0.0, 1.0 - CLASS_COST * len(failures)),
                   f"{total - len(failures)} of {total} contract value classes right over "
                   f"{judged_on} (seed {facts.get('seed')}); each wrong class costs "
                   f"{CLASS_COST:.3g} of the check; {detail}")
