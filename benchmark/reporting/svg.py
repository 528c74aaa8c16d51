"""Geometry for the report's inline SVG charts: pure numbers and colours, no markup.

The templates turn these dicts into ``<svg>`` elements (escaped like everything else).
Sizes are in SVG user units; each chart carries its own ``width``/``height`` for the viewBox.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .common import num

STATE_COLOURS = {"pass": "#2e7d32", "fail": "#c62828", "error": "#6a1b9a", "partial": "#ef8f00"}
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


def meter(fraction: float, width: float = 160, height: float = 12) -> dict[str, Any]:
    """One horizontal progress bar (the leaderboard's)."""
    share = max(0.0, min(1.0, fraction))
    return {"width": width, "height": height, "fill": round(width * share, 2), "colour": heat_colour(share)}


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
            "tip": item.get("tip", item["text"]),
        })
    mark_x = label_width + bar_area * max(0.0, min(1.0, mark / top_value)) if mark is not None else None
    return {
        "width": label_width + bar_area + 90, "height": top + len(items) * row + 4,
        "label_width": label_width, "bar_area": bar_area, "bars": bars, "mark_x": mark_x,
    }


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
