"""The results schema checked by its parts, with a memo of conforming prompts
(``benchmark.reporting.conformance``): the same verdicts as the whole check, each record's
prompts checked in full once per process, and a memo that cannot be fooled by a value of
another type that prints the same."""

import copy
import math

import pytest

from benchmark.engine.cache import ResultCache
from benchmark.reporting import conformance, encoding, results_json
from benchmark.reporting.results_json import model_to_dict, run_to_dict, validate_results
from result_fakes import make_model, make_run


def _record(name="gamma", fraction=0.5):
    return model_to_dict(make_model(name, fraction))


@pytest.fixture(autouse=True)
def fresh_memo():
    conformance._conforming.clear()
    conformance._strict_json.clear()
    yield
    conformance._conforming.clear()
    conformance._strict_json.clear()


@pytest.fixture
def full_checks(monkeypatch):
    """Counts the ``$defs/model`` checks that had prompts to walk (the costly part)."""
    counted = []
    real = conformance.conforms

    def counting(definition, value):
        if definition == "model" and isinstance(value, dict) and value.get("prompts"):
            counted.append(value["model_name"])
        return real(definition, value)

    monkeypatch.setattr(conformance, "conforms", counting)
    return counted


def _first_evidence(record):
    for prompt in record["prompts"].values():
        for check in prompt["checks"]:
            if check["evidence"]:
                return check["evidence"][0]
    raise AssertionError("no evidence in the record")


def test_the_shipped_schema_is_checked_by_parts():
    """Otherwise every check is whole and the memo is never used (slower, never wrong)."""
    assert conformance._by_parts()


def test_a_record_is_checked_in_full_once_and_the_rest_each_time(full_checks):
    record = _record()
    assert conformance.model_conforms(record)
    again = copy.deepcopy(record)  # other objects, the same values
    assert conformance.model_conforms(again)
    assert full_checks == ["gamma"]
    again["overall_score"] = "12"  # outside the prompts: still checked
    assert not conformance.model_conforms(again)
    again["overall_score"], again["cached"], again["timestamp"] = record["overall_score"], "yes", 5
    assert not conformance.model_conforms(again)
    assert full_checks == ["gamma"]


def test_an_excerpt_is_checked_on_its_own_and_left_out_of_the_memo(full_checks):
    record = _record()
    assert conformance.model_conforms(record)
    with_excerpt = copy.deepcopy(record)
    _first_evidence(with_excerpt)["excerpt"] = {"start": 3, "lines": ["x = 1"]}
    assert conformance.model_conforms(with_excerpt)
    assert full_checks == ["gamma"]  # the record without its excerpts was remembered
    for bad in ({"start": 0, "lines": ["x"]}, {"start": 1, "lines": []}, {"start": 1},
                {"start": 1, "lines": ["x"], "more": 1}, "x = 1"):
        _first_evidence(with_excerpt)["excerpt"] = bad
        assert not conformance.model_conforms(with_excerpt), bad
    assert record == _record()  # (the records checked are never changed)


def _with_raised(record, excerpt=None):
    """``record`` with a run whose exception came through line 3 (and that line's excerpt)."""
    raised = {"type": "ValueError", "message": "bad", "file": "prompt_1_solution.py", "line": 3}
    if excerpt is not None:
        raised["excerpt"] = excerpt
    next(iter(record["prompts"].values()))["execution"] = [{"raised": raised}]
    return record


def test_a_raised_excerpt_is_checked_on_its_own_and_left_out_of_the_memo(full_checks):
    """A run's exception gets the excerpt of its line when the run is written: the record the
    cache read back (no excerpt) and the record written share one full check."""
    assert conformance.model_conforms(_with_raised(_record()))
    with_excerpt = _with_raised(_record(), {"start": 2, "lines": ["x = 1", "raise ValueError"]})
    assert conformance.model_conforms(with_excerpt)
    assert full_checks == ["gamma"]
    broken = [_with_raised(_record(), bad) for bad in
              ({"start": "2", "lines": ["x"]}, {"lines": ["x"]}, {"start": 2, "lines": [3]}, "x = 1")]
    assert not any(conformance.model_conforms(record) for record in broken)
    assert full_checks == ["gamma"]
    assert not any(conformance.conforms("model", record) for record in broken)  # the whole check's verdicts


def test_a_stored_record_with_excerpts_is_known_to_conform_and_its_excerpts_still_checked(full_checks):
    """The result cache stores a record with its excerpts; one it read back under its tag is
    remembered (its prompts, excerpts and all), so the document's check of it walks only the
    rest of the record; the same record with a broken excerpt is still refused."""
    stored = _with_raised(_record(), {"start": 2, "lines": ["x = 1", "raise ValueError"]})
    conformance.known_to_conform(stored)
    assert conformance.model_conforms(copy.deepcopy(stored))
    assert full_checks == []
    broken = copy.deepcopy(stored)
    next(iter(broken["prompts"].values()))["execution"][0]["raised"]["excerpt"] = {"start": "2", "lines": []}
    assert not conformance.model_conforms(broken)
    assert full_checks == []
    assert conformance.json_parts(copy.deepcopy(stored)) is not None  # (and the strict JSON check's memo)


