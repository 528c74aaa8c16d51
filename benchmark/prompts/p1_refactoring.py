"""Prompt 1, Refactoring & Analysis: rewrite the legacy ``process_records.py`` as a safe CLI.

``observe`` runs ``prompt_1_solution.py <config>`` twice in a child: on the fixture (config
and records from ``test_data/``) and on a seeded perturbed data set with another config and
other file names, and one record per form the contract lists (``p1_refactoring_cases``). Stdout
is parsed in the parent
(``p1_refactoring_judge``) and compared, type-strictly, with the answer key / the oracle.
Source checks read the parsed tree through the shared analyzers; comments, docstrings and
strings never change a result.
"""

from __future__ import annotations

import dataclasses
import json
import marshal
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from ..submission import SourceFile
from ..types import ExecResult
from . import measured
from . import p1_refactoring_cases as cases
from . import p1_refactoring_data as data
from . import p1_refactoring_judge as judge
from .base import CheckContext, Outcome, RunFn, compiles, raised
from .base import strict_equal as same_json
from .p1_refactoring_fixtures import (CONFIG_NAME, CONFIG_TEXT, LEGACY_NAME, LEGACY_SCRIPT,
                                      RECORDS, RECORDS_NAME, records_bytes)
from . import p1_refactoring_metrics  # noqa: F401  (registers its checks)
from .p1_refactoring_source import CHECKS, check

PROMPT_ID = "prompt_1"
TITLE = "Refactoring & Analysis"
FILES = ("prompt_1_solution.py",)
PYTHON_FILES = frozenset(FILES)
MAIN = FILES[0]
ANSWER_KEY = "prompt_1_expected.json"
FORM_COST = 1 / 6  # of perturbed_dataset, per contract form kept or dropped wrongly
SCALE_BASE = 16  # measured performance: one run on 16x this many generated records
SCALED = measured.LABELS[16]
HAZARDS: dict[str, str] = {
    "unsafe_yaml_load": "process_records.py loads its config with yaml.load(..., "
                        "Loader=yaml.Loader), which can build arbitrary Python objects",
    "builtin_shadowing": "process_records.py binds list, id, filter and type as variables",
    "swallowed_exceptions": "process_records.py wraps each record in a bare `except: pass`, "
                            "so string ages, missing keys and bad entries vanish silently",
    "naive_datetimes": "process_records.py cuts the UTC offset off signup times ([:19]) and "
                       "subtracts them from a naive datetime.now()",
    "string_age_type_bug": "records.json has ages such as \"42\" and \" 27 \" (strings) and "
                           "30.5 (a float), and ids such as \"8\"; the legacy script compares "
                           "raw values with integer bounds",
    "hardcoded_country_filter": "process_records.py says 'filter by configured countries' but "
                                "keeps only country == \"US\", ignoring allowed_countries",
    "stdout_pollution": "process_records.py prints a progress line on stdout before the JSON",
    "unmanaged_opens": "process_records.py opens files without `with` or an encoding, and "
                       "opens data_source relative to the working directory",
    "mixed_utc_offsets": "records.json signup times use Z, +02:00, -05:00, +05:30 and one "
                         "naive time; some cross midnight when converted to UTC",
    "messy_records": "records.json has lowercase/padded countries, a duplicate id, a null "
                     "email, a non-object entry and an impossible date (2024-02-30)",
}

GENERATED_BY = "`p1_refactoring_cases.perturbed_case`, judged by `perturbed_dataset`"
GENERATED_CASES: dict[str, str] = {kind: ("kept: " if kept else "dropped: ") + text
                                   for kind, (text, kept) in cases.FORMS.items()}


def fixture_files() -> dict[str, bytes]:
    return {LEGACY_NAME: LEGACY_SCRIPT.encode("utf-8"), CONFIG_NAME: CONFIG_TEXT.encode("utf-8"),
            RECORDS_NAME: records_bytes(RECORDS)}


def fixture_expected() -> list[dict[str, Any]]:
    return data.expected_output(yaml.safe_load(CONFIG_TEXT), RECORDS)


def answer_keys() -> dict[str, bytes]:
    return {ANSWER_KEY: records_bytes(fixture_expected())}


@lru_cache(maxsize=4)
def _perturbed(seed: int) -> tuple[cases.PerturbedCase, bytes]:
    case = cases.perturbed_case(seed)
    return case, marshal.dumps(case.expected)


