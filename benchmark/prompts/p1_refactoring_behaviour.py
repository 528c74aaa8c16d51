"""Prompt 1's execution checks, judged on the runs ``p1_refactoring.observe`` made: exit status
and output shape on the fixture, kept ids and field values pooled over the fixture and the
perturbed data, the contract's forms, and the measured cost.

They join the registry ``p1_refactoring_source`` creates (each is the check type
``core.p1.<id>``); ``p1_refactoring`` imports this module and re-exports each check, so
``benchmark.prompts.p1_refactoring.correct_values`` is still the function the registry holds.
"""

from __future__ import annotations

from typing import Any

from . import measured
from . import p1_refactoring_cases as cases
from . import p1_refactoring_data as data
from . import p1_refactoring_edges as edges
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


def _ran_clean(ctx: CheckContext, label: str, argv: str) -> tuple[bool, str]:
    """(exit 0 with a JSON array on stdout, non-empty where records are expected; why not)."""
    if label not in ctx.facts:
        return False, f"the {label} run was not observed"
    run = _run(ctx, label) or {}
    if run.get("problem"):
        return False, f"python {MAIN} {argv} {run['problem']}"
    if run.get("exit_code") != 0:
        return False, (f"python {MAIN} {argv} exited with {run.get('exit_code')} "
                       f"({_failure_note(run)})")
    output, blocked = _output(ctx, label)
    if blocked:
        return False, f"{label}: exit 0, but {blocked.rationale}"
    if not output and run.get("expected"):
        return False, (f"{label}: exit 0, but printed an empty array although the data has "
                       f"{len(run['expected'])} valid records")
    return True, f"exit 0 on the {label} data; printed {len(output)} records"


def _edges_clean(ctx: CheckContext) -> tuple[bool, str]:
    """The edge run (``p1_refactoring_edges``): it ran clean and, besides what the edge
    records may add, printed what the program printed for the fixture alone (the answer
    key's records when that run failed): the edge records changed nothing else. Whether
    its fixture output is right is for the other checks."""
    ran, why = _ran_clean(ctx, edges.LABEL, edges.CONFIG)
    if not ran:
        return False, f"{why} (on {edges.WHAT})"
    output = _run(ctx, edges.LABEL)["output"]
    ordinary = [item for item in output if not edges.allowed_extra(item)]
    fixture, blocked = _output(ctx, "fixture")
    own = fixture if not blocked else _run(ctx, edges.LABEL)["expected"]
    if not same_json(ordinary, own):
        return False, (f"on {edges.WHAT} it printed {len(ordinary)} other records, where its "
                       f"fixture run printed {len(own)}: the edge records changed the others")
    return True, f"exit 0 on {edges.WHAT}, the other records as on the fixture"


@check("runs_without_error")
def runs_without_error(ctx: CheckContext) -> Outcome:
    """Exit 0 with a JSON array on stdout, non-empty where the data keeps records, a third
    each: on the fixture, on the perturbed data (a script that runs on the sample only does
    part of the job), and on the fixture with edge records appended, where the fixture's
    records must come out exactly (a crash on one record loses them all). Not a library type:
    ``exec.exit_zero`` judges the exit status alone, not the array nor what the edge records
    changed."""
    if "fixture" not in ctx.facts:
        return Outcome.error("the fixture run was not observed")
    verdicts = [_ran_clean(ctx, "fixture", CONFIG_NAME)]
    if "perturbed" in ctx.facts:
        verdicts.append(_ran_clean(ctx, "perturbed", "(the perturbed data's config)"))
    if edges.LABEL in ctx.facts:
        verdicts.append(_edges_clean(ctx))
    good = sum(ok for ok, _ in verdicts)
    return Outcome.ratio(good, len(verdicts), "; ".join(why for _, why in verdicts))


