"""Geometry for the report's inline SVG charts: pure numbers and colours, no markup.

The templates turn these dicts into ``<svg>`` elements (escaped like everything else).
Sizes are in SVG user units; each chart carries its own ``width``/``height`` for the viewBox.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .common import num

STATE_COLOURS = {"pass": "#2e7d32", "fail": "#c62828", "error": "#6a1b9a", "partial": "#ef8f00",
                 "not_attempted": "#6b7280", "timed_out": "#d84315", "pass-security": "#b36b00"}
# A bar's track: grey, but for a prompt that was not judged on its merits (it scores 0, so its
# bar has no length): the track itself takes the state's colour, pale, so the state is seen.
TRACKS = {"error": "#dcc6ea", "not_attempted": "#d5d8de", "timed_out": "#f6c9b8"}
TRACK_COLOUR = "#eceef2"
EMPTY_COLOUR = "#e6e6e6"


def pct_text(value: Any, digits: int = 1) -> str:
    """``91.5%``; never ``-0.0%``."""
    return f"{num(value) + 0.0:.{digits}f}%".replace("-0.0%", "0.0%")


def heat_colour(fraction: float | None) -> str:
    """Red (0) through amber to green (1); grey when there is nothing to score."""
    if fraction is None:
        return EMPTY_COLOUR
    share = max(0.0, min(1.0, fraction))
    hue = round(120 * share)
    light = 42 if 0.25 < share < 0.75 else 38
    return f"hsl({hue}, 62%, {light}%)"


def meter(fraction: float, width: float = 160, height: float = 12,
          interval: tuple[float, float] | None = None) -> dict[str, Any]:
    """One horizontal progress bar (the leaderboard's); ``interval``: the ends (fractions) of
    its error bar, drawn over it."""
    share = max(0.0, min(1.0, fraction))
    out = {"width": width, "height": height, "fill": round(width * share, 2), "colour": heat_colour(share)}
    if interval is not None:
        low, high = (max(0.0, min(1.0, end)) for end in interval)
        out["whisker"] = (round(width * low, 2), round(width * high, 2))
    return out


def heatmap(rows: Sequence[str], columns: Sequence[str],
            values: Sequence[Sequence[tuple[float | None, str]]],
            cell: tuple[float, float] = (104, 30), label_width: float = 170) -> dict[str, Any]:
    """A grid: ``values[r][c]`` is (fraction or None, tooltip). Cells carry text and colour."""
    cell_w, cell_h = cell
    header = 34
    cells = []
    for r, row in enumerate(values):
        for c, (fraction, tip) in enumerate(row):
            cells.append({
                "x": label_width + c * cell_w, "y": header + r * cell_h, "w": cell_w - 2, "h": cell_h - 2,
                "fill": heat_colour(fraction), "text": "n/a" if fraction is None else pct_text(100 * fraction, 0),
                "ink": "#333333" if fraction is None else "#ffffff", "tip": tip, "row": r,
            })
    return {
        "width": label_width + len(columns) * cell_w, "height": header + len(rows) * cell_h + 4,
        "rows": [{"label": name, "y": header + r * cell_h + cell_h / 2} for r, name in enumerate(rows)],
        "columns": [{"label": name, "x": label_width + c * cell_w + cell_w / 2} for c, name in enumerate(columns)],
        "cells": cells, "cell_w": cell_w, "cell_h": cell_h, "header": header, "label_width": label_width,
    }


def hbars(items: Sequence[dict[str, Any]], maximum: float, mark: float | None = None,
          bar_area: float = 300, label_width: float = 170, row: float = 22) -> dict[str, Any]:
    """Horizontal bars: ``items`` have label, value, state (pass/fail/error), text.

    ``mark`` draws a dashed line at that value (the pass mark)."""
    top = 6
    top_value = maximum if maximum > 0 else 1.0
    bars = []
    for i, item in enumerate(items):
        share = max(0.0, min(1.0, num(item.get("value")) / top_value))
        bars.append({
            "label": item["label"], "text": item["text"], "y": top + i * row, "h": row - 6,
            "w": round(bar_area * share, 2), "colour": STATE_COLOURS.get(item.get("state"), "#555555"),
            "tip": item.get("tip", item["text"]), "track": TRACKS.get(item.get("state"), TRACK_COLOUR),
            "note": item.get("note", ""),
        })
    mark_x = label_width + bar_area * max(0.0, min(1.0, mark / top_value)) if mark is not None else None
    return {
        "width": label_width + bar_area + 90, "height": top + len(items) * row + 4,
        "label_width": label_width, "bar_area": bar_area, "bars": bars, "mark_x": mark_x,
    }


RIGHT = 20  # room right of a histogram's plot for its "100%"


def histogram(values: Sequence[tuple[float, str]], states: Sequence[str], mark: float | None = None,
              bins: int = 10, width: float = 460, height: float = 150) -> dict[str, Any]:
    """How many models scored in each tenth of a prompt's points, each bin's bar stacked by
    state (``states``, bottom first): ``values`` are (score / maximum, state); ``mark`` the pass
    mark as a fraction, drawn dashed."""
    left, top, bottom = 40.0, 16.0, 22.0
    plot_w, plot_h = width - left - RIGHT, height - top - bottom
    counts = [{state: 0 for state in states} for _ in range(bins)]
    for fraction, state in values:
        counts[min(bins - 1, max(0, int(num(fraction) * bins)))][state if state in states else states[-1]] += 1
    peak = max([sum(c.values()) for c in counts] + [1])
    slot = plot_w / bins
    segments, totals = [], []
    for b, count in enumerate(counts):
        x, base = left + b * slot + 1, top + plot_h
        span = f"{100 * b // bins}–{100 * (b + 1) // bins}%"
        for state in states:
            if count[state]:
                h = round(plot_h * count[state] / peak, 2)
                base -= h
                segments.append({"x": round(x, 2), "y": round(base, 2), "w": round(slot - 2, 2), "h": h,
                                 "colour": STATE_COLOURS.get(state, "#555555"), "state": state,
                                 "count": count[state], "bin": span})
        total = sum(count.values())
        totals.append({"x": round(x + (slot - 2) / 2, 2), "y": round(base - 4, 2), "text": str(total) if total else ""})
    ticks = [{"x": round(left + plot_w * t / 100, 2), "text": f"{t}%"} for t in (0, 50, 100)]
    mark_x = round(left + plot_w * max(0.0, min(1.0, mark)), 2) if mark is not None else None
    return {"width": width, "height": height, "left": left, "top": top, "base": top + plot_h, "peak": peak,
            "plot_w": plot_w,
            "segments": segments, "totals": totals, "ticks": ticks, "mark_x": mark_x, "models": len(values)}


def diverging(items: Sequence[dict[str, Any]], span: float, half: float = 200,
              label_width: float = 170, row: float = 22) -> dict[str, Any]:
    """Bars left (red, negative) or right (green, positive) of a zero line: score deltas."""
    top = 6
    limit = span if span > 0 else 1.0
    zero = label_width + half
    bars = []
    for i, item in enumerate(items):
        value = num(item.get("value"))
        length = round(half * min(1.0, abs(value) / limit), 2)
        bars.append({
            "label": item["label"], "text": item["text"], "y": top + i * row, "h": row - 6,
            "x": zero - length if value < 0 else zero, "w": length,
            "colour": STATE_COLOURS["fail"] if value < 0 else STATE_COLOURS["pass"],
        })
    return {"width": zero + half + 80, "height": top + len(items) * row + 4, "zero": zero,
            "half": half, "bars": bars, "label_width": label_width}
