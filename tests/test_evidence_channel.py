"""Property tests of every pipe the grader reads from a run (hypothesis): arbitrary bytes,
partial lines, huge lines, NUL, invalid UTF-8 and valid-looking forged records.

- the worker's report pipe, read by the supervisor (``child._compose`` and ``_record_text``);
- the result channel, read by the grader (``result_record.validated``);
- a run's stdout, stderr and record as the prompts judge them (``grade_prompt`` with a
  runner that hands back what hypothesis made instead of starting a child).

The properties: nothing raises; what comes out is bounded and of the one shape its reader
accepts; a forged result line beside the harness's own is never credited; a prompt judged on
arbitrary output is never an internal error of the grader. ``RUBRICBENCH_EXAMPLES=N`` runs N
examples of each (the suite's default is 60 and 50; 1500 each passed when this was written).
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmark.engine.grading import grade_prompt
from benchmark.engine.options import INTERNAL_ERROR, GradeOptions
from benchmark.harness import child
from benchmark.prompts import p1_refactoring, p3_transform, p4_api_sync
from benchmark.sandbox import result_record
from benchmark.types import ExecResult

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model"
TEST_DATA = ROOT / "test_data"
SETTINGS = settings(max_examples=int(os.environ.get("RUBRICBENCH_EXAMPLES", "60")), deadline=None, suppress_health_check=list(HealthCheck))

# ---- what a submission can write ----------------------------------------------------------

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                    st.text(max_size=40))
# ints past int()'s 4300 digits, written as text (neither json.dumps nor a repr takes them)
LONG_INTS = ('{"blocked": ' + "9" * 5001 + "}", '{"result": {"cpu_s": ' + "7" * 25_001 + "}}",
             '{"blocked": "network", "event": "socket.connect", "detail": ' + "1" * 4400 + "}")
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)), max_leaves=12)
kinds = st.sampled_from(["network", "filesystem", "process", "native", "integrity", "introspection",
                         "blocked", "", "NETWORK"])
blocked_lines = st.builds(
    lambda kind, event, detail, extra: json.dumps({"blocked": kind, "event": event, "detail": detail,
                                                   **extra}),
    st.one_of(kinds, values), st.one_of(st.text(max_size=80), values),
    st.one_of(st.text(max_size=400), values),
    st.dictionaries(st.sampled_from(["count", "file", "x"]), values, max_size=1))
result_lines = st.builds(lambda result: json.dumps({"result": result}),
                         st.dictionaries(st.sampled_from(["results", "exit_code", "blocked_events",
                                                          "integrity", "nonce", "cpu_s", "x"]),
                                         values, max_size=4))
error_lines = st.builds(lambda value: json.dumps({"harness_error": value}), values)
raw_lines = st.one_of(st.binary(max_size=200).map(lambda b: b.decode("utf-8", "replace")),
                      st.just("\x00" * 50), st.just("[" * 5000), st.just("{" * 60_000),
                      st.just("x" * 200_000), st.text(max_size=100), st.sampled_from(LONG_INTS))
lines = st.lists(st.one_of(blocked_lines, result_lines, error_lines, raw_lines), max_size=30)


def genuine_result() -> str:
    """The line the harness's own worker writes at the end of a call run."""
    return json.dumps({"result": {"import_error": None, "function_found": True, "signature": None,
                                  "results": [{"label": "a", "returned": True, "value": [1]}]}})


# ---- the worker's report pipe, read by the supervisor -------------------------------------


@SETTINGS
@given(lines, st.booleans(), st.integers(min_value=0, max_value=3))
def test_the_supervisor_takes_any_report_and_writes_a_bounded_record_of_its_one_shape(text, genuine, cut):
    body = "\n".join(text)
    body = body[:len(body) - cut]  # a partial line (the harness's own, when there is one, follows)
    if genuine:
        body += "\n" + genuine_result() + "\n"
    record = child._compose({"mode": "call"}, body, 0)
    events = record["blocked_events"]
    assert len(events) <= child.MAX_EVENTS + 3
    assert all(result_record._event_ok(event) for event in events), events
    line = child._record_text({**record, "nonce": "n"})
    assert len(line) <= child.RECORD_LIMIT
    decoded = json.loads(line)
    assert decoded["blocked_events"] == events and decoded["nonce"] == "n"
    forged = sum(1 for item in body.split("\n") if _is_result_line(item)) - genuine
    if genuine and forged:  # the harness's line and a forged one: no result is credited
        assert record["integrity"] and not record["reported"]


def _is_result_line(line: str) -> bool:
    try:
        item = json.loads(line)
    except (ValueError, RecursionError):
        return False
    return type(item) is dict and len(item) == 1 and type(item.get("result")) is dict


def test_a_flood_of_distinct_attempts_makes_a_record_of_64_and_a_count():
    text = "\n".join(json.dumps({"blocked": "network", "event": "socket.connect", "detail": str(i)})
                     for i in range(20_000))
    record = child._compose({"mode": "script"}, text, 0)
    assert len(record["blocked_events"]) == child.MAX_EVENTS
    assert record["blocked_unlisted"] == 20_000 - child.MAX_EVENTS
    assert all(event["count"] == 1 for event in record["blocked_events"])


# ---- the result channel, read by the grader -----------------------------------------------


def _channel(raw: bytes, mode: str = "call", nonce: str = "n" * 32, timed_out: bool = False) -> ExecResult:
    result = ExecResult(returncode=0, stdout="", stderr="", timed_out=timed_out, killed_by=None,
                        wall_s=0.1, cpu_s=0.1, peak_rss_mb=10.0, observation={"_raw": raw})
    return result_record.validated(result, mode, nonce)


