"""Strict JSON for the harness (runs INSIDE the child): exact built-in types only, so nothing
a submission defines can cross. ``_encode`` writes a value, ``_decode`` reads a line back,
ints past Python's int-to-str digit limit included; ``_plain`` is a checked plain copy.

Everything used here is bound when the harness loads, before any submission code runs (the
zygote loads it once; see ``loader.py``): a submission that later patches ``json``,
``_json``, ``float.__repr__`` or a builtin reaches none of it.
"""

import json
import sys

from _json import encode_basestring_ascii as _quote
from _json import make_encoder as _make_encoder

_loads = json.loads
_float_repr, _int_repr = float.__repr__, int.__repr__
_type, _len, _sorted, _int, _range = type, len, sorted, int, range
_get_digits, _set_digits = sys.get_int_max_str_digits, sys.set_int_max_str_digits
# int.__repr__ refuses ints longer than sys.get_int_max_str_digits() (4300 digits); longer ones
# (a 5,000-digit id converted as a contract says) are written 1000 digits at a time, up to
# about 21,000 digits (the parent reads as many: sandbox.result_record.MAX_INT_DIGITS)
_INT_CHUNK_DIGITS = 1000
_INT_CHUNK = 10 ** _INT_CHUNK_DIGITS
MAX_INT_BITS = 70_000
MAX_DEPTH = 200
FAST_NODES = 200_000  # past this the checked encoder writes it (the C one keeps a str per token)
FAST_INT_BITS = 14_000  # ints the C encoder may print: below the default 4300-digit limit
_INF, _NINF, _Error = float("inf"), float("-inf"), Exception


def _refuse(value):
    raise TypeError("not plain JSON")


# The C encoder of the json module (captured here, as _quote is: nothing a submission
# patches reaches it), with the checked encoder's format: sorted keys, no spaces, ASCII.
_c_encode = _make_encoder(None, _refuse, _quote, None, ":", ",", True, False, False)


def _encode(value, depth=0):
    """``value`` as strict JSON text (see ``_encode_checked``; ``depth``: the level it will
    stand at in the record). Plain values, the usual case, are first walked level by level
    (exact built-in types, str keys, finite floats, ints of at most MAX_INT_BITS, depth and
    size bounded) and then written by the C encoder: the same text, about 2.5 times faster.
    Anything else, and any error, goes to the checked encoder, which gives the text, or the
    error, it always gave."""
    text = _fast_encode(value, depth)
    return _encode_checked(value, depth) if text is None else text


def _fast_encode(value, depth=0):
    """The text of a value that is plain JSON throughout, or None (let the checked encoder
    decide). Breadth first, so no recursion; a cycle ends at the depth limit. Ints past the
    int-to-str digit limit are printed by the C encoder with the limit lifted for the call
    (the digits are the checked encoder's), unless the limit was lowered below the checked
    encoder's chunk (then that encoder decides, as it always did)."""
    level, seen, long_ints = [value], 0, False
    while level:
        seen += _len(level)
        if depth > MAX_DEPTH or seen > FAST_NODES:
            return None
        below = []
        for item in level:
            kind = _type(item)
            if kind is str or kind is bool or item is None:
                continue
            if kind is int:
                bits = item.bit_length()
                if bits > FAST_INT_BITS:
                    if bits > MAX_INT_BITS:
                        return None
                    long_ints = True
            elif kind is float:
                if item != item or item == _INF or item == _NINF:
                    return None
            elif kind is dict:
                for key in item:
                    if _type(key) is not str:
                        return None
                below.extend(item.values())
            elif kind is list or kind is tuple:
                below.extend(item)
            else:
                return None
        level, depth = below, depth + 1
    if long_ints:
        return _c_encode_long(value)
    try:
        return "".join(_c_encode(value, 0))
    except _Error:  # e.g. a lowered int-to-str digit limit: the checked encoder chunks
        return None


