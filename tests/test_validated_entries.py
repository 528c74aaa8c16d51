"""Model entries that passed the results schema before are not walked again; anything that
changed, and the rest of the document, always is."""

import copy

import pytest

from benchmark.cache import ValidatedEntries
from benchmark.reporting.results_json import ResultsSchemaError, entry_fingerprint, run_to_dict
from benchmark.reporting.writer import write_run
from result_fakes import make_model, make_run


def _doc():
    return run_to_dict(make_run(make_model("good", 1.0), make_model("mid", 0.7)))


def test_first_run_records_every_entry_and_the_next_reuses_them(tmp_path):
    memo = ValidatedEntries(tmp_path)
    doc = _doc()
    write_run(doc, tmp_path, validated=memo)
    assert memo.known() == {entry_fingerprint(entry) for entry in doc["models"].values()}
    write_run(_doc(), tmp_path, validated=memo)  # same entries: still valid, nothing new
    assert len(memo.known()) == 2


def test_a_changed_entry_is_validated_again(tmp_path):
    memo = ValidatedEntries(tmp_path)
    write_run(_doc(), tmp_path, validated=memo)
    doc = _doc()
    doc["models"]["mid"]["prompts"]["prompt_1"]["score"] = "high"  # not a number any more
    with pytest.raises(ResultsSchemaError, match=r"\$\.models\.mid\.prompts\.prompt_1\.score"):
        write_run(doc, tmp_path / "out", validated=memo)
    assert not (tmp_path / "out").exists()  # nothing written


def test_known_entries_still_get_their_key_and_invariants_checked(tmp_path):
    memo = ValidatedEntries(tmp_path)
    write_run(_doc(), tmp_path, validated=memo)
    doc = _doc()
    doc["models"]["bad name/.."] = doc["models"].pop("good")  # the entry itself is known
    with pytest.raises(ResultsSchemaError):
        write_run(doc, tmp_path / "out", validated=memo)
    doc = _doc()
    doc["benchmark_run"]["total_models"] = 3  # outside the entries
    with pytest.raises(ResultsSchemaError, match="total_models"):
        write_run(doc, tmp_path / "out", validated=memo)


def test_a_fingerprint_covers_the_whole_entry():
    entry = _doc()["models"]["good"]
    changed = copy.deepcopy(entry)
    changed["prompts"]["prompt_2"]["checks"][0]["rationale"] += "."
    assert entry_fingerprint(entry) != entry_fingerprint(changed)
    assert entry_fingerprint(entry) == entry_fingerprint(copy.deepcopy(entry))


def test_the_cached_flag_does_not_change_a_fingerprint_but_is_still_checked(tmp_path):
    memo = ValidatedEntries(tmp_path)
    write_run(_doc(), tmp_path, validated=memo)
    doc = _doc()
    doc["models"]["good"]["cached"] = True
    assert entry_fingerprint(doc["models"]["good"]) in memo.known()
    write_run(doc, tmp_path / "ok", validated=memo)
    doc["models"]["good"]["cached"] = "yes"
    with pytest.raises(ResultsSchemaError, match=r"\$\.models\.good\.cached"):
        write_run(doc, tmp_path / "bad", validated=memo)
