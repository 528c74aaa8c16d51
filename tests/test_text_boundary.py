"""Property: whatever text a submission produces, every other model's results are written, and
written unchanged.

Hostile text (any Unicode, control characters with ANSI escapes, lone surrogates, bidi
overrides, huge strings) is fed through every field a submission can influence, by the same
engine functions a real run uses: a check's rationale and evidence (``grading._to_check``),
an exception a child reported (``prompts.base.raised``), a prompt's error and its execution
summaries (``grading._prompt_result``, ``grading._exec_summary``). The run is then written
with ``write_run`` beside a clean model, and the terminal views are rendered (a model's block,
the table, the lost points). A second
property bypasses the boundary (a record as a bug or a tampered cache could leave it) and
holds the writer to per-model failure isolation.
"""

from __future__ import annotations

import copy
import json
import math
import os
import tempfile
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmark.engine import grading
from benchmark.engine.cache import ResultCache
from benchmark.prompts.base import Outcome, raised
from benchmark.reporting.failsafe import safe_key, schema_problems
from benchmark.reporting.results_json import model_to_dict, run_to_dict, validate_results
from benchmark.reporting.terminal import format_model_block, format_model_line, format_table
from benchmark.reporting.terminal_losses import format_losses
from benchmark.untrusted import UNSAFE
from benchmark.reporting.writer import write_run
from benchmark.packs.suite import core_pack
from benchmark.runner import discover_models, model_name_problem, scan_models
from benchmark.scoring import score_model
from benchmark.types import Evidence, ExecResult
from benchmark.untrusted import all_clean, is_clean
from result_fakes import make_model, make_run

NASTY = "\x1b\x00\n\r\t\x7f\x85\x9b\u202e\u2066\u2028\ud800\udbff\udfff\ufffe[2J;31m🎯A1 \\/\"'<&>]"
HOSTILE = st.one_of(
    st.text(st.characters(exclude_categories=()), max_size=200),
    st.text(st.sampled_from(NASTY), max_size=200),
    st.builds(lambda piece, times: piece * times,
              st.text(st.sampled_from(NASTY), min_size=1, max_size=4),
              st.integers(min_value=1_000, max_value=60_000)),
)
CLEAN = make_model("clean_model", 0.8)


