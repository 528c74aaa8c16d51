"""Built-in generators of perturbed inputs (``perturb`` in a task.yaml).

Each is seeded only by the ``random.Random`` it is given and draws from it in a fixed order,
so the same seed gives the same bytes on every machine and in every process. A *file*
generator gets the fixture's bytes as ``source=`` and returns new bytes; a *cases*
generator gets ``count=`` and returns ``[{"args": [...], "kwargs": {...}}]``. Each
function's docstring is its documentation (``rubricbench pack docs``).
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
import re
from typing import Any

from .registry import builtin_generator

DIGITS = re.compile(r"-?[0-9]{1,18}")
FRACTION = {"type": "number", "minimum": 0, "maximum": 1}
JITTER = {"type": "object", "additionalProperties": {"type": "number", "minimum": 0, "maximum": 10}}


def _reshape(rng: random.Random, rows: list[Any], drop: float, duplicate: float, shuffle: bool) -> list[Any]:
    """Drop, then duplicate, then shuffle rows, each step drawing from ``rng`` in row order."""
    kept = [row for row in rows if rng.random() >= drop]
    doubled: list[Any] = []
    for row in kept:
        doubled.append(row)
        if rng.random() < duplicate:
            doubled.append(row)
    if shuffle:
        rng.shuffle(doubled)
    return doubled


def _decimals(text: str) -> int:
    return len(text.split(".", 1)[1]) if "." in text else 0


def _jitter_text(rng: random.Random, text: str, relative: float) -> str:
    """A numeric cell moved by a factor in [1 - relative, 1 + relative], written with the same
    number of decimals (an integer stays an integer); other text comes back unchanged."""
    stripped = text.strip()
    try:
        number = float(stripped)
    except ValueError:
        return text
    if not math.isfinite(number) or "e" in stripped.lower():
        return text
    moved = number * (1 + rng.uniform(-relative, relative))
    places = _decimals(stripped)
    return str(round(moved)) if places == 0 else f"{moved:.{places}f}"


def _jitter_value(rng: random.Random, value: Any, relative: float) -> Any:
    if type(value) is int:
        return round(value * (1 + rng.uniform(-relative, relative)))
    if type(value) is float and math.isfinite(value):
        return round(value * (1 + rng.uniform(-relative, relative)), max(_decimals(repr(value)), 2))
    return value


@builtin_generator("builtin.csv_rows", kind="file", params={
    "drop": FRACTION, "duplicate": FRACTION, "shuffle": {"type": "boolean"}, "jitter": JITTER})
def csv_rows(rng: random.Random, *, source: bytes, drop: float = 0.1, duplicate: float = 0.1,
             shuffle: bool = True, jitter: dict[str, float] | None = None) -> bytes:
    """A CSV file with the fixture's header and its rows reshuffled.

    Each data row is dropped with probability ``drop`` (default 0.1), each kept row is
    duplicated with probability ``duplicate`` (default 0.1), and the rows are shuffled
    (``shuffle``, default true). ``jitter`` maps a column name to a relative amount r: every
    numeric cell of that column is multiplied by a factor drawn from [1 - r, 1 + r] and written
    with as many decimals as before (integers stay integers; non-numeric cells are kept).
    The source is read as UTF-8 (a BOM is dropped); the output is UTF-8 with ``\\n`` line ends.
    """
    rows = list(csv.reader(io.StringIO(source.decode("utf-8-sig"), newline="")))
    if not rows:
        return b""
    header, body = rows[0], rows[1:]
    body = _reshape(rng, body, drop, duplicate, shuffle)
    columns = [(header.index(name), relative) for name, relative in sorted((jitter or {}).items())
               if name in header]
    out = []
    for row in body:
        row = list(row)
        for index, relative in columns:
            if index < len(row):
                row[index] = _jitter_text(rng, row[index], relative)
        out.append(row)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(out)
    return buffer.getvalue().encode("utf-8")


def _retype(value: Any) -> Any:
    """"42" <-> 42; anything else unchanged."""
    if type(value) is int:
        return str(value)
    if type(value) is str and DIGITS.fullmatch(value):
        return int(value)
    return value


@builtin_generator("builtin.json_records", kind="file", params={
    "drop": FRACTION, "duplicate": FRACTION, "shuffle": {"type": "boolean"}, "jitter": JITTER,
    "retype": {"type": "array", "items": {"type": "string"}}, "retype_fraction": FRACTION})
def json_records(rng: random.Random, *, source: bytes, drop: float = 0.1, duplicate: float = 0.1,
                 shuffle: bool = True, jitter: dict[str, float] | None = None,
                 retype: list[str] | None = None, retype_fraction: float = 0.5) -> bytes:
    """A JSON list of objects, reshaped like ``builtin.csv_rows``, with values perturbed.

    Records are dropped (``drop``, default 0.1), duplicated (``duplicate``, default 0.1) and
    shuffled (``shuffle``, default true). ``jitter`` maps a key to a relative amount r: an
    integer or float under that key is multiplied by a factor from [1 - r, 1 + r] (integers
    stay integers; booleans and other values are kept). ``retype`` lists keys whose value
    flips between a digit string and an integer ("42" <-> 42) with probability
    ``retype_fraction`` (default 0.5). Items that are not objects are kept as they are. The
    source must be a JSON list; the output is indented UTF-8 JSON.
    """
    records = json.loads(source.decode("utf-8-sig"))
    if not isinstance(records, list):
        raise ValueError("builtin.json_records needs a JSON list")
    records = _reshape(rng, records, drop, duplicate, shuffle)
    out = []
    for record in records:
        if isinstance(record, dict):
            record = dict(record)
            for key, relative in sorted((jitter or {}).items()):
                if key in record:
                    record[key] = _jitter_value(rng, record[key], relative)
            for key in retype or ():
                if key in record and rng.random() < retype_fraction:
                    record[key] = _retype(record[key])
        out.append(record)
    return (json.dumps(out, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _grid_item(index: int, axes: list[list[Any]]) -> list[Any]:
    """The ``index``-th point of the product of ``axes`` (the last axis varies fastest)."""
    picked = []
    for values in reversed(axes):
        index, at = divmod(index, len(values))
        picked.append(values[at])
    return picked[::-1]


@builtin_generator("builtin.cases_grid", kind="cases", params={
    "args": {"type": "array", "items": {"type": "array", "minItems": 1}},
    "kwargs": {"type": "object", "additionalProperties": {"type": "array", "minItems": 1}}})
def cases_grid(rng: random.Random, *, count: int, args: list[list[Any]] | None = None,
               kwargs: dict[str, list[Any]] | None = None) -> list[dict[str, Any]]:
    """Calls drawn from the cartesian product of candidate values.

    ``args`` is a list with one list of candidate values per positional argument; ``kwargs``
    maps a keyword to its candidate values. Of all combinations, ``count`` distinct ones are
    drawn without replacement (all of them, in a shuffled order, when there are fewer), so the
    product is never built in memory. Each call is ``{"args": [...], "kwargs": {...}}``.
    """
    names = sorted(kwargs or {})
    axes = [list(values) for values in (args or [])] + [list(kwargs[name]) for name in names]
    total = math.prod(len(values) for values in axes)
    if total == 0:
        return []
    picks = rng.sample(range(total), min(count, total))
    positional = len(args or [])
    cases = []
    for index in picks:
        point = _grid_item(index, axes)
        cases.append({"args": point[:positional], "kwargs": dict(zip(names, point[positional:]))})
    return json.loads(json.dumps(cases))  # plain copies: no value shared with the manifest


# a number standing on its own (not part of a date, a time, a version, a path or a name)
NUMBER_TOKEN = re.compile(r"(?<![\w.:/-])-?[0-9]+(?:\.[0-9]+)?(?![\w.:/-])")
MALFORMED = ("", "?", "\t", "#", "-- truncated --", "\ufffd\ufffd", "{", "ERROR")


def _lines(source: bytes) -> tuple[list[str], str]:
    """The source's lines (UTF-8, a BOM dropped) and its line end (``\\r\\n`` when it uses one)."""
    text = source.decode("utf-8-sig")
    end = "\r\n" if "\r\n" in text else "\n"
    return text.splitlines(), end


