"""report.html's views of the whole field: the leaderboard's rows, the category heatmap and
the per-prompt charts, built so the page stays readable and fast from 1 model to thousands.

- Leaderboard: one row per model, with its prompts' states counted (failed, could not be
  graded, not attempted, timed out, passed with a security check not fully passed) and a badge
  when the sandbox denied it something. Each row carries ``data-`` attributes (name, tier,
  states) and each cell a sort value (``data-v``) for the page's one script
  (``templates/leaderboard.js``: search, sort, filter); without it, the table reads as it is.
- Heatmap: every model up to ``HEATMAP_MODELS``; past that the first ``HEATMAP_MODELS`` (a
  model's own categories are on its drill-down).
- Per-prompt charts: a bar per model up to ``BAR_MODELS`` (a bar of a prompt that scored
  nothing because it was not judged shows its state in its track); past that a histogram per
  prompt (models per tenth of the points, stacked by state, with the pass mark), since
  hundreds of 16-px bars are neither readable nor cheap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from ..packs.model import CORE_PACK
from ..rubric import PASS_FRACTION
from ..scoring import category_totals, pack_of, prompt_sort_key
from . import chart_markup
from .chart_markup import escaped as _h
from .common import CATEGORY_NAMES, STATE_LABELS, STATES, denials_of, fixed, maximum, num, prompts_of
from .html_prompt import denial_badge, state_of
from .svg import hbars, heatmap, histogram, meter, pct_text

BOARD_PAGE = 100  # with the script, the leaderboard lists this many matching rows until "show all"
BAR_MODELS = 40  # per-prompt charts: a bar per model up to this many models, else a histogram
HEATMAP_MODELS = 50  # heatmap rows shown at most
LABEL_CHARS = 24
STATE_WORDS = {**STATE_LABELS, "pass-security": "passed, security checks not fully passed"}
FILTERS = [("fail", "with a failed prompt"), ("error", "with a prompt that could not be graded"),
           ("not_attempted", "with a prompt not attempted"), ("timed_out", "with a prompt that timed out"),
           ("pass-security", "with a pass not clean on security"), ("denied", "denied by the sandbox"),
           ("clean", "every prompt passed cleanly")]


def short(text: Any, limit: int = LABEL_CHARS) -> str:
    """A chart label: long names end with an ellipsis (the full name is in the tooltip)."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def prompt_state(prompt: Mapping[str, Any]) -> str:
    """The verdict, or ``pass-security`` for a pass with a security check not fully passed."""
    return state_of(prompt)[0]


def bars(models: int) -> bool:
    """Whether the per-prompt charts of a run of ``models`` models are bars (else histograms)."""
    return models <= BAR_MODELS


def _state_pills(counts: Mapping[str, int]) -> str:
    words = {"fail": "failed", "error": "not graded", "not_attempted": "not attempted", "timed_out": "timed out",
             "pass-security": "pass · security"}
    return " ".join(f'<span class="pill st-{state}" title="{_h(STATE_WORDS[state])}">{counts[state]} {words[state]}</span>'
                    for state in words if counts.get(state))


def board_row(index: int, name: str, model: Mapping[str, Any], rank: int, href: str) -> dict[str, Any]:
    """One leaderboard row, from the model's record alone (no drill-down is built for it)."""
    prompts = prompts_of(model)
    counts = {state: 0 for state in (*STATES, "pass-security")}
    denials: list[Mapping[str, Any]] = []
    for pid, prompt in prompts:
        counts[prompt_state(prompt)] += 1
        denials += [{**d, "where": f"{pid}: {d.get('where') or '?'}"} for d in denials_of(prompt)]
    passed = counts["pass"] + counts["pass-security"]
    states = [s for s, n in counts.items() if n] + (["denied"] if denials else [])
    if passed == len(prompts) and not counts["pass-security"] and not denials:
        states.append("clean")
    pct = num(model.get("percentage"))
    return {"index": index, "rank": rank, "name": name, "key": name.lower(), "href": href,
            "tier": str(model.get("tier", "?")), "cached": model.get("cached") is True,
            "score": fixed(model.get("overall_score"), 2), "score_v": fixed(model.get("overall_score"), 4),
            "total": maximum(model.get("total_possible")), "pct": pct_text(pct, 2), "pct_v": fixed(pct, 4),
            "grade": model.get("grade", "?"), "badge": model.get("badge", "?"), "passed": passed,
            "prompts": len(prompts), "meter": chart_markup.meter(meter(pct / 100.0)),
            "states": " ".join(states), "trouble": len(prompts) - counts["pass"],
            "pills": Markup(_state_pills(counts)), "denied": Markup(denial_badge(denials)),
            "denials": len(denials)}


