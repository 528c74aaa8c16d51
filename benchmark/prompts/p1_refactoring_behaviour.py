"""Prompt 1's execution checks, judged on the runs ``p1_refactoring.observe`` made: exit status
and output shape on the fixture, kept ids and field values pooled over the fixture and the
perturbed data, the contract's forms, and the measured cost.

They join the registry ``p1_refactoring_source`` creates; ``p1_refactoring`` imports this
module and re-exports each check, so ``benchmark.prompts.p1_refactoring.correct_values`` is
still the function the registry holds.
"""

from __future__ import annotations

from typing import Any

from . import measured
from . import p1_refactoring_cases as cases
from . import p1_refactoring_data as data
from . import p1_refactoring_judge as judge
from .base import CheckContext, Outcome, raised
from .base import strict_equal as same_json
from .p1_refactoring_fixtures import CONFIG_NAME
from .p1_refactoring_source import MAIN, check

FORM_COST = 1 / 6  # of perturbed_dataset, per contract form kept or dropped wrongly


def _run(ctx: CheckContext, label: str) -> dict[str, Any] | None:
    run = ctx.facts.get(label)
    return run if isinstance(run, dict) else None


def _output(ctx: CheckContext, label: str) -> tuple[list[Any] | None, Outcome | None]:
    """(the run's parsed output list, None) or (None, why it cannot be judged)."""
    if label not in ctx.facts:
        return None, Outcome.error(f"the {label} run was not observed")
    run = _run(ctx, label)
    problem = judge.run_problem(run)
    if problem:
        return None, Outcome.fail(problem)
    return run["output"], None


def _failure_note(run: dict[str, Any]) -> str:
    exception = run.get("exception")
    if exception:
        return raised(exception)
    tail = (run.get("stderr_tail") or "").strip().splitlines()
    return tail[-1][:200] if tail else "no message on stderr"


@check("runs_without_error")
def runs_without_error(ctx: CheckContext) -> Outcome:
    """Exit 0 on the fixture, with a non-empty JSON array on stdout (the fixture keeps records)."""
    if "fixture" not in ctx.facts:
        return Outcome.error("the fixture run was not observed")
    run = _run(ctx, "fixture") or {}
    if run.get("problem"):
        return Outcome.fail(f"python {MAIN} {CONFIG_NAME} {run['problem']}")
    if run.get("exit_code") != 0:
        return Outcome.fail(f"python {MAIN} {CONFIG_NAME} exited with {run.get('exit_code')} "
                            f"({_failure_note(run)})")
    output, blocked = _output(ctx, "fixture")
    if blocked:
        return Outcome.fail(f"exit 0, but {blocked.rationale}")
    if not output:
        return Outcome.fail("exit 0, but printed an empty array although the fixture has "
                            f"{len(run['expected'])} valid records")
    return Outcome.ok(f"exit 0 on the fixture; printed {len(output)} records")


@check("json_output_validation")
def json_output_validation(ctx: CheckContext) -> Outcome:
    output, blocked = _output(ctx, "fixture")
    if blocked:
        return blocked
    if not output:
        return Outcome.fail("the output array is empty")
    good = sum(map(judge.well_formed, output))
    return Outcome.ratio(good, len(output), f"{good}/{len(output)} output items are objects "
                         f"with exactly the keys {', '.join(data.OUTPUT_KEYS)} of the stated types")


def _pooled_outputs(ctx: CheckContext) -> tuple[list[tuple[list, list]], Outcome | None]:
    """(expected, output) for the fixture and the perturbed run; a failed perturbed run
    counts as an empty output, so canned fixture answers cannot earn these checks alone. An
    answer that prints exactly its fixture output for the other data too (where another
    output is expected) is hard-coded: its output does not depend on the input, and neither
    run is judged."""
    output, blocked = _output(ctx, "fixture")
    if blocked:
        return [], blocked
    fixture = _run(ctx, "fixture")["expected"]
    pairs = [(fixture, output)]
    perturbed = _run(ctx, "perturbed")
    if perturbed is not None and "expected" in perturbed:
        other, problem = _output(ctx, "perturbed")
        if not problem and output and same_json(other, output) and not same_json(perturbed["expected"], fixture):
            return [], Outcome.fail(f"hard-coded: on other data it printed exactly its fixture output "
                                    f"({len(output)} records), where {len(perturbed['expected'])} other "
                                    f"records are expected; its output does not depend on the input")
        pairs.append((perturbed["expected"], [] if problem else other))
    return pairs, None


