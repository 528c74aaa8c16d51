"""Bytes to text the way the file's consumer reads it, so what is graded is what runs.

Python source is decoded as CPython decodes it (``tokenize.detect_encoding``: a UTF-8 byte
order mark, a PEP 263 coding declaration on line 1 or 2, their conflicts), and every
analyser gets that one text. A declared codec that is not ASCII-compatible (utf-7, utf-16,
hz, ...) is refused: with it, what looks like a comment to a reader can be code to the
interpreter. YAML is read as PyYAML reads bytes (UTF-8, or UTF-16 with a byte order mark);
JSON must be UTF-8 (RFC 8259, section 8.1; a UTF-8 byte order mark is tolerated).

Each ``decode_*`` returns ``(text, None)`` or ``(None, reason)``.
"""

from __future__ import annotations

import codecs
import functools
import tokenize
import unicodedata

ASCII = "".join(map(chr, range(128)))
# ASCII text in every escape and shift form a codec may give meaning to: backslash escapes
# (raw_unicode_escape turns a "comment" holding \u000a into a line of code), UTF-7's +...-,
# HZ's ~{ ~}, ISO 2022 escape sequences, SO/SI. A compatible codec leaves all of it alone.
ESCAPES = ("\\u000a \\U0000000a \\x0a \\012 \\N{LINE FEED} \\n +AAo- +- ~{~} ~~ "
           "\x1b$B \x1b(B \x1b$)C \x0e \x0f \x1bN \x1bO #\r\n")
_WIDE_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
              (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))
_UTF8 = ("utf-8", "utf-8-sig")
PYTHON_RULE = "Python source must use an ASCII-compatible encoding"
YAML_RULE = "YAML is read as UTF-8, or UTF-16 with a byte order mark"
JSON_RULE = "JSON must be UTF-8 (RFC 8259)"
Decoded = tuple[str | None, str | None]


_WIDE_CODECS = (("utf-32-le", "UTF-32-LE"), ("utf-32-be", "UTF-32-BE"),
                ("utf-16-le", "UTF-16-LE"), ("utf-16-be", "UTF-16-BE"))
_TEXT_CATEGORIES = frozenset("LMNPSZ")  # letters, marks, numbers, punctuation, symbols, spaces


def wide_bom(data: bytes) -> str | None:
    """"UTF-32" or "UTF-16" when ``data`` starts with that byte order mark, else None."""
    return next((name for bom, name in _WIDE_BOMS if data.startswith(bom)), None)


def _reads_as_text(text: str) -> bool:
    """Mostly ASCII, and every character a printable one or a line/tab space."""
    if not text or sum(ch < "\x80" for ch in text) < 0.8 * len(text):
        return False
    return all(ch in "\t\n\r\f" or unicodedata.category(ch)[0] in _TEXT_CATEGORIES
               for ch in text)


def wide_without_bom(data: bytes) -> str | None:
    """"UTF-16-LE", "UTF-16-BE", "UTF-32-LE" or "UTF-32-BE" when ``data`` (no byte order mark)
    decodes in that encoding to text (``_reads_as_text``), else None: ``S\\x00=\\x00`` is
    UTF-16-LE, not binary."""
    for codec, name in _WIDE_CODECS:
        try:
            if _reads_as_text(data.decode(codec)):
                return name
        except UnicodeDecodeError:
            continue
    return None


def single_byte_guess(data: bytes) -> str | None:
    """What bytes that are not UTF-8 look like: "cp1252" (bytes 0x80-0x9F that cp1252 gives
    letters or quotes) or "Latin-1" (ISO-8859-1, which cp1252 extends) when every non-ASCII
    byte reads as a letter, punctuation or symbol and they are a small share; else None."""
    high = sum(byte >= 0x80 for byte in data)
    if not high or high > 0.3 * len(data):
        return None
    codec = "cp1252" if any(0x80 <= byte <= 0x9F for byte in data) else "latin-1"
    try:
        text = data.decode(codec)
    except UnicodeDecodeError:
        return None
    if not all(unicodedata.category(ch)[0] in _TEXT_CATEGORIES for ch in text if ch >= "\x80"):
        return None
    return "cp1252 (Windows-1252)" if codec == "cp1252" else "Latin-1 (ISO-8859-1) or cp1252"


def _not_utf8(data: bytes, start: int) -> str:
    """Why ``data`` is not UTF-8, naming the single-byte encoding it looks like, if any."""
    reason = f"not valid UTF-8 (byte {start})"
    guess = single_byte_guess(data)
    if guess is None:
        return reason
    codec = "cp1252" if guess.startswith("cp1252") else "latin-1"
    line = data.count(b"\n", 0, start) + 1
    char = data[start:start + 1].decode(codec)
    return f"{reason}: it reads as {guess} text ({char!r} on line {line}); save it as UTF-8"


