"""Measured performance for the core prompts that run code: the ``measured_performance`` check.

A prompt's ``observe`` times its answer inside the sandbox on inputs generated from the seed,
and its reference solution (``benchmark/packs/core/<prompt>/reference/``) the same way through
``run(..., reference=True)``, memoised per process by (reference bytes, requests, inputs, seed).
Prompt 3 times two calls added at the end of its one call run, on 4x and 16x ``SCALE_BASE``
(64 and 256) generated users, each stopped at ``BUDGET_S``; a cost is the call's CPU
time from the kernel (``getrusage(RUSAGE_SELF)`` around the call in the child: every thread's),
trusted only while
the calls' sum stays within the child's own rusage. Prompt 1 (``script`` mode) adds one run on
256 generated records: its cost is the whole script's CPU time in that run
(``getrusage(RUSAGE_SELF)`` around it in the child, its imports included), judged by the cost
ratio alone. An answer short of full credit is timed once more, the reference again beside
it, and the better comparison counts (``best_pair``).
Either way the kernel's total for the run bounds what the child reports (``unaccounted``),
and the credit is scaled by the share of records like the timed ones that the answer got right.
``time.sleep`` is recorded, not slept; a sleep outside a retry back-off costs the whole check.
The facts are plain JSON (``facts["measured"]``); ``benchmark.analyzers.timing`` judges them.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..analyzers import timing
from ..harness.strict_json import _encode as strict_text
from ..packs import reference
from ..packs.compiled import CORE_DIR
from ..types import ExecResult
from .base import CheckContext, Outcome, raised

SCALES = timing.SCALES
LABELS = {scale: f"scale_{scale}x" for scale in SCALES}
AGAIN = "_again"  # a repeat of a timed run, made beside a fresh timing of the reference
TIMEOUT_S = 20.0  # a scaled run may take this long (it is the last run of its prompt)
BUDGET_S = 5.0  # a timed call inside a run is stopped here (the reference takes milliseconds)
KERNEL_SLACK_S = 0.02  # per-call times may exceed the run's kernel total by this much at most
REFERENCE = "reference solution: "
OUTSIDE_RATIO = 1.5  # CPU outside the timed code, allowed beyond the reference's, as a multiple
OUTSIDE_SLACK_S = 0.025  # ... plus this (first-run caches, a bigger import, larger output)


@lru_cache(maxsize=8)
def _reference_bytes(prompt_id: str, names: tuple[str, ...]) -> tuple[tuple[str, bytes], ...]:
    folder = CORE_DIR / prompt_id / "reference"
    return tuple((name, (folder / name).read_bytes()) for name in names)


def reference_files(prompt_id: str, names: tuple[str, ...]) -> dict[str, bytes]:
    """The reference solution's files of a core prompt, read once per process (a missing one
    raises: our fault)."""
    return dict(_reference_bytes(prompt_id, names))


def _failed(result: ExecResult) -> str | None:
    if result.killed_by == "skipped":
        return "was skipped (an earlier run of this prompt timed out)"
    if result.timed_out:
        return "timed out"
    if result.observation is None:
        return f"gave no record ({result.channel_error or 'the child died'})"
    return None


def finished(result: ExecResult) -> bool:
    """Whether a reference run ended on its own with a record. When it did not (skipped, timed
    out, no record) the machine's load may be why: the failure is not memoised, and a model
    graded with it is not cached (``benchmark.engine.options.cacheable``)."""
    return _failed(result) is None


def _script_cpu(result: ExecResult) -> float | None:
    return timing.seconds(result.observation.get("cpu_s"))


def script_costs(timed: dict[str, ExecResult], labels: tuple[str, ...] = tuple(LABELS.values())
                 ) -> tuple[list[float] | None, str | None]:
    """(cost per scale, None) or (None, why not): a cost is the least CPU time of a scale's timed
    runs (``<label>`` and optionally ``<label>_again``), the script's own (``cpu_s``:
    ``getrusage(RUSAGE_SELF)`` around it in the child, its imports and start included), so the
    interpreter's and the harness's start do not add their noise. The whole script, not its
    time less a small run's: a difference of two runs of a few milliseconds each moved by
    more than the band under load, a ratio of whole runs by a fraction of it. Least, since
    interference only ever adds."""
    for label, result in timed.items():
        problem = _failed(result)
        if problem is None and result.observation.get("exit_code") != 0:
            problem = f"exited with {result.observation.get('exit_code')}"
        if problem is None and _script_cpu(result) is None:
            problem = "reported no CPU time"
        if problem:
            return None, f"the {label} run {problem}"
    return [min(_script_cpu(r) for name, r in timed.items() if name in (label, label + AGAIN))
            for label in labels], None


def call_costs(result: ExecResult, labels: tuple[str, ...]) -> tuple[list[float] | None, str | None]:
    """(cost per label, None) or (None, why not) from a call/http run holding the calls named
    by ``labels``, each of which must have returned with a CPU time."""
    problem = _failed(result)
    if problem:
        return None, f"the run {problem}"
    items = _call_items(result)
    by_label = {r.get("label"): r for r in items}
    costs = []
    for label in labels:
        item = by_label.get(label)
        if item is None:
            return None, f"the {label} call was not reported"
        if type(item.get("exception")) is dict:
            if item["exception"].get("type") == "TimingBudgetExceeded":
                return None, (f"the {label} call ran past its {BUDGET_S:g} s budget and was stopped "
                              f"(zero credit starts at 10x the reference's milliseconds)")
            return None, f"the {label} call raised {raised(item['exception'])}"
        cost = timing.seconds(item.get("cpu_s"))
        if item.get("returned") is not True or cost is None:
            return None, f"the {label} call did not return with a CPU time"
        costs.append(cost)
    total = _reported(items)
    if total > result.cpu_s + KERNEL_SLACK_S:
        return None, (f"the calls' CPU times add up to more than the kernel measured for the whole "
                      f"run ({total:.3f} s > {result.cpu_s:.3f} s): not trusted")
    return costs, None


def script_outside(timed: dict[str, ExecResult]) -> float | None:
    """The CPU time the kernel counted in a scale's timed script run(s) outside the script's own
    reported time (the interpreter and the harness, and anything the timing missed), the least
    over the runs that reported one; None when none did."""
    values = [r.cpu_s - min(cpu, r.cpu_s) for r in timed.values()
              if _failed(r) is None and (cpu := _script_cpu(r)) is not None]
    return min(values) if values else None


def call_outside(result: ExecResult | None) -> float | None:
    """The CPU time the kernel counted in a call run outside the calls' reported times (the
    interpreter, the harness, the module's import, and anything the timing missed); None when
    the run gave no calls."""
    if result is None or _failed(result) is not None:
        return None
    return max(0.0, result.cpu_s - _reported(_call_items(result)))


def _call_items(result: ExecResult) -> list[dict[str, Any]]:
    """The call results of a run's record (dicts only: the record is the child's)."""
    raw = result.observation.get("results")
    return [r for r in raw if type(r) is dict] if type(raw) is list else []


def _reported(items: list[dict[str, Any]]) -> float:
    """The CPU seconds the child reported for these calls (a malformed figure counts as 0)."""
    return sum(timing.seconds(r.get("cpu_s")) or 0.0 for r in items)


def digest(item: Any) -> str:
    """The digest the harness reports for one item of a timed call's list (``modes._digests``):
    the first 16 hex digits of the SHA-256 of its strict JSON text (sorted keys, no spaces,
    ASCII), from the harness's own encoder, so an item equal to the oracle's, type for type,
    has the oracle's digest."""
    return hashlib.sha256(strict_text(item, 4).encode("ascii")).hexdigest()[:16]