@pytest.mark.parametrize("change", ["excerpt required", "runs closed", "raised closed"])
def test_a_schema_that_says_more_of_a_raised_excerpt_is_checked_whole(monkeypatch, change):
    schema = copy.deepcopy(results_json.load_schema())
    items = schema["$defs"]["prompt"]["properties"]["execution"]["items"]
    raised = items["properties"]["raised"]
    if change == "excerpt required":
        raised["required"] = [*raised["required"], "excerpt"]
    elif change == "runs closed":
        items["additionalProperties"] = False
    else:
        raised["additionalProperties"] = False
    monkeypatch.setattr(conformance, "load_schema", lambda: schema)
    conformance._by_parts.cache_clear()
    try:
        assert not conformance._by_parts()
    finally:
        conformance._by_parts.cache_clear()


@pytest.mark.parametrize("path, value", [
    (("evidence", "line"), True),          # a bool where an integer (or null) goes
    (("evidence", "line"), 3.0),           # a float equal to the int (JSON Schema calls it an integer)
    (("evidence", "line"), math.nan),      # a NaN where null is allowed: orjson writes both as null
    (("evidence", "line"), "3"),
    (("earned",), True),
])
def test_the_memo_is_exact_about_types(path, value, full_checks):
    record = _record()
    evidence = _first_evidence(record)
    evidence["line"] = None if value is math.nan else 3
    assert conformance.model_conforms(record)
    changed = copy.deepcopy(record)
    target = _first_evidence(changed) if path[0] == "evidence" else next(
        c for p in changed["prompts"].values() for c in p["checks"] if c["evidence"])
    target[path[-1]] = value
    verdict = conformance.model_conforms(changed)
    assert full_checks == ["gamma", "gamma"]  # not taken for the remembered prompts
    assert verdict is conformance.conforms("model", changed)


def test_a_subclass_is_never_remembered(full_checks):
    class Prompts(dict):
        pass

    record = _record()
    record["prompts"] = Prompts(record["prompts"])
    assert conformance.model_conforms(record) and conformance.model_conforms(record)
    assert full_checks == ["gamma", "gamma"] and not conformance._conforming


def test_the_document_check_gives_the_whole_checks_verdict_and_uses_the_memo(full_checks):
    doc = run_to_dict(make_run(make_model("alpha", 0.9), make_model("beta", 0.4)), cached_models={"beta"})
    whole = results_json._whole
    assert results_json._conforms(doc) and whole(doc)
    assert sorted(full_checks) == ["alpha", "beta"]
    assert results_json._conforms(copy.deepcopy(doc))
    assert sorted(full_checks) == ["alpha", "beta"]
    for broken in ({"bad name\n": doc["models"]["alpha"]}, {"alpha": {**doc["models"]["alpha"], "grade": 7}}):
        mutated = {**doc, "models": broken}
        assert results_json._conforms(mutated) is whole(mutated) is False
    mutated = {**doc, "run_id": 5}
    assert results_json._conforms(mutated) is whole(mutated) is False


def test_another_shape_of_schema_is_checked_whole(monkeypatch, full_checks):
    schema = copy.deepcopy(results_json.load_schema())
    schema["properties"]["models"]["minProperties"] = 1
    monkeypatch.setattr(conformance, "load_schema", lambda: schema)
    conformance._by_parts.cache_clear()
    try:
        assert not conformance._by_parts()
        doc = run_to_dict(make_run(make_model("alpha", 0.9)))
        assert results_json._conforms(doc) and results_json._conforms(doc)
        assert full_checks == [] and not conformance._conforming  # whole checks only
    finally:
        conformance._by_parts.cache_clear()


def test_a_cached_run_checks_each_records_prompts_once(tmp_path, full_checks):
    """The cache's check on reading an entry back and the writer's check of the document share
    the work: one full check per model in all."""
    cache = ResultCache(tmp_path)
    models = [make_model(name, 0.3 + i / 10) for i, name in enumerate(("a1", "b2", "c3"))]
    for model in models:
        cache.put(model.model, model)
    read = [cache.get(model.model, model.model) for model in models]
    assert read == models
    doc = run_to_dict(make_run(*read), cached_models={m.model for m in read})
    validate_results(doc)
    assert sorted(full_checks) == ["a1", "b2", "c3"]


def test_the_strict_json_check_walks_only_what_a_cache_entry_did_not_hold(tmp_path, monkeypatch):
    """A record read back from the cache (parsed from strict JSON) has only its excerpts and
    the rest of the record walked by ``dumps_bytes``'s check; anything else is walked whole,
    and every value JSON cannot carry is still refused."""
    cache = ResultCache(tmp_path)
    model = make_model("a1", 0.6)
    cache.put(model.model, model)
    doc = run_to_dict(make_run(cache.get(model.model, model.model), make_model("b2", 0.4)), cached_models={"a1"})
    _first_evidence(doc["models"]["a1"])["excerpt"] = {"start": 1, "lines": ["x = 1"]}
    walked = []
    real = encoding._strict
    monkeypatch.setattr(encoding, "_strict", lambda value: walked.append(value) or real(value))
    assert encoding.dumps_bytes(doc) == encoding.dumps_bytes(copy.deepcopy(doc))
    assert sum(1 for value in walked if isinstance(value, dict) and value.get("prompts")) == 2  # b2's, twice
    assert [{"start": 1, "lines": ["x = 1"]}] in walked
    for where, bad in (("excerpt", math.nan), ("record", math.inf), ("prompt", math.nan), ("excerpt", {1, 2})):
        broken = copy.deepcopy(doc)
        record = broken["models"]["a1"]
        if where == "excerpt":
            _first_evidence(record)["excerpt"]["lines"] = [bad]
        elif where == "record":
            record["overall_score"] = bad
        else:
            _first_evidence(record)["line"] = bad
        with pytest.raises((ValueError, TypeError)):
            encoding.dumps_bytes(broken)
