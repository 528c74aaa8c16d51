"""Stored numbers, letter grades and badges: what every part of scoring shares.

Stored floats are rounded to ``DIGITS`` decimals (``_r``) so results files stay byte-stable
between runs; a number read from untrusted dict data goes through ``as_number``.
``benchmark.scoring`` re-exports every public name here.
"""

from __future__ import annotations

import math
from typing import Any

DIGITS = 4
EPS = 1e-9

# (minimum percentage, grade), highest first; anything below the last row is "F".
GRADE_THRESHOLDS: tuple[tuple[float, str], ...] = (
    (97.0, "A+"),
    (93.0, "A"),
    (90.0, "A-"),
    (87.0, "B+"),
    (83.0, "B"),
    (80.0, "B-"),
    (77.0, "C+"),
    (73.0, "C"),
    (70.0, "C-"),
    (60.0, "D"),
)
FAIL_GRADE = "F"
GRADES: tuple[str, ...] = tuple(g for _, g in GRADE_THRESHOLDS) + (FAIL_GRADE,)

# (minimum percentage, badge), highest first; anything below the last row gets DEFAULT_BADGE.
BADGE_THRESHOLDS: tuple[tuple[float, str], ...] = (
    (90.0, "Gold"),
    (80.0, "Silver"),
    (70.0, "Bronze"),
)
DEFAULT_BADGE = "Participant"
BADGES: tuple[str, ...] = tuple(b for _, b in BADGE_THRESHOLDS) + (DEFAULT_BADGE,)


def _r(value: float) -> float:
    """Round for storage; ``+ 0.0`` turns -0.0 into 0.0."""
    return round(float(value), DIGITS) + 0.0


def as_number(value: Any) -> float:
    """A finite number from untrusted dict data, else 0.0 (bools are not numbers here)."""
    if type(value) is float:  # (most calls, from the reports: ~20,000 a run of 50 models)
        return value if math.isfinite(value) else 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    return float(value) if math.isfinite(value) else 0.0


def _first_reached(table: tuple[tuple[float, str], ...], percentage: float, below: str) -> str:
    """The label of the first (highest) row whose minimum the percentage reaches."""
    pct = as_number(percentage)
    return next((label for minimum, label in table if pct >= minimum - EPS), below)


def get_grade(percentage: float) -> str:
    """Letter grade for a percentage (a score out of 100); see ``GRADE_THRESHOLDS``."""
    return _first_reached(GRADE_THRESHOLDS, percentage, FAIL_GRADE)


calculate_grade = get_grade


def generate_badge(percentage: float) -> str:
    """Plain-text badge for a percentage; see ``BADGE_THRESHOLDS``."""
    return _first_reached(BADGE_THRESHOLDS, percentage, DEFAULT_BADGE)
