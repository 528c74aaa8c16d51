"""Prompt 1's edge run: the fixture's records with a few records at the edges of what Python's
own types take, each of a form the contract accepts, appended.

* an id of 5,000 ASCII digits (a string: rule 2 takes it; ``int()`` refuses to make or print
  an int of more than 4300 digits by default, ``sys.get_int_max_str_digits()``);
* an age of 5,000 ASCII digits (a valid form, far over any ``max_age``: dropped);
* a signup in year 1 with a positive offset, and one in year 9999 with a negative offset
  (valid forms whose UTC instant lies before year 1 or after year 9999, which
  ``datetime`` cannot hold).

The prompt names no such limit, so each of these may be kept or dropped (the huge age is
over every bound: dropped): what is judged is that the program still runs, exit 0, and
prints the fixture's records exactly. A program that crashes on one of them loses every
record of its data set, which is what ``runs_without_error`` charges (a third of it). Pure.
"""

from __future__ import annotations

from typing import Any

from .p1_refactoring_fixtures import CONFIG_TEXT, RECORDS, RECORDS_NAME, _rec, records_bytes

LABEL = "edge"
CONFIG = "edge_config.yaml"
DATA = "edge_records.json"
HUGE = "9" * 5000
EDGES: list[dict[str, Any]] = [
    _rec(HUGE, "Huge Id", "huge.id@example.com", 40, "US", "2024-01-01T00:00:00Z"),
    _rec(9001, "Huge Age", "huge.age@example.com", "4" * 5000, "US", "2024-01-01T00:00:00Z"),
    _rec(9002, "Year One", "year.one@example.com", 40, "DE", "0001-01-01T00:00:00+05:00"),
    _rec(9003, "Year Max", "year.max@example.com", 40, "CA", "9999-12-31T23:00:00-05:00"),
]
EITHER_WAY = frozenset({9002, 9003})  # ids that may be kept or dropped (the huge one too)
WHAT = ("the fixture with four edge records appended (an id and an age of 5,000 digits, "
        "signups in year 1 at +05:00 and in year 9999 at -05:00)")
HUGE_INT = "an int of more than 4300 digits"  # what the judge's parser makes of one


def parse_int(digits: str) -> int | str:
    """``json.loads``' int parser for the edge run's stdout: an int literal of more digits
    than ``int()`` takes by default is read as HUGE_INT (the huge id, printed by a program
    that raised the limit) instead of failing the whole output."""
    if len(digits.lstrip("-")) > 4300:
        return HUGE_INT
    return int(digits)


def files() -> dict[str, bytes]:
    """The edge run's config (the fixture's, naming the edge records) and records."""
    config = CONFIG_TEXT.replace(f"data_source: {RECORDS_NAME}", f"data_source: {DATA}", 1)
    return {CONFIG: config.encode("utf-8"), DATA: records_bytes([*RECORDS, *EDGES])}


def allowed_extra(item: Any) -> bool:
    """An output item the edge records may add: the huge id's (as an int, however printed),
    year 1's or year 9999's."""
    if not isinstance(item, dict):
        return False
    rid = item.get("id")
    return rid == HUGE_INT or (type(rid) is int and (rid in EITHER_WAY or rid > 10 ** 4299))