@builtin_generator("builtin.log_lines", kind="file", params={
    "keep_first": {"type": "integer", "minimum": 0}, "drop": FRACTION, "duplicate": FRACTION,
    "shuffle": {"type": "boolean"}, "blank": FRACTION, "malformed": FRACTION,
    "jitter": {"type": "number", "minimum": 0, "maximum": 10}})
def log_lines(rng: random.Random, *, source: bytes, keep_first: int = 0, drop: float = 0.1,
              duplicate: float = 0.1, shuffle: bool = False, blank: float = 0.05,
              malformed: float = 0.05, jitter: float = 0.0) -> bytes:
    """A line-based log with its lines reshaped and a few broken lines among them.

    The first ``keep_first`` lines (a header; default 0) stay as they are and first. Each other
    line is dropped with probability ``drop`` (default 0.1), duplicated with ``duplicate``
    (default 0.1), and the lines are shuffled when ``shuffle`` (default false: a log's order
    usually matters). After each kept line a blank line is inserted with probability ``blank``
    (default 0.05) and a malformed one (an empty, truncated or garbage line such as ``?``,
    ``{`` or U+FFFD) with probability ``malformed`` (default 0.05): the lines a parser must
    survive. ``jitter`` (default 0) moves every number that stands on its own in a line (not a
    part of a date, a time, a version or a path) by a factor from [1 - jitter, 1 + jitter],
    keeping its decimals. The source is read as UTF-8; the output
    keeps its line end and ends with one.
    """
    lines, end = _lines(source)
    head, body = lines[:keep_first], _reshape(rng, lines[keep_first:], drop, duplicate, shuffle)
    out = list(head)
    for line in body:
        if jitter:
            line = NUMBER_TOKEN.sub(lambda m: _jitter_text(rng, m.group(0), jitter), line)
        out.append(line)
        if rng.random() < blank:
            out.append("")
        if rng.random() < malformed:
            broken = rng.choice(MALFORMED)
            out.append(line[: max(1, len(line) // 2)] if broken == "-- truncated --" else broken)
    return (end.join(out) + end).encode("utf-8") if out else b""


@builtin_generator("builtin.text_words", kind="file", params={
    "case": FRACTION, "whitespace": FRACTION, "punctuation": FRACTION, "shuffle_lines": {"type": "boolean"}})
def text_words(rng: random.Random, *, source: bytes, case: float = 0.1, whitespace: float = 0.1,
               punctuation: float = 0.05, shuffle_lines: bool = False) -> bytes:
    """Free text with its words' surface changed and its meaning kept.

    Word by word, in order: the case is changed (upper, lower or title, chosen at random) with
    probability ``case`` (default 0.1); a trailing comma, full stop, ``!`` or ``?`` is added or
    removed with probability ``punctuation`` (default 0.05); the space after a word gets an
    extra space, tab or no-break space (U+00A0) before it with probability ``whitespace``
    (default 0.1). ``shuffle_lines`` (default false) shuffles
    the lines first. Line breaks stay where they were. UTF-8 in and out.
    """
    lines, end = _lines(source)
    if shuffle_lines:
        rng.shuffle(lines)
    out = []
    for line in lines:
        words = line.split(" ")
        for index, word in enumerate(words):
            if word and rng.random() < case:
                word = rng.choice((str.upper, str.lower, str.title))(word)
            if word and rng.random() < punctuation:
                word = word[:-1] if word[-1] in ",.!?" else word + rng.choice(",.!?")
            if index < len(words) - 1 and rng.random() < whitespace:
                word += rng.choice((" ", "\t", "\u00a0"))
            words[index] = word
        out.append(" ".join(words))
    return (end.join(out) + end).encode("utf-8") if out else b""
