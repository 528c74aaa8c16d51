"""benchmark.bigint: exact values of long decimal texts without lifting int()'s digit limit."""

from __future__ import annotations

import decimal
import random
import sys

import pytest

from benchmark import bigint


@pytest.mark.parametrize("length", [1, 639, 640, 4000, 4001, 4300, 4301, 8000, 8001, 12_345, 21_500])
@pytest.mark.parametrize("sign", ["", "+", "-"])
def test_signed_value_is_exact(length, sign):
    rng = random.Random(length)
    digits = str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(length - 1))
    assert bigint.signed_value(sign + digits) == int(decimal.Decimal(sign + digits))
    assert sys.get_int_max_str_digits() == 4300  # the process limit is left alone


def test_follows_a_lowered_limit_and_refuses_what_is_not_digits():
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        assert bigint.signed_value("7" * 5000) == int(decimal.Decimal("7" * 5000))
    finally:
        sys.set_int_max_str_digits(old)
    for bad in ("", "-", "+-5", "1" * 5000 + "x", "١" * 5000, "5" * 4400 + ".0", " " + "5" * 4400):
        with pytest.raises(ValueError):
            bigint.signed_value(bad)
    with pytest.raises(ValueError):
        bigint.signed_value("+" + "5" * 4400, signs="-")  # JSON has no plus sign
