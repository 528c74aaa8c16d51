"""Prompt 1's behaviour facts and comparisons, on plain JSON data only.

``summarise_run`` turns one child run into a JSON-able fact (exit code, parsed stdout, the
expected answer); the comparison helpers judge a parsed output against the oracle's answer.
Equality is type-strict (``1``, ``1.0``, ``True`` and ``"1"`` all differ). Output records
are matched to expected ones by id; an id given as a digit string still matches for
filtering (its type then costs a value), and only the first record with an id is judged.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any

from ..types import ExecResult
from .base import strict_equal as same_json
from .p1_refactoring_data import OUTPUT_KEYS, OUTPUT_TYPES, lenient_id

MAX_DEPTH = 50
MAX_ID_DIGITS = sys.int_info.default_max_str_digits  # int()'s default limit: 4300 digits
STDERR_TAIL = 600
NOTE_LIMIT = 4



def nesting_depth(text: str) -> int:
    """Deepest ``[``/``{`` nesting in JSON text, ignoring brackets inside strings."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif in_string:
            escaped = char == "\\"
            in_string = char != '"'
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def parse_output(stdout: str, truncated: bool, parse_int: Any = None) -> tuple[Any, str | None]:
    """(parsed stdout, None) or (None, why it could not be used); ``parse_int`` as for
    ``json.loads``."""
    if truncated:
        return None, "stdout exceeded the capture limit"
    if not stdout.strip():
        return None, "stdout is empty"
    if nesting_depth(stdout) > MAX_DEPTH:
        return None, f"stdout nests deeper than {MAX_DEPTH} levels"
    try:
        return json.loads(stdout, parse_constant=_reject_constant, parse_int=parse_int), None
    except (ValueError, RecursionError) as exc:
        return None, f"stdout is not a single JSON document ({str(exc)[:120]})"


def summarise_run(label: str, result: ExecResult, expected: list[dict[str, Any]],
                  parse_int: Any = None) -> dict[str, Any]:
    record = result.observation
    problem = None
    if result.timed_out:
        problem = f"timed out ({result.killed_by or 'killed'})"
    elif record is None:
        problem = f"no harness record ({result.channel_error or 'the child died'})"
    output, parse_error = parse_output(result.stdout, result.output_truncated, parse_int)
    return {
        "label": label,
        "exit_code": record.get("exit_code") if record else None,
        "exception": record.get("exception") if record else None,
        "problem": problem,
        "output": output,
        "parse_error": parse_error,
        "expected": expected,
        "stderr_tail": result.stderr[-STDERR_TAIL:],
    }


def run_problem(run: dict[str, Any] | None) -> str | None:
    """Why a run's output cannot be judged at all, or None."""
    if run is None:
        return "the program was not run"
    if run.get("problem"):
        return f"the {run['label']} run {run['problem']}"
    if run.get("parse_error"):
        return f"the {run['label']} run's {run['parse_error']}"
    if not isinstance(run.get("output"), list):
        kind = type(run.get("output")).__name__
        return f"the {run['label']} run printed a JSON {kind}, not an array"
    return None


def describe(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    text = text if len(text) <= 40 else text[:37] + "..."
    return f"{text} ({type(value).__name__})"


def id_key(value: Any) -> int | None:
    """The id an output record claims: an int, or a string of digits; else None. A digit
    string longer than ``int()`` converts by default (4300 digits) is no id any input has:
    None, so the judge counts it as a surplus item instead of raising on it."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    digits = value.strip() if isinstance(value, str) else ""
    if digits.isascii() and digits.isdigit() and len(digits) <= MAX_ID_DIGITS:
        return int(digits)
    return None


def well_formed(item: Any) -> bool:
    """A dict with exactly the contract's keys, each value of the contract's type."""
    if not isinstance(item, dict) or set(item) != set(OUTPUT_KEYS):
        return False
    return all(type(item[key]) is OUTPUT_TYPES[key] for key in OUTPUT_KEYS)


def index_output(output: list[Any]) -> tuple[dict[int, dict[str, Any]], int]:
    """(first record per id, count of surplus items: duplicates and records without an id)."""
    first: dict[int, dict[str, Any]] = {}
    surplus = 0
    for item in output:
        key = id_key(item.get("id")) if isinstance(item, dict) else None
        if key is None or key in first:
            surplus += 1
        else:
            first[key] = item
    return first, surplus


def filtering(expected: list[dict[str, Any]], output: list[Any]) -> dict[str, Any]:
    """Kept ids against expected ids: Jaccard, with surplus items added to the union."""
    wanted = {row["id"] for row in expected}
    first, surplus = index_output(output)
    got = set(first)
    return {"common": len(wanted & got), "union": len(wanted | got) + surplus,
            "missing": sorted(wanted - got), "extra": sorted(got - wanted), "surplus": surplus}


def field_errors(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    wrong = [key for key in OUTPUT_KEYS
             if key not in actual or not same_json(actual[key], expected[key])]
    return [f"id {expected['id']} {key}: got "
            f"{describe(actual[key]) if key in actual else 'nothing'}, "
            f"expected {describe(expected[key])}" for key in wrong]


def values(expected: list[dict[str, Any]], output: list[Any]) -> tuple[int, int, list[str]]:
    """(matched records with every field right, expected records found in the output,
    notes on the wrong fields): a record with one wrong field is wrong data for its user."""
    first, _ = index_output(output)
    matched = [row for row in expected if row["id"] in first]
    errors = [field_errors(row, first[row["id"]]) for row in matched]
    return sum(not found for found in errors), len(matched), [n for found in errors for n in found]


def exact(expected: list[dict[str, Any]], output: list[Any]) -> tuple[int, list[str]]:
    """(expected records reproduced exactly, notes on the others)."""
    first, _ = index_output(output)
    notes: list[str] = []
    correct = 0
    for row in expected:
        if row["id"] not in first:
            notes.append(f"id {row['id']} missing")
        elif same_json(first[row["id"]], row):
            correct += 1
        else:
            extra = sorted(set(first[row["id"]]) - set(OUTPUT_KEYS))
            errors = field_errors(row, first[row["id"]])
            notes.append(errors[0] if errors else f"id {row['id']} has extra keys {extra}")
    return correct, notes


def summary(notes: Iterable[str]) -> str:
    items = list(notes)
    if not items:
        return ""
    more = f"; and {len(items) - NOTE_LIMIT} more" if len(items) > NOTE_LIMIT else ""
    return "; ".join(items[:NOTE_LIMIT]) + more


def form_verdicts(forms: list[tuple[str, int | None]], expected: list[dict[str, Any]],
                  output: list[Any], described: dict[str, tuple[str, bool]],
                  reusing: frozenset[str] = frozenset()) -> list[str]:
    """One note per contract form judged wrongly. ``forms`` gives each input record's kind and
    the id a lenient reader reports it under; a form is right when, for every record of it,
    the first output record with that id (read as leniently) equals the expected one, both
    absent included. An id that a ``reusing`` kind (a duplicate) shares with other records is
    judged for that kind only, so one mistake costs one form. Output ids that no input record
    has are one more wrong "form"."""
    wanted = {row["id"]: row for row in expected}
    shared = {key for kind, key in forms if kind in reusing}
    forms = [(kind, key) for kind, key in forms if kind in reusing or key not in shared]
    first: dict[int, Any] = {}
    for item in output:
        key = lenient_id(item.get("id")) if isinstance(item, dict) else None
        if key is not None:
            first.setdefault(key, item)
    wrong: dict[str, str] = {}
    for kind, key in forms:
        if key is None or kind in wrong or same_json(first.get(key), wanted.get(key)):
            continue
        verdict = "kept" if key in first else "dropped"
        if key in first and key in wanted:
            verdict = (field_errors(wanted[key], first[key]) or ["extra keys"])[0]
        wrong[kind] = f"{kind} ({described.get(kind, ('', True))[0]}): {verdict}"
    unknown = sorted(set(first) - {key for _, key in forms})
    if unknown:
        wrong["unknown ids"] = f"records for ids no input has: {unknown[:5]}"
    return list(wrong.values())



def record_share(expected: list[dict[str, Any]], output: list[Any]) -> tuple[int, int]:
    """(right, counted) over a run's records: an expected record is right when the first output
    record with its id (read leniently) equals it; counted are the expected records plus the
    output ids nothing expects (records kept that the contract drops)."""
    wanted = {row["id"]: row for row in expected}
    first: dict[Any, Any] = {}
    for item in output:
        key = lenient_id(item.get("id")) if isinstance(item, dict) else None
        if key is not None:
            first.setdefault(key, item)
    right = sum(1 for key, row in wanted.items() if same_json(first.get(key), row))
    return right, len(wanted) + len(set(first) - set(wanted))