@check("correct_filtering")
def correct_filtering(ctx: CheckContext) -> Outcome:
    """Kept ids against the answer key, pooled over the fixture and the perturbed data."""
    pairs, blocked = _pooled_outputs(ctx)
    if blocked:
        return blocked
    tallies = [judge.filtering(expected, output) for expected, output in pairs]
    common = sum(t["common"] for t in tallies)
    union = sum(t["union"] for t in tallies)
    notes = [f"{label}: missing ids {t['missing']}" if t["missing"] else "" for label, t in
             zip(("fixture", "perturbed"), tallies)]
    notes += [f"{label}: unexpected ids {t['extra']}" if t["extra"] else "" for label, t in
              zip(("fixture", "perturbed"), tallies)]
    notes += [f"{t['surplus']} duplicate or id-less items" if t["surplus"] else "" for t in tallies]
    detail = "; ".join(note for note in notes if note) or "exactly the expected ids"
    return Outcome.ratio(common, union, f"kept ids match {common}/{union} over "
                         f"{len(tallies)} data sets ({detail})")


@check("correct_values")
def correct_values(ctx: CheckContext) -> Outcome:
    """Field values of matched records, pooled over the fixture and the perturbed data."""
    pairs, blocked = _pooled_outputs(ctx)
    if blocked:
        return blocked
    correct = total = 0
    notes: list[str] = []
    for expected, output in pairs:
        right, judged, found = judge.values(expected, output)
        correct, total, notes = correct + right, total + judged, notes + found
    if total == 0:
        return Outcome.fail("no expected record appears in the output")
    detail = judge.summary(notes) or "all fields exact"
    return Outcome.ratio(correct, total, f"{correct}/{total} fields of matched records "
                         f"correct ({detail})")


@check("measured_performance")
def measured_performance(ctx: CheckContext) -> Outcome:
    """Kernel CPU time on 256 generated records against the reference's; any sleep costs all.

    The whole script's own CPU time in one run beside the fixture and perturbed ones (its
    imports included); run again only when short of full credit (the least counts). The
    reference solution is timed the same way, once per process. Full up to 2x the reference's
    cost, none from 10x (``benchmark.analyzers.timing``); scaled by the share of the
    perturbed run's records the answer got right (speed counts only for work done right)."""
    output, blocked = _output(ctx, "perturbed")
    run = _run(ctx, "perturbed") or {}
    expected = run.get("expected") or []
    share = (0, max(1, len(expected))) if blocked or run.get("exit_code") != 0 else judge.record_share(expected, output)
    return measured.outcome(ctx, share, "the perturbed run")


@check("perturbed_dataset")
def perturbed_dataset(ctx: CheckContext) -> Outcome:
    """Other data with one record per form the contract lists: each form kept or dropped
    wrongly (a kept record not reproduced exactly included) costs a sixth of the check, and
    so do records of ids the data does not hold."""
    output, blocked = _output(ctx, "perturbed")
    if blocked:
        return blocked
    run = _run(ctx, "perturbed")
    if run.get("exit_code") != 0:
        return Outcome.fail(f"exited with {run.get('exit_code')} ({_failure_note(run)})")
    forms = [tuple(form) for form in run.get("forms", ())]
    if not forms:
        return Outcome.error("the perturbed run carries no contract forms to judge")
    wrong = judge.form_verdicts(forms, run["expected"], output, cases.FORMS, cases.REUSING)
    fraction = max(0.0, 1.0 - FORM_COST * len(wrong))
    judged = len({kind for kind, _ in forms})
    detail = judge.summary(wrong) or "every form right"
    return Outcome(fraction, f"{judged - len(wrong)} of {judged} contract forms judged right on "
                   f"other data ({len(run['expected'])} records expected, {len(output)} printed; "
                   f"{detail})")
