"""Prompt 3 judging: type-strict comparison, record alignment, per-field tallies and the
behaviour verdicts the checks in ``p3_transform`` return.

Everything here is pure: plain JSON data in (what came back from the child, the inputs and
the oracle's expected answers), numbers or an ``Outcome`` out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from ..untrusted import text
from .base import CheckContext, Outcome, load_problem, raised, strict_equal
from .p3_transform_cases import CLASSES
from .p3_transform_data import MISSING

MAIN = "prompt_3_transform.py"
FUNCTION = "transform_and_enrich_users"
SCORED_LABELS = ("fixture", "perturbed")
DIFFERENTIAL = "differential"
CLASS_COST = 1 / 6  # of the differential check, per contract value class answered wrongly
NOTE_COUNT = 4
MAX_OUTPUT_ITEMS = 10_000  # more items than this for a <= 40-record input is not an answer



def align(inputs: list[Any], expected: list[Any], output: Any) -> list[Any]:
    """For each dict record of ``inputs``, the output record judged against it (or None).

    ``expected`` is the oracle's answer for ``inputs``. Same count: by position. Otherwise
    by id: the first unused output record whose ``id`` equals the expected (converted) id or
    the raw input id. A non-list, or an absurdly long list, matches nothing.
    """
    records = [u for u in inputs if isinstance(u, dict)]
    if not isinstance(output, list) or len(output) > MAX_OUTPUT_ITEMS:
        return [None] * len(records)
    if len(output) == len(records):
        return [r if isinstance(r, dict) else None for r in output]
    pool = [(i, r) for i, r in enumerate(output) if isinstance(r, dict)]
    used: set[int] = set()
    matched = []
    for raw, want in zip(records, expected):
        keys = (want.get("id", MISSING), raw.get("id", MISSING))
        hit = next((i for i, r in pool if i not in used
                    and any(strict_equal(r.get("id", MISSING), k) for k in keys)), None)
        if hit is not None:
            used.add(hit)
        matched.append(None if hit is None else output[hit])
    return matched


def _nested(record: Any, outer: str, inner: str) -> Any:
    if not isinstance(record, dict) or not isinstance(record.get(outer), dict):
        return MISSING
    return record[outer].get(inner, MISSING)


FIELDS: dict[str, Callable[[Any], Any]] = {
    "id": lambda r: r.get("id", MISSING) if isinstance(r, dict) else MISSING,
    "email_provider": lambda r: _nested(r, "contact", "email_provider"),
    "age": lambda r: _nested(r, "stats", "age"),
    "account_tier": lambda r: r.get("account_tier", MISSING) if isinstance(r, dict) else MISSING,
}


def field_tally(field: str, inputs: list[Any], expected: list[Any], output: Any) -> tuple[int, int, int]:
    """(records whose field must change, of those correct, unchanged fields the output broke).

    A record "must change" a field when the expected value differs (type-strictly) from the
    input's, an absent field included; a missing output record is simply not correct.
    """
    get = FIELDS[field]
    records = [u for u in inputs if isinstance(u, dict)]
    changed = correct = broken = 0
    for raw, want, got in zip(records, expected, align(inputs, expected, output)):
        must_change = not strict_equal(get(raw), get(want))
        right = got is not None and strict_equal(get(got), get(want))
        changed += must_change
        correct += must_change and right
        broken += (not must_change) and got is not None and not right
    return changed, correct, broken


def shaped(record: Any, want: dict[str, Any]) -> bool:
    """Whether an output record carries every field the contract adds (values not judged)."""
    return (isinstance(record, dict) and ("id" in record) == ("id" in want)
            and all(FIELDS[f](record) is not MISSING
                    for f in ("email_provider", "age", "account_tier")))


def _unjudged(record: dict[str, Any]) -> dict[str, Any]:
    """The record without the four judged fields (``contact``/``stats`` keep their other keys)."""
    rest = {k: v for k, v in record.items() if k not in ("id", "account_tier")}
    for outer, inner in (("contact", "email_provider"), ("stats", "age")):
        if isinstance(rest.get(outer), dict):
            rest[outer] = {k: v for k, v in rest[outer].items() if k != inner}
    return rest


def whole(record: Any, want: dict[str, Any]) -> bool:
    """Shaped, and every field the contract does not change is exactly as expected."""
    return shaped(record, want) and strict_equal(_unjudged(record), _unjudged(want))


def blocker(ctx: CheckContext) -> Outcome | None:
    """Why no behaviour can be judged, as an Outcome; None when results exist."""
    facts = ctx.facts
    if "results" not in facts:
        return Outcome.error("no behaviour facts were gathered")
    if facts.get("problem"):
        return Outcome.error(facts["problem"])
    return load_problem(facts, MAIN, FUNCTION)


def returned_list(result: Mapping[str, Any] | None) -> bool:
    """The call returned a list that crossed the channel as plain JSON."""
    return (bool(result) and bool(result.get("returned")) and result.get("value_type") == "list"
            and isinstance(result.get("value"), list))


def call_value(ctx: CheckContext, label: str) -> Any:
    """The call's JSON value, or None when it raised or did not return a list."""
    result = ctx.facts["results"].get(label)
    return result["value"] if returned_list(result) else None


