"""The one boundary for untrusted text.

Everything a submission can influence (its files, its stdout and stderr, exception names and
messages, keys and values of its data, its folder's name) is data, never markup and never a
terminal command. Each producer of a rationale, an evidence note, a prompt's error, an
execution summary or a terminal line passes such text through :func:`text` first, so the
terminal, JSON, HTML, JUnit and Markdown writers receive only text they can carry:

- bytes are decoded as UTF-8 with replacement (invalid sequences become U+FFFD);
- control characters (C0 with ANSI's ESC, DEL, C1), bidirectional overrides and isolates,
  line and paragraph separators, the noncharacters U+FFFE/U+FFFF and every surrogate (in a
  ``str`` a surrogate is always a lone one: UTF-8 cannot carry it) are escaped *visibly*, as
  ``\\x1b``, ``\\n``, ``\\u202e``, ``\\ud800``;
- long text is cut to ``limit`` characters, ending ``... (N more characters)``.

``text`` is idempotent (``text(text(s)) == text(s)``): what it returns is clean and within the
limit, so a stored result read back passes unchanged and :func:`is_clean` can tell text that
never went through it. Standard library only: the CLI, the engine, the cache and the
reporters all import it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

RATIONALE_LIMIT = 2000  # a check's rationale, a prompt's error, a terminal message
NOTE_LIMIT = 500  # an evidence note, an exception message, an execution summary's strings
NAME_LIMIT = 200  # a file name in evidence, an exception's class name
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
                    "\ud800-\udfff\ufffe\uffff]")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ESCAPE = re.compile(r'\\[^"]')  # JSON text without its doubled backslashes: an escaped character


def _escape_char(char: str) -> str:
    code = ord(char)
    return _SHORT.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def escape(value: str) -> str:
    """Every unsafe character spelled out: ESC becomes the four characters ``\\x1b``, a lone
    surrogate the six characters ``\\ud800``; clean text is returned as it is."""
    return UNSAFE.sub(lambda match: _escape_char(match.group()), value) if UNSAFE.search(value) else value


def _head(raw: str, budget: int) -> tuple[str, int]:
    """The longest start of ``raw`` whose escaped form fits ``budget`` characters: (that
    escaped text, how many characters of ``raw`` it shows). Looks at ``budget`` characters at most."""
    piece = raw[:budget]
    escaped = escape(piece)
    if len(escaped) <= budget:
        return escaped, len(piece)
    out, size = [], 0
    for shown, char in enumerate(piece):
        spelled = _escape_char(char) if UNSAFE.match(char) else char
        if size + len(spelled) > budget:
            return "".join(out), shown
        out.append(spelled)
        size += len(spelled)
    return "".join(out), len(piece)


def _as_str(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    try:
        return str(value)
    except Exception:  # a value that cannot print itself is still shown, by its type
        return f"<unprintable {type(value).__name__}>"


def text(value: object, limit: int = RATIONALE_LIMIT) -> str:
    """``value`` (text, bytes or anything printable) as safe text: decoded, escaped (see the module's docstring) and, when its escaped
    form is longer than ``limit``, cut to its start and ``... (N more characters)``, N counting
    the characters of ``value`` left out. The work is bounded by ``limit``, not by ``value``'s size."""
    raw = _as_str(value)
    if len(raw) <= limit:
        escaped = escape(raw)
        if len(escaped) <= limit:
            return escaped
    reserve = len(f"... ({len(raw)} more characters)")
    if limit <= reserve:
        return escape(raw[:limit])[:limit]
    head, shown = _head(raw, limit - reserve)
    return f"{head}... ({len(raw) - shown} more characters)"


def is_clean(value: str, limit: int | None = None) -> bool:
    """True when ``value`` needs no escaping (and, given ``limit``, no cut): what ``text`` returns."""
    return UNSAFE.search(value) is None and (limit is None or len(value) <= limit)


def data(value: Any, limit: int = NOTE_LIMIT) -> Any:
    """Plain JSON data with every string, keys included, through :func:`text`; numbers,
    booleans and None kept; anything else becomes its text."""
    if isinstance(value, str):
        return text(value, limit)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, Mapping):
        return {text(key, limit): data(item, limit) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [data(item, limit) for item in value]
    return text(value, limit)


def json_text_clean(dumped: str) -> bool:
    """True when every string in this JSON text is clean (see :func:`is_clean`), for text from
    an encoder that escapes only what JSON must (orjson; ``json.dumps`` with
    ``ensure_ascii=False``): there a clean string needs no escape but ``\\"`` and ``\\\\``."""
    return UNSAFE.search(dumped) is None and _ESCAPE.search(dumped.replace("\\\\", "")) is None


def all_clean(value: Any) -> bool:
    """True when every string in plain JSON data (keys included) is clean (see :func:`is_clean`);
    False for data JSON cannot carry. One pass in C over its JSON text."""
    try:
        return json_text_clean(json.dumps(value, ensure_ascii=False, allow_nan=False,
                                          check_circular=False))
    except (TypeError, ValueError, RecursionError):
        return False


def for_stream(value: str, encoding: str | None) -> str:
    """``value`` as a stream with ``encoding`` can write it: what the encoding lacks (an emoji on
    an ASCII terminal, a surrogate anywhere) becomes a backslash escape, never an exception."""
    encoding = encoding or "utf-8"
    try:
        value.encode(encoding)
        return value
    except (UnicodeEncodeError, LookupError):
        try:
            return value.encode(encoding, errors="backslashreplace").decode(encoding)
        except LookupError:
            return value.encode("ascii", errors="backslashreplace").decode("ascii")