def _c_encode_long(value):
    """The C encoder's text of a plain value holding ints past the digit limit (each of at
    most MAX_INT_BITS), the limit lifted for the call and put back; None where the checked
    encoder must decide (a limit lowered below its chunk, any error)."""
    try:
        limit = _get_digits()
        if limit and limit < _INT_CHUNK_DIGITS:
            return None
        _set_digits(0)
        try:
            return "".join(_c_encode(value, 0))
        finally:
            _set_digits(limit)
    except _Error:
        return None


def _encode_checked(value, depth=0):
    """Exact built-in types only (no subclass), str keys, finite floats, ints of any length
    up to MAX_INT_BITS, at most MAX_DEPTH levels; keys sorted; raises TypeError otherwise."""
    kind = _type(value)
    if depth > MAX_DEPTH:
        raise TypeError("nesting too deep")
    if value is None or value is True or value is False:
        return "null" if value is None else ("true" if value else "false")
    if kind is str:
        return _quote(value)
    if kind is int:
        return _int_text(value)
    if kind is float:
        if value != value or value in (float("inf"), float("-inf")):
            raise TypeError("non-finite float")
        return _float_repr(value)
    if kind is list or kind is tuple:
        return "[" + ",".join(_encode_checked(v, depth + 1) for v in value) + "]"
    if kind is dict:
        if any(_type(k) is not str for k in value):
            raise TypeError("non-string key")
        items = [_quote(k) + ":" + _encode_checked(value[k], depth + 1) for k in _sorted(value)]
        return "{" + ",".join(items) + "}"
    raise TypeError(f"{kind.__name__} is not plain JSON")


def _int_text(value):
    """The decimal text of an exact int, also past Python's digit limit; only operators and
    methods of the built-in types, which a submission cannot replace."""
    try:
        return _int_repr(value)
    except ValueError:  # longer than the int-to-str digit limit
        pass
    if value.bit_length() > MAX_INT_BITS:
        raise TypeError(f"int of {value.bit_length()} bits is too long to report")
    sign, value, chunks = ("-" if value < 0 else ""), abs(value), []
    while value:
        chunks.append(value % _INT_CHUNK)
        value = value // _INT_CHUNK
    head, rest = chunks[-1], chunks[-2::-1]
    return sign + _int_repr(head) + "".join(_int_repr(c).rjust(_INT_CHUNK_DIGITS, "0") for c in rest)


MAX_INT_DIGITS = 21_100  # MAX_INT_BITS in digits (and under the parent's 21,500)


def _long_int(text):
    """A JSON integer's text as an int, 1000 digits at a time past ``int()``'s digit limit;
    one longer than MAX_INT_DIGITS (an int no record carries: reading it is quadratic) is
    refused (ValueError)."""
    if _len(text) <= _INT_CHUNK_DIGITS:
        return _int(text)
    if _len(text) > MAX_INT_DIGITS + 1:
        raise ValueError(f"a JSON integer of {_len(text)} characters")
    sign, digits = (-1, text[1:]) if text[0] == "-" else (1, text)
    value = 0
    for start in _range(0, _len(digits), _INT_CHUNK_DIGITS):
        chunk = digits[start:start + _INT_CHUNK_DIGITS]
        value = value * 10 ** _len(chunk) + _int(chunk)
    return sign * value


def _decode(text):
    """``json.loads``, with integers past the digit limit read by ``_long_int``."""
    try:
        return _loads(text)
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            raise
    return _loads(text, parse_int=_long_int)


def _plain(value):
    """(a plain copy of value, None) or (None, why it is not plain JSON)."""
    try:
        return _decode(_encode(value)), None
    except (TypeError, ValueError, RecursionError) as exc:
        return None, f"{_type(value).__name__}: {exc}"


def _decoded_text(value):
    """``_encode`` of a value just decoded from the request: the decoder makes only exact
    built-in types with str keys and ints the C encoder prints, so the C encoder writes it
    without the type walk; a non-finite float or any other refusal goes to ``_encode``."""
    try:
        return "".join(_c_encode(value, 0))
    except _Error:
        return _encode(value)
