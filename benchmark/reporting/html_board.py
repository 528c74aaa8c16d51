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
from ..scoring import pack_of
from . import chart_markup
from .chart_markup import escaped as _h
from .common import CATEGORY_NAMES, STATE_LABELS, STATES, fixed, maximum
from .html_prompt import denial_badge, state_of
from .svg import hbars, heatmap, histogram, meter, pct_text
from .view import Denial, Model, Prompt, Run

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


def prompt_state(prompt: Prompt) -> str:
    """The state, or ``pass-security`` for a pass with a security check not fully passed."""
    return state_of(prompt)[0]


def bars(models: int) -> bool:
    """Whether the per-prompt charts of a run of ``models`` models are bars (else histograms)."""
    return models <= BAR_MODELS


def _state_pills(counts: Mapping[str, int]) -> str:
    words = {"fail": "failed", "error": "not graded", "not_attempted": "not attempted", "timed_out": "timed out",
             "pass-security": "pass · security"}
    return " ".join(f'<span class="pill st-{state}" title="{_h(STATE_WORDS[state])}">{counts[state]} {words[state]}</span>'
                    for state in words if counts.get(state))


def board_row(index: int, model: Model, rank: int, href: str) -> dict[str, Any]:
    """One leaderboard row, from the model's view alone (no drill-down is built for it)."""
    counts = {state: 0 for state in (*STATES, "pass-security")}
    denials: list[Denial] = []  # (each where its prompt's key leads: the badge's tooltip names it)
    for prompt in model.prompts:
        counts[prompt_state(prompt)] += 1
        denials += [d._replace(where=f"{prompt.key}: {d.where or '?'}") for d in prompt.denials]
    passed = counts["pass"] + counts["pass-security"]
    states = [s for s, n in counts.items() if n] + (["denied"] if denials else [])
    if passed == len(model.prompts) and not counts["pass-security"] and not denials:
        states.append("clean")
    pct = model.percentage
    ci = model.interval
    return {"index": index, "rank": rank, "name": model.name, "key": model.name.lower(), "href": href,
            "samples": model.sample_count, "ci": ci.text() if ci else "", "ci_v": fixed(ci.low, 4) if ci else "",
            "ci_tip": f"95 % interval of the total: {ci.text(2)} %" if ci else "",
            "tier": model.tier, "cached": model.cached,
            "score": fixed(model.score, 2), "score_v": fixed(model.score, 4),
            "total": maximum(model.max_score), "pct": pct_text(pct, 2), "pct_v": fixed(pct, 4),
            "grade": model.grade, "badge": model.badge, "passed": passed,
            "prompts": len(model.prompts), "meter": chart_markup.meter(meter(pct / 100.0, interval=(ci.low / 100.0, ci.high / 100.0) if ci else None)),
            "states": " ".join(states), "trouble": len(model.prompts) - counts["pass"],
            "pills": Markup(_state_pills(counts)), "denied": Markup(denial_badge(denials)),
            "denials": len(denials)}


def board(ranked: Sequence[tuple[int, Model]], hrefs: Sequence[str]) -> dict[str, Any]:
    """The leaderboard: a row per (rank, model), best first, each linking to ``hrefs``'s; the
    rank counts only significant differences (``Run.groups``)."""
    rows = [board_row(i, model, rank, href) for i, ((rank, model), href) in enumerate(zip(ranked, hrefs))]
    return {"rows": rows, "tiers": sorted({row["tier"] for row in rows}), "filters": FILTERS, "page": BOARD_PAGE,
            "intervals": any(row["ci"] for row in rows),
            "denied": any(row["denials"] for row in rows)}  # (the Sandbox column only when it has something)


def heatmap_chart(models: Sequence[Model], hrefs: Sequence[str]) -> dict[str, Any]:
    """The model x category heatmap of the first ``HEATMAP_MODELS`` models, and how many it leaves out."""
    shown = models[:HEATMAP_MODELS]
    values = []
    for model in shown:
        row = []
        for cat in CATEGORY_NAMES:
            earned, possible = model.category_totals[cat]
            row.append((earned / possible if possible > 0 else None,
                        f"{model.name} · {cat}: {fixed(earned, 2)}/{fixed(possible, 1)}"))
        row.append((model.percentage / 100.0, f"{model.name} · overall: {pct_text(model.percentage, 2)}"))
        values.append(row)
    chart = heatmap([short(model.name) for model in shown], [*CATEGORY_NAMES, "overall"], values)
    chart["anchors"] = [f"m{i}" for i in range(len(shown))]
    chart["hrefs"] = list(hrefs[: len(shown)])
    return {"svg": chart_markup.heatmap(chart), "shown": len(shown), "left_out": len(models) - len(shown)}


def _prompt_items(entries: Sequence[tuple[Model, Prompt]]) -> tuple[list[dict[str, Any]], str, float]:
    """One task's chart items, a model each (best first), its title and its largest maximum."""
    items, title, top = [], "", 0.0
    for model, prompt in entries:
        title = prompt.title or prompt.key
        top = max(top, prompt.max_score)
        state = prompt_state(prompt)
        text = f"{fixed(prompt.score, 2)}/{maximum(prompt.max_score)}"
        items.append({"label": short(model.name), "value": prompt.score, "state": state, "text": text,
                      "note": STATE_LABELS[state] if state in ("error", "not_attempted", "timed_out") else "",
                      "tip": f"{model.name}: {text} ({STATE_WORDS[state]})"})
    return items, title, top


def prompt_charts(run: Run) -> list[dict[str, Any]]:
    """Per task: a bar per model, or past ``BAR_MODELS`` models a histogram by state."""
    performance = run.comparison["prompt_performance"]  # (a task no model attempted has no figures)
    by_task: dict[str, list[tuple[Model, Prompt]]] = {key: [] for key in run.task_keys}
    for model in run.models:
        for prompt in model.prompts:
            by_task[prompt.key].append((model, prompt))
    many = not bars(len(run.models))
    charts = []
    for key, entries in by_task.items():
        items, title, top = _prompt_items(entries)
        core = pack_of(key) == CORE_PACK  # (a pack sets its own pass mark: not drawn)
        if many:
            values = [(item["value"] / top if top > 0 else 0.0, item["state"]) for item in items]
            chart = chart_markup.histogram(histogram(values, [*STATES, "pass-security"],
                                                     PASS_FRACTION if core else None), STATE_WORDS)
        else:
            chart = chart_markup.hbars(hbars(items, top, PASS_FRACTION * top if core else None))
        stats = performance.get(key)
        counts = {state: sum(1 for item in items if item["state"] == state) for state in (*STATES, "pass-security")}
        charts.append({"pid": key, "title": title, "chart": chart, "models": len(items),
                       "counts": [(state, counts[state], STATE_WORDS[state]) for state in counts if counts[state]],
                       "pass_rate": pct_text(stats["pass_rate"], 0) if stats else None,
                       "avg": fixed(stats["avg_score"], 2) if stats else None})
    return charts
