"""The lost points the terminal lists under the model x task table: per model (best first)
and prompt, what cost points (``view.Prompt.losses``: checks, and the category gates with
their formula, on one line per prompt), what the sandbox denied and what a run raised.

Repeats are folded, so a run of many alike models stays short: checks of one prompt with
the same reason are one line (``-25.00 26 checks (valid_syntax, yaml_import, … 23 more)
(error): prompt_1_solution.py: syntax error ...``), and a line met again on another prompt or
model is printed only the first time, saying where else it applies (``also on prompt_1 of 99
more models: model_b, model_c, model_d and 96 more``); a prompt or model left with nothing
new is not listed again. Caps (docs/reading-a-report.md, "Terminal"): ``PROMPT_LINES`` lines
per prompt, ``WHERE_SHOWN`` places named in an "also on", ``LOSS_LINES`` lines in all; what is
left out is counted and the reports (summary_report.txt, report.html) have it all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ..untrusted import NAME_LIMIT, NOTE_LIMIT, text
from .common import SCORING_DOC, fixed, label, maximum
from .terminal import SEE_REPORTS, state_mark
from .view import Loss, Model, Prompt, Run, run_view

PROMPT_LINES = 6  # lines of one prompt's losses (largest first); the rest are counted on one line
WHERE_SHOWN = 3  # places named where a folded line applies too
LOSS_LINES = 120  # lines of the whole list; what is left is counted on its last line
IDS_SHOWN = 3  # check ids named on a line that folds several checks with one reason
REASON_LIMIT = 240  # characters of a reason on the terminal (the reports keep it whole)
DENIALS_SHOWN = 3


class Item(NamedTuple):
    key: tuple[str, ...]  # what makes two lines the same line
    points: float
    text: str


def _check_items(losses: list[Loss]) -> list[Item]:
    """The prompt's check (and category) losses, those with the same reason on one line."""
    groups: dict[str, list[Loss]] = {}
    for loss in losses:
        groups.setdefault(text(loss.reason, REASON_LIMIT), []).append(loss)
    items = []
    for reason, group in groups.items():
        ids = [label(loss.id) for loss in group]
        named = ids[0] if len(ids) == 1 else (
            f"{len(ids)} checks ({', '.join(ids[:IDS_SHOWN])}"
            + (f", … {len(ids) - IDS_SHOWN} more)" if len(ids) > IDS_SHOWN else ")"))
        statuses = "/".join(dict.fromkeys(label(loss.status) for loss in group))
        points = sum(loss.points for loss in group)
        items.append(Item(("check", *ids, reason), points,
                          f"-{points:.2f} {named} ({statuses})" + (f": {reason}" if reason else "")))
    return items


def _gate_item(prompt: Prompt, gates: list[Loss]) -> list[Item]:
    """The category gates that scaled this prompt's credit down, on one line, grouped by formula."""
    if not gates:
        return []
    execution = prompt.category("execution")
    earned, most = (execution.earned, execution.max) if execution else (0.0, 0.0)
    by_formula: dict[str, list[str]] = {}
    for gate in gates:
        formula = f"{label(gate.formula)} = {gate.factor:.2f}"
        by_formula.setdefault(formula, []).append(f"{label(gate.category)} -{gate.points:.2f}")
    points = sum(gate.points for gate in gates)
    parts = "; ".join(f"{formula}: {', '.join(names)}" for formula, names in by_formula.items())
    line = (f"-{points:.2f} gates, w = execution {earned:.2f}/{most:.2f}"
            f"{f' = {earned / most:.2f}' if most > 0 else ''}: {parts} ({SCORING_DOC})")
    return [Item(("gate", line), points, line)]


def _denial_item(prompt: Prompt) -> list[Item]:
    denials = prompt.denials
    if not denials:
        return []
    shown = [f"{label(d.kind)} {label(d.event)} {text(d.target, NAME_LIMIT)} ×{d.count}"
             + (f" at {label(d.where)}" if d.where else "") for d in denials[:DENIALS_SHOWN]]
    more = f"; and {len(denials) - DENIALS_SHOWN} more" if len(denials) > DENIALS_SHOWN else ""
    line = f"sandbox denied: {'; '.join(shown)}{more}"
    return [Item(("denied", line), 0.0, line)]


