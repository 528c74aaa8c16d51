"""The parts of a prompt's drill-down in report.html that explain its score and its state.

A state pill (one of ``common.STATES``; a pass with a security check not fully passed is
"PASS · security", in the warning colour), "where the points went" (``common.point_losses``:
every check that lost points and every gate deduction with its formula, as text and as a
tooltip linking to the page's "How scores are computed"), what the sandbox denied
(``common.denials_of``: what was tried and where) and, for a child run that raised or wrote to
stderr, the exception with its source lines and the end of its stderr.

Every value from the document was escaped once when the document was built
(``benchmark.untrusted.text``); here it goes through ``_h`` (markupsafe's escaping) again, as
everything in the page does, and nothing is marked safe unescaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .chart_markup import escaped as _h
from .common import (STATE_LABELS, denials_of, fixed, num, passed_not_clean, point_losses, security_failures,
                     verdict)

_HIT = ' class="hit"'
HOW = "how-scores"  # the id of the page's "How scores are computed" section
GROUP_FROM = 3  # checks that lost points for the same reason: one item from this many
GATE_TIP = "scaled by how much of the prompt works (w = execution earned / execution maximum)"


def state_of(prompt: Mapping[str, Any]) -> tuple[str, str]:
    """(css state, pill text): the verdict, or ``pass-security`` for a pass that is not clean."""
    if passed_not_clean(prompt):
        return "pass-security", "PASS · security"
    state = verdict(prompt)
    return state, STATE_LABELS.get(state, state).upper() if state != "pass" else "PASS"


def state_pill(prompt: Mapping[str, Any]) -> str:
    state, shown = state_of(prompt)
    tip = ""
    if state == "pass-security":
        ids = ", ".join(str(c.get("id")) for c in security_failures(prompt))
        tip = f' title="passed, but security checks not fully passed: {_h(ids)}"'
    return f'<span class="pill st-{_h(state)}"{tip}>{_h(shown)}</span>'


def gate_links(prompt: Mapping[str, Any], how: str = f"#{HOW}") -> dict[str, str]:
    """Per gated category, its factor as a link to the scoring section, the formula as tooltip."""
    formulas = {loss["category"]: loss["reason"] for loss in point_losses(prompt) if loss["kind"] == "gate"}
    detailed = prompt.get("detailed_scoring") if isinstance(prompt.get("detailed_scoring"), Mapping) else {}
    links = {}
    for name, numbers in detailed.items():
        factor = num(numbers.get("factor", 1.0)) if isinstance(numbers, Mapping) else 1.0
        if fixed(factor, 2) != "1.00":
            tip = formulas.get(name, f"{name} {GATE_TIP}")
            links[name] = (f' <a class="gate" href="{_h(how)}" title="{_h(tip)}">gate ×{_h(fixed(factor, 2))}</a>')
    return links


def _grouped(losses: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The losses, with the checks that lost points for one and the same reason (a file that
    could not be graded: every check) as one item, largest first."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    items: list[dict[str, Any]] = []
    for loss in losses:
        if loss["kind"] == "check":
            groups.setdefault((loss["reason"], loss["status"]), []).append(loss)
        else:
            items.append(loss)
    for (reason, status), same in groups.items():
        items.append(same[0] if len(same) < GROUP_FROM else
                     {"kind": "checks", "ids": [loss["id"] for loss in same], "status": status, "reason": reason,
                      "points": sum(loss["points"] for loss in same)})
    return sorted(items, key=lambda item: -item["points"])


def losses_list(prompt: Mapping[str, Any], how: str = f"#{HOW}") -> str:
    """"Where the points went": one item per loss, largest first ('' for a full score)."""
    losses = point_losses(prompt)
    if not losses:
        return ""
    total = sum(loss["points"] for loss in losses)
    parts = [f'<div class="losses"><h4>Where the points went (−{_h(fixed(total, 2))})</h4><ul>\n']
    for loss in _grouped(losses):
        lost = f'<b class="num">−{_h(fixed(loss["points"], 2))}</b>'
        status = _h(loss["status"])
        if loss["kind"] == "gate":
            formula = _h(loss.get("formula", ""))
            parts.append(f'<li class="loss gate">{lost} <a href="{_h(how)}" title="{_h(loss["reason"])}">'
                         f'{_h(loss["category"])} gate {formula}</a>: {_h(loss["reason"])}</li>\n')
        elif loss["kind"] == "checks":
            parts.append(f'<li class="loss">{lost} <span title="{_h(", ".join(loss["ids"]))}">{len(loss["ids"])} '
                         f'checks</span> <span class="pill st-{status}">{status}</span>: {_h(loss["reason"])}</li>\n')
        else:
            parts.append(f'<li class="loss">{lost} <code>{_h(loss["id"])}</code> '
                         f'<span class="pill st-{status}">{status}</span> <span class="note">{_h(loss["category"])}'
                         f'</span>: {_h(loss["reason"])}</li>\n')
    parts.append("</ul></div>\n")
    return "".join(parts)


def _where(denial: Mapping[str, Any]) -> str:
    return str(denial.get("where") or "?")


def denial_tip(denials: Sequence[Mapping[str, Any]]) -> str:
    """One line per denial: what was tried and where (for a tooltip)."""
    return "; ".join(f"{d.get('event') or d.get('kind') or '?'} {d.get('target') or ''} at {_where(d)}"
                     f"{' ×' + str(d.get('count')) if num(d.get('count')) > 1 else ''}".replace("  ", " ")
                     for d in denials)


def denial_count(denials: Sequence[Mapping[str, Any]]) -> int:
    return sum(max(1, int(num(d.get("count")))) for d in denials)


def denial_badge(denials: Sequence[Mapping[str, Any]]) -> str:
    """A prominent badge: how many attempts the sandbox denied, each in the tooltip ('' for none)."""
    if not denials:
        return ""
    count = denial_count(denials)
    return (f'<span class="pill denied" title="{_h(denial_tip(denials))}">{count} sandbox '
            f'denial{"s" if count != 1 else ""}</span>')


def denials_block(prompt: Mapping[str, Any]) -> str:
    """The sandbox's denials as a list in the drill-down: kind, what was tried, where ('' for none)."""
    denials = denials_of(prompt)
    if not denials:
        return ""
    parts = ['<div class="denials"><h4>Denied by the sandbox</h4><ul>\n']
    for d in denials:
        count = int(num(d.get("count")))
        parts.append(f'<li><code>{_h(_where(d))}</code> <b>{_h(d.get("kind") or "?")}</b> '
                     f'{_h(d.get("event") or "")} → <code>{_h(d.get("target") or "")}</code>'
                     f'{f" ×{count}" if count > 1 else ""}</li>\n')
    parts.append("</ul></div>\n")
    return "".join(parts)