def board(ranked: Sequence[tuple[str, Mapping[str, Any]]], ranks: Sequence[int], hrefs: Sequence[str]) -> dict[str, Any]:
    rows = [board_row(i, name, model, rank, href)
            for i, ((name, model), rank, href) in enumerate(zip(ranked, ranks, hrefs))]
    return {"rows": rows, "tiers": sorted({row["tier"] for row in rows}), "filters": FILTERS, "page": BOARD_PAGE,
            "denied": any(row["denials"] for row in rows)}  # (the Sandbox column only when it has something)


def heatmap_chart(ranked: Sequence[tuple[str, Mapping[str, Any]]], hrefs: Sequence[str]) -> dict[str, Any]:
    """The model x category heatmap of the first ``HEATMAP_MODELS`` models, and how many it leaves out."""
    shown = list(ranked[:HEATMAP_MODELS])
    values = []
    for name, model in shown:
        totals = category_totals(model)
        row = []
        for cat in CATEGORY_NAMES:
            earned, possible = totals[cat]["earned"], totals[cat]["max"]
            row.append((earned / possible if possible > 0 else None,
                        f"{name} · {cat}: {fixed(earned, 2)}/{fixed(possible, 1)}"))
        pct = num(model.get("percentage"))
        row.append((pct / 100.0, f"{name} · overall: {pct_text(pct, 2)}"))
        values.append(row)
    chart = heatmap([short(name) for name, _ in shown], [*CATEGORY_NAMES, "overall"], values)
    chart["anchors"] = [f"m{i}" for i in range(len(shown))]
    chart["hrefs"] = list(hrefs[: len(shown)])
    return {"svg": chart_markup.heatmap(chart), "shown": len(shown), "left_out": len(ranked) - len(shown)}


def _prompt_items(ranked: Sequence[tuple[str, Mapping[str, Any]]], pid: str) -> tuple[list[dict[str, Any]], str, float]:
    items, title, top = [], pid, 0.0
    for name, model in ranked:
        prompts = model.get("prompts")
        prompt = prompts.get(pid) if isinstance(prompts, Mapping) else None
        if not isinstance(prompt, Mapping) or not prompt:
            continue
        title = str(prompt.get("title") or pid)
        top = max(top, num(prompt.get("max_score")))
        state = prompt_state(prompt)
        text = f"{fixed(prompt.get('score'), 2)}/{maximum(prompt.get('max_score'))}"
        items.append({"label": short(name), "value": num(prompt.get("score")), "state": state, "text": text,
                      "note": STATE_LABELS[state] if state in ("error", "not_attempted", "timed_out") else "",
                      "tip": f"{name}: {text} ({STATE_WORDS[state]})"})
    return items, title, top


def prompt_charts(doc: Mapping[str, Any], ranked: Sequence[tuple[str, Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Per prompt: a bar per model, or past ``BAR_MODELS`` models a histogram by state."""
    comparison = doc.get("comparison") if isinstance(doc.get("comparison"), Mapping) else {}
    performance = comparison.get("prompt_performance") if isinstance(comparison.get("prompt_performance"), Mapping) else {}
    prompt_ids = sorted({pid for _, m in ranked for pid, _ in prompts_of(m)}, key=prompt_sort_key)
    many = not bars(len(ranked))
    charts = []
    for pid in prompt_ids:
        items, title, top = _prompt_items(ranked, pid)
        core = pack_of(pid) == CORE_PACK  # (a pack sets its own pass mark: not drawn)
        if many:
            values = [(item["value"] / top if top > 0 else 0.0, item["state"]) for item in items]
            chart = chart_markup.histogram(histogram(values, [*STATES, "pass-security"],
                                                     PASS_FRACTION if core else None), STATE_WORDS)
        else:
            chart = chart_markup.hbars(hbars(items, top, PASS_FRACTION * top if core else None))
        stats = performance.get(pid) if isinstance(performance.get(pid), Mapping) else None
        counts = {state: sum(1 for item in items if item["state"] == state) for state in (*STATES, "pass-security")}
        charts.append({"pid": pid, "title": title, "chart": chart, "models": len(items),
                       "counts": [(state, counts[state], STATE_WORDS[state]) for state in counts if counts[state]],
                       "pass_rate": pct_text(stats.get("pass_rate"), 0) if stats else None,
                       "avg": fixed(stats.get("avg_score"), 2) if stats else None})
    return charts
