"""Prompt 2: how the submitted YAML is laid out (``yaml_indentation``), read from raw lines
with yaml's scanner marking the lines that are scalar text; comment-only lines never count.
Parsing the files themselves is ``benchmark.safe_parse``.
"""

from __future__ import annotations

from collections.abc import Iterator

import yaml

MAX_FLOW_DEPTH = 100


def flow_depth(text: str) -> int:
    """The deepest nesting of flow brackets outside quotes (a cheap bound taken before
    yaml's scanner, whose cost grows with the depth of open flow collections)."""
    depth = deepest = 0
    quote = None
    for char in text:
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth = max(0, depth - 1)
        elif char == "\n":
            quote = None
    return deepest


def _scalar_text_lines(text: str) -> set[int]:
    """Numbers of the lines that continue a multi-line scalar (block, folded, quoted or
    plain): they are text, not structure. Found with yaml's scanner, so a comment can never
    open or close one; after a scanner error the rest of the file counts as structure, and
    text nested deeper than MAX_FLOW_DEPTH is never scanned (all of it counts as structure)."""
    lines: set[int] = set()
    if flow_depth(text) > MAX_FLOW_DEPTH:
        return lines
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            start, end = token.start_mark, token.end_mark
            if isinstance(token, yaml.ScalarToken) and end.line > start.line:
                last = end.line if end.column else end.line - 1
                lines.update(range(start.line + 2, last + 2))
    except yaml.YAMLError:
        pass
    return lines


def _content_lines(text: str) -> Iterator[tuple[int, str, str]]:
    """(line number, leading whitespace, rest) of YAML lines that carry structure.

    Skips blank lines, comment-only lines and scalar text; document markers come back
    with empty whitespace and rest.
    """
    skip = _scalar_text_lines(text)
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.rstrip("\r")
        rest = line.lstrip(" \t")
        if number in skip or not rest or rest.startswith("#"):
            continue
        lead = line[: len(line) - len(rest)]
        if not lead and (rest.rstrip() in ("---", "...") or rest.startswith("--- ")):
            yield number, "", ""
            continue
        yield number, lead, rest


def _item_marker(rest: str) -> int:
    """Columns taken by the leading list-item markers (``- ``, ``- - ``) of a line's text."""
    offset = 0
    while rest == "-" or rest.startswith(("- ", "-\t")):
        stripped = rest[1:].lstrip(" \t")
        offset, rest = offset + len(rest) - len(stripped), stripped
    return offset


def _open_levels(stack: list[int], width: int, item: bool, key_column: int | None) -> bool:
    """Update ``stack`` (columns of the open blocks) for a line; True for an item in its
    key's own column (an "indentless" list, legal YAML), opened as a level of its own."""
    while len(stack) > 1 and stack[-1] > width:
        stack.pop()
    if not item and len(stack) > 1 and stack[-2] == stack[-1] == width:
        stack.pop()  # a key back in the column closes the indentless list
    indentless = item and key_column == width
    if width > stack[-1] or indentless:
        stack.append(width)
    return indentless


def yaml_indentation(text: str) -> tuple[int, int, list[tuple[int, str]]]:
    """(fine, nested, problems): a structural line inside a block is fine when it is indented
    with spaces only at exactly 2 spaces per nesting level. A list item is one level deeper
    than its key, so it sits 2 spaces deeper; an item in its key's own column is a level
    short. Levels come from a stack of the open block columns, as a YAML parser reads them."""
    fine = nested = 0
    problems: list[tuple[int, str]] = []
    stack, key_column = [0], None
    for number, lead, rest in _content_lines(text):
        if not rest:  # a document marker starts afresh
            stack, key_column = [0], None
            continue
        width, marker = len(lead), _item_marker(rest)
        indentless = _open_levels(stack, width, marker > 0, key_column)
        level, want = len(stack) - 1, 2 * (len(stack) - 1)
        if marker and rest[marker:]:
            stack.append(width + marker)  # the item's own content opens a level
        key_column = width + marker
        if level == 0:
            continue
        nested += 1
        if "\t" in lead:
            problems.append((number, "tab in indentation"))
        elif indentless:
            problems.append((number, f"list item in its key's column {width} ({want} expected: "
                                     "2 spaces deeper than the key)"))
        elif width != want:
            problems.append((number, f"indented {width} spaces at nesting level {level} ({want} expected)"))
        else:
            fine += 1
    return fine, nested, problems
