"""Measured performance (issue 14): the pure judging on synthetic timings, the facts'
fail-closed paths, the reference timed once per process, and real gradings in the sandbox of
answers that differ from the reference by orders of magnitude (a sleep, a sort per record)."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest
from result_fakes import make_checks

from benchmark.analyzers import timing
from benchmark.engine.grading import GradeOptions, grade_prompt
from benchmark.engine.options import cacheable
from benchmark.packs.suite import core_pack
from benchmark.prompts import measured
from benchmark.prompts import p1_refactoring as p1
from benchmark.prompts import p3_transform as p3
from benchmark.prompts.base import CheckContext
from benchmark.rubric import RUBRIC
from benchmark.scoring import score_model, score_prompt
from benchmark.types import ExecResult, PromptResult

ROOT = Path(__file__).resolve().parent.parent
TEST_DATA = ROOT / "test_data"
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model"
CHECK = "measured_performance"


# ---- the pure judging ---------------------------------------------------------------


def test_band_is_full_up_to_its_bound_none_from_zero_and_log_linear_between():
    assert timing.band(1.0, 2, 10) == 1 and timing.band(2.0, 2, 10) == 1
    assert timing.band(10.0, 2, 10) == 0 and timing.band(50.0, 2, 10) == 0
    assert timing.band(2 * math.sqrt(5), 2, 10) == pytest.approx(0.5)


def test_quantised_to_the_nearest_quarter():
    assert [timing.quantised(x) for x in (0.0, 0.12, 0.13, 0.6, 0.63, 0.9, 1.0)] == [
        0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.0]


def test_an_answer_as_fast_as_the_reference_earns_full_credit_despite_jitter():
    gold = [0.020, 0.080]
    for jitter in (0.75, 0.8, 0.9, 1.0, 1.1, 1.25, 1.33):  # the small call varies most
        fraction, rationale = timing.judge([0.020 * jitter, 0.080 / jitter], gold)
        assert fraction == 1.0, (jitter, rationale)
    assert rationale.count("within 2x") == 2


def test_quadratic_work_loses_most_and_constant_factor_slowness_only_the_cost_half():
    gold = [0.020, 0.080]
    assert timing.judge([0.060, 0.960], gold)[0] == 0.0  # 12x cost, grows 4x faster
    assert timing.judge([0.100, 0.400], gold)[0] == 0.75  # 5x cost, linear
    assert timing.judge([0.100, 0.400], gold)[1].startswith("CPU time on 16x the records: about 4.5x")
    named = timing.judge([0.001, 0.009], [0.001, 0.009], ("the perturbed list", "the differential list"))
    assert named == (1.0, "CPU time on the differential list: within 2x the reference's; growth from "
                          "the perturbed list to the differential list: within 2x the reference's")


def test_one_scale_is_judged_by_the_cost_ratio_alone():
    assert timing.judge_cost(0.012, 0.010) == (1.0, "CPU time on 16x the records: within 2x the reference's")
    assert timing.judge_cost(0.050, 0.010) == (0.5, "CPU time on 16x the records: about 4.5x the reference's")  # 5x
    assert timing.judge_cost(0.500, 0.010)[0] == 0.0
    assert timing.judge_cost(0.0, 0.0)[0] == 1.0  # both under the floor


def test_a_one_scale_measurement_reaches_the_verdict_through_judge_cost():
    outcome = measured.outcome(_ctx(costs=[0.2], reference={"costs": [0.01]}))
    assert outcome.fraction == 0 and "about 10x or more" in outcome.rationale


def test_costs_under_the_timing_floor_count_as_the_floor():
    assert timing.judge([0.0, 0.0], [0.0001, 0.0004]) == timing.judge([0.0005, 0.0005], [0.0005, 0.0005])


@pytest.mark.parametrize("value", [True, "1.0", float("nan"), float("inf"), -0.1, None, [1.0]])
def test_seconds_rejects_anything_but_a_finite_non_negative_number(value):
    assert timing.seconds(value) is None


def test_seconds_accepts_ints_and_floats():
    assert timing.seconds(0) == 0.0 and timing.seconds(1.5) == 1.5


# ---- the facts and the verdict ------------------------------------------------------


def _ctx(**measured_facts) -> CheckContext:
    facts = {"costs": [0.02, 0.08], "problem": None, "slept": {}, "unit": "records",
             "reference": {"costs": [0.02, 0.08]}, **measured_facts}
    return CheckContext(files={}, facts={"measured": facts})


def test_a_sleep_costs_the_whole_check_and_the_rationale_names_the_total():
    outcome = measured.outcome(_ctx(slept={"scale_4x": 10.24, "scale_16x": 40.96}))
    assert outcome.fraction == 0 and "slept 51.2 s in total outside a retry back-off" in outcome.rationale
    assert "scale_16x 40.96 s" in outcome.rationale


def test_an_unmeasured_answer_fails_and_a_broken_reference_is_our_error():
    assert measured.outcome(_ctx(costs=None, problem="the scale_16x run timed out")).fraction == 0
    broken = measured.outcome(_ctx(reference={"problem": "reference solution: exited with 1"}))
    assert broken.status == "error"
    assert measured.outcome(CheckContext(files={}, facts={})).status == "error"


@pytest.mark.parametrize("transient, head", [(True, "reference solution did not finish"),
                                             (False, "reference solution failed")])
def test_a_failed_core_reference_leaves_the_check_unjudged_naming_the_prompt_and_its_file(transient, head):
    """Not judged, whatever the answer: an ``error`` naming the task, the reference's file and
    why; one that did not finish (the machine's load, perhaps) keeps its model out of the cache."""
    task = core_pack().task("prompt_3")
    gold = {"problem": "reference solution: the scale_16x call did not return with a CPU time",
            "transient": transient}
    facts = {"costs": [0.02, 0.08], "problem": None, "slept": {}, "unit": "64 and 256 generated users",
             "reference": gold}
    outcome = measured.outcome(CheckContext(files={}, facts={"measured": facts}, task=task), (3, 4), "x")
    assert outcome.status == "error" and outcome.cause == ("reference_unfinished" if transient else "reference")
    assert outcome.rationale == (
        f"{head}: task prompt_3 (prompt_3/reference/prompt_3_transform.py): the scale_16x call did "
        "not return with a CPU time (on 64 and 256 generated users); the check was not judged "
        "(the pack's fault, not the model's)")
    rubric = next(r for r in RUBRIC if r.id == "prompt_3")
    checks = [replace(c, earned=0.0, status="error", rationale=outcome.rationale, cause=outcome.cause)
              if c.id == CHECK else c for c in make_checks(rubric)]
    categories, score, passed = score_prompt(rubric, checks)
    prompt = PromptResult("prompt_3", rubric.title, score, 25.0, passed, "ok", categories, (), None, {})
    assert cacheable(score_model("m", "user_submissions", [prompt])) is not transient


def test_the_reference_is_timed_only_when_there_is_something_to_compare():
    def gold():
        raise AssertionError("the reference must not run")

    assert measured.facts(None, "no record", gold, {}, "records")["reference"] is None
    assert measured.facts([0.1, 0.4], None, gold, {"fixture": 0.5}, "records")["reference"] is None
    assert measured.facts([0.1, 0.4], None, lambda: {"costs": [1, 2]}, {"x": 0.0}, "r")["slept"] == {}


LABELS = ("small", "large")


def _call_result(cpu_total: float, per_call: float) -> ExecResult:
    results = [{"label": label, "returned": True, "exception": None, "cpu_s": per_call}
               for label in LABELS]
    return ExecResult(0, "", "", False, None, 1.0, cpu_total, 10.0, observation={"results": results})


def test_call_timings_are_trusted_only_within_the_kernels_total_for_the_run():
    assert measured.call_costs(_call_result(0.5, 0.2), LABELS) == ([0.2, 0.2], None)
    costs, problem = measured.call_costs(_call_result(0.1, 0.2), LABELS)
    assert costs is None and "not trusted" in problem


def test_a_timed_call_that_raised_or_was_not_reported_is_not_timed():
    result = _call_result(0.5, 0.2)
    result.observation["results"][1].update(returned=False, exception={"type": "KeyError", "message": "x"})
    assert "large call raised KeyError" in measured.call_costs(result, LABELS)[1]
    result.observation["results"].pop()
    assert "large call was not reported" in measured.call_costs(result, LABELS)[1]


def test_the_reference_is_timed_once_per_process_and_the_memo_matches_a_fresh_timing():
    from benchmark.packs import reference

    calls = []

    def measure():
        calls.append(1)
        return [0.01, 0.04], None, True, 0.03

    files = {"x.py": b"pass\n"}
    reference.clear()
    first = measured.reference_costs("prompt_3", files, {"calls": [1]}, 7, measure)
    again = measured.reference_costs("prompt_3", files, {"calls": [1]}, 7, measure)
    assert first == again == {"costs": [0.01, 0.04], "outside": 0.03} and len(calls) == 1
    measured.reference_costs("prompt_3", {"x.py": b"pass \n"}, {"calls": [1]}, 7, measure)
    measured.reference_costs("prompt_3", files, {"calls": [1]}, 8, measure)
    assert len(calls) == 3  # other bytes or another seed: timed afresh
    reference.clear()


def test_a_reference_timing_that_timed_out_is_not_kept():
    from benchmark.packs import reference

    calls = []

    def measure():
        calls.append(1)
        return None, "timed out", False, None

    reference.clear()
    for _ in range(2):
        got = measured.reference_costs("prompt_3", {"y.py": b"1"}, {}, 1, measure)
        assert got == {"problem": "reference solution: timed out", "transient": True}
    assert len(calls) == 2
    reference.clear()


def _p3_fake(times: list[dict[str, float]], seen: list, gold: list[dict[str, float]] | None = None):
    """A run() for p3.observe whose calls all return, taking the next CPU times by label (the
    reference's from ``gold`` in turn, else always 2 and 8 ms)."""
    def run(request, stage, reference=False):
        seen.append((request, reference))
        if reference:
            cpu = gold.pop(0) if gold else {"scale_4x": 0.002, "scale_16x": 0.008}
        else:
            cpu = times.pop(0)
        results = [{"label": c["label"], "returned": True, "exception": None, "value": None,
                    "cpu_s": cpu.get(c["label"], 0.0)} for c in request["calls"]]
        observation = {"import_error": None, "function_found": True, "results": results}
        return ExecResult(0, "", "", False, None, 0.1, 1.0, 10.0, observation=observation)
    return run


def test_p3_an_answer_short_of_full_credit_is_timed_once_more_and_the_least_counts():
    from benchmark.packs import reference

    reference.clear()
    seen: list = []
    run = _p3_fake([{"scale_4x": 0.002, "scale_16x": 0.040}, {"scale_4x": 0.002, "scale_16x": 0.009}], seen)
    facts = p3.observe({}, run, TEST_DATA, 7)
    assert [ref for _, ref in seen] == [False, True, False, True]  # answer, reference, both again
    again = seen[2][0]
    assert again["repeat"] is again["retime"] is True  # retime: not listed in the executions
    assert [c["label"] for c in again["calls"]] == ["fixture", "perturbed", "scale_4x", "scale_16x"]
    assert facts["measured"]["costs"] == [0.002, 0.009]
    assert measured.outcome(CheckContext(files={}, facts=facts)).fraction == 1.0
    seen.clear()
    p3.observe({}, _p3_fake([{"scale_4x": 0.002, "scale_16x": 0.008}], seen), TEST_DATA, 7)
    assert [ref for _, ref in seen] == [False]  # full credit at once: no repeat; reference memoised
    reference.clear()


def test_p3_a_reference_timing_inflated_by_load_costs_no_answer_points():
    # a burst of load during the process's one memoised reference timing, on its small input:
    # the reference's growth looks flat, so an answer that is the reference itself grows 3x
    # "faster". Its repeat is compared with the reference timed again beside it.
    from benchmark.packs import reference

    reference.clear()
    seen: list = []
    same = {"scale_4x": 0.002, "scale_16x": 0.008}
    burst = {"scale_4x": 0.006, "scale_16x": 0.008}
    run = _p3_fake([dict(same), dict(same)], seen, gold=[burst, dict(same)])
    facts = p3.observe({}, run, TEST_DATA, 7)
    assert [ref for _, ref in seen] == [False, True, False, True]
    assert facts["measured"]["reference"]["costs"] == [0.002, 0.008]  # the pair it did best on
    assert measured.outcome(CheckContext(files={}, facts=facts)).fraction == 1.0
    # without the second pair the first comparison alone would have cost points
    first = {"costs": [0.006, 0.008], "outside": facts["measured"]["reference"]["outside"]}
    assert measured.verdict([0.002, 0.008], facts["measured"]["outside"], first,
                            facts["measured"]["names"])[0] < 1
    reference.clear()


def test_best_pair_keeps_the_comparison_the_answer_does_best_on_and_skips_unusable_ones():
    slow, fast = [0.01, 0.40], [0.01, 0.04]
    gold = {"costs": [0.01, 0.04], "outside": 0.0}
    broken = {"problem": "reference solution: timed out", "transient": True}
    assert measured.best_pair([(slow, 0.0, gold), (fast, 0.0, gold)]) == (fast, 0.0, gold)
    assert measured.best_pair([(slow, 0.0, gold), (fast, 0.0, broken)]) == (slow, 0.0, gold)
    assert measured.best_pair([(fast, 0.0, gold), (list(fast), 0.0, gold)])[0] is fast  # first of equals


def test_cpu_the_kernel_counted_outside_the_timings_is_charged_beyond_the_allowance():
    # the child's per-call times are the answer's to change; the run's kernel total is not
    assert measured.unaccounted(0.05, 0.05) == 0 and measured.unaccounted(None, 0.05) == 0
    allowance = 0.05 * measured.OUTSIDE_RATIO + measured.OUTSIDE_SLACK_S
    assert measured.unaccounted(allowance, 0.05) == 0
    assert abs(measured.unaccounted(allowance + 0.4, 0.05) - 0.4) < 1e-9
    assert measured.call_outside(_call_result(0.5, 0.2)) == pytest.approx(0.1)
    assert measured.call_outside(_call_result(0.1, 0.2)) == 0.0  # never negative
    fair = measured.outcome(_ctx(outside=0.06, reference={"costs": [0.02, 0.08], "outside": 0.05}))
    assert fair.fraction == 1 and "kernel counted" not in fair.rationale
    # 0.5 s hidden from a timing that reports the reference's own cost: charged to the large input
    hiding = _ctx(outside=0.55, reference={"costs": [0.02, 0.08], "outside": 0.05})
    verdict = measured.outcome(hiding)
    assert verdict.fraction < 0.5 and "the kernel counted CPU time outside the timed code" in verdict.rationale
    assert measured.outcome(hiding).rationale == verdict.rationale  # no figure in it: stable
    # a charge the bands absorb (10 ms over the allowance, on a call of 80) costs nothing and is
    # not named: the rationale is as stable as the score under a machine's load
    absorbed = _ctx(outside=allowance + 0.01, reference={"costs": [0.02, 0.08], "outside": 0.05})
    assert measured.outcome(absorbed).fraction == 1 and "kernel counted" not in measured.outcome(absorbed).rationale


def test_script_outside_is_the_runs_kernel_total_less_the_scripts_own_time_least_over_repeats():
    def script(kernel: float, reported) -> ExecResult:
        return ExecResult(0, "", "", False, None, 1.0, kernel, 10.0,
                          observation={"exit_code": 0, "cpu_s": reported})

    assert measured.script_outside({"scale_16x": script(0.30, 0.02)}) == pytest.approx(0.28)
    both = {"scale_16x": script(0.30, 0.02), "scale_16x_again": script(0.05, 0.03)}
    assert measured.script_outside(both) == pytest.approx(0.02)
    assert measured.script_outside({"scale_16x": script(0.01, 0.5)}) == 0.0  # over-reported: clamped
    assert measured.script_outside({"scale_16x": script(0.3, "fast")}) is None


# ---- real gradings: correct but slow answers ----------------------------------------


def _variant(tmp_path: Path, name: str, module, old: str, new: str) -> Path:
    text = (REFERENCE / module.MAIN).read_text(encoding="utf-8")
    assert old in text
    folder = tmp_path / name
    folder.mkdir()
    (folder / module.MAIN).write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


def _import_time(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("import json\n", "import json\nimport time\n", 1), encoding="utf-8")


def _check(result, check_id: str = CHECK):
    return next(c for cat in result.categories for c in cat.checks if c.id == check_id)


def _grade(module, folder: Path):
    return grade_prompt(module, folder, test_data=TEST_DATA, options=GradeOptions())


P3_LOOP = "            transformed.append(transform_user(user))\n"
P3_QUADRATIC = (P3_LOOP + "            ordered.append(transformed[-1])\n"
                "            ordered = sorted(ordered, key=lambda item: json.dumps(item, default=str))\n")


@pytest.mark.parametrize("module", [p1, p3], ids=["prompt_1", "prompt_3"])
def test_the_reference_keeps_full_points_graded_twice(module):
    first, second = _grade(module, REFERENCE), _grade(module, REFERENCE)
    assert _check(first).earned == _check(first).points and first.score == 25.0
    assert (second.score, _check(second).rationale) == (first.score, _check(first).rationale)


P1_LOOP = "        row, reason = normalise_record(record, rules)\n"


def test_p1_an_answer_that_sleeps_per_record_loses_the_check_with_the_total_named(tmp_path):
    folder = _variant(tmp_path, "sleepy", p1, P1_LOOP, "        time.sleep(0.01)\n" + P1_LOOP)
    _import_time(folder / p1.MAIN)
    first, second = _grade(p1, folder), _grade(p1, folder)
    check = _check(first)
    assert check.earned == 0 and "slept" in check.rationale and "scale_16x 2.56 s" in check.rationale
    assert _check(first, "correct_values").earned == _check(first, "correct_values").points  # correct
    assert second.score == first.score


def test_p1_an_answer_that_sorts_everything_per_record_loses_the_check(tmp_path):
    new = P1_LOOP + "        _ = sorted(map(repr, records * 4))  # a fresh index of the whole batch, four times over\n"
    folder = _variant(tmp_path, "sorting", p1, P1_LOOP, new)
    result = _grade(p1, folder)
    check = _check(result)
    assert _check(result, "perturbed_dataset").earned == _check(result, "perturbed_dataset").points
    assert check.earned <= 0.5 * check.points, check.rationale
    assert "about" in check.rationale and "no sleep" in check.rationale
    # short of full credit, so timed once more; that run is not listed (it depends on timing)
    assert [e.get("label") for e in result.execution] == ["fixture", "perturbed", "edge", "scale_16x"]


def test_p3_an_answer_that_sleeps_per_record_loses_the_check_with_the_total_named(tmp_path):
    folder = _variant(tmp_path, "sleepy", p3, P3_LOOP, "            time.sleep(0.01)\n" + P3_LOOP)
    _import_time(folder / p3.MAIN)
    result = _grade(p3, folder)
    check = _check(result)
    assert check.earned == 0 and "slept" in check.rationale and "scale_16x 2.56 s" in check.rationale
    assert _check(result, "id_standardization").earned == _check(result, "id_standardization").points


P3_DEF = "def transform_and_enrich_users(user_list: Any) -> list[dict[str, Any]]:\n"


def _quadratic_p3(tmp_path: Path, name: str) -> Path:
    folder = _variant(tmp_path, name, p3, P3_LOOP, P3_QUADRATIC)
    text = (folder / p3.MAIN).read_text(encoding="utf-8")
    (folder / p3.MAIN).write_text(text.replace("    transformed = []\n", "    transformed = []\n    ordered = []\n", 1),
                                  encoding="utf-8")
    return folder


@pytest.mark.parametrize("how", ["thread", "forged_timer"])
def test_p3_slow_work_hidden_from_the_calls_timing_is_still_paid(tmp_path, how):
    # the same quadratic answer, its work in a worker thread (which a per-thread timer missed),
    # or with the harness's timer replaced through the caller's frame: the kernel still counts it
    folder = _quadratic_p3(tmp_path, how)
    path = folder / p3.MAIN
    text = path.read_text(encoding="utf-8")
    if how == "thread":
        wrapper = ("def transform_and_enrich_users(user_list: Any) -> list[dict[str, Any]]:\n"
                   "    import threading\n"
                   "    box = []\n"
                   "    worker = threading.Thread(target=lambda: box.append(_work(user_list)))\n"
                   "    worker.start()\n"
                   "    worker.join()\n"
                   "    return box[0]\n\n\n")
        text = text.replace(P3_DEF, wrapper + P3_DEF.replace("transform_and_enrich_users", "_work"), 1)
    else:
        forge = ("    frame = sys._getframe(1)\n"
                 "    if '_cpu_time' in frame.f_globals:\n"
                 "        frame.f_globals['_cpu_time'] = lambda: 0.0\n")
        text = text.replace(P3_DEF, P3_DEF + forge, 1)
    path.write_text(text, encoding="utf-8")
    result = _grade(p3, folder)
    check = _check(result)
    assert check.earned <= 0.5 * check.points, check.rationale
    if how == "thread":  # every thread's CPU is the call's (time.process_time)
        assert _check(result, "function_runs").earned == _check(result, "function_runs").points
    else:  # the worker's seal sees the replaced timer: the run's result is refused
        assert check.earned == 0 and _check(result, "function_runs").earned == 0
        assert "harness changed" in str(_check(result, "sandbox_violations").evidence)


def test_p3_a_timed_call_past_its_budget_is_stopped_and_costs_only_the_timing(tmp_path, monkeypatch):
    # right on every input but the timed one, where it spins: before the budget, the run hit
    # its deadline and every execution check of the prompt was lost with it
    monkeypatch.setattr(measured, "BUDGET_S", 1.0)
    spin = "    if isinstance(user_list, list) and len(user_list) == 256:\n        while True:\n            pass\n"
    folder = _variant(tmp_path, "spinning", p3, P3_DEF, P3_DEF + spin)
    result = _grade(p3, folder)
    execution = next(c for c in result.categories if c.category.value == "execution")
    assert execution.earned == execution.possible, [(c.id, c.rationale) for c in execution.checks]
    check = _check(result)
    assert check.earned == 0 and "the scale_16x call ran past its 1 s budget and was stopped" in check.rationale


def test_p3_an_answer_that_sorts_its_output_so_far_per_record_loses_most_of_the_check(tmp_path):
    folder = _variant(tmp_path, "sorting", p3, P3_LOOP, P3_QUADRATIC)
    text = (folder / p3.MAIN).read_text(encoding="utf-8")
    (folder / p3.MAIN).write_text(text.replace("    transformed = []\n", "    transformed = []\n    ordered = []\n", 1),
                                  encoding="utf-8")
    result = _grade(p3, folder)
    check = _check(result)
    assert _check(result, "function_runs").earned == _check(result, "function_runs").points
    assert check.earned <= 0.5 * check.points, check.rationale


# ---- the harness: per-call CPU time, recorded sleeps, timing-only calls -------------


def test_the_harness_times_each_call_records_sleeps_and_reports_no_value_for_a_measure_call():
    from benchmark.secure_runner import SecureRunner

    code = (b"import time\n"
            b"def f(n):\n"
            b"    time.sleep(3)\n"
            b"    total = 0\n"
            b"    for i in range(n):\n"
            b"        total += i * i\n"
            b"    return [total]\n")
    request = {"mode": "call", "module": "sub.py", "function": "f", "record_sleep": True,
               "calls": [{"label": "small", "args": [1000]},
                         {"label": "large", "args": [2_000_000], "measure": True}]}
    result = SecureRunner("t").run_harness(request, {"sub.py": code}, timeout=20)
    small, large = result.observation["results"]
    assert small["value"] == [sum(i * i for i in range(1000))] and small["mutated"] is False
    assert large["value"] is None and "mutated" not in large and large["value_type"] == "list"
    assert small["sleep_total"] == large["sleep_total"] == 3.0  # recorded, not slept
    assert result.wall_s < 3.0
    # orders of magnitude apart, and within the kernel's total for the whole child
    assert large["cpu_s"] > 20 * small["cpu_s"] and large["cpu_s"] > 0.02
    assert small["cpu_s"] + large["cpu_s"] <= result.cpu_s + measured.KERNEL_SLACK_S


def test_without_record_sleep_a_call_run_sleeps_for_real_and_reports_no_sleep_total():
    from benchmark.secure_runner import SecureRunner

    code = b"import time\ndef f():\n    time.sleep(0.2)\n    return 1\n"
    request = {"mode": "call", "module": "sub.py", "function": "f", "calls": [{"label": "x", "args": []}]}
    result = SecureRunner("t").run_harness(request, {"sub.py": code}, timeout=20)
    (item,) = result.observation["results"]
    assert item["value"] == 1 and "sleep_total" not in item and result.wall_s >= 0.2


def test_speed_counts_only_for_work_done_right():
    full = _ctx()
    assert measured.outcome(full, (17, 20), "the perturbed run").fraction == pytest.approx(0.85)
    assert "scaled by 17/20, the records of the perturbed run it got right" in \
        measured.outcome(full, (17, 20), "the perturbed run").rationale
    assert measured.outcome(full, (0, 17), "x").fraction == 0  # fast because it does nothing
    assert measured.outcome(full, (5, 5), "x") == measured.outcome(full) == measured.outcome(full, None)
    broken = _ctx(reference={"problem": "reference solution: exited with 1"})
    assert measured.outcome(broken, (1, 2), "x").status == "error"  # our fault stays ours


def test_record_shares_count_exact_records_and_unexpected_ones():
    from benchmark.prompts import p1_refactoring_judge as j1
    from benchmark.prompts import p3_transform_judge as j3

    expected = [{"id": 1, "a": "x"}, {"id": 2, "a": "y"}]
    assert j1.record_share(expected, [{"id": 1, "a": "x"}, {"id": 2, "a": "y"}]) == (2, 2)
    assert j1.record_share(expected, [{"id": 1, "a": "x"}, {"id": 2, "a": "z"}, {"id": 9}]) == (1, 3)
    assert j1.record_share(expected, [{"id": "1", "a": "x"}]) == (0, 2)  # found, but not exact
    assert j1.record_share(expected, []) == (0, 2)
    users = [{"id": 1}, {"id": 2}, "not a user"]
    want = [{"id": 1, "t": "a"}, {"id": 2, "t": "b"}]
    assert j3.record_share(users, want, [{"id": 1, "t": "a"}, {"id": 2, "t": "b"}]) == (2, 2)
    assert j3.record_share(users, want, [{"id": 1, "t": "a"}, {"id": 2, "t": 1}]) == (1, 2)
    assert j3.record_share(users, want, None) == (0, 2)
