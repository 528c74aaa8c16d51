"""Prompt 3, Data Transformation: ``transform_and_enrich_users(user_list)`` on user records.

``observe`` calls the function in one ``call`` child on four lists: the fixture
(``test_data/user_data.json``, loaded here with ``utf-8-sig``), a malformed list (non-dict
items, null/odd ``contact`` and ``stats``, unconvertible ids), a list generated from the
seed, and the differential run: a few hundred records whose values are drawn from the
contract's value classes (``p3_transform_cases``). Expected answers come from the answer key
(fixture) and the oracle in ``p3_transform_data`` (the others); the child never sees them.

Scoring choices, so that returning the input unchanged (or ``[]``/None) earns ~nothing:

* the four field checks count, pooled over the fixture and perturbed calls, only records
  whose field *must change* (the expected value differs type-strictly from the input's, a
  missing field included); each one right earns 1, and each field that was already right in
  the input but is broken by the output costs 1;
* ``function_runs`` is the share of fixture records that come back whole: every field the
  contract adds is present (values not judged) and every other field is exactly as it was,
  so a list returned without work, or a skeleton of new keys, earns 0;
* ``error_handling`` is half "the malformed call returned exactly one dict per dict input"
  and half "share of those records equal to the oracle's", all halved if the perturbed call
  did not return a list;
* ``differential_run`` judges each value class of the contract on its own (every record
  drawn from it right on the field it feeds); each class answered wrongly costs a sixth of
  the check. An id or age of more than 4300 digits may come back converted or not
  convertible (``p3_transform_data.either_way``: ``int()`` refuses it by default).

A judged call that raises or returns no list (the differential call also when it returns a
list of other than one record per dict record: its generated ids are no key to match by) is
made again in the same child run once per item of its list (``p3_transform_items``): a record
that raises or is dropped costs that record, and in the differential run the value class that
explains it, named with the input, never the rest.

Output records are matched to input records by position when the counts agree, else by id.
"""

from __future__ import annotations

import json
import marshal
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..submission import SourceFile
from ..types import ExecResult
from . import measured
from . import p3_transform_cases as cases
from . import p3_transform_data as data
from . import p3_transform_differential as differential
from . import p3_transform_items as items
from . import p3_transform_judge as judge
from .base import CheckContext, Outcome, RunFn
from .p3_transform_source import CHECKS, check
# Every core check lives in this module's namespace too (library users import them from here).
from .p3_transform_source import MAX_FUNCTION_LINES, basic_organization, readable_loops  # noqa: F401

PROMPT_ID = "prompt_3"
TITLE = "Data Transformation"
FILES = ("prompt_3_transform.py",)
PYTHON_FILES = frozenset(FILES)
MAIN, FUNCTION = judge.MAIN, judge.FUNCTION
LABELS = ("fixture", "malformed", "perturbed", judge.DIFFERENTIAL)
RETRY_LABELS = (*judge.SCORED_LABELS, judge.DIFFERENTIAL)  # all but the malformed list
SCALE_BASE = 16  # the added timed call gets 16x this many generated users
SMALL, SCALED = measured.LABELS[4], measured.LABELS[16]
TIMED = (SMALL, SCALED)  # measured performance: the small input, then the large one
HAZARDS: dict[str, str] = data.HAZARDS
GENERATED_BY = "`p3_transform_cases.differential_case`, judged by `differential_run`"
GENERATED_CASES: dict[str, str] = {f"{column}.{name}": text for column, names in
                                   cases.CLASSES.items() for name, text in names.items()}


def fixture_files() -> dict[str, bytes]:
    return {data.FIXTURE_PATH: data.fixture_bytes()}


def answer_keys() -> dict[str, bytes]:
    return {data.ANSWER_KEY_PATH: data.dump_json(data.expected_output(data.fixture_users()))}


# ---- observing ----------------------------------------------------------------------


@lru_cache(maxsize=4)
def timed_digests(seed: int) -> dict[str, tuple[str, ...]]:
    """The oracle's answer to each timed call, as the digests of its records
    (``measured.digest``): what a timed call must report before its time earns credit. The
    same for every model, so made once per process."""
    return {label: tuple(measured.digest(record) for record in
                         data.expected_output(data.scaled_users(seed, scale * SCALE_BASE)))
            for label, scale in ((SMALL, 4), (SCALED, 16))}