def digest_share(expected: Sequence[str], reported: Any) -> tuple[int, int]:
    """(right, counted) for a timed call: the oracle's records whose digest the answer
    reported, by position when the answer has as many items, else each matched once; counted
    are the oracle's records. A report that is not a list of digests gets nothing right."""
    if type(reported) is not list:
        return 0, len(expected)
    if len(reported) == len(expected):
        return sum(1 for want, have in zip(expected, reported) if want == have), len(expected)
    have = Counter(d for d in reported if type(d) is str)
    return sum((Counter(expected) & have).values()), len(expected)


def timed_share(result: ExecResult | None, expected: Mapping[str, Sequence[str]]) -> tuple[int, int] | None:
    """(right, counted) over the timed calls of a run, each label's digests against the
    oracle's (``expected``: label -> digests); None when the run gave no record."""
    if result is None or _failed(result) is not None:
        return None
    by_label = {r.get("label"): r for r in _call_items(result)}
    right = counted = 0
    for label, digests in expected.items():
        item = by_label.get(label) or {}
        mine, total = digest_share(digests, item.get("digests") if item.get("returned") is True else None)
        right, counted = right + mine, counted + total
    return right, counted


def weakest(shares: Sequence[tuple[tuple[int, int] | None, str]]) -> tuple[tuple[int, int] | None, str]:
    """Of (share, where) pairs, the one with the lowest right/counted (None shares skipped):
    speed credit is scaled by the worst of the answer's correctness on the records like the
    timed ones and on the timed records themselves."""
    known = [(share, where) for share, where in shares if share is not None and share[1] > 0]
    if not known:
        return None, ""
    return min(known, key=lambda pair: pair[0][0] / pair[0][1])


