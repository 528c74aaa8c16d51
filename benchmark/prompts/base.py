"""What a prompt module provides, and the small types its checks use.

A check is a pure function ``fn(ctx: CheckContext) -> Outcome`` registered with
``@check("id")`` in a prompt module; id, category and points come from ``benchmark.rubric``.
A prompt module also provides ``observe(ctx_files, run) -> dict`` (behaviour facts gathered
through the sandbox) and the fixture functions used by ``scripts/bootstrap_repo.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..harness.guard_events import LOST_EVENT
from ..submission import SourceFile
from ..types import CaseGroup, Evidence, ExecResult
from ..untrusted import NAME_LIMIT, NOTE_LIMIT, text


@dataclass(frozen=True)
class Outcome:
    """A check's verdict: ``fraction`` of its points in [0, 1], or an error/skip."""

    fraction: float
    rationale: str
    evidence: tuple[Evidence, ...] = ()
    status: str | None = None  # None: derived from fraction; "error"/"skipped" force 0
    cause: str | None = None  # an error's typed cause when not the answer's fault (types.CAUSES)
    groups: tuple[CaseGroup, ...] = ()  # shown and hidden (generated) cases apart, when judged

    @staticmethod
    def ratio(done: float, total: float, rationale: str, evidence=()) -> "Outcome":
        fraction = 0.0 if total <= 0 else max(0.0, min(1.0, done / total))
        return Outcome(fraction, rationale, tuple(evidence))

    @staticmethod
    def ok(rationale: str, evidence=()) -> "Outcome":
        return Outcome(1.0, rationale, tuple(evidence))

    @staticmethod
    def fail(rationale: str, evidence=()) -> "Outcome":
        return Outcome(0.0, rationale, tuple(evidence))

    @staticmethod
    def skipped(rationale: str) -> "Outcome":
        return Outcome(0.0, rationale, (), "skipped")

    @staticmethod
    def error(rationale: str, cause: str | None = None) -> "Outcome":
        return Outcome(0.0, rationale, (), "error", cause)


class RunFn(Protocol):
    """How a prompt asks for a child run: ``run(request, stage)``.

    ``request`` is the harness request (see ``benchmark/harness/modes.py`` and the harness
    protocol in docs/internals.md); ``stage`` maps file names to bytes to place in the
    child's private working dir (the submission's own files are staged by the caller). Returns the child's ExecResult; ``observation`` holds the
    harness record, already checked by the parent.
    """

    def __call__(self, request: dict[str, Any], stage: Mapping[str, bytes]) -> ExecResult: ...


@dataclass(frozen=True)
class CheckContext:
    """Everything a check may read: files, behaviour facts, and a seed for perturbed data."""

    files: Mapping[str, SourceFile]
    facts: Mapping[str, Any] = field(default_factory=dict)
    task: Any = None  # the benchmark.packs.model.Task being graded (None for a bare check)

    def file(self, name: str) -> SourceFile:
        return self.files[name]


CheckFn = Callable[[CheckContext], Outcome]
LIST_LIMIT = 10  # rationales list this many items, then "... and N more"


def listed(items: Sequence[str], limit: int = LIST_LIMIT) -> str:
    """``a, b, c`` for at most ``limit`` items, then ``... and N more`` (11 items: ten, then
    "... and 1 more"); every finding a rationale counts is either shown or counted here."""
    shown = ", ".join(items[:limit])
    return shown + (f" ... and {len(items) - limit} more" if len(items) > limit else "")


def strict_equal(a: Any, b: Any) -> bool:
    """Type-strict equality of plain JSON data: ``True``, ``1`` and ``1.0`` all differ."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return False
        for key in a:  # a loop, not all(<generator>): judging compares every record this way
            if not strict_equal(a[key], b[key]):
                return False
        return True
    if isinstance(a, list):
        return len(a) == len(b) and all(map(strict_equal, a, b))
    return bool(a == b)


def excerpt(value: Any, limit: int = 80) -> str:
    """Plain JSON data as JSON text for a rationale, through the untrusted-text boundary and
    cut at ``limit`` characters. Never raises: an int with more digits than ``limit`` is named
    by its size (``str()`` refuses ints past 4300 digits, and a child may return one), data
    holding one is named by its type."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3.33 * limit:
        return f"an int of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        rendered = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        rendered = f"a {type(value).__name__} holding a very long int or other data JSON does not carry"
    return text(rendered, limit)


def raised(exception: Mapping[str, Any]) -> str:
    """``Type: message`` of an exception a child reported, the type's name capped at 200
    characters and the message at 500 (a class name can be any length, and any text)."""
    return (f"{text(exception.get('type'), NAME_LIMIT)}: {text(exception.get('message'), NOTE_LIMIT)}"
            f"{raised_at(exception)}")


