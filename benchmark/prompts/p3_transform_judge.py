"""Prompt 3 judging: type-strict comparison, record alignment, per-field tallies and the
behaviour verdicts the checks in ``p3_transform`` return.

Everything here is pure: plain JSON data in (what came back from the child, the inputs and
the oracle's expected answers), numbers or an ``Outcome`` out. A call that failed as a
whole is judged on the calls the harness made again item by item (``p3_transform_items``):
each record that raised costs that record. The differential run's verdict is
``p3_transform_differential``'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..untrusted import text
from . import p3_transform_items as items
from .base import CheckContext, Outcome, load_problem, strict_equal
from .p3_transform_data import MISSING

MAIN = "prompt_3_transform.py"
FUNCTION = "transform_and_enrich_users"
SCORED_LABELS = ("fixture", "perturbed")
DIFFERENTIAL = "differential"
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
    """The call's JSON value; when it was made again item by item (it raised, returned no
    list, or a list of other than one record per dict record), its output rebuilt from
    those calls (one entry per dict record, None where that record's call failed); None
    when it returned no list and there are none."""
    result = ctx.facts["results"].get(label)
    if items.has_items(result):
        return items.merged(result, ctx.facts["inputs"][label])
    return result["value"] if returned_list(result) else None


def how_it_went(result: Mapping[str, Any] | None, inputs: list[Any] | None = None) -> str:
    if not result:
        return "was not observed"
    if result.get("exception"):
        went = f"raised {items.raised_note(result['exception'])}"
    elif result.get("value_type") != "list":
        went = f"returned {text(result.get('value_type'), 200)}, not a list"
    elif items.has_items(result) and isinstance(result.get("value"), list):
        went = f"returned a list of {len(result['value'])} items"
    else:
        return "returned a list"
    if inputs is not None and items.has_items(result):
        went += f"; {items.summary(result, inputs)}"
    return went


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
    inputs, expected = ctx.facts["inputs"]["fixture"], ctx.facts["expected"]["fixture"]
    value = call_value(ctx, "fixture")
    if value is None:
        return Outcome.fail(f"the fixture call {how_it_went(result)}")
    aligned = align(inputs, expected, value)
    carry = sum(shaped(got, want) for got, want in zip(aligned, expected))
    intact = sum(whole(got, want) for got, want in zip(aligned, expected))
    went = f"returned {len(value)} items" if returned_list(result) else how_it_went(result, inputs)
    return Outcome.ratio(intact, len(expected),
                         f"the fixture call {went}; {carry} of {len(expected)} records carry all "
                         f"four contract fields and {intact} also keep every other field unchanged")


def _came_back(ctx: CheckContext, label: str, whole: float) -> float:
    """``whole`` when the call returned a list, else the share of its dict records whose own
    call (made again item by item) returned one dict; 0 without those."""
    expected, value = ctx.facts["expected"].get(label), call_value(ctx, label)
    if returned_list(ctx.facts["results"].get(label)):
        return whole
    if not isinstance(value, list) or not expected:
        return 0.0
    return sum(isinstance(r, dict) for r in value) / len(expected)


def judge_malformed(ctx: CheckContext) -> Outcome:
    """Half: one dict back per dict input of the malformed list; half: those records exactly
    as the contract says; all of it halved when the perturbed call did not return a list.
    A call that failed as a whole counts its records' own calls: each record that raised
    costs its share of each half (and of the perturbed call's half)."""
    blocked = blocker(ctx)
    if blocked:
        return blocked
    results = ctx.facts["results"]
    inputs, expected = ctx.facts["inputs"]["malformed"], ctx.facts["expected"]["malformed"]
    value = call_value(ctx, "malformed")
    survived = _came_back(ctx, "malformed", float(
        isinstance(value, list) and len(value) == len(expected) and all(isinstance(r, dict) for r in value)))
    aligned = align(inputs, expected, value)
    exact = sum(got is not None and strict_equal(got, want) for got, want in zip(aligned, expected))
    perturbed = 0.5 + 0.5 * _came_back(ctx, "perturbed", 1.0)
    fraction = (0.5 * survived + 0.5 * exact / len(expected)) * perturbed
    if returned_list(results.get("malformed")):
        shape = "one dict per dict input" if survived else f"expected exactly {len(expected)} dicts"
        malformed = f"returned {len(value)} items ({shape})"
    elif ctx.facts.get("unobserved", {}).get("malformed"):
        malformed = f"was lost: {ctx.facts['unobserved']['malformed']}"
    else:
        malformed = how_it_went(results.get("malformed"), inputs)
    went = how_it_went(results.get("perturbed"), ctx.facts["inputs"].get("perturbed"))
    return Outcome(fraction,
                   f"the malformed call {malformed}; {exact} of {len(expected)} records match the "
                   f"contract exactly; the perturbed call {went}")


def record_share(inputs: list[Any], expected: list[Any], output: Any) -> tuple[int, int]:
    """(right, counted): the dict records of ``inputs`` whose output record (``align``) equals
    the oracle's exactly, of all of them."""
    got = align(inputs, expected, output)
    return sum(1 for want, have in zip(expected, got) if have is not None and strict_equal(have, want)), len(expected)