def _raised_item(prompt: Prompt) -> list[Item]:
    """What the first child run that raised raised, and where (``execution[].raised``)."""
    if not prompt.raised_runs:
        return []
    run = prompt.raised_runs[0]
    raised = run.raised
    where = f" at {label(raised.place)}" if raised.place else ""
    line = (f"raised {label(raised.type)}: {text(raised.message, NOTE_LIMIT)}{where} "
            f"(run {label(run.label or run.mode or '?')})")
    return [Item(("raised", line), 0.0, line)]


def prompt_items(prompt: Prompt) -> list[Item]:
    """Everything the list says of one prompt: losses largest first, then denials and what was raised."""
    items = _check_items([loss for loss in prompt.losses if loss.kind != "gate"])
    items += _gate_item(prompt, [loss for loss in prompt.losses if loss.kind == "gate"])
    items.sort(key=lambda item: -item.points)
    return items + _denial_item(prompt) + _raised_item(prompt)


def _where(places: list[tuple[str, str]]) -> str:
    """``also on prompt_1 of 2 more models: b, c`` (one task) or ``also on 2 more prompts: b prompt_1, ...``."""
    tasks = {pid for _, pid in places}
    if len(tasks) == 1:
        names = [name for name, _ in places]
        head = f"also on {next(iter(tasks))} of {len(names)} more model{'s' if len(names) > 1 else ''}"
    else:
        names = [f"{name} {pid}" for name, pid in places]
        head = f"also on {len(names)} more prompt{'s' if len(names) > 1 else ''}"
    listed = ", ".join(names[:WHERE_SHOWN])
    return f"{head}: {listed}" + (f" and {len(names) - WHERE_SHOWN} more" if len(names) > WHERE_SHOWN else "")


def _occurrences(models: Sequence[Model]) -> tuple[dict[tuple[str, ...], list[tuple[str, str]]], list]:
    """Each line's places (model, prompt) in listing order, and each prompt's items."""
    where: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    listing = []
    for model in models:
        name = label(model.name)
        for prompt in model.prompts:
            key, items = label(prompt.key), prompt_items(prompt)
            for item in items:
                places = where.setdefault(item.key, [])
                if (name, key) not in places:
                    places.append((name, key))
            listing.append((name, key, prompt, items))
    return where, listing


def _prompt_lines(name: str, pid: str, prompt: Prompt, items: list[Item], where: dict, listed: set) -> list[str]:
    new = [item for item in items if item.key not in listed]
    if not new:
        return []
    listed.update(item.key for item in new)  # (those over the cap too: counted here, not listed again)
    shown = new[:PROMPT_LINES]
    others = [[place for place in where[item.key] if place != (name, pid)] for item in shown]
    alike = len(shown) > 1 and others[0] and all(found == others[0] for found in others)  # said once, above
    lines = [f"  {pid} {fixed(prompt.score, 2)}/{maximum(prompt.max_score)} {state_mark(prompt)}"
             + (f" [each line {_where(others[0])}]" if alike else "")]
    for item, found in zip(shown, others):
        lines.append(f"    {item.text}" + (f" [{_where(found)}]" if found and not alike else ""))
    rest, earlier = new[PROMPT_LINES:], [item for item in items if item not in new]
    parts = []
    if rest:
        parts.append(f"{len(rest)} smaller, -{sum(item.points for item in rest):.2f}")
    if earlier:
        parts.append(f"{len(earlier)} met above, -{sum(item.points for item in earlier):.2f}")
    if parts:
        lines.append(f"    … and {'; '.join(parts)}")
    return lines


def format_losses(doc: Mapping[str, Any] | Run) -> list[str]:
    """The lost points of every model (best first), folded and capped (see the module's docstring)."""
    where, listing = _occurrences(run_view(doc).models)
    listed: set[tuple[str, ...]] = set()
    body: list[str] = []
    current = None
    for name, pid, prompt, items in listing:
        lines = _prompt_lines(name, pid, prompt, items, where, listed)
        if lines and name != current:
            body.append(name)
            current = name
        body += lines
    if not body:
        return []
    head = ["", "Lost points, per model and prompt (largest first; a line met again on another prompt "
                "or model is listed once, saying where else):"]
    if len(body) > LOSS_LINES:
        models = sum(1 for line in body[LOSS_LINES:] if not line.startswith(" "))  # (a model's name line)
        body = body[:LOSS_LINES] + [f"… {len(body) - LOSS_LINES} more lines, of {models} more model(s): "
                                    f"{SEE_REPORTS}"]
    return head + body