@check("json_output_validation")
def json_output_validation(ctx: CheckContext) -> Outcome:
    """Output items that are objects with exactly the contract's keys and types, half for the
    fixture and half for the perturbed data; a run with no such output earns its half none.
    Not a library type: the ``output.*`` types compare an output with an expected value, none
    checks each item's shape against a contract."""
    shares, notes = [], []
    for label in ("fixture", "perturbed"):
        if label == "perturbed" and label not in ctx.facts:
            continue
        output, blocked = _output(ctx, label)
        if blocked or not output:
            shares.append(0.0)
            notes.append(f"{label}: " + (blocked.rationale if blocked else "the output array is empty"))
            continue
        good = sum(map(judge.well_formed, output))
        shares.append(good / len(output))
        notes.append(f"{label}: {good}/{len(output)} output items")
    return Outcome.ratio(sum(shares), len(shares), "; ".join(notes) + f" are objects with exactly "
                         f"the keys {', '.join(data.OUTPUT_KEYS)} of the stated types")


def _pooled_outputs(ctx: CheckContext) -> tuple[list[tuple[list, list]], Outcome | None]:
    """(expected, output) for the fixture and the perturbed run; a failed perturbed run
    counts as an empty output, so canned fixture answers cannot earn these checks alone. An
    answer that prints exactly its fixture output for the other data too (where another
    output is expected) is hard-coded: its output does not depend on the input, and neither
    run is judged; so is one that runs on the other data but keeps none of its expected
    records (fitted to the fixture: a list of the fixture's ids, say)."""
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
        wanted = {row["id"] for row in perturbed["expected"]}
        if not problem and output and wanted and not wanted & set(judge.index_output(other)[0]):
            return [], Outcome.fail(f"fitted to the fixture: on other data it kept none of the "
                                    f"{len(wanted)} records expected ({len(other)} printed), so "
                                    f"what it printed for the fixture shows no rule it applies")
        pairs.append((perturbed["expected"], [] if problem else other))
    return pairs, None


@check("correct_filtering")
def correct_filtering(ctx: CheckContext) -> Outcome:
    """Kept ids against the answer key, pooled over the fixture and the perturbed data.

    Credit: ids both kept and expected over ids kept or expected (duplicate or id-less items
    added to the latter), summed over both data sets; an output printed unchanged for other
    data (hard-coded) or keeping none of its records (fitted to the fixture) earns nothing.
    Not a library type: ``output.json_equal`` compares whole values or positions, not records
    matched by a lenient id, and detects no canned output."""
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
    """Matched records with every field right, pooled over the fixture and the perturbed
    data (a record with one wrong field is a wrong record).

    Canned output earns nothing, as for ``correct_filtering``. Not a library type:
    ``output.json_equal`` matches items by position, not records by id."""
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
    return Outcome.ratio(correct, total, f"{correct}/{total} matched records with every field "
                         f"correct ({detail})")


@check("measured_performance")
def measured_performance(ctx: CheckContext) -> Outcome:
    """Kernel CPU time on 256 generated records against the reference's; any sleep costs all.

    The whole script's own CPU time in one run beside the fixture and perturbed ones (its
    imports included). The reference solution is timed the same way, once per process; an
    answer short of full credit is run again beside a fresh timing of the reference, and the
    better of the two comparisons counts. Full up to 2x the reference's
    cost, none from 10x (``benchmark.analyzers.timing``); scaled by the share of the
    perturbed run's records the answer got right or of the timed run's own output against the
    oracle's, whichever is lower (speed counts only for work done right). Not a library type:
    no library type times a run, nor compares it with the reference's."""
    output, blocked = _output(ctx, "perturbed")
    run = _run(ctx, "perturbed") or {}
    expected = run.get("expected") or []
    share = (0, max(1, len(expected))) if blocked or run.get("exit_code") != 0 else judge.record_share(expected, output)
    timed = (ctx.facts.get("measured") or {}).get("share")
    share, where = measured.weakest([(share, "the perturbed run"),
                                     (tuple(timed) if timed else None, "the timed run")])
    return measured.outcome(ctx, share, where)


@check("perturbed_dataset")
def perturbed_dataset(ctx: CheckContext) -> Outcome:
    """Other data with one record per form the contract lists: each form kept or dropped
    wrongly (a kept record not reproduced exactly included) costs a sixth of the check, and
    so do records of ids the data does not hold. Not a library type: the forms are the
    prompt's contract, generated by ``p1_refactoring_cases`` and judged one by one."""
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
