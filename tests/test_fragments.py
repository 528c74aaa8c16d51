"""The reports' per-model parts kept between runs (``reporting.fragments``,
``engine.fragment_store``): a model's drill-down, summary block, junit testsuite and rows of
summary.md's lost points, reused
only for the same record, place and code, never from a file this user's key did not tag, and
the reports are the same bytes either way."""

from __future__ import annotations

import copy
import os

import pytest

from benchmark.engine import entry_tags
from benchmark.engine.fragment_store import FragmentStore, pack, unpack
from benchmark.reporting import html_report
from benchmark.reporting.results_json import run_to_dict
from benchmark.reporting.writer import render_reports, write_run
from result_fakes import make_model, make_run


@pytest.fixture
def private(tmp_path, monkeypatch):
    """A private folder of this test's own for the tag key."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home-cache"))
    entry_tags._tag_key.cache_clear()
    yield
    entry_tags._tag_key.cache_clear()


def _doc():
    return run_to_dict(make_run(make_model("alpha", 0.9), make_model("beta", 0.4, tier="user"),
                                make_model("gamma", 1.0)))


def _reports(doc, store=None):
    return {kind: text for kind, (_, text) in render_reports(doc, store).items()}


def _store(tmp_path):
    return FragmentStore(tmp_path / "fragments", version="test")


@pytest.mark.parametrize("pages", [False, True], ids=["inline", "a page per model"])
def test_a_second_run_reuses_every_part_and_writes_the_same_reports(private, tmp_path, monkeypatch, pages):
    if pages:  # (past the inline limit each drill-down is its own page, built from the same part)
        monkeypatch.setattr(html_report, "INLINE_MODELS", 2)
    doc = _doc()
    fresh = _reports(doc)
    first = _store(tmp_path)
    assert _reports(doc, first) == fresh
    assert (first.hits, first.misses) == (0, 12)  # a drill-down, a summary block, a testsuite, markdown rows per model
    assert first.save() == 3
    second = _store(tmp_path)
    assert _reports(copy.deepcopy(doc), second) == fresh
    assert (second.hits, second.misses) == (12, 0)
    assert second.save() == 0  # (nothing changed: no file is rewritten)
    assert ("report_pages/m0.html" in fresh) is pages


def test_a_changed_record_or_place_is_rendered_again(private, tmp_path):
    doc = _doc()
    store = _store(tmp_path)
    _reports(doc, store)
    store.save()
    changed = copy.deepcopy(doc)
    changed["models"]["beta"]["prompts"]["prompt_1"]["checks"][0]["rationale"] = "a new reason"
    again = _store(tmp_path)
    assert _reports(changed, again) == _reports(changed)
    assert "a new reason" in _reports(changed, _store(tmp_path))["report"]
    assert (again.hits, again.misses) == (8, 4)  # beta's four parts
    again.save()
    moved = copy.deepcopy(changed)  # gamma falls from first to last: its drill-down shows its place
    moved["models"]["gamma"] = copy.deepcopy(moved["models"]["beta"]) | {"model_name": "gamma"}
    third = _store(tmp_path)
    assert _reports(moved, third) == _reports(moved)
    assert third.misses >= 6  # gamma's four parts (a new record), and the drill-downs that moved up


@pytest.mark.parametrize("spoil", ["edited", "moved", "untagged", "cut short"])
def test_a_file_this_key_did_not_tag_is_never_used(private, tmp_path, spoil):
    doc = _doc()
    store = _store(tmp_path)
    _reports(doc, store)
    store.save()
    files = sorted((tmp_path / "fragments").glob("*.json"))
    target, other = files[0], files[1]
    data = target.read_bytes()
    if spoil == "edited":  # the same length, a script where the text was
        at = data.index(b"<h3>")
        target.write_bytes(data[:at] + b"<script>x</script>"[:18] + data[at + 18:])
    elif spoil == "moved":  # another record's file under this one's name
        target.write_bytes(other.read_bytes())
    elif spoil == "untagged":
        body = data[data.index(b'"record":') + len(b'"record":'):-1]
        target.write_bytes(body)
    else:
        target.write_bytes(data[:len(data) // 2])
    again = _store(tmp_path)
    assert _reports(doc, again) == _reports(doc)
    assert again.misses == 4 and again.hits == 8
    assert "<script>x" not in _reports(doc, _store(tmp_path))["report"]


def test_without_a_private_key_nothing_is_read_or_written(tmp_path, monkeypatch):
    home = tmp_path / "home-cache"
    (home / "rubricbench").mkdir(parents=True, mode=0o700)
    os.chmod(home / "rubricbench", 0o755)  # (open to others: not private, so no key)
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    entry_tags._tag_key.cache_clear()
    try:
        store = _store(tmp_path)
        doc = _doc()
        assert _reports(doc, store) == _reports(doc)
        assert store.save() == 0 and not (tmp_path / "fragments").exists()
    finally:
        entry_tags._tag_key.cache_clear()


def test_write_run_keeps_the_parts_after_every_report_is_written(private, tmp_path):
    doc = _doc()
    paths = write_run(copy.deepcopy(doc), tmp_path / "results", fragments=_store(tmp_path))
    assert len(list((tmp_path / "fragments").glob("*.json"))) == 3
    again = _store(tmp_path)
    paths_again = write_run(copy.deepcopy(doc), tmp_path / "results2", fragments=again)
    assert again.hits == 12 and again.misses == 0
    for kind in ("summary", "report", "junit"):
        assert paths[kind].read_bytes() == paths_again[kind].read_bytes()


def test_pack_reads_back_only_what_it_wrote():
    parts = {"article:1": '<article id="m0">é "x"\n</article>', "summary:2": "", "z": "\ud800 lone"}
    assert unpack(pack(parts)) == parts
    data = pack(parts)
    for bad in (data + b"x", data[:-1], b"", b"not json\n", b'{"a": 1}\n', b'[["a", -1]]\n',
                b'[["a", 5]]\nabc', b'[[1, 0]]\n', b'[["a", 2]]\n\xff\xfe'):
        assert unpack(bad) is None, bad


def test_the_run_served_from_the_cache_reuses_the_parts_of_the_run_that_graded(private, tmp_path):
    """No part shows a record's ``cached``: the first run served from the cache (every record
    ``cached: true``) reuses every part the grading run kept, and still says "from cache"."""
    graded = _doc()
    for record in graded["models"].values():
        record["cached"] = False
    first = _store(tmp_path)
    _reports(graded, first)
    first.save()
    served = copy.deepcopy(graded)
    for record in served["models"].values():
        record["cached"] = True
    again = _store(tmp_path)
    reports = _reports(served, again)
    assert (again.hits, again.misses) == (12, 0)
    assert reports == _reports(served)
    assert reports["summary"].count("[from cache]") == 3 and "[from cache]" not in _reports(graded)["summary"]
