"""Prompt 3: a batched call that failed, judged item by item.

Each of the four judged calls carries ``split_budget_s``: when it raises, or returns no list
(the differential call also when it returns a list of other than one item per dict record:
``split_unless_len``), the harness makes it again in the same child run once per item of the input list, that item
alone in a one-item list (``benchmark.harness.modes``), so one record that raises costs that
record, never the whole call. ``observe`` attaches those results to the call's result as
``items`` (one per input item, None where the child reported none). Here, pure:

* ``merged``: the call's output rebuilt from its items, one entry per dict record (the dict
  its own call returned, else None), so the judge's alignment by position applies;
* ``failures``: why each record's own call failed (raised, returned no list or not the one
  record, not run), and
  what the non-dict items' calls did wrong (each must return ``[]``);
* ``blame``: the value classes of the differential run that explain the records that raised:
  every class all of whose records failed, then greedily the class whose records failed most
  often (a share, then a count) until every failed record is explained, so a raise on
  5,000-digit ids costs ``id huge`` and not the email class those records happened to carry.

Whatever the child reported and a rationale shows passes ``benchmark.untrusted.text``, with
its caps; inputs are shown capped at ``INPUT_CHARS`` characters, their length stated.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..untrusted import NAME_LIMIT, text
from .base import excerpt, raised_at
from .p3_transform_cases import CLASSES
from .p3_transform_data import MISSING

SPLIT_BUDGET_S = 2.0  # wall seconds for one call's items (the reference takes milliseconds)
INPUT_CHARS = 80
MESSAGE_CHARS = 120
_INPUT_PATH = {"id": ("id",), "email": ("contact", "email"), "age": ("stats", "age"),
               "count": ("stats", "total_purchases"), "contact": ("contact",), "stats": ("stats",)}
_JUDGED_KEYS = ("id", "contact", "stats")


def request_key(records: Any, whole: bool = False) -> dict[str, float | int]:
    """What a call request on ``records`` adds so that the harness splits it when it fails:
    when it raises or returns no list; with ``whole``, also when it returns a list of other
    than one item per dict record (a record dropped, or one too many: the alignment by
    position would judge every record after it against the wrong one; the differential
    call's generated ids are no key to match by, and the fixture, perturbed and malformed
    calls are matched by id, the malformed one judging that very count)."""
    key: dict[str, float | int] = {"split_budget_s": SPLIT_BUDGET_S}
    if whole and isinstance(records, list):
        key["split_unless_len"] = sum(isinstance(record, dict) for record in records)
    return key


def attach(results: dict[str, dict[str, Any]], reported: Mapping[str, Any],
           inputs: Mapping[str, Any]) -> None:
    """Give each result whose call was made again item by item its ``items``: the result
    reported under ``<label>/<index>`` for each input item, or None."""
    for label, result in results.items():
        count = len(inputs[label]) if isinstance(inputs.get(label), list) else 0
        found = [reported.get(f"{label}/{index}") for index in range(count)]
        if any(item is not None for item in found) and isinstance(result, dict):
            result["items"] = found


def has_items(result: Mapping[str, Any] | None) -> bool:
    return bool(result) and isinstance(result.get("items"), list)


def _one_record(item: Mapping[str, Any] | None) -> Any:
    """The dict an item's call returned as its only list item, else None."""
    if not item or not item.get("returned") or item.get("value_type") != "list":
        return None
    value = item.get("value")
    return value[0] if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict) else None


def merged(result: Mapping[str, Any], inputs: list[Any]) -> list[Any]:
    """One entry per dict record of ``inputs``: the record its own call returned, or None."""
    return [_one_record(item) for raw, item in zip(inputs, result["items"]) if isinstance(raw, dict)]


def raised_note(exception: Mapping[str, Any]) -> str:
    """``Type: message`` of an exception the child reported, through the untrusted boundary."""
    return (f"{text(exception.get('type'), NAME_LIMIT)}: {text(exception.get('message'), MESSAGE_CHARS)}"
            f"{raised_at(exception)}")


