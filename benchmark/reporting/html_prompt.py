"""The parts of a prompt's drill-down in report.html that explain its score and its state.

A state pill (one of ``common.STATES``; a pass with a security check not fully passed is
"PASS · security", in the warning colour), "where the points went" (``view.Prompt.losses``:
every check that lost points and every gate deduction with its formula, as text and as a
tooltip linking to the page's "How scores are computed"), what the sandbox denied
(``view.Prompt.denials``: what was tried and where) and, for a child run that raised or wrote
to stderr, the exception with its source lines and the end of its stderr.

Every value from the document was escaped once when the document was built
(``benchmark.untrusted.text``); here it goes through ``_h`` (markupsafe's escaping) again, as
everything in the page does, and nothing is marked safe unescaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .chart_markup import escaped as _h
from .common import STATE_LABELS, fixed
from .view import ChildRun, Denial, Excerpt, Loss, Prompt, Raised

_HIT = ' class="hit"'
HOW = "how-scores"  # the id of the page's "How scores are computed" section
GROUP_FROM = 3  # checks that lost points for the same reason: one item from this many
GATE_TIP = "scaled by how much of the prompt works (w = execution earned / execution maximum)"


def state_of(prompt: Prompt) -> tuple[str, str]:
    """(css state, pill text): the state, or ``pass-security`` for a pass that is not clean."""
    if prompt.not_clean:
        return "pass-security", "PASS · security"
    return prompt.state, STATE_LABELS[prompt.state].upper() if prompt.state != "pass" else "PASS"


def state_pill(prompt: Prompt) -> str:
    state, shown = state_of(prompt)
    tip = ""
    if state == "pass-security":
        ids = ", ".join(c.id for c in prompt.security_failures)
        tip = f' title="passed, but security checks not fully passed: {_h(ids)}"'
    return f'<span class="pill st-{_h(state)}"{tip}>{_h(shown)}</span>'


def gate_links(prompt: Prompt, how: str = f"#{HOW}") -> dict[str, str]:
    """Per gated category, its factor as a link to the scoring section, the formula as tooltip."""
    formulas = {loss.category: loss.reason for loss in prompt.losses if loss.kind == "gate"}
    links = {}
    for category in prompt.categories:
        factor = fixed(category.factor, 2)
        if factor != "1.00":
            tip = formulas.get(category.name, f"{category.name} {GATE_TIP}")
            links[category.name] = f' <a class="gate" href="{_h(how)}" title="{_h(tip)}">gate ×{_h(factor)}</a>'
    return links


@dataclass(frozen=True, slots=True)
class _Checks:
    """Checks that lost points for one and the same reason, shown as one item."""
    ids: tuple[str, ...]
    status: str
    reason: str
    points: float


def _grouped(losses: Sequence[Loss]) -> list[Loss | _Checks]:
    """The losses, with the checks that lost points for one and the same reason (a file that
    could not be graded: every check) as one item, largest first."""
    groups: dict[tuple[str, str], list[Loss]] = {}
    items: list[Loss | _Checks] = []
    for loss in losses:
        if loss.kind == "check":
            groups.setdefault((loss.reason, loss.status), []).append(loss)
        else:
            items.append(loss)
    for (reason, status), same in groups.items():
        items.append(same[0] if len(same) < GROUP_FROM else
                     _Checks(tuple(loss.id for loss in same), status, reason, sum(loss.points for loss in same)))
    return sorted(items, key=lambda item: -item.points)


def losses_list(prompt: Prompt, how: str = f"#{HOW}") -> str:
    """"Where the points went": one item per loss, largest first ('' for a full score)."""
    losses = prompt.losses
    if not losses:
        return ""
    total = sum(loss.points for loss in losses)
    parts = [f'<div class="losses"><h4>Where the points went (−{_h(fixed(total, 2))})</h4><ul>\n']
    for item in _grouped(losses):
        lost = f'<b class="num">−{_h(fixed(item.points, 2))}</b>'
        status = _h(item.status)
        if isinstance(item, _Checks):
            parts.append(f'<li class="loss">{lost} <span title="{_h(", ".join(item.ids))}">{len(item.ids)} '
                         f'checks</span> <span class="pill st-{status}">{status}</span>: {_h(item.reason)}</li>\n')
        elif item.kind == "gate":
            parts.append(f'<li class="loss gate">{lost} <a href="{_h(how)}" title="{_h(item.reason)}">'
                         f'{_h(item.category)} gate {_h(item.formula)}</a>: {_h(item.reason)}</li>\n')
        else:
            parts.append(f'<li class="loss">{lost} <code>{_h(item.id)}</code> '
                         f'<span class="pill st-{status}">{status}</span> <span class="note">{_h(item.category)}'
                         f'</span>: {_h(item.reason)}</li>\n')
    parts.append("</ul></div>\n")
    return "".join(parts)


def _where(denial: Denial) -> str:
    return denial.where or "?"


def denial_tip(denials: Sequence[Denial]) -> str:
    """One line per denial: what was tried and where (for a tooltip)."""
    return "; ".join(f"{d.event or d.kind or '?'} {d.target} at {_where(d)}"
                     f"{' ×' + str(d.count) if d.count > 1 else ''}".replace("  ", " ") for d in denials)


def denial_badge(denials: Sequence[Denial]) -> str:
    """A prominent badge: how many attempts the sandbox denied, each in the tooltip ('' for none)."""
    if not denials:
        return ""
    count = sum(d.count for d in denials)
    return (f'<span class="pill denied" title="{_h(denial_tip(denials))}">{count} sandbox '
            f'denial{"s" if count != 1 else ""}</span>')


def denials_block(prompt: Prompt) -> str:
    """The sandbox's denials as a list in the drill-down: kind, what was tried, where ('' for none)."""
    if not prompt.denials:
        return ""
    parts = ['<div class="denials"><h4>Denied by the sandbox</h4><ul>\n']
    parts += [f'<li><code>{_h(_where(d))}</code> <b>{_h(d.kind or "?")}</b> {_h(d.event)} → '
              f'<code>{_h(d.target)}</code>{f" ×{d.count}" if d.count > 1 else ""}</li>\n' for d in prompt.denials]
    parts.append("</ul></div>\n")
    return "".join(parts)