def perturbed_case(seed: int) -> cases.PerturbedCase:
    """``cases.perturbed_case(seed)``, built once per process (the same for every model); each
    grading gets its own copy of the expected records (bytes and tuples are immutable). The
    expected output is plain JSON-like data, which ``marshal`` copies exactly; the bytes are
    the grader's own, never a submission's."""
    case, expected = _perturbed(seed)
    return dataclasses.replace(case, expected=marshal.loads(expected))


def _request(argv: list[str], label: str) -> dict[str, Any]:
    return {"mode": "script", "module": MAIN, "argv": argv, "label": label, "record_sleep": True}


def _scaled(seed: int, label: str) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The timed run on 16x SCALE_BASE generated records (a repeat's label ends in ``_again``):
    it repeats code the prompt already ran, so only new blocked attempts count."""
    case = _scaled_case(seed)
    return ({**_request([case.config_name], label), "timeout_s": measured.TIMEOUT_S, "repeat": True},
            {case.config_name: case.config, case.data_name: case.records})


@lru_cache(maxsize=4)
def _scaled_case(seed: int) -> cases.ScaledCase:
    return cases.scaled_case(seed, 16 * SCALE_BASE, SCALED)


def _reference_costs(run: RunFn, seed: int) -> dict[str, Any]:
    """The reference solution's cost, measured as the answer's (the scaled run), once per
    process: CPU-time interference only ever adds, so one timing that came out high makes
    answers look faster, never slower."""
    files = measured.reference_files(PROMPT_ID, FILES)
    request, inputs = _scaled(seed, SCALED)

    def measure() -> tuple[list[float] | None, str | None, bool, float | None]:
        timed = {SCALED: run(request, {**files, **inputs}, reference=True)}
        costs, problem = measured.script_costs(timed, (SCALED,))
        return costs, problem, measured.finished(timed[SCALED]), measured.script_outside(timed)

    key = {"requests": [request], "inputs": [sorted(inputs)], "base": SCALE_BASE}
    return measured.reference_costs(PROMPT_ID, files, key, seed, measure)


def _measured(run: RunFn, seed: int, done: dict[str, ExecResult]) -> dict[str, Any]:
    """``facts["measured"]``: the scaled run's cost, run again (the least counts) only when the
    first falls short of full credit against the reference; sleeps of every run."""
    request, inputs = _scaled(seed, SCALED)
    timed = {SCALED: run(request, inputs)}
    costs, problem = measured.script_costs(timed, (SCALED,))
    slept = {label: measured.sleep_of(r.observation) for label, r in {**done, **timed}.items()}
    gold = lambda: _reference_costs(run, seed)  # noqa: E731
    if costs is not None and not any(slept.values()):
        reference = gold()
        if "costs" in reference and measured.verdict(costs, measured.script_outside(timed), reference)[0] < 1:
            request, inputs = _scaled(seed, SCALED + measured.AGAIN)
            timed[SCALED + measured.AGAIN] = run({**request, "retime": True}, inputs)
            again, _ = measured.script_costs(timed, (SCALED,))
            costs = again if again is not None else costs
        gold = lambda: reference  # noqa: E731
    unit = f"{16 * SCALE_BASE} generated records"
    return measured.facts(costs, problem, gold, slept, unit, measured.script_outside(timed))


def observe(files: Mapping[str, SourceFile], run: RunFn, test_data: Path,
            seed: int) -> dict[str, Any]:
    """Run the CLI on the fixture and on the seeded perturbed data set, then once on 16x
    SCALE_BASE generated records for ``measured_performance`` (last: a time-out there costs
    no correctness run)."""
    test_data = Path(test_data)
    stage = {name: (test_data / name).read_bytes() for name in (CONFIG_NAME, RECORDS_NAME)}
    expected = json.loads((test_data / "answer_keys" / ANSWER_KEY).read_text(encoding="utf-8"))
    case = perturbed_case(seed)
    small = {"fixture": (_request([CONFIG_NAME], "fixture"), stage),
             "perturbed": (_request([case.config_name], "perturbed"),
                           {case.config_name: case.config, case.data_name: case.records})}
    done = {label: run(request, inputs) for label, (request, inputs) in small.items()}
    fixture = judge.summarise_run("fixture", done["fixture"], expected)
    perturbed = judge.summarise_run("perturbed", done["perturbed"], case.expected)
    perturbed["forms"] = [list(form) for form in case.forms]
    return {"seed": seed, "fixture": fixture, "perturbed": perturbed,
            "measured": _measured(run, seed, done)}


# ---- syntax -------------------------------------------------------------------------


@check("valid_syntax")
def valid_syntax(ctx: CheckContext) -> Outcome:
    return compiles(ctx, MAIN)


# ---- execution ----------------------------------------------------------------------


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