def how_it_went(result: Mapping[str, Any] | None) -> str:
    if not result:
        return "was not observed"
    if result.get("exception"):
        return f"raised {raised(result['exception'])}"
    if result.get("value_type") != "list":
        return f"returned {result.get('value_type')}, not a list"
    return "returned a list"


def judge_field(ctx: CheckContext, field: str, what: str) -> Outcome:
    blocked = blocker(ctx)
    if blocked:
        return blocked
    changed = correct = broken = 0
    for label in SCORED_LABELS:
        c, k, b = field_tally(field, ctx.facts["inputs"][label],
                              ctx.facts["expected"][label], call_value(ctx, label))
        changed, correct, broken = changed + c, correct + k, broken + b
    return Outcome.ratio(correct - broken, changed,
                         f"{correct} of {changed} records that needed {what} got it right; "
                         f"{broken} already-correct values were broken (fixture + perturbed)")


def judge_fixture_records(ctx: CheckContext) -> Outcome:
    """Share of fixture records returned whole: added fields present, other fields intact."""
    blocked = blocker(ctx)
    if blocked:
        return blocked
    result = ctx.facts["results"].get("fixture")
    if not returned_list(result):
        return Outcome.fail(f"the fixture call {how_it_went(result)}")
    inputs, expected = ctx.facts["inputs"]["fixture"], ctx.facts["expected"]["fixture"]
    aligned = align(inputs, expected, result["value"])
    carry = sum(shaped(got, want) for got, want in zip(aligned, expected))
    intact = sum(whole(got, want) for got, want in zip(aligned, expected))
    return Outcome.ratio(intact, len(expected),
                         f"the fixture call returned {len(result['value'])} items; {carry} of "
                         f"{len(expected)} records carry all four contract fields and {intact} "
                         "also keep every other field unchanged")


def judge_malformed(ctx: CheckContext) -> Outcome:
    """Half: one dict back per dict input of the malformed list; half: those records exactly
    as the contract says; all of it halved when the perturbed call did not return a list."""
    blocked = blocker(ctx)
    if blocked:
        return blocked
    results = ctx.facts["results"]
    inputs, expected = ctx.facts["inputs"]["malformed"], ctx.facts["expected"]["malformed"]
    value = call_value(ctx, "malformed")
    survived = (isinstance(value, list) and len(value) == len(expected)
                and all(isinstance(r, dict) for r in value))
    aligned = align(inputs, expected, value)
    exact = sum(got is not None and strict_equal(got, want) for got, want in zip(aligned, expected))
    perturbed_ok = returned_list(results.get("perturbed"))
    fraction = (0.5 * survived + 0.5 * exact / len(expected)) * (1.0 if perturbed_ok else 0.5)
    if isinstance(value, list):
        shape = "one dict per dict input" if survived else f"expected exactly {len(expected)} dicts"
        malformed = f"returned {len(value)} items ({shape})"
    elif ctx.facts.get("unobserved", {}).get("malformed"):
        malformed = f"was lost: {ctx.facts['unobserved']['malformed']}"
    else:
        malformed = how_it_went(results.get("malformed"))
    return Outcome(fraction,
                   f"the malformed call {malformed}; {exact} of {len(expected)} records match the "
                   f"contract exactly; the perturbed call {how_it_went(results.get('perturbed'))}")


