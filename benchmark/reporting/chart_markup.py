"""The report's inline SVG charts as markup, built in Python from the geometry ``svg`` computes.

The heatmap alone has a cell per model and category, each with a dozen values; written as
Jinja2 macros, the charts were a fifth of the HTML report's time. These functions give the
text the macros gave (``tests/test_report_html.py`` renders the macros' source beside them):
every value escaped as autoescaping escapes it (:func:`escaped`), numbers written by ``str``.
``diverging`` (the comparison page's only chart) stays a macro in ``_charts.html.j2``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup, escape


def escaped(value: Any) -> str:
    """``markupsafe.escape(value)`` as a plain ``str``: the same five replacements (``&``
    first), without a ``Markup`` object per value; a plain ``int`` or ``float`` is its ``str()``
    (``escape`` gives the same); anything else goes through ``escape`` itself (``__html__``,
    ``str()``)."""
    if type(value) is str:
        return (value.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")
                .replace("'", "&#39;").replace('"', "&#34;"))
    if type(value) is int or type(value) is float:  # (their str() has nothing to escape)
        return str(value)
    return str(escape(value))


def meter(m: Mapping[str, Any]) -> Markup:
    """A leaderboard row's progress bar."""
    w, h = escaped(m["width"]), escaped(m["height"])
    whisker = ""
    if m.get("whisker"):  # the 95 % interval as an error bar: a line with an end cap at each end
        low, high = (escaped(end) for end in m["whisker"])
        middle, top, bottom = escaped(m["height"] / 2), escaped(1), escaped(m["height"] - 1)
        whisker = (f'<g class="whisker" stroke="#222" stroke-width="1.5">'
                   f'<line x1="{low}" y1="{middle}" x2="{high}" y2="{middle}"/>'
                   f'<line x1="{low}" y1="{top}" x2="{low}" y2="{bottom}"/>'
                   f'<line x1="{high}" y1="{top}" x2="{high}" y2="{bottom}"/></g>')
    return Markup(f'<svg class="meter" viewBox="0 0 {w} {h}" width="{w}" height="{h}" aria-hidden="true">'
                  f'<rect x="0" y="0" width="{w}" height="{h}" rx="3" fill="#eceef2"/>'
                  f'<rect x="0" y="0" width="{escaped(m["fill"])}" height="{h}" rx="3" '
                  f'fill="{escaped(m["colour"])}"/>{whisker}</svg>')


def heatmap(h: Mapping[str, Any]) -> Markup:
    """Models by category: a cell per pair, each with its tooltip; a row's label links to the
    model's drill-down."""
    w, ht = escaped(h["width"]), escaped(h["height"])
    parts = [f'<svg class="heatmap" viewBox="0 0 {w} {ht}" width="{w}" height="{ht}" role="img" '
             f'aria-label="Heatmap: share of points earned, model by category">\n']
    head_y = escaped(h["header"] - 12)
    parts += [f'<text class="head" x="{escaped(col["x"])}" y="{head_y}">{escaped(col["label"])}</text>\n'
              for col in h["columns"]]
    label_x = escaped(h["label_width"] - 10)
    hrefs = h.get("hrefs") or [f"#{anchor}" for anchor in h["anchors"]]  # (a model's page, past the inline limit)
    parts += [f'<a href="{escaped(href)}"><text class="label" x="{label_x}" y="{escaped(row["y"])}">'
              f'{escaped(row["label"])}</text></a>\n' for row, href in zip(h["rows"], hrefs)]
    for c in h["cells"]:
        empty = " empty" if c["text"] == "n/a" else ""
        parts.append(f'<g class="cell"><title>{escaped(c["tip"])}</title><rect x="{escaped(c["x"])}" '
                     f'y="{escaped(c["y"])}" width="{escaped(c["w"])}" height="{escaped(c["h"])}" rx="3" '
                     f'fill="{escaped(c["fill"])}"/><text class="cell{empty}" x="{escaped(c["x"] + c["w"] / 2)}" '
                     f'y="{escaped(c["y"] + c["h"] / 2)}">{escaped(c["text"])}</text></g>\n')
    parts.append("</svg>")
    return Markup("".join(parts))