def _timed_calls(seed: int) -> list[dict[str, Any]]:
    """The two added calls, last in the run: 4x and 16x SCALE_BASE generated users (64 and
    256, drawn like the perturbed ones); only their type, their records' digests (checked
    against ``timed_digests``) and CPU time come back (``measure``),
    and the harness stops each after ``measured.BUDGET_S``, so a call that is merely slow there
    costs the timing, not the run's other calls. Growth is measured from 64 users, not from the
    perturbed list: its 24-36 users cost the reference about half a millisecond, which jitter
    moved by more than the band."""
    return [{"label": label, "args": [data.scaled_users(seed, scale * SCALE_BASE)], "measure": True,
             "budget_s": measured.BUDGET_S} for label, scale in ((SMALL, 4), (SCALED, 16))]


def _request(calls: list[dict[str, Any]]) -> dict[str, Any]:
    return {"mode": "call", "module": MAIN, "function": FUNCTION, "calls": calls, "record_sleep": True}


def _run_calls(run: RunFn, inputs: dict[str, Any], labels: tuple[str, ...],
               seed: int) -> tuple[ExecResult | None, str]:
    """The judged calls, each made again item by item in the same run when it fails as a
    whole (``p3_transform_items``), then the timed calls."""
    calls = [{"label": label, "args": [inputs[label]],
              **items.request_key(inputs[label], whole=label == judge.DIFFERENTIAL)} for label in labels]
    result = run(_request([*calls, *_timed_calls(seed)]), {})
    if result.observation is None:
        why = "timed out" if result.timed_out else (result.channel_error or "no record")
        return None, f"the child run failed ({why})"
    return result, ""


def _timing_request(inputs: dict[str, Any], seed: int, labels: tuple[str, ...]) -> dict[str, Any]:
    return _request([*({"label": label, "args": [inputs[label]]} for label in labels), *_timed_calls(seed)])


def _reference_costs(run: RunFn, inputs: dict[str, Any], seed: int, fresh: bool = False) -> dict[str, Any]:
    """The reference solution's costs, from the answer's own calls in a call run of its own
    (so the perturbed call is as warm as the answer's), once per process
    (``measured.reference_costs``), or ``fresh`` beside an answer's repeat."""
    files = measured.reference_files(PROMPT_ID, FILES)
    request = _timing_request(inputs, seed, LABELS)

    def measure() -> tuple[list[float] | None, str | None, bool]:
        result = run(request, files, reference=True)
        costs, problem = measured.call_costs(result, TIMED)
        return costs, problem, measured.finished(result), measured.call_outside(result)

    key = {"calls": [*LABELS, *TIMED], "scales": [4 * SCALE_BASE, 16 * SCALE_BASE]}
    return measured.reference_costs(PROMPT_ID, files, key, seed, measure, fresh=fresh)


def _measured(run: RunFn, seed: int, inputs: dict[str, Any], result: ExecResult | None,
              problem: str, results: dict[str, Any]) -> dict[str, Any]:
    """``facts["measured"]``; an answer short of full credit is timed once more (the fixture
    call to warm up, the perturbed and the timed call, marked ``repeat``) and the reference
    again beside it, and the better comparison counts (``measured.best_pair``), so a timing
    flake does not cost points."""
    if result is None:
        costs, problem = None, problem or "the run gave no record"
    else:
        costs, problem = measured.call_costs(result, TIMED)
    outside = measured.call_outside(result) if costs is not None else None
    shares = [measured.timed_share(result, timed_digests(seed))]
    slept = {label: measured.sleep_of(item) for label, item in results.items()}
    names = [f"{4 * SCALE_BASE} generated users", f"{16 * SCALE_BASE} generated users"]
    gold = lambda: _reference_costs(run, inputs, seed)  # noqa: E731
    if costs is not None and not any(slept.values()):
        reference = gold()
        if "costs" in reference and measured.verdict(costs, outside, reference, names)[0] < 1:
            again = run({**_timing_request(inputs, seed, ("fixture", "perturbed")), "repeat": True,
                         "retime": True}, {})
            retimed, _ = measured.call_costs(again, TIMED) if again.observation else (None, None)
            if retimed:
                beside = _reference_costs(run, inputs, seed, fresh=True)
                repeat = measured.call_outside(again)
                costs, outside, reference = measured.best_pair(
                    [(costs, outside, reference), (retimed, repeat, reference), (retimed, repeat, beside)], names)
                shares.append(measured.timed_share(again, timed_digests(seed)))
        gold = lambda: reference  # noqa: E731
    unit = f"{4 * SCALE_BASE} and {16 * SCALE_BASE} generated users"
    share, _ = measured.weakest([(share, "") for share in shares])
    return {**measured.facts(costs, problem, gold, slept, unit, outside), "names": names,
            "share": list(share) if share else None}


