"""What a finished grading run exits with: the code its results call for (``exit_code``),
each prompt behind it named on stderr (``name_causes``), and ``--fail-under``'s bar (``gate``).

The codes are ``benchmark.console``'s; ``benchmark.commands`` calls these under their old
private names (``_exit_code``, ``_name_causes``, ``_gate``), which it re-exports.
"""

from __future__ import annotations

from typing import Any

from .console import EXIT_ERROR, EXIT_FAIL_UNDER, EXIT_OK, EXIT_TIMEOUT, EXIT_VALIDATION, _error
from .engine.options import has_internal_error, has_reference_failure, reference_unjudged
from .types import ModelResult
from .untrusted import NOTE_LIMIT, text


def answered_nothing(model: ModelResult) -> bool:
    """Whether a model submitted no file of any task: it is graded 0 on everything, and, like
    a folder that could not be graded, the run exits 3. (A task or pack it did not attempt,
    beside others it did, is a state of its results, not a problem of the run.)"""
    return bool(model.prompts) and all(p.status == "not_attempted" for p in model.prompts)


def exit_code(models: list[ModelResult], skipped: bool = False, unwritable: bool = False) -> int:
    """1 for a grader failure (an unwritable record is one), 3 for a submission that could not
    be graded (a skipped folder is one, and so is a model that submitted no file at all) or a check a task's reference solution left unjudged
    (the pack's fault, as a pack that does not validate), 4 for a timed-out child, else 0."""
    if unwritable or any(has_internal_error(m) for m in models):
        return EXIT_ERROR
    if (skipped or any(p.status == "error" for m in models for p in m.prompts)
            or any(answered_nothing(m) for m in models) or any(has_reference_failure(m) for m in models)):
        return EXIT_VALIDATION
    if any(e.get("timed_out") for m in models for p in m.prompts for e in p.execution):
        return EXIT_TIMEOUT
    return EXIT_OK


CAUSE_LINES = 20  # lines of causes at most; the rest are counted (the reports list each prompt)
CAUSE_PLACES = 3  # other prompts named on a line whose cause is theirs too


def name_causes(models: list[ModelResult]) -> None:
    """Each prompt behind an exit code 1, 3 or 4 on stderr, with ``-q`` too (as ``--fail-under``
    names its models): one that could not be graded, with its reason, and one whose child run
    hit the wall-clock time-out; then, once per task, a reference solution that failed. The
    same reason on several prompts is one line, naming the first and counting the others
    (``... (the same on 99 more: model 'b' prompt_1, ... and 96 more)``); over ``CAUSE_LINES``
    lines, the rest are counted on one."""
    causes: dict[str, list[str]] = {}  # reason -> the prompts it stopped, in model order
    references: dict[str, tuple[str, set[str]]] = {}
    for model in models:
        if answered_nothing(model):
            _error(f"model '{model.model}': no file of any task was submitted "
                   f"({len(model.prompts)} task(s) not attempted)")
        for prompt in model.prompts:
            late = [run for run in prompt.execution if run.get("timed_out")]
            if prompt.status == "error":
                reason = text(prompt.error, NOTE_LIMIT)
            elif late:
                reason = f"a child run hit the wall-clock time-out (killed after {late[0].get('wall_s', 0):.1f} s)"
            else:
                reason = None
            if reason is not None:
                causes.setdefault(reason, []).append(f"model '{model.model}' {prompt.prompt_id}")
            for check in (c for cat in prompt.categories for c in cat.checks if reference_unjudged(c)):
                references.setdefault(prompt.prompt_id, (check.rationale, set()))[1].add(model.model)
    lines = [f"{places[0]}: {reason}{_also(places[1:])}" for reason, places in causes.items()]
    for line in lines[:CAUSE_LINES]:
        _error(line)
    if len(lines) > CAUSE_LINES:
        _error(f"... and {len(lines) - CAUSE_LINES} more prompts that could not be graded or timed out: "
               "see summary_report.txt")
    for rationale, names in references.values():  # (it names the task; it passed the text boundary)
        _error(f"{rationale} (checks of {len(names)} model(s) not judged)")


def _also(places: list[str]) -> str:
    if not places:
        return ""
    more = len(places) - CAUSE_PLACES
    return (f" (the same on {len(places)} more: {', '.join(places[:CAUSE_PLACES])}"
            f"{f' and {more} more' if more > 0 else ''})")


def gate(code: int, doc: dict[str, Any], fail_under: float | None) -> int:
    """``--fail-under``: exit 7 when a model scored under the bar; grading problems (1, 3, 4) win."""
    if fail_under is None:
        return code
    from .reporting.saved_runs import models_under  # (the saved-results code: only when asked)

    below = models_under(doc, fail_under)
    for name, percentage in below:
        _error(f"--fail-under {fail_under:g}: {name} scored {percentage:.2f}%")
    return EXIT_FAIL_UNDER if below and code == EXIT_OK else code
