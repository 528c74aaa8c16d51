"""Small helpers shared by the text reporters (reading numbers and lists from the document)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import isfinite
from typing import Any

from ..scoring import as_number as num
from ..scoring import pack_of, pack_rankings, pack_totals, prompt_sort_key
from ..types import CATEGORY_ORDER, unjudged_by_reference
from ..untrusted import NAME_LIMIT, text

CATEGORY_NAMES: tuple[str, ...] = tuple(c.value for c in CATEGORY_ORDER)
RULE_WIDTH = 70


def models_of(doc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    models = doc.get("models")
    if not isinstance(models, Mapping):
        return {}
    return {name: m for name, m in models.items() if isinstance(m, Mapping)}


NOTHING_GRADED = "No model was graded: every model folder found was skipped (listed under \"Model folders not graded\")"


def skipped_of(doc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The model folders the run did not grade (``skipped_models``: tier, folder, reason;
    escaped when the document was built), in discovery order; empty for most runs."""
    skipped = doc.get("skipped_models")
    return [s for s in skipped if isinstance(s, Mapping)] if isinstance(skipped, list) else []


def prompts_of(model: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """A model's prompts in natural order (prompt_2 before prompt_10)."""
    prompts = model.get("prompts")
    if not isinstance(prompts, Mapping):
        return []
    return [(pid, prompts[pid]) for pid in sorted(prompts, key=prompt_sort_key)
            if isinstance(prompts[pid], Mapping)]


def by_percentage(doc: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """Models best first (percentage, then score, descending), ties by name."""
    return sorted(
        models_of(doc).items(),
        key=lambda item: (-num(item[1].get("percentage")), -num(item[1].get("overall_score")), item[0]),
    )


def places(rows: Sequence[tuple[str, Mapping[str, Any]]], score: str = "overall_score") -> list[int]:
    """The place of each of ``rows`` (best first): models with the same percentage and score
    share a place, and the next one skips as many ("1, 1, 3"), as standings do."""
    found: list[int] = []
    for index, (_, item) in enumerate(rows):
        key = (round(num(item.get("percentage")), 4), round(num(item.get(score)), 4))
        if index and key == previous:
            found.append(found[-1])
        else:
            found.append(index + 1)
        previous = key
    return found


def reference_failures(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each task whose reference solution left checks unjudged (status ``error``, a rationale
    that begins ``reference solution failed``/``did not finish``), once, in task order: its
    key, the first such rationale (escaped when the document was built), the ids of the
    checks it left unjudged and how many models it touched. Empty for most runs."""
    found: dict[str, dict[str, Any]] = {}
    for name, model in models_of(doc).items():
        for pid, prompt in prompts_of(model):
            for check in prompt.get("checks") or ():
                if isinstance(check, Mapping) and unjudged_by_reference(check.get("cause")):
                    row = found.setdefault(pid, {"task": pid, "reason": check["rationale"], "models": set(),
                                                 "checks": []})
                    row["models"].add(name)
                    row["checks"] += [] if check.get("id") in row["checks"] else [str(check.get("id"))]
    return [{**row, "models": len(row["models"])}
            for _, row in sorted(found.items(), key=lambda item: prompt_sort_key(item[0]))]


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


def isolation_origin(meta: Any) -> str | None:
    """Where a results document's isolation report comes from, when not from its own run: a
    run served wholly from the cache measures nothing and reports what the run that filled the
    cache measured (``_metadata.isolation_source``). One line of plain text, or None."""
    source = meta.get("isolation_source") if isinstance(meta, Mapping) else None
    if not isinstance(source, Mapping):
        return None
    return (f"measured by run {text(source.get('measured_by_run', '?'), NAME_LIMIT)} at "
            f"{text(source.get('measured_at', '?'), NAME_LIMIT)}, not by this run: "
            f"{text(source.get('why', '?'), NAME_LIMIT)}")


def label(value: Any) -> str:
    """A task key, task title or pack title as plain one-line text (``benchmark.untrusted``)."""
    return text(value, NAME_LIMIT)


def pack_subtotals(model: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """A model's per-pack totals (its ``packs``, else summed from its task keys), or nothing
    when its tasks are all of one pack (a core-only run shows no subtotals)."""
    packs = model.get("packs")
    totals = dict(packs) if isinstance(packs, Mapping) else pack_totals(model)
    return totals if len(totals) > 1 else {}


def pack_titles(doc: Mapping[str, Any]) -> dict[str, str]:
    """Pack id -> title, from the run's manifest (``_metadata.suite``) when it lists one."""
    meta = doc.get("_metadata")
    suite = meta.get("suite") if isinstance(meta, Mapping) else None
    return {str(p["id"]): label(p.get("title") or p["id"]) for p in suite or ()
            if isinstance(p, Mapping) and "id" in p}


def pack_boards(doc: Mapping[str, Any]) -> list[tuple[str, list[tuple[str, Mapping[str, Any]]]]]:
    """Per pack, its models best first with their totals on it: ``[(pack, [(model, totals)])]``;
    empty unless the run graded more than one pack."""
    models = models_of(doc)
    rankings = pack_rankings(models)
    if len(rankings) < 2:
        return []
    totals = {name: pack_totals(model) for name, model in models.items()}
    return [(pack, [(row["model"], totals[row["model"]][pack]) for row in rows])
            for pack, rows in rankings.items()]


def tasks_by_pack(keys: list[str]) -> list[tuple[str, list[str]]]:
    """Task keys grouped by pack, in natural order (core first)."""
    groups: dict[str, list[str]] = {}
    for key in sorted(keys, key=prompt_sort_key):
        groups.setdefault(pack_of(key), []).append(key)
    return list(groups.items())


def pack_score(totals: Mapping[str, Any]) -> str:
    """``21.04/25 (84.15%), 1/1 passed``: one pack's subtotal for people; a pack the model
    submitted nothing for says so (``not attempted (2 tasks): not in the total``)."""
    if totals.get("attempted") is False:
        return f"not attempted ({int(num(totals.get('tasks')))} task(s)): not in the total"
    return (f"{fixed(totals.get('score'), 2)}/{maximum(totals.get('max_score'))} "
            f"({num(totals.get('percentage')):.2f}%), "
            f"{int(num(totals.get('passed')))}/{int(num(totals.get('tasks')))} passed")


GATE_FORMULAS = {"full": "× w", "partial": "× (0.25 + 0.75·w)"}
SCORING_DOC = "docs/scoring.md"  # where the formulas are written out (the reports point there)


def _gate_kind(factor: float, work: float) -> str:
    """Which of the rubric's gates a recorded factor is (``benchmark.scoring.gate_factor``): the
    document keeps the factor, not the gate, and a pack's task may set its own."""
    if abs(factor - work) < 1e-3:
        return "full"
    if abs(factor - (0.25 + 0.75 * work)) < 1e-3:
        return "partial"
    return "?"


def point_losses(prompt: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Where a prompt's points went, largest first: each check that earned less than its
    points (``kind`` "check": its id, status and rationale, already escaped in the document),
    and each category gate that scaled credit down (``kind`` "gate": the category, its factor
    and the formula with ``w`` = execution earned / execution maximum), and a category's
    points that none of its checks carries (``kind`` "category"). ``points`` lost
    before the gates for checks, by the gate itself for gates, so the parts add up to
    max - score (within rounding)."""
    detailed = prompt.get("detailed_scoring")
    detailed = detailed if isinstance(detailed, Mapping) else {}
    execution = detailed.get("execution") if isinstance(detailed.get("execution"), Mapping) else {}
    work = num(execution.get("earned")) / num(execution.get("max")) if num(execution.get("max")) > 0 else 1.0
    losses: list[dict[str, Any]] = []
    checks = [c for c in prompt.get("checks") or () if isinstance(c, Mapping)]
    for check in checks:
        lost = num(check.get("points")) - num(check.get("earned"))
        if lost > 1e-9:
            losses.append({"kind": "check", "id": str(check.get("id")), "category": str(check.get("category")),
                           "status": str(check.get("status")), "points": lost,
                           "reason": str(check.get("rationale") or "")})
    for name in CATEGORY_NAMES:
        numbers = detailed.get(name)
        if not isinstance(numbers, Mapping):
            continue
        factor = num(numbers.get("factor", 1.0))
        earned = num(numbers.get("earned"))
        mine = [c for c in checks if c.get("category") == name]
        raw = min(sum(num(c.get("earned")) for c in mine), num(numbers.get("max")))
        unchecked = num(numbers.get("max")) - sum(num(c.get("points")) for c in mine)
        if unchecked > 1e-9:  # (a category whose checks carry fewer points than it: none here)
            losses.append({"kind": "category", "id": name, "category": name, "status": "unchecked",
                           "points": unchecked, "reason": f"{unchecked:.2f} of {name}'s points have no check"})
        lost = raw - earned
        if factor < 1 - 1e-9 and lost > 1e-9:
            kind = _gate_kind(factor, work)
            formula = GATE_FORMULAS.get(kind, f"× {factor:.2f}")
            losses.append({"kind": "gate", "id": f"{name} gate", "category": name, "status": "gate",
                           "points": lost, "factor": factor, "formula": formula,
                           "reason": (f"{name} credit {raw:.2f} {formula} = {earned:.2f}, with w = execution "
                                      f"{num(execution.get('earned')):.2f}/{num(execution.get('max')):.2f} "
                                      f"= {work:.2f} (factor {factor:.2f}; {SCORING_DOC})")})
    return sorted(losses, key=lambda loss: -loss["points"])


STATES = ("pass", "fail", "error", "not_attempted", "timed_out")
STATE_LABELS = {"pass": "passed", "fail": "failed", "error": "could not be graded",
                "not_attempted": "not attempted", "timed_out": "timed out"}


def verdict(prompt: Mapping[str, Any] | None) -> str:
    """A prompt's state, one of ``STATES``: ``not_attempted`` (no file of the task was
    submitted), ``error`` (it could not be graded), ``timed_out`` (a child run hit the
    wall-clock time-out), else ``pass`` or ``fail`` by its pass mark."""
    prompt = prompt if isinstance(prompt, Mapping) else {}
    status = prompt.get("status")
    if status in ("error", "not_attempted"):
        return str(status)
    if any(isinstance(run, Mapping) and run.get("timed_out") is True for run in prompt.get("execution") or ()):
        return "timed_out"
    return "pass" if prompt.get("passed") is True else "fail"


def denials_of(prompt: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """What the sandbox denied this prompt's runs (``denials``: kind, event, target, count and
    where in the submission, escaped when the document was built); empty for most prompts."""
    found = prompt.get("denials") if isinstance(prompt, Mapping) else None
    return [d for d in found if isinstance(d, Mapping)] if isinstance(found, list) else []


def security_failures(prompt: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The prompt's security checks that did not pass in full: a pass with any of them is not
    a clean pass, and the reports say so beside the verdict."""
    return [c for c in prompt.get("checks") or () if isinstance(c, Mapping)
            and c.get("category") == "security" and c.get("status") != "pass"
            and num(c.get("earned")) < num(c.get("points")) - 1e-9]


STATE_MARKS = {"pass": "✅", "fail": "❌", "error": "⚠️", "not_attempted": "➖", "timed_out": "⏱️"}
SECURITY_MARK, DENIAL_MARK = "🔓", "🚫"  # a pass with failed security checks; sandbox denials
STATE_LEGEND = ("✅ passed · ❌ below the pass mark · ⚠️ could not be graded · ⏱️ timed out · "
                "➖ not attempted · 🔓 security checks failed · 🚫 the sandbox denied an attempt")


def passed_not_clean(prompt: Mapping[str, Any]) -> bool:
    """Whether a prompt passed with a security check not fully passed: not a clean pass, and
    every report says so beside its verdict."""
    return verdict(prompt) == "pass" and bool(security_failures(prompt))


def state_text(prompt: Mapping[str, Any]) -> str:
    """``PASSED``, ``FAILED``, ``ERROR``, ``TIMED OUT`` or ``NOT ATTEMPTED``; a pass with failed
    security checks is ``PASSED (security checks failed)``, not a clean pass."""
    shown = {"pass": "PASSED", "fail": "FAILED", "error": "ERROR", "timed_out": "TIMED OUT",
             "not_attempted": "NOT ATTEMPTED"}[verdict(prompt)]
    return shown + (" (security checks failed)" if passed_not_clean(prompt) else "")


def state_marks(prompt: Mapping[str, Any]) -> str:
    """The state's mark, then 🔓 for failed security checks and 🚫 for sandbox denials."""
    return (STATE_MARKS[verdict(prompt)] + (SECURITY_MARK if security_failures(prompt) else "")
            + (DENIAL_MARK if denials_of(prompt) else ""))


def place(item: Mapping[str, Any]) -> str:
    """An evidence item's place: ``file:line``, or the file alone when it has no line."""
    line = item.get("line")
    return f"{item.get('file')}:{line}" if isinstance(line, int) and not isinstance(line, bool) else str(item.get("file"))


def loss_text(loss: Mapping[str, Any], evidence: Any = ()) -> str:
    """One part of where a prompt's points went: ``-3.00 perturbed_dataset [fail]: why [a.py:3]``."""
    places = [place(e) for e in evidence or () if isinstance(e, Mapping) and e.get("file")]
    where = f" [{', '.join(places[:3])}]" if places else ""
    status = "" if loss["kind"] == "gate" else f" [{loss['status']}]"
    return f"-{loss['points']:.2f} {loss['id']}{status}: {loss['reason']}{where}"


def loss_lines(prompt: Mapping[str, Any]) -> list[str]:
    """Every part of where the prompt's points went (``point_losses``), largest first, each
    check with up to three evidence places; the parts add up to max - score."""
    evidence = {str(c.get("id")): c.get("evidence") for c in prompt.get("checks") or () if isinstance(c, Mapping)}
    return [loss_text(loss, evidence.get(loss["id"]) if loss["kind"] == "check" else ())
            for loss in point_losses(prompt)]


def denial_text(denial: Mapping[str, Any]) -> str:
    """``network socket.connect 203.0.113.9:443 at prompt_3.py:140 (x2)``."""
    count = int(num(denial.get("count")) or 1)
    target = f" {denial.get('target')}" if denial.get("target") else ""
    where = f" at {denial.get('where')}" if denial.get("where") else ""
    return f"{denial.get('kind')} {denial.get('event')}{target}{where}{'' if count == 1 else f' (x{count})'}"


def raised_runs(prompt: Mapping[str, Any]) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """(child run, what it raised) for each run of the prompt that reported an exception."""
    return [(run, run["raised"]) for run in prompt.get("execution") or ()
            if isinstance(run, Mapping) and isinstance(run.get("raised"), Mapping)]


def raised_text(run: Mapping[str, Any], raised: Mapping[str, Any]) -> str:
    """``fixture run raised KeyError: 'k' at prompt_3.py:102``."""
    name = run.get("label") or run.get("mode") or "a"
    at = f" at {place(raised)}" if raised.get("file") else ""
    return f"{name} run raised {raised.get('type')}: {raised.get('message')}{at}"