@lru_cache(maxsize=4)
def _generated(seed: int) -> bytes:
    """The seed's generated call inputs, their expected outputs (the oracle's) and the
    differential run's value classes, marshalled: the same for every model, so made once per
    process; each grading unmarshals its own copy (see ``generated``)."""
    differential, classes = cases.differential_case(seed)
    inputs = {"malformed": data.malformed_users(), "perturbed": data.perturbed_users(seed),
              judge.DIFFERENTIAL: differential}
    answers = {label: data.expected_output(inputs[label]) for label in LABELS[1:]}
    return marshal.dumps((inputs, answers, classes))


def generated(seed: int) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """(inputs, expected outputs, value classes) for ``seed``: a fresh copy for each grading,
    so no grading sees what another did to its copy. Plain JSON-like data only (dicts, lists,
    tuples, str, int, float, bool, None), so ``marshal`` copies it exactly, shared parts
    shared as ``copy.deepcopy`` would, at a sixth of deepcopy's cost; the bytes are the
    grader's own, never a submission's."""
    return marshal.loads(_generated(seed))


def observe(files: Mapping[str, SourceFile], run: RunFn, test_data: Path, seed: int) -> dict[str, Any]:
    """Run the four calls and one timed call in one child; if that child dies (a crash on the
    malformed list, say), run the others again without it, so only it is lost. After a
    time-out the retry is skipped by the engine: a prompt's time budget is one time-out. The
    CPU times of the perturbed and timed calls go to ``facts["measured"]`` (``measured``)."""
    users = json.loads((test_data / data.FIXTURE_PATH).read_bytes().decode("utf-8-sig"))
    key = (test_data / "answer_keys" / data.ANSWER_KEY_PATH).read_text(encoding="utf-8")
    generated_inputs, answers, classes = generated(seed)  # each grading its own copy
    inputs = {"fixture": users, **generated_inputs}
    expected = {"fixture": json.loads(key), **answers}
    facts: dict[str, Any] = {"seed": seed, "inputs": inputs, "expected": expected,
                             "classes": classes, "results": {}, "problem": "", "unobserved": {}}
    result, problem = _run_calls(run, inputs, LABELS, seed)
    if result is None:
        facts["unobserved"] = {"malformed": problem}
        result, problem = _run_calls(run, inputs, RETRY_LABELS, seed)
    everything = {r["label"]: r for r in result.observation.get("results", [])} if result else {}
    facts["measured"] = _measured(run, seed, inputs, result, problem, everything)
    if result is None:
        facts["problem"] = problem
        return facts
    observation = result.observation
    facts["import_error"] = observation.get("import_error")
    facts["function_found"] = observation.get("function_found")
    facts["results"] = {label: r for label, r in everything.items() if label in LABELS}
    items.attach(facts["results"], everything, inputs)
    return facts


# ---- execution ----------------------------------------------------------------------
# Every check below judges this module's own observe facts (``facts["results"]``, the oracle's
# answers, the value classes), which no library type reads: library types judge the generic
# observe's ``facts["cases"]``/``facts["runs"]``.


@check("function_runs")
def function_runs(ctx: CheckContext) -> Outcome:
    """The share of fixture records that come back whole.

    A record counts when every field the contract adds is present (values not judged) and
    every other field is exactly as it was in the input, so a list returned without work, or
    a skeleton of new keys, earns 0. Reads this prompt's own observe facts, which no library
    type reads."""
    return judge.judge_fixture_records(ctx)


@check("id_standardization")
def id_standardization(ctx: CheckContext) -> Outcome:
    """Rule 1: every convertible id comes back as its int; any other id is kept as it was.

    Pooled over the fixture and perturbed calls, only records whose id must change count:
    each one right earns 1, and each id the input already had right but the output broke
    costs 1. Reads this prompt's own observe facts, which no library type reads."""
    return judge.judge_field(ctx, "id", "an int id")