@SETTINGS
@given(st.one_of(st.binary(max_size=3000), st.builds(
    lambda record, nonce: json.dumps({**record, "nonce": nonce, "mode": "call"}).encode(),
    st.dictionaries(st.sampled_from(["results", "blocked_events", "blocked_unlisted", "reported",
                                     "worker_timed_out", "integrity", "harness_error", "oversized",
                                     "exception", "cpu_s", "import_error", "function_found"]),
                    values, max_size=6),
    st.sampled_from(["n" * 32, "forged"]))))
def test_the_grader_takes_any_channel_bytes_and_keeps_only_well_shaped_evidence(raw):
    result = _channel(raw)
    assert (result.observation is None) != (result.channel_error is None) or result.observation is None
    assert len(result.blocked_events) <= result_record.MAX_EVENTS
    assert all(result_record._event_ok(event) for event in result.blocked_events)
    assert type(result.blocked_unlisted) is int and result.blocked_unlisted >= 0
    if result.observation is not None:
        assert result_record.shape_problem(result.observation) is None
    if result.observation is None and not any(
            e["event"] == result_record.LOST_EVENT for e in result.blocked_events):
        assert json.loads(raw).get("nonce") == "n" * 32  # only a record the supervisor wrote keeps evidence


def test_a_run_with_no_record_is_lost_evidence_and_one_the_supervisor_timed_out_is_not():
    for raw, timed_out in ((b"", False), (b"{not json", False), (b"", True)):
        result = _channel(raw, timed_out=timed_out)
        assert [e["event"] for e in result.blocked_events] == [result_record.LOST_EVENT]
    kept = {"blocked": "network", "event": "socket.connect", "detail": "", "count": 2}
    record = {"mode": "call", "nonce": "n" * 32, "worker_timed_out": True, "blocked_events": [kept],
              "blocked_unlisted": 0, "reported": False}
    result = _channel(json.dumps(record).encode())
    assert result.timed_out and result.killed_by == "timeout" and result.observation is None
    assert result.blocked_events == (kept,)


# ---- a run's output as the prompts judge it -------------------------------------------------


class FakeRunner:
    """Hands back, for every run (the reference's included), what the test made: no child."""

    def __init__(self, make):
        self.make = make

    def run_harness(self, request, staged, timeout=None):
        return self.make(request)


def _grade(module, monkeypatch, make):
    monkeypatch.setattr(GradeOptions, "runner", lambda self, model: FakeRunner(make))
    return grade_prompt(module, REFERENCE, test_data=TEST_DATA, options=GradeOptions())


def _assert_judged(result):
    errors = [c for category in result.categories for c in category.checks
              if INTERNAL_ERROR in c.rationale]
    assert not errors, errors
    assert 0 <= result.score <= result.max_score


observations = st.dictionaries(
    st.sampled_from(["exit_code", "exception", "cpu_s", "sleep_total", "import_error",
                     "function_found", "signature", "results", "reported", "worker_exit",
                     "output_file"]),
    st.one_of(values, st.lists(st.dictionaries(
        st.sampled_from(["label", "returned", "value", "value_type", "exception", "mutated",
                         "output", "cpu_s", "digests", "requests", "log", "length"]),
        values, max_size=8), max_size=5)), max_size=8)
outputs = st.one_of(st.text(max_size=300), st.binary(max_size=300).map(lambda b: b.decode("utf-8", "replace")),
                    st.just("[" * 3000), st.just('[{"id": 1}]'), st.just("\x00" * 100))


def _made(observation, stdout, stderr, timed_out):
    def make(request):
        nonce = secrets.token_hex(4)
        raw = json.dumps({**observation, "mode": request["mode"], "nonce": nonce}).encode()
        result = ExecResult(returncode=0, stdout=stdout, stderr=stderr, timed_out=timed_out,
                            killed_by=None, wall_s=0.01, cpu_s=0.01, peak_rss_mb=1.0,
                            observation={"_raw": raw})
        return result_record.validated(result, request["mode"], nonce)
    return make


@settings(max_examples=int(os.environ.get("RUBRICBENCH_EXAMPLES", "50")), deadline=None, suppress_health_check=list(HealthCheck))
@given(observations, outputs, outputs, st.booleans())
def test_a_script_prompt_judged_on_arbitrary_runs_is_never_the_graders_error(
        monkeypatch, observation, stdout, stderr, timed_out):
    _assert_judged(_grade(p1_refactoring, monkeypatch, _made(observation, stdout, stderr, timed_out)))


@settings(max_examples=int(os.environ.get("RUBRICBENCH_EXAMPLES", "50")), deadline=None, suppress_health_check=list(HealthCheck))
@given(observations, outputs, st.booleans())
def test_call_and_http_prompts_judged_on_arbitrary_records_are_never_the_graders_error(
        monkeypatch, observation, stdout, timed_out):
    for module in (p3_transform, p4_api_sync):
        _assert_judged(_grade(module, monkeypatch, _made(observation, stdout, "", timed_out)))


def test_past_the_lines_the_supervisor_reads_the_rest_is_lost_evidence():
    line = json.dumps({"blocked": "network", "event": "socket.connect", "detail": "x"})
    record = child._compose({"mode": "script"}, "\n".join([line] * (child.MAX_LINES + 5)), 0)
    assert record["integrity"] and record["blocked_events"][0]["event"] == result_record.LOST_EVENT
    assert record["blocked_events"][1]["count"] == child.MAX_LINES
    few = child._compose({"mode": "script"}, "\n".join(["1"] * 1000 + [line]), 0)
    assert few["malformed_lines"] == 1000 and few["integrity"] is None