def _failed(item: Mapping[str, Any] | None) -> str | None:
    """Why an item's own call failed, or None when it returned a list."""
    if not item:
        return "was not run (the item-by-item budget was spent)"
    if isinstance(item.get("exception"), Mapping):
        return f"raised {raised_note(item['exception'])}"
    if not item.get("returned") or item.get("value_type") != "list" or not isinstance(item.get("value"), list):
        return f"returned {text(item.get('value_type'), NAME_LIMIT)}, not a list"
    return None


def shown(value: Any) -> str:
    """An input value for a rationale: JSON, capped at INPUT_CHARS characters; a longer
    string is named by its length and its start."""
    if value is MISSING:
        return "no such key"
    if isinstance(value, str) and len(value) > INPUT_CHARS:
        start = json.dumps(value[:INPUT_CHARS // 2], ensure_ascii=False)
        return f"a string of {len(value):,} characters starting {text(start, INPUT_CHARS)}"
    return excerpt(value, INPUT_CHARS)


def class_input(column: str, record: Mapping[str, Any]) -> Any:
    """The input value a record's class in ``column`` stands for (the other keys of the
    record for ``record``)."""
    if column not in _INPUT_PATH:
        return {k: v for k, v in record.items() if k not in _JUDGED_KEYS}
    value: Any = record
    for key in _INPUT_PATH[column]:
        value = value.get(key, MISSING) if isinstance(value, dict) else MISSING
    return value


def failures(result: Mapping[str, Any], inputs: list[Any]) -> tuple[dict[int, str], list[str]]:
    """(dict record number -> why its own call failed, notes on non-dict items whose call
    did not return ``[]``)."""
    failed: dict[int, str] = {}
    odd: list[str] = []
    number = 0
    for index, (raw, item) in enumerate(zip(inputs, result["items"])):
        why = _failed(item)
        if isinstance(raw, dict):
            if not why and _one_record(item) is None:
                why = f"returned {len(item['value'])} items, not the one record"
            if why:
                failed[number] = why
            number += 1
        elif why or item["value"]:
            why = why or f"returned {len(item['value'])} items, not []"
            odd.append(f"item #{index + 1} ({shown(raw)}) {why}")
    return failed, odd


def summary(result: Mapping[str, Any], inputs: list[Any]) -> str:
    """What the item-by-item calls gave: records back, failures, the first one shown."""
    failed, odd = failures(result, inputs)
    records = [raw for raw in inputs if isinstance(raw, dict)]
    back = sum(record is not None for record in merged(result, inputs))
    note = f"made again item by item: {back} of {len(records)} records came back"
    if failed:
        first = min(failed)
        calls = "1 call" if len(failed) == 1 else f"{len(failed)} calls"
        note += f", {calls} failed (first: dict #{first + 1}, {shown(records[first])}, {failed[first]})"
    if odd:
        note += f"; {odd[0]}"
    return note


def blame(judged: list[dict[str, str]], failed: Mapping[int, str]) -> dict[tuple[str, str], int]:
    """(column, class) -> the first failed record it explains. A class all of whose records
    failed is charged (an answer that fails on every record fails every class); the failed
    records no such class explains are then explained greedily, each step taking the class
    with the largest share of its records failed (then the most failed, then the first in
    ``CLASSES``), so a raise on 5,000-digit ids costs ``id huge``, not the email class those
    records happened to carry too."""
    members: dict[tuple[str, str], list[int]] = {(c, n): [] for c, names in CLASSES.items() for n in names}
    for number, classes in enumerate(judged):
        for pair in classes.items():
            members.setdefault(pair, []).append(number)
    weight = {pair: (sum(n in failed for n in numbers) / len(numbers), sum(n in failed for n in numbers))
              for pair, numbers in members.items() if numbers}
    charged = {pair: min(members[pair]) for pair, (share, _) in weight.items() if share == 1.0}
    pending = set(failed).difference(*(members[pair] for pair in charged))
    while pending:
        candidates = [pair for pair in weight if pair not in charged and pending.intersection(members[pair])]
        if not candidates:
            break
        best = max(candidates, key=weight.__getitem__)  # max keeps the first of equals: CLASSES order
        charged[best] = min(pending.intersection(members[best]))
        pending.difference_update(members[best])
    return charged