def _hostile_prompt(rubric, texts: list[str], fraction: float):
    pick = iter(texts * (2 + 8 * len(rubric.checks) // max(1, len(texts))))
    checks = []
    for row in rubric.checks:
        rationale = f"{next(pick)} / {raised({'type': next(pick), 'message': next(pick)})}"
        outcome = Outcome(fraction, rationale, (Evidence(next(pick), 3, next(pick)),))
        checks.append(grading._to_check(row, outcome))
    request = {"mode": next(pick), "label": next(pick)}
    result = ExecResult(1, next(pick), next(pick), False, next(pick), 0.1, 0.1, 10.0,
                        channel_error=next(pick))
    return grading._prompt_result(rubric, checks, {}, [grading._exec_summary(request, result)],
                                  next(pick) or None)


def _written_models(doc: dict) -> tuple[dict, dict[str, str], dict]:
    failures: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as folder:
        paths = write_run(doc, folder, failures=failures)
        written = orjson.loads(paths["results"].read_bytes())
        assert {"summary", "chart", "report", "junit", "markdown"} <= set(paths)
    return written["models"], failures, written


def _alone() -> dict:
    """The clean model's record in a run of its own: its statistics too do not depend on the
    models beside it."""
    return run_to_dict(make_run(CLEAN))["models"]["clean_model"]


def _hostile_model(texts: list[str], fraction: float):
    return score_model("hostile_model", "user_submissions",
                       [_hostile_prompt(rubric, texts, fraction) for rubric in core_pack().tasks])


@settings(max_examples=100, deadline=None)
@given(st.lists(HOSTILE, min_size=1, max_size=12), st.floats(0, 1))
def test_hostile_text_in_every_submission_field_leaves_a_record_every_writer_can_carry(texts, fraction):
    hostile = _hostile_model(texts, fraction)
    record = model_to_dict(hostile, cached=False)
    assert schema_problems("hostile_model", record) == []
    assert all_clean(record)
    orjson.dumps(record)
    block = format_model_block(record, show_checks=True)
    assert "\x1b" not in block
    block.encode("utf-8")  # no lone surrogate reaches the terminal
    doc = run_to_dict(make_run(hostile))  # the default view: the table, the lost points, a model's line
    shown = "\n".join(format_table(doc) + format_losses(doc) + [format_model_line(record)])
    assert not UNSAFE.search(shown.replace("\n", " "))


@settings(max_examples=15, deadline=None)
@given(st.lists(HOSTILE, min_size=1, max_size=12), st.floats(0, 1))
def test_hostile_text_in_every_submission_field_never_costs_another_model(texts, fraction):
    hostile = _hostile_model(texts, fraction)
    models, failures, _ = _written_models(run_to_dict(make_run(CLEAN, hostile)))
    assert failures == {}  # the boundary left nothing for the writer to isolate
    assert models["clean_model"] == _alone()
    assert models["hostile_model"] == json.loads(orjson.dumps(run_to_dict(make_run(hostile))["models"]["hostile_model"]))


BAD_VALUES = st.one_of(HOSTILE.filter(lambda s: any("\ud800" <= c <= "\udfff" for c in s)),
                       st.sampled_from([math.nan, math.inf, -1.0, "7", None, {"x": b"bytes"}, 10 ** 400]))
PLACES = st.sampled_from([
    ("prompts", "prompt_1", "checks", 0, "rationale"),
    ("prompts", "prompt_2", "checks", 3, "evidence"),
    ("prompts", "prompt_3", "error"),
    ("prompts", "prompt_4", "execution"),
    ("prompts", "prompt_1", "score"),
    ("overall_score",),
    ("tier",),
    ("prompts", "prompt_2", "checks", 1, "status"),
])


def _plant(record: dict, place: tuple, value) -> None:
    for step in place[:-1]:
        record = record[step]
    record[place[-1]] = value


@settings(max_examples=20, deadline=None)
@given(PLACES, BAD_VALUES)
def test_a_record_that_cannot_be_written_becomes_that_models_error(place, value):
    doc = run_to_dict(make_run(CLEAN, make_model("broken_model", 0.6), make_model("zeta", 0.3)))
    _plant(doc["models"]["broken_model"], place, copy.deepcopy(value))
    zeta = copy.deepcopy(doc["models"]["zeta"])
    try:
        orjson.dumps(doc)
        validate_results(doc)
        planted_is_bad = False
    except (TypeError, ValueError):
        planted_is_bad = True
    models, failures, written = _written_models(doc)
    assert models["clean_model"] == _alone() and models["zeta"] == zeta
    assert written["benchmark_run"]["total_models"] == 3
    if planted_is_bad:
        assert set(failures) == {"broken_model"}
        broken = models["broken_model"]
        assert broken["overall_score"] == 0 and broken["grade"] == "F"
        assert all(p["status"] == "error" and p["error"].startswith("internal error: ")
                   for p in broken["prompts"].values())
        assert [r["model"] for r in written["comparison"]["ranking"]][-1] == "broken_model"


def test_a_model_name_the_schema_rejects_is_renamed_and_recorded_as_an_error(tmp_path):
    doc = run_to_dict(make_run(CLEAN, make_model("x" * 300, 0.5)))
    failures: dict[str, str] = {}
    write_run(doc, tmp_path, failures=failures)
    written = json.loads((tmp_path / "latest_results.json").read_text(encoding="utf-8"))
    assert list(failures) == ["x" * 300]
    [renamed] = [name for name in written["models"] if name != "clean_model"]
    assert renamed.startswith("invalid-model-name-")
    assert written["models"]["clean_model"] == _alone()


def test_without_failures_the_writer_still_refuses_the_whole_document(tmp_path):
    doc = run_to_dict(make_run(CLEAN, make_model("broken_model", 0.6)))
    doc["models"]["broken_model"]["prompts"]["prompt_1"]["checks"][0]["rationale"] = "\ud800"
    with pytest.raises(TypeError):
        write_run(doc, tmp_path)
    assert list(Path(tmp_path).iterdir()) == []


TAMPERED = {
    "an escape code in a rationale": lambda r: r["prompts"]["prompt_1"]["checks"][0].update(
        rationale="\x1b[2J100/100"),
    "a bidi override in a note": lambda r: r["prompts"]["prompt_2"]["checks"][0].update(
        evidence=[{"file": "a.py", "line": 1, "note": "\u202eevil"}]),
    "a string where a number belongs": lambda r: r["prompts"]["prompt_1"]["checks"][0].update(earned="1"),
    "earned over the points": lambda r: r["prompts"]["prompt_1"]["checks"][0].update(earned=99.0),
    "another model's name": lambda r: r.update(model_name="someone_else"),
    "a rationale that is not text": lambda r: r["prompts"]["prompt_3"]["checks"][0].update(rationale=None),
}


def test_a_cache_entry_round_trips_unchanged(tmp_path):
    cache = ResultCache(tmp_path)
    model = make_model("cached_model", 0.7)
    cache.put("k", model)
    assert cache.get("k", "cached_model") == model


@pytest.mark.parametrize("tamper", sorted(TAMPERED))
def test_a_tampered_cache_entry_is_a_miss(tmp_path, tamper):
    cache = ResultCache(tmp_path)
    cache.put("k", make_model("cached_model", 0.7))
    path = cache.directory / "k.json"
    entry = json.loads(path.read_text(encoding="utf-8"))
    record = entry.get("record", entry)  # (tagged by this user's key, see test_result_cache)
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    assert cache.get("k", "cached_model") is not None  # rewritten as it was: still a hit
    TAMPERED[tamper](record)
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    assert cache.get("k", "cached_model") is None


@settings(max_examples=300, deadline=None)
@given(st.one_of(HOSTILE, st.text(st.characters(codec="ascii"), min_size=1, max_size=140)))
def test_a_name_discovery_accepts_is_one_every_writer_accepts_unchanged(name):
    if model_name_problem(name) is None:
        assert schema_problems(name, model_to_dict(make_model(name, 0.5))) == []
        assert is_clean(name, 128) and safe_key(name) == name


@pytest.mark.parametrize("name, why", [("m" * 129, "129 characters"), ("a\x1bb", "control"),
                                       ("caf\udce9", "non-UTF-8"), ("a\u202eb", "bidirectional"),
                                       ("back\\slash", "schema"),
                                       *((f"example_model{c}", "no report shows") for c in
                                         ("\u200b", "\u2060", "\ufeff", "\u00ad", "\u00a0", "\u3164", "\u180e"))])
def test_discovery_says_why_a_folder_name_cannot_name_a_model(name, why):
    assert why in model_name_problem(name)


def test_discovery_skips_bad_folder_names_and_keeps_the_others(tmp_path):
    tier = tmp_path / "user_submissions"
    for name in ("good_model", "m" * 200, "evil\x1b[2J", os.fsdecode(b"caf\xe9")):
        (tier / name).mkdir(parents=True)
    found, rejected = scan_models(tmp_path)
    assert list(found) == ["good_model"] and list(discover_models(tmp_path)) == ["good_model"]
    assert sorted(r.name for r in rejected) == sorted(["m" * 200, "evil\x1b[2J", os.fsdecode(b"caf\xe9")])


def test_discovery_reports_a_model_folder_that_is_a_symbolic_link_and_does_not_follow_it(tmp_path):
    tier = tmp_path / "user_submissions"
    (tier / "good_model").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tier / "linked_model").symlink_to(tmp_path / "elsewhere")
    (tier / "dangling").symlink_to(tmp_path / "nowhere")
    (tier / "notes.txt").write_text("a file beside the models")
    found, rejected = scan_models(tmp_path)
    assert list(found) == ["good_model"]
    assert [(r.name, r.reason) for r in rejected] == [("linked_model", "it is a symbolic link (not followed)")]


def test_the_per_model_check_uses_the_shipped_fast_code():
    from benchmark.reporting.conformance import fast

    assert all(fast(name) is not None for name in ("model", "display_name", "excerpt"))


def test_discovery_grades_one_of_two_names_that_read_alike_and_says_why_not_the_other(tmp_path):
    (tmp_path / "reference_implementations" / "example_model").mkdir(parents=True)
    for name in ("Example_Model", "ｅxample_model", "other model"):  # case, a full-width letter
        (tmp_path / "user_submissions" / name).mkdir(parents=True)
    found, rejected = scan_models(tmp_path)
    assert sorted(found) == ["example_model", "other model"]
    assert sorted(r.name for r in rejected) == ["Example_Model", "ｅxample_model"]
    assert all("reads as the model 'example_model'" in r.reason for r in rejected)
