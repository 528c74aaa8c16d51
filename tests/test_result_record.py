"""The parent's reader of the harness's result record (``benchmark.sandbox.result_record``):
long JSON integers read exactly up to the cap; the record's own checks run end to end through
``SecureRunner`` in ``test_secure_runner.py``."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("digits", [1, 4299, 4300, 4301, 8001, 12_345, 21_499])
def test_json_int_reads_every_length_up_to_the_cap_exactly(digits):
    """The parent's reader of long JSON integers agrees with ``decimal`` (exact, no limit)
    at and around every piece boundary, for both signs and for leading nines and ones."""
    import decimal
    import random

    from benchmark.sandbox.result_record import _json_int, _load_record

    rng = random.Random(digits)
    for text in ("9" * digits, "1" + "0" * (digits - 1),
                 str(rng.randrange(1, 10)) + "".join(rng.choice("0123456789") for _ in range(digits - 1))):
        for signed in (text, "-" + text):
            assert _json_int(signed) == int(decimal.Decimal(signed))
    assert _load_record('{"v": [%s, -%s, 3]}' % ("7" * digits, "7" * digits)) == \
        {"v": [int(decimal.Decimal("7" * digits)), -int(decimal.Decimal("7" * digits)), 3]}


def test_json_int_refuses_past_the_cap_and_non_digits():
    from benchmark.sandbox.result_record import MAX_INT_DIGITS, _json_int

    with pytest.raises(ValueError, match="characters"):
        _json_int("1" * (MAX_INT_DIGITS + 1))
    for bad in ("1" * 4400 + "x", "-" * 4401, "\u0661" * 4400):
        with pytest.raises(ValueError):
            _json_int(bad)


def test_json_int_follows_a_lowered_process_digit_limit():
    import decimal
    import sys

    from benchmark.sandbox.result_record import _json_int

    saved = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        assert _json_int("8" * 5000) == int(decimal.Decimal("8" * 5000))
    finally:
        sys.set_int_max_str_digits(saved)