def _binary(data: bytes, rule: str) -> str:
    """The reason for bytes with NULs: text in a wide encoding without a byte order mark
    (named, with the format's ``rule``), else binary."""
    wide = wide_without_bom(data)
    if wide:
        return f"{wide} text (no byte order mark): {rule}"
    return "binary file (contains NUL bytes)"


@functools.lru_cache(maxsize=64)
def ascii_compatible(encoding: str) -> bool:
    """True when the codec is a text encoding in which ASCII text is its own bytes both ways:
    each character alone, the whole range in a run, and ``ESCAPES`` (latin-1, cp1252,
    shift_jis: yes; utf-7, raw_unicode_escape, hz, iso2022_jp, utf-16: no)."""
    try:
        if not codecs.lookup(encoding)._is_text_encoding:
            return False
        for text in (ASCII, ESCAPES, *ASCII):
            if text.encode(encoding) != text.encode("ascii") or text.encode("ascii").decode(encoding) != text:
                return False
        return True
    except (LookupError, UnicodeError, TypeError, ValueError):
        return False


def _lines(data: bytes):
    """A readline over ``data`` splitting at \\n, \\r\\n and \\r, as CPython's tokenizer does."""
    return iter(data.splitlines(keepends=True)).__next__


def python_encoding(data: bytes) -> tuple[str | None, str | None]:
    """(encoding, None) as CPython would decode ``data``, or (None, reason)."""
    try:
        encoding, _ = tokenize.detect_encoding(_lines(data))
    except SyntaxError as exc:
        if data.startswith(codecs.BOM_UTF8) and "encoding problem" in str(exc.msg):
            return None, "its coding declaration conflicts with its UTF-8 byte order mark"
        if "unknown encoding" in str(exc.msg):
            return None, f"unknown source encoding ({exc.msg.rpartition(': ')[2]})"
        return "utf-8", None  # bytes that are not UTF-8 and no declaration: reported below
    if encoding not in _UTF8 and not ascii_compatible(encoding):
        return None, f"its coding declaration names {encoding}, which is not ASCII-compatible (refused)"
    return encoding, None


def _decoded(data: bytes, encoding: str, label: str) -> Decoded:
    try:
        return data.decode(encoding), None
    except UnicodeDecodeError as exc:
        if label == "UTF-8":
            return None, _not_utf8(data, exc.start)
        return None, f"not valid {label} (byte {exc.start})"


def decode_python(data: bytes) -> Decoded:
    """Python source as the interpreter will run it (see the module docstring)."""
    wide = wide_bom(data)
    if wide:
        return None, f"{wide} text (byte order mark): {PYTHON_RULE}"
    if b"\x00" in data:
        return None, _binary(data, PYTHON_RULE)
    encoding, problem = python_encoding(data)
    if encoding is None:
        return None, problem
    return _decoded(data, encoding, "UTF-8" if encoding in _UTF8 else encoding)


def decode_yaml(data: bytes) -> Decoded:
    """YAML as PyYAML reads bytes: UTF-16 with a byte order mark, else UTF-8."""
    wide = wide_bom(data)
    if wide == "UTF-32":
        return None, "UTF-32 text (byte order mark): YAML is read as UTF-8 or UTF-16"
    if wide == "UTF-16":
        text, problem = _decoded(data, "utf-16", "UTF-16")
        if text is not None and "\x00" in text:
            return None, "binary file (contains NUL characters)"
        return text, problem
    return decode_utf8(data, YAML_RULE)


def decode_json(data: bytes) -> Decoded:
    """JSON: UTF-8 only (RFC 8259); a UTF-16 or UTF-32 file is named as such."""
    wide = wide_bom(data)
    if wide:
        return None, f"{wide} text (byte order mark): {JSON_RULE}"
    return decode_utf8(data, JSON_RULE)


def decode_utf8(data: bytes, rule: str = "the file must be UTF-8") -> Decoded:
    if b"\x00" in data:
        return None, _binary(data, rule)
    return _decoded(data, "utf-8-sig", "UTF-8")


def decode_for(name: str, data: bytes, *, python: bool) -> Decoded:
    """The text of the file ``name`` under its own format's rules (by suffix when not Python)."""
    if python:
        return decode_python(data)
    suffix = name.rpartition(".")[2].lower()
    if suffix in ("yaml", "yml"):
        return decode_yaml(data)
    return decode_json(data) if suffix == "json" else decode_utf8(data)


def source_bytes(text: str) -> bytes:
    """``text`` (decoded Python source) encoded so that CPython decodes it back to ``text``:
    in the encoding its own coding declaration names, else UTF-8. Raises ``UnicodeError``
    when that is impossible."""
    head = text.encode("utf-8", "surrogatepass")
    encoding, problem = python_encoding(head)
    if encoding is None:
        raise UnicodeError(problem)
    data = text.encode("utf-8" if encoding in _UTF8 else encoding)
    if data.decode(encoding) != text:
        raise UnicodeError(f"{encoding} does not round-trip this text")
    return data