# ---- the differential run -------------------------------------------------------------

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
    if value is MISSING:
        return "nothing"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"an int of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        rendered = json.dumps(value, ensure_ascii=False)
    except ValueError:
        rendered = f"a {type(value).__name__} holding a very long int"
    return text(rendered, 60)


def class_failures(judged: list[dict[str, str]], expected: list[Any], inputs: list[Any],
                   output: Any) -> dict[tuple[str, str], str]:
    """(column, class) -> the first wrong record, for each class some record got wrong."""
    failures: dict[tuple[str, str], str] = {}
    if not isinstance(output, list) or len(output) != len(expected):
        count = len(output) if isinstance(output, list) else 0
        failures[("list", "non_dict_items")] = f"{count} items back for {len(expected)} dicts"
    for index, (classes, want, got) in enumerate(zip(judged, expected, align(inputs, expected, output))):
        if got is not None and strict_equal(got, want):
            continue  # every class value of a record equal to the oracle's is equal too
        for column, name in classes.items():
            if (column, name) in failures:
                continue
            if got is None:
                failures[(column, name)] = f"dict #{index + 1} not returned"
                continue
            got_value, want_value = class_value(column, name, got), class_value(column, name, want)
            if not strict_equal(got_value, want_value):
                failures[(column, name)] = (f"dict #{index + 1}: got {show(got_value)}, "
                                            f"expected {show(want_value)}")
    return failures


def record_share(inputs: list[Any], expected: list[Any], output: Any) -> tuple[int, int]:
    """(right, counted): the dict records of ``inputs`` whose output record (``align``) equals
    the oracle's exactly, of all of them."""
    got = align(inputs, expected, output)
    return sum(1 for want, have in zip(expected, got) if have is not None and strict_equal(have, want)), len(expected)


def judge_differential(ctx: CheckContext) -> Outcome:
    """Each contract value class answered wrongly costs CLASS_COST of the check."""
    blocked = blocker(ctx)
    if blocked:
        return blocked
    facts = ctx.facts
    if DIFFERENTIAL in facts.get("unobserved", {}):
        return Outcome.fail(f"the differential call was lost: {facts['unobserved'][DIFFERENTIAL]}")
    result = facts["results"].get(DIFFERENTIAL)
    total = sum(len(classes) for classes in CLASSES.values())
    if not returned_list(result):
        return Outcome.fail(f"the differential call over {len(facts['expected'][DIFFERENTIAL])} "
                            f"records {how_it_went(result)}: none of {total} value classes judged")
    failures = class_failures(facts["classes"], facts["expected"][DIFFERENTIAL],
                              facts["inputs"][DIFFERENTIAL], result["value"])
    notes = [f"{column} {name} ({CLASSES[column][name]}): {why}"
             for (column, name), why in failures.items()]
    more = f"; and {len(notes) - NOTE_COUNT} more" if len(notes) > NOTE_COUNT else ""
    detail = "; ".join(notes[:NOTE_COUNT]) + more if notes else "every class exact"
    return Outcome(max(0.0, 1.0 - CLASS_COST * len(failures)),
                   f"{total - len(failures)} of {total} contract value classes right over "
                   f"{len(facts['expected'][DIFFERENTIAL])} generated records (seed "
                   f"{facts.get('seed')}); each wrong class costs {CLASS_COST:.3g} of the check; "
                   f"{detail}")