def excerpt_block(excerpt: Excerpt | None, line: int | None) -> str:
    """Source lines as a ``<pre>``, ``line`` highlighted ('' without an excerpt)."""
    if excerpt is None or not excerpt.lines:
        return ""
    start = excerpt.start
    return ('<pre class="excerpt">' + "".join(f'<span{_HIT if start + i == line else ""}><i>{start + i}</i>'
                                              f'{_h(text)}</span>' for i, text in enumerate(excerpt.lines))
            + "</pre>")


def _raised(raised: Raised) -> str:
    where = raised.place or ""
    return (f'<p><b>{_h(raised.type or "exception")}</b>: {_h(raised.message)}'
            f'{f" at <code>{_h(where)}</code>" if where else ""}</p>' + excerpt_block(raised.excerpt, raised.line))


def run_failures(runs: Sequence[ChildRun]) -> str:
    """For each child run that raised or wrote to stderr: the exception (type, message, where,
    source lines) and the end of stderr ('' when no run did)."""
    parts = []
    for run in runs:
        if run.raised is None and not run.stderr_tail:
            continue
        name = " · ".join(part for part in (run.mode, run.label) if part) or "run"
        parts.append(f'<div class="run-failure"><h4>Child run {_h(name)}</h4>')
        if run.raised is not None:
            parts.append(_raised(run.raised))
        if run.stderr_tail:
            parts.append(f'<p class="note">End of its stderr:</p><pre class="stderr">{_h(run.stderr_tail)}</pre>')
        parts.append("</div>\n")
    return "".join(parts)
