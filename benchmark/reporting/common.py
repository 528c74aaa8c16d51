"""Small formatting helpers shared by the reporters, over the typed views of ``view``: numbers
for people, labels, a pack's subtotal, and the state words and marks of a prompt."""

from __future__ import annotations

from collections.abc import Mapping
from math import isfinite
from typing import Any

from ..scoring import as_number as num
from ..scoring import pack_of, prompt_sort_key
from ..untrusted import NAME_LIMIT, text
from .view import (CATEGORY_NAMES, GATE_FORMULAS, SCORING_DOC, STATE_LABELS, STATES,  # noqa: F401 (shared here)
                   Model, PackTotal, Prompt, Run)

RULE_WIDTH = 70
NOTHING_GRADED = "No model was graded: every model folder found was skipped (listed under \"Model folders not graded\")"


def fixed(value: Any, digits: int = 1) -> str:
    """A number for people, with a fixed number of decimals (``num(value)``: 0 for anything
    but a finite number; a finite float, most calls of a report, is formatted as it is)."""
    if type(value) is float and isfinite(value):
        return f"{value:.{digits}f}"
    return f"{num(value):.{digits}f}"


def maximum(value: Any) -> str:
    """A maximum for people: whole numbers without decimals (25), others with one (2.5)."""
    number = num(value)
    return f"{number:.0f}" if number == int(number) else f"{number:.1f}"


def label(value: Any) -> str:
    """A task key, task title or pack title as plain one-line text (``benchmark.untrusted``)."""
    return text(value, NAME_LIMIT)


def tasks_by_pack(keys: list[str]) -> list[tuple[str, list[str]]]:
    """Task keys grouped by pack, in natural order (core first)."""
    groups: dict[str, list[str]] = {}
    for key in sorted(keys, key=prompt_sort_key):
        groups.setdefault(pack_of(key), []).append(key)
    return list(groups.items())


def pack_score(totals: PackTotal) -> str:
    """``21.04/25 (84.15%), 1/1 passed``: one pack's subtotal for people; a pack the model
    submitted nothing for says so (``not attempted (2 tasks): not in the total``)."""
    if not totals.attempted:
        return f"not attempted ({totals.tasks} task(s)): not in the total"
    return (f"{fixed(totals.score, 2)}/{maximum(totals.max_score)} ({totals.percentage:.2f}%), "
            f"{totals.passed}/{totals.tasks} passed")


def pack_name(pack: str, titles: Mapping[str, str]) -> str:
    """``data_pack (Data tasks)``: a pack's id with its title when the manifest gives one."""
    return f"{pack} ({titles[pack]})" if pack in titles else pack


STATE_MARKS = {"pass": "✅", "fail": "❌", "error": "⚠️", "not_attempted": "➖", "timed_out": "⏱️"}
SECURITY_MARK, DENIAL_MARK = "🔓", "🚫"  # a pass with failed security checks; sandbox denials
STATE_LEGEND = ("✅ passed · ❌ below the pass mark · ⚠️ could not be graded · ⏱️ timed out · "
                "➖ not attempted · 🔓 security checks failed · 🚫 the sandbox denied an attempt")
STATE_WORDS = {"pass": "PASSED", "fail": "FAILED", "error": "ERROR", "timed_out": "TIMED OUT",
               "not_attempted": "NOT ATTEMPTED"}


def state_text(prompt: Prompt) -> str:
    """``PASSED``, ``FAILED``, ``ERROR``, ``TIMED OUT`` or ``NOT ATTEMPTED``; a pass with failed
    security checks is ``PASSED (security checks failed)``, not a clean pass."""
    return STATE_WORDS[prompt.state] + (" (security checks failed)" if prompt.not_clean else "")


def state_marks(prompt: Prompt) -> str:
    """The state's mark, then 🔓 for failed security checks and 🚫 for sandbox denials."""
    return (STATE_MARKS[prompt.state] + (SECURITY_MARK if prompt.security_failures else "")
            + (DENIAL_MARK if prompt.denials else ""))


def loss_lines(prompt: Prompt) -> list[str]:
    """Every part of where the prompt's points went, largest first, each check with up to
    three evidence places; the parts add up to max - score."""
    return [loss.text() for loss in prompt.losses]


def samples_mark(model: Model) -> str:
    """`` ×3`` after a model's name when it is the mean of 3 samples, else ''."""
    return f" ×{model.sample_count}" if model.sample_count > 1 else ""


def group_legend(run: Run) -> str:
    """What the rank and the interval mean, in one line (the table's, summary.md's)."""
    found = run.significance
    if not found:
        return "# is the place by total; ties share one"
    same = len(set(run.groups)) == 1 and len(run.models) > 1
    said = (f"# counts only real differences: 1 + the models surely better (p < {found['alpha']:g}, "
            f"over {found['tasks']} task(s)); models that share a # cannot be told apart")
    if same:
        said += " (here: none can)"
    return said + "; 95% CI: the total's interval (docs/statistics.md)" + (
        "; ×N: N samples, the mean shown" if run.sampled else "")