def hbars(c: Mapping[str, Any]) -> Markup:
    """A prompt's scores, a bar per model, with the pass mark dashed when there is one."""
    w, ht, left, area = escaped(c["width"]), escaped(c["height"]), c["label_width"], c["bar_area"]
    label_x, value_x = escaped(left - 8), escaped(left + area + 6)
    parts = [f'<svg class="bars" viewBox="0 0 {w} {ht}" width="{w}" height="{ht}" role="img" '
             f'aria-label="Scores per model">\n']
    for b in c["bars"]:
        y, bh, middle = escaped(b["y"]), escaped(b["h"]), escaped(b["y"] + b["h"] / 2)
        parts.append(f'<g class="bar"><title>{escaped(b["tip"])}</title><text class="label" x="{label_x}" '
                     f'y="{middle}">{escaped(b["label"])}</text><rect x="{escaped(left)}" y="{y}" '
                     f'width="{escaped(area)}" height="{bh}" fill="{escaped(b["track"])}"/><rect x="{escaped(left)}" '
                     f'y="{y}" width="{escaped(b["w"])}" height="{bh}" fill="{escaped(b["colour"])}"/>'
                     f'<text class="value" x="{value_x}" y="{middle}">{escaped(b["text"])}</text>'
                     + (f'<text class="value note" x="{escaped(left + 6)}" y="{middle}">{escaped(b["note"])}</text>'
                        if b.get("note") else "") + '</g>\n')
    parts.append(_pass_mark(c["mark_x"], 2, c["height"] - 2) + "</svg>")
    return Markup("".join(parts))


def histogram(c: Mapping[str, Any], labels: Mapping[str, str]) -> Markup:
    """A prompt's score distribution: a bar per tenth of its points, stacked by state, each
    segment with its tooltip (``labels``: state -> words), the pass mark dashed."""
    w, ht, left, base = escaped(c["width"]), escaped(c["height"]), c["left"], c["base"]
    parts = [f'<svg class="histogram" viewBox="0 0 {w} {ht}" width="{w}" height="{ht}" role="img" '
             f'aria-label="Number of models per score band, by state">\n',
             f'<line x1="{escaped(left)}" y1="{escaped(base)}" x2="{escaped(c["left"] + c["plot_w"])}" y2="{escaped(base)}" '
             f'stroke="#333333" stroke-width="1"/>\n',
             f'<text class="axis" x="{escaped(left - 4)}" y="{escaped(c["top"])}">{escaped(c["peak"])}</text>\n']
    for s in c["segments"]:
        tip = f'{s["bin"]} of the points: {s["count"]} {labels.get(s["state"], s["state"])}'
        parts.append(f'<g class="seg st-{escaped(s["state"])}"><title>{escaped(tip)}</title><rect x="{escaped(s["x"])}" '
                     f'y="{escaped(s["y"])}" width="{escaped(s["w"])}" height="{escaped(s["h"])}" '
                     f'fill="{escaped(s["colour"])}"/></g>\n')
    parts += [f'<text class="count" x="{escaped(t["x"])}" y="{escaped(t["y"])}">{escaped(t["text"])}</text>\n'
              for t in c["totals"] if t["text"]]
    parts += [f'<text class="tick" x="{escaped(t["x"])}" y="{escaped(c["height"] - 6)}">{escaped(t["text"])}</text>\n'
              for t in c["ticks"]]
    parts.append(_pass_mark(c["mark_x"], c["top"] - 6, base) + "</svg>")
    return Markup("".join(parts))


def _pass_mark(x: Any, top: Any, bottom: Any) -> str:
    """The pass mark's dashed line at ``x`` from ``top`` to ``bottom`` ('' with no pass mark)."""
    if x is None:
        return ""
    mark = escaped(x)
    return (f'<line x1="{mark}" y1="{escaped(top)}" x2="{mark}" y2="{escaped(bottom)}" stroke="#333333" '
            f'stroke-width="1" stroke-dasharray="4 3"/>\n')