@check("email_provider")
def email_provider(ctx: CheckContext) -> Outcome:
    """Rule 2: contact.email_provider is the lower-cased part after the email's last ``@``, else null.

    Pooled over the fixture and perturbed calls, only records whose provider must change
    count: each one right earns 1, and each one the input already had right but the output
    broke costs 1. Reads this prompt's own observe facts, which no library type reads."""
    return judge.judge_field(ctx, "email_provider", "contact.email_provider")


@check("age_normalization")
def age_normalization(ctx: CheckContext) -> Outcome:
    """Rule 3: stats.age comes back as its int when convertible, else null.

    Pooled over the fixture and perturbed calls, only records whose age must change count:
    each one right earns 1, and each age the input already had right but the output broke
    costs 1. Reads this prompt's own observe facts, which no library type reads."""
    return judge.judge_field(ctx, "age", "a normalised stats.age")


@check("account_tiers")
def account_tiers(ctx: CheckContext) -> Outcome:
    """Rule 4: account_tier is Gold, Silver or Bronze by the purchase count's bands.

    Pooled over the fixture and perturbed calls, only records whose tier must change count
    (a record without the key, which is nearly every one): each one right earns 1, and each
    tier the input already had right but the output broke costs 1. Reads this prompt's own
    observe facts, which no library type reads."""
    return judge.judge_field(ctx, "account_tier", "an account_tier")


@check("error_handling")
def error_handling(ctx: CheckContext) -> Outcome:
    """The malformed list is survived: half for one dict back per dict input, half for the share equal to the oracle's.

    All of it is halved when the perturbed call did not return a list. Reads this prompt's
    own observe facts (the malformed call), which no library type reads."""
    return judge.judge_malformed(ctx)


@check("differential_run")
def differential_run(ctx: CheckContext) -> Outcome:
    """A few hundred generated records, every value class the contract lists (ids and ages
    as ints, floats, padded/signed/huge/non-ASCII/garbage text; odd emails; missing, null
    and non-dict contact/stats; purchase counts at the limits and in forms float() takes but
    the contract does not): each class answered wrongly costs a sixth of the check. Ids and
    ages of more than 4300 digits may come back converted or not convertible. When the call
    raises, each record is judged on its own call in the same run: a record that raises costs
    only the value class that explains it, named with the input. No library type judges by
    value class (``cases.equal`` scores each case alone)."""
    return differential.judge_differential(ctx)


# ---- quality and performance, from what the calls did --------------------------------


@check("no_input_mutation")
def no_input_mutation(ctx: CheckContext) -> Outcome:
    """The input list is left unchanged: the share of observed calls that did not modify it.

    ``cases.no_mutation`` judges the generic observe's ``facts["cases"]``; this prompt's calls
    are its own observe's (``facts["results"]``)."""
    blocked = judge.blocker(ctx)
    if blocked:
        return blocked
    seen = [r for r in ctx.facts["results"].values() if r.get("mutated") is not None]
    if not seen:
        return Outcome.fail("no call was observed, so mutation could not be ruled out")
    mutated = sorted(r["label"] for r in seen if r["mutated"])
    if mutated:
        return Outcome.ratio(len(seen) - len(mutated), len(seen),
                             f"the input list was modified in {len(mutated)} of {len(seen)} calls "
                             f"({', '.join(mutated)})")
    return Outcome.ok(f"the input list was left unchanged in all {len(seen)} calls")


@check("measured_performance")
def measured_performance(ctx: CheckContext) -> Outcome:
    """Kernel CPU time of the calls on 64 and 256 generated users against the reference's; any sleep costs all.

    The two added calls run last in the prompt's one call run; the reference solution is
    timed on the same two lists once per process. Cost on 256 users is full up to 2x the
    reference's, growth from 64 to 256 users full up to 2x the reference's
    (``benchmark.analyzers.timing``); scaled by the share of the perturbed list's records the
    answer got right or of the timed calls' own records, whichever is lower (each timed call
    reports its records' digests, compared with the oracle's: speed counts only for work done
    right). No library type times calls against the reference solution."""
    facts = ctx.facts
    share = None
    if "expected" in facts and "perturbed" in facts.get("expected", {}):
        value = judge.call_value(ctx, "perturbed") if "results" in facts else None
        share = judge.record_share(facts["inputs"]["perturbed"], facts["expected"]["perturbed"], value)
    timed = (facts.get("measured") or {}).get("share")
    share, where = measured.weakest([(share, "the perturbed list"),
                                     (tuple(timed) if timed else None, "the timed calls")])
    return measured.outcome(ctx, share, where)