def unaccounted(mine: float | None, reference: float | None) -> float:
    """The CPU time to charge to an answer's timed work: what the kernel counted outside its
    reported times beyond the reference's by more than the allowance (OUTSIDE_RATIO times the
    reference's, plus OUTSIDE_SLACK_S). The per-call times come from the child, which the
    answer runs in and could change; the kernel's count for the whole run it cannot, so work
    hidden from the timing (work in threads of its own, a timer it replaced) is still paid."""
    if mine is None or reference is None:
        return 0.0
    return max(0.0, mine - (reference * OUTSIDE_RATIO + OUTSIDE_SLACK_S))


def sleep_of(record: Mapping[str, Any] | None) -> float:
    """The recorded ``sleep_total`` of a run or call (0 when absent or malformed)."""
    return (timing.seconds(record.get("sleep_total")) or 0.0) if isinstance(record, Mapping) else 0.0


def reference_costs(prompt_id: str, files: Mapping[str, bytes], key: Mapping[str, Any], seed: int,
                    measure: Callable[[], tuple[list[float] | None, str | None, bool, float | None]],
                    *, fresh: bool = False) -> dict[str, Any]:
    """{"costs": [...], "outside": s} or {"problem": "reference solution: ...", "transient":
    bool}, memoised per process; ``key`` names the requests and inputs, ``measure()`` runs them
    and returns (costs, problem, whether the runs finished (``finished``), CPU outside the
    timed code). A failure of runs that did not finish is transient, and not kept. ``fresh``
    times the reference now, beside an answer's repeat, and keeps nothing (``best_pair``)."""
    def compute() -> tuple[dict[str, Any], bool]:
        costs, problem, keep, outside = measure()
        if problem:
            return {"problem": f"{REFERENCE}{problem}", "transient": not keep}, keep
        return {"costs": costs, "outside": outside}, keep

    if fresh:
        return compute()[0]
    return reference.memoised(files, {"prompt": prompt_id, **key}, {}, seed, compute)


Pair = tuple[list[float], float | None, Mapping[str, Any]]


def best_pair(pairs: Sequence[tuple[list[float] | None, float | None, Mapping[str, Any]]],
              names: Sequence[str] | None = None) -> Pair:
    """Of (answer's costs, its CPU outside the timed code, a reference timing) pairs, the one
    the answer does best on (the first of equals); pairs without costs on either side are
    left out, and the first pair must have them. An answer short of full credit is timed
    again with the reference timed again beside it: the load of a shared machine moves both
    timings of a pair alike, while the process's first reference timing may have met a
    different load; a burst that inflated the reference's small input would even make every
    answer's growth look worse. The better comparison counts, as the least of two timings of
    one program does."""
    usable = [(costs, outside, gold) for costs, outside, gold in pairs
              if costs is not None and "costs" in gold]
    return max(usable, key=lambda pair: verdict(*pair, names)[0])