def raised_at(exception: Mapping[str, Any]) -> str:
    """`` (at name.py:12)``: the submission's own line an exception came through, when the
    harness found one (its ``where``), else ''."""
    where = exception.get("where")
    return f" (at {text(where, NAME_LIMIT)})" if isinstance(where, str) and where else ""


def load_problem(facts: Mapping[str, Any], module: str, function: str) -> Outcome | None:
    """Why a ``call``/``http`` observation has no calls to judge: the module failed to import or
    lacks the function. None when the function was found."""
    if facts.get("import_error"):
        error = facts["import_error"]
        return Outcome.fail(f"importing {module} failed: {raised(error)}")
    if not facts.get("function_found"):
        return Outcome.fail(f"{module} defines no callable {function}")
    return None


def compiles(ctx: CheckContext, name: str) -> Outcome:
    """The shared syntax check: the file was read and parses and compiles."""
    source = ctx.files.get(name)
    if source is None or not source.usable:
        return Outcome.fail(f"{name}: {source.error if source else 'missing'}")
    if source.tree is None:
        return Outcome.fail(f"{name}: {source.syntax_error}", [Evidence(name, source.syntax_line)])
    return Outcome.ok(f"{name} parses and compiles")
SANDBOX_EVENTS = "_sandbox_events"  # facts key the engine fills with every distinct blocked attempt
SANDBOX_UNLISTED = "_sandbox_unlisted"  # ... and with how many more attempts the records counted
COST_PER_ATTEMPT = 0.5


def _integrity_first(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The attempts with the integrity violations (a forged or garbled report channel) first:
    the evidence shows ten, and a flood of other attempts must not hide them."""
    return sorted(events, key=lambda e: e.get("blocked") != "integrity")


def split_where(where: Any) -> tuple[str, int | None]:
    """``("name.py", 12)`` from the harness's ``where`` (``"name.py:12"``: the submission's
    line a denied attempt or an exception came from), else ``("", None)``."""
    name, _, line = str(where or "").rpartition(":")
    return (name, int(line)) if name and line.isdigit() else ("", None)


def _where(event: dict[str, Any]) -> tuple[str, int | None]:
    """The file and line of the submission's a denied attempt came from, else the run's
    module and no line."""
    name, line = split_where(event.get("where"))
    return (name, line) if name else (str(event.get("file", "")), None)


def sandbox_violations(ctx: CheckContext) -> Outcome:
    """No attempt was denied by the sandbox (each denied attempt costs half the check).

    Each listed attempt carries how often it was made (``count``); attempts past the
    supervisor's list count too. A run whose record was lost leaves what its sandbox denied
    unknown: the check fails, whatever the other runs show."""
    events = list(ctx.facts.get(SANDBOX_EVENTS, ()))
    unlisted = ctx.facts.get(SANDBOX_UNLISTED, 0)
    lost = [e for e in events if e.get("blocked") == "integrity" and e.get("event") == LOST_EVENT]
    kinds = sorted({str(e.get("blocked")) for e in events})
    if lost:
        return Outcome.fail(
            f"the evidence of {len(lost)} run(s) was lost, so what the sandbox denied there is "
            f"unknown ({lost[0].get('detail', '')}); kinds seen: {', '.join(kinds)}",
            tuple(Evidence(str(e.get("file", "")), None, f"record lost: {e.get('detail', '')}"[:200])
                  for e in lost[:10]))
    attempts = sum(e.get("count", 1) for e in events) + unlisted
    if not attempts:
        return Outcome.ok("the sandbox denied nothing during the behaviour runs")
    evidence = tuple(Evidence(*_where(e),
                              f"{e.get('blocked')}: {e.get('event')} {e.get('detail', '')}"
                              f"{'' if e.get('count', 1) == 1 else ' (x' + str(e.get('count')) + ')'}"[:200])
                     for e in _integrity_first(events)[:10])
    listed = f" ({len(events)} distinct listed, {unlisted} more only counted)" if unlisted else ""
    fraction = max(0.0, 1.0 - COST_PER_ATTEMPT * attempts)
    return Outcome(fraction, f"the sandbox denied {attempts} attempt(s){listed}: {', '.join(kinds)}",
                   evidence)


def make_registry() -> tuple[dict[str, CheckFn], Callable[[str], Callable[[CheckFn], CheckFn]]]:
    """A per-module table of checks and the decorator that fills it (a prompt's sandbox check
    is the library's ``exec.sandbox_violations``, which judges with :func:`sandbox_violations`)."""
    table: dict[str, CheckFn] = {}

    def check(check_id: str) -> Callable[[CheckFn], CheckFn]:
        def register(fn: CheckFn) -> CheckFn:
            if check_id in table:
                raise ValueError(f"check {check_id} registered twice")
            table[check_id] = fn
            return fn

        return register

    return table, check
