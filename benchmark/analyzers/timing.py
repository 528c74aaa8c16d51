"""Measured performance, judged in the parent: an answer's CPU cost on scaled inputs against the
reference solution's, measured the same way in the same run, as ratios (never absolute times,
so a score does not depend on the machine).

A *cost* is CPU seconds from the kernel, every thread of the process counted: per call
(``getrusage(RUSAGE_SELF)`` around the call, in the child) or per script run (around the whole
script, its imports included). Two ratios are scored, each full up to its FULL bound, nothing from
its ZERO bound, log-linear between:

- cost: the answer's cost on the larger input over the reference's (full up to 2x, none from
  10x);
- growth: the answer's cost on the larger input over its cost on the smaller, over the same
  ratio of the reference (full up to 2x, none from 4x: prompt 3's inputs are 4x apart, where
  quadratic work grows 4x more than linear work).

Each is quantised to quarters and the check earns their mean; a prompt timed at one scale only
(prompt 1: one extra run) earns the cost ratio's credit alone (``judge_cost``). CPU timings vary by a few percent
between runs; the bands are wide, so an answer near the reference's cost always earns full
credit and one far from it none, and only an answer sitting on a quarter's edge can move by one
step between runs. The rationale is built from the quantised values only, so it is as stable as
the score.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

SCALES = (4, 16)  # the scaled inputs: this many times the prompt's base record count
MIN_COST_S = 0.0005  # a cost below this counts as this (half a millisecond: below it, jitter)
COST_FULL, COST_ZERO = 2.0, 10.0
GROWTH_FULL, GROWTH_ZERO = 2.0, 4.0  # generous: a small first call varies most
STEP = 0.25
MAX_SECONDS = 1e9  # the harness caps a recorded sleep total here


def seconds(value: Any) -> float | None:
    """A duration the child reported (a call's ``cpu_s``, a ``sleep_total``): an int or finite
    float from 0 to MAX_SECONDS, as a float; anything else (a bool, a string, NaN) is None."""
    if type(value) not in (int, float) or not 0 <= value <= MAX_SECONDS:
        return None
    return float(value)


def band(ratio: float, full: float, zero: float) -> float:
    """1 up to ``full``, 0 from ``zero``, log-linear between: band(2, 2, 10) == 1,
    band(10, 2, 10) == 0, band(2 * 5 ** 0.5, 2, 10) == 0.5."""
    if ratio <= full:
        return 1.0
    if ratio >= zero:
        return 0.0
    return 1.0 - math.log(ratio / full) / math.log(zero / full)


def quantised(fraction: float) -> float:
    """The nearest quarter: 0.6 -> 0.5, 0.63 -> 0.75."""
    return round(fraction / STEP) * STEP


def _about(credit: float, full: float, zero: float) -> str:
    """The ratio a quantised credit stands for, in words (the inverse of ``band``)."""
    if credit >= 1.0:
        return f"within {full:g}x"
    if credit <= 0.0:
        return f"about {zero:g}x or more"
    return f"about {full * (zero / full) ** (1.0 - credit):.1f}x"


def judge(model: Sequence[float], reference: Sequence[float],
          names: Sequence[str] | None = None) -> tuple[float, str]:
    """(fraction, rationale) for an answer's (small, large) costs against the reference's on
    the same inputs; ``names`` say what the two inputs are (default: 4x and 16x the records)."""
    mine = [max(value, MIN_COST_S) for value in model]
    gold = [max(value, MIN_COST_S) for value in reference]
    cost = quantised(band(mine[1] / gold[1], COST_FULL, COST_ZERO))
    growth_ratio = (mine[1] / mine[0]) / (gold[1] / gold[0])
    growth = quantised(band(growth_ratio, GROWTH_FULL, GROWTH_ZERO))
    small, large = names or ("4x the records", "16x the records")
    rationale = (f"CPU time on {large}: {_about(cost, COST_FULL, COST_ZERO)} the reference's; "
                 f"growth from {small} to {large}: {_about(growth, GROWTH_FULL, GROWTH_ZERO)} "
                 f"the reference's")
    return (cost + growth) / 2, rationale


def judge_cost(model: float, reference: float, scale: int = SCALES[-1]) -> tuple[float, str]:
    """(fraction, rationale) from the cost ratio alone, for a prompt timed at one scale (its
    fixture-sized runs carry too little work to measure growth from)."""
    cost = quantised(band(max(model, MIN_COST_S) / max(reference, MIN_COST_S), COST_FULL, COST_ZERO))
    return cost, f"CPU time on {scale}x the records: {_about(cost, COST_FULL, COST_ZERO)} the reference's"