def facts(costs: list[float] | None, problem: str | None, gold: Callable[[], dict[str, Any]],
          slept: Mapping[str, float], unit: str, outside: float | None = None) -> dict[str, Any]:
    """``facts["measured"]``: the answer's costs or why there are none, the reference's (timed
    only when the answer's are there to compare and it never slept), the sleeps outside a retry
    back-off by run or call label, what the records are, and the CPU the kernel counted outside
    the timed code (``outside``)."""
    slept = {label: total for label, total in slept.items() if total > 0}
    return {"costs": costs, "problem": problem, "slept": slept, "unit": unit, "outside": outside,
            "reference": gold() if costs is not None and not slept else None}


def outcome(ctx: CheckContext, share: tuple[int, int] | None = None, where: str = "") -> Outcome:
    """The ``measured_performance`` verdict from ``facts["measured"]`` (see the module doc).

    Speed counts only for work done right (as EvalPerf profiles only correct solutions): with
    ``share`` = (right, counted), the records of the prompt's generated input like the timed
    ones (``where``) that the answer got right, the timing's credit is scaled by right/counted.
    An answer that is fast because it skips the work (a hard-coded or keyword-stuffed one)
    earns nothing here; one that gets most records right, most of it."""
    timed = _timed_outcome(ctx)
    if share is None or timed.status is not None or timed.fraction == 0:
        return timed
    right, counted = share
    if counted <= 0 or right >= counted:
        return timed
    return Outcome(timed.fraction * right / counted,
                   f"{timed.rationale}; scaled by {right}/{counted}, the records of {where} it got "
                   f"right: speed counts only for work done right")


def _timed_outcome(ctx: CheckContext) -> Outcome:
    measured = ctx.facts.get("measured")
    if not isinstance(measured, dict):
        return Outcome.error("performance was not measured")
    slept = measured["slept"]
    if slept:
        where = ", ".join(f"{label} {total:g} s" for label, total in sorted(slept.items()))
        return Outcome.fail(f"slept {sum(slept.values()):g} s in total outside a retry back-off "
                            f"(time.sleep, recorded instead of slept: {where})")
    if measured["problem"]:
        return Outcome.fail(f"not timed on {measured['unit']}: {measured['problem']}")
    gold = measured["reference"]
    if "problem" in gold:  # not judged: the reference's fault (or the machine's), not the answer's
        transient = gold.get("transient") is not False
        return Outcome.error(reference.failure_message(
            ctx.task, getattr(ctx.task, "main", "?"), {measured["unit"]: gold["problem"]}, transient),
            reference.failure_cause(transient))
    fraction, rationale = verdict(measured["costs"], measured.get("outside"), gold, measured.get("names"))
    return Outcome(fraction, f"{rationale} (kernel CPU time on {measured['unit']}; no sleep)")


def verdict(costs: list[float], outside: float | None, gold: Mapping[str, Any],
            names: Sequence[str] | None = None) -> tuple[float, str]:
    """(fraction, rationale) for an answer's costs (one scale, or the small and large inputs
    named by ``names``) against the reference's ``gold``, with CPU the kernel counted outside
    the timed code beyond the reference's charged to the largest input (``unaccounted``; the
    rationale names the charge only when it cost credit). The prompts also use it to decide
    whether an answer is short of full credit and timed again."""
    def judged(mine: list[float]) -> tuple[float, str]:
        if len(mine) == 1:  # one scale (the largest): the cost ratio alone
            return timing.judge_cost(mine[0], gold["costs"][0])
        return timing.judge(mine, gold["costs"], names)

    hidden = unaccounted(outside, gold.get("outside"))
    fraction, rationale = judged([*costs[:-1], costs[-1] + hidden])
    # Named only where it cost credit, and with no figure: the rationale stays as stable as the
    # quantised score (a charge the bands absorb changes neither).
    if hidden and fraction < judged(list(costs))[0]:
        rationale += ("; the kernel counted CPU time outside the timed code well beyond the "
                      "reference's (work in threads of its own, a heavy import, or a timer the answer "
                      "replaced), charged to the largest input")
    return fraction, rationale