def _raised(raised: Mapping[str, Any]) -> str:
    where = str(raised.get("file") or "")
    line = raised.get("line")
    if isinstance(line, int) and not isinstance(line, bool):
        where += f":{line}"
    parts = [f'<p><b>{_h(raised.get("type") or "exception")}</b>: {_h(raised.get("message") or "")}'
             f'{f" at <code>{_h(where)}</code>" if where else ""}</p>']
    excerpt = raised.get("excerpt") if isinstance(raised.get("excerpt"), Mapping) else {}
    start, lines = excerpt.get("start"), excerpt.get("lines")
    if isinstance(start, int) and isinstance(lines, list) and lines:
        parts.append('<pre class="excerpt">')
        parts += [f'<span{_HIT if start + i == line else ""}><i>{_h(start + i)}</i>{_h(str(text))}</span>'
                  for i, text in enumerate(lines)]
        parts.append("</pre>")
    return "".join(parts)


def run_failures(execution: Any) -> str:
    """For each child run that raised or wrote to stderr: the exception (type, message, where,
    source lines) and the end of stderr ('' when no run did)."""
    parts = []
    for run in execution or ():
        if not isinstance(run, Mapping):
            continue
        raised, tail = run.get("raised"), run.get("stderr_tail")
        if not isinstance(raised, Mapping) and not tail:
            continue
        name = " · ".join(str(run.get(k)) for k in ("mode", "label") if run.get(k)) or "run"
        parts.append(f'<div class="run-failure"><h4>Child run {_h(name)}</h4>')
        if isinstance(raised, Mapping):
            parts.append(_raised(raised))
        if tail:
            parts.append(f'<p class="note">End of its stderr:</p><pre class="stderr">{_h(str(tail))}</pre>')
        parts.append("</div>\n")
    return "".join(parts)
