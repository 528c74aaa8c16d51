"""The result cache: entries written without fsync (one torn by a crash is a miss), the
grader's source hash, entries read back as the inverse of ``model_to_dict``, and entries
tagged by this user's key (read back without checking them again)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from benchmark.engine.cache import ResultCache
from benchmark.reporting import writer
from result_fakes import make_model, make_run
from benchmark.reporting.results_json import model_to_dict, run_to_dict


@pytest.fixture
def fsyncs(monkeypatch):
    calls: list[int] = []
    real = os.fsync
    monkeypatch.setattr(writer.os, "fsync", lambda fd: calls.append(fd) or real(fd))
    return calls


def _stored(tmp_path):
    cache = ResultCache(tmp_path)
    model = make_model("cached_model", 0.7)
    cache.put("k", model)
    return cache, model, cache.directory / "k.json"


def test_a_cache_entry_is_written_without_fsync_and_reads_back_equal(tmp_path, fsyncs):
    cache, model, path = _stored(tmp_path)
    assert fsyncs == [] and path.is_file()
    assert cache.get("k", "cached_model") == model
    assert [p.name for p in cache.directory.iterdir()] == ["k.json"]  # no temp file left


def test_the_results_files_are_still_fsynced(tmp_path, fsyncs):
    writer.write_run(run_to_dict(make_run(make_model("m", 0.5))), tmp_path)
    assert len(fsyncs) >= 2  # the files and their folders


@pytest.mark.parametrize("fraction", [0.0, 0.1, 0.5, 0.9, 0.999])
def test_an_entry_cut_short_is_a_miss(tmp_path, fraction):
    cache, _, path = _stored(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * fraction)])
    assert cache.get("k", "cached_model") is None


@pytest.mark.parametrize("where", ["all", "head", "middle", "tail"])
def test_an_entry_with_zero_filled_blocks_is_a_miss(tmp_path, where):
    """What a crash can leave when the rename reached the disk before the data did."""
    cache, _, path = _stored(tmp_path)
    data = bytearray(path.read_bytes())
    size, block = len(data), 4096
    start = {"all": 0, "head": 0, "middle": size // 2, "tail": max(0, size - block)}[where]
    end = size if where == "all" else min(size, start + block)
    data[start:end] = bytes(end - start)
    path.write_bytes(bytes(data))
    assert cache.get("k", "cached_model") is None
    cache.put("k", make_model("cached_model", 0.7))  # graded again, stored again: a hit
    assert cache.get("k", "cached_model") is not None



def _rglob_hash(folder: Path) -> str:
    """The source hash as 673ad22 computed it (``Path.rglob`` and a stat per path)."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".json", ".j2", ".css", ".md"):
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def test_the_source_hash_is_the_one_rglob_gave_and_follows_every_byte(tmp_path):
    from benchmark.engine.cache import PACKAGE, grader_source_hash, source_tree_hash

    assert grader_source_hash() == _rglob_hash(PACKAGE)
    tree = tmp_path / "pkg"
    (tree / "sub" / "deeper").mkdir(parents=True)
    (tree / "a.py").write_text("x = 1\n")
    (tree / "b.txt").write_text("not source\n")
    (tree / ".hidden.md").write_text("hidden\n")
    (tree / "sub" / "t.html.j2").write_text("{{ x }}\n")
    (tree / "sub" / "deeper" / "s.json").write_text("{}\n")
    (tree / "sub-a.css").write_text("p {}\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "o.py").write_text("o = 1\n")
    (tree / "linked_dir").symlink_to(outside, target_is_directory=True)  # not entered
    (tree / "linked.py").symlink_to(outside / "o.py")  # read through the link
    (tree / "dangling.py").symlink_to(tmp_path / "missing.py")
    before = source_tree_hash(tree)
    assert before == _rglob_hash(tree)
    (tree / "b.txt").write_text("still not source\n")
    assert source_tree_hash(tree) == before
    (tree / "sub" / "deeper" / "s.json").write_text("[]\n")  # same size, other bytes
    assert source_tree_hash(tree) == _rglob_hash(tree) != before
    changed = source_tree_hash(tree)
    (outside / "o.py").write_text("o = 2\n")  # a linked file's bytes count
    assert source_tree_hash(tree) == _rglob_hash(tree) != changed


def _reference_model_from_dict(item):
    """An entry read back as 673ad22 read it (a pass over the checks per category)."""
    from benchmark.scoring import prompt_sort_key
    from benchmark.types import CATEGORY_ORDER, Category, CategoryScore, Check, Evidence, ModelResult, PromptResult

    def prompt(pid, p):
        checks = [Check(c["id"], Category(c["category"]), c["points"], c["earned"], c["status"], c["method"],
                        c["rationale"], tuple(Evidence(e["file"], e.get("line"), e.get("note", ""))
                                              for e in c["evidence"])) for c in p["checks"]]
        scoring = p["detailed_scoring"]
        categories = tuple(CategoryScore(cat, scoring[cat.value]["earned"], scoring[cat.value]["max"],
                                         scoring[cat.value]["factor"], tuple(c for c in checks if c.category is cat))
                           for cat in CATEGORY_ORDER if cat.value in scoring)
        return PromptResult(pid, p["title"], p["score"], p["max_score"], p["passed"], p["status"], categories,
                            tuple(p["execution"]), p.get("error"), dict(p["files"]))

    prompts = tuple(prompt(pid, item["prompts"][pid]) for pid in sorted(item["prompts"], key=prompt_sort_key))
    return ModelResult(item["model_name"], item["tier"], prompts, item["overall_score"], item["total_possible"],
                       item["percentage"], item["grade"], item["badge"])


def test_an_entry_reads_back_as_the_reference_reader_reads_it():
    import random

    from benchmark.engine.cache import model_from_dict
    from benchmark.reporting.results_json import model_to_dict

    model = make_model("alpha", 0.6)
    item = model_to_dict(model)
    assert model_from_dict(item) == model == _reference_model_from_dict(item)
    shuffled = model_to_dict(model)
    for prompt in shuffled["prompts"].values():  # categories interleaved: each keeps its own order
        random.Random(7).shuffle(prompt["checks"])
        prompt["checks"][0]["evidence"] = [{"file": "a.py", "line": 3, "note": "n"}, {"file": "b.py", "line": None}]
    assert model_from_dict(shuffled) == _reference_model_from_dict(shuffled) != model
    shuffled["prompts"]["prompt_1"]["checks"][0]["category"] = "speed"
    with pytest.raises(KeyError):  # (get turns it into a miss)
        model_from_dict(shuffled)


def test_an_unwritable_cache_folder_stores_nothing_and_never_stops_a_run(tmp_path):
    blocker = tmp_path / "results"
    blocker.write_text("a file where the cache's folder would be")
    cache = ResultCache(blocker)
    model = make_model("m")
    cache.put("k" * 64, model)  # no OSError: the model is just not stored
    assert cache.get("k" * 64) is None


# ---- entries tagged by this user's key (engine/entry_tags.py) -----------------------------------


@pytest.fixture
def private(tmp_path, monkeypatch):
    """A private folder of this test's own for the tag key (``entry_tags._tag_key``)."""
    from benchmark.engine import entry_tags as cache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home-cache"))
    cache._tag_key.cache_clear()
    yield tmp_path / "home-cache" / "rubricbench"
    cache._tag_key.cache_clear()


@pytest.fixture
def full_checks(monkeypatch):
    from benchmark.engine import cache

    counted = []
    real = cache._trusted
    monkeypatch.setattr(cache, "_trusted", lambda raw, item, name: counted.append(name) or real(raw, item, name))
    return counted


def _entry(path):
    return json.loads(path.read_bytes())


def test_an_entry_put_with_a_key_is_tagged_and_read_back_without_checking_it_again(tmp_path, private, full_checks):
    cache = ResultCache(tmp_path / "results")
    model = make_model("cached_model", 0.7)
    cache.put("k", model)
    entry = _entry(cache.directory / "k.json")
    assert set(entry) == {"tag", "record"} and len(entry["tag"]) == 64
    assert entry["record"] == json.loads(json.dumps(model_to_dict(model)))
    assert cache.get("k", "cached_model") == model
    assert full_checks == []
    key = private / "cache-key"
    assert key.stat().st_size == 32 and oct(key.stat().st_mode & 0o777) == oct(0o600)


def _retagged(path, change):
    """The entry with its record changed by ``change``, its old tag kept."""
    raw = path.read_bytes()
    prefix, record = raw[: len(b'{"tag":"') + 64 + len(b'","record":')], raw[len(b'{"tag":"') + 64 + len(b'","record":'):-1]
    path.write_bytes(prefix + change(record) + b"}")


@pytest.mark.parametrize("change, hit", [
    (lambda r: r.replace(b'"tier": "', b'"tier":  "', 1), True),  # other bytes, the same record: checked, kept
    (lambda r: r.replace(b'"earned": ', b'"earned": 9', 1), False),  # more than the check's points
    (lambda r: r.replace(b' rationale"', b' rationale\\u001b[2J"', 1), False),  # an escape code
], ids=["spacing", "earned", "escape"])
def test_a_changed_tagged_entry_is_checked_in_full(tmp_path, private, full_checks, change, hit):
    cache = ResultCache(tmp_path / "results")
    cache.put("k", make_model("cached_model", 0.7))
    _retagged(cache.directory / "k.json", change)
    assert (cache.get("k", "cached_model") is not None) is hit
    assert full_checks == ["cached_model"]


def test_a_tagged_entry_under_another_key_is_checked_in_full(tmp_path, private, full_checks):
    cache = ResultCache(tmp_path / "results")
    cache.put("k", make_model("cached_model", 0.7))
    (cache.directory / "other.json").write_bytes((cache.directory / "k.json").read_bytes())
    assert cache.get("other", "cached_model") is not None and full_checks == ["cached_model"]
    assert cache.get("k", "cached_model") is not None and full_checks == ["cached_model"]


def test_a_forged_tag_does_not_pass(tmp_path, private, full_checks):
    """Whoever writes the cache folder but cannot read the key cannot tag an entry."""
    import hashlib
    import hmac

    cache = ResultCache(tmp_path / "results")
    record = model_to_dict(make_model("cached_model", 0.7))
    record["prompts"]["prompt_1"]["checks"][0]["earned"] = 99.0  # more than the points: the schema's invariant
    data = json.dumps(record, ensure_ascii=False).encode()
    guessed = hmac.new(b"\0" * 32, b"k\0" + data, hashlib.sha256).hexdigest().encode()
    cache.directory.mkdir(parents=True)
    (cache.directory / "k.json").write_bytes(b'{"tag":"' + guessed + b'","record":' + data + b"}")
    assert cache.get("k", "cached_model") is None and full_checks == ["cached_model"]


def test_an_existing_key_is_kept(tmp_path, private):
    from benchmark.engine import entry_tags as cache

    private.mkdir(parents=True, mode=0o700)
    (private / "cache-key").write_bytes(b"k" * 32)
    os.chmod(private / "cache-key", 0o600)
    assert cache._tag_key() == b"k" * 32
    assert (private / "cache-key").read_bytes() == b"k" * 32 and sorted(os.listdir(private)) == ["cache-key"]


@pytest.mark.parametrize("spoil", ["group-readable", "a link", "short", "a folder"])
def test_a_key_that_is_not_private_is_not_used_and_entries_are_checked_in_full(tmp_path, private, full_checks, spoil):
    from benchmark.engine import entry_tags as cache

    private.mkdir(parents=True, mode=0o700)
    key = private / "cache-key"
    if spoil == "a link":
        (tmp_path / "elsewhere").write_bytes(b"k" * 32)
        key.symlink_to(tmp_path / "elsewhere")
    elif spoil == "a folder":
        key.mkdir()
    else:
        key.write_bytes(b"k" * (32 if spoil == "group-readable" else 8))
        os.chmod(key, 0o640 if spoil == "group-readable" else 0o600)
    assert cache._tag_key() is None
    store = ResultCache(tmp_path / "results")
    model = make_model("cached_model", 0.7)
    store.put("k", model)
    assert "tag" not in _entry(store.directory / "k.json")  # a bare record
    assert store.get("k", "cached_model") == model and full_checks == ["cached_model"]


def test_without_a_private_folder_entries_are_bare_and_checked_in_full(tmp_path, monkeypatch, full_checks):
    from benchmark.engine import entry_tags as cache

    (tmp_path / "file").write_text("a file where the cache folder would go\n")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    cache._tag_key.cache_clear()
    try:
        store = ResultCache(tmp_path / "results")
        model = make_model("cached_model", 0.7)
        store.put("k", model)
        assert "tag" not in _entry(store.directory / "k.json")
        assert store.get("k", "cached_model") == model and full_checks == ["cached_model"]
    finally:
        cache._tag_key.cache_clear()


def test_a_key_that_cannot_be_written_leaves_nothing_behind(tmp_path, private, monkeypatch):
    from benchmark.engine import entry_tags

    private.mkdir(parents=True, mode=0o700)

    def full_disk(fd, data):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(entry_tags.os, "write", full_disk)
        assert entry_tags._tag_key() is None
    assert list(private.iterdir()) == []  # no key, no temporary file
    entry_tags._tag_key.cache_clear()
    assert len(entry_tags._tag_key()) == 32 and [p.name for p in private.iterdir()] == ["cache-key"]


def test_a_tagged_entry_is_written_into_the_document_as_it_was_stored(tmp_path, private):
    """A result read back under its tag keeps the stored bytes (``ModelResult.record``), and
    ``model_to_dict`` reads them back instead of building the record again: the same record,
    in the same key order, a new dict each time; a result named otherwise since is built."""
    import dataclasses

    cache = ResultCache(tmp_path / "results")
    model = make_model("cached_model", 0.7)
    cache.put("k", model)
    got = cache.get("k", "cached_model")
    assert got.record is not None and got == model
    for kwargs in ({}, {"cached": True}, {"timestamp": "2025-01-01T00:00:00Z", "cached": False}):
        built, read = model_to_dict(model, **kwargs), model_to_dict(got, **kwargs)
        assert json.dumps(read) == json.dumps(built)  # (key order included)
    first = model_to_dict(got)
    first["prompts"]["prompt_1"]["checks"][0]["evidence"].append({"file": "x.py", "line": 1, "note": ""})
    assert model_to_dict(got) == model_to_dict(model)  # (the first one's changes are its own)
    renamed = dataclasses.replace(got, model="another")
    assert model_to_dict(renamed)["model_name"] == "another"
    assert model_to_dict(renamed) == model_to_dict(dataclasses.replace(model, model="another"))
    assert renamed.record is not None  # (carried along, and not used for another name)


def test_an_entry_checked_in_full_keeps_no_bytes(tmp_path, monkeypatch):
    from benchmark.engine import entry_tags

    (tmp_path / "file").write_text("a file where the cache folder would go\n")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))

    entry_tags._tag_key.cache_clear()
    try:
        cache = ResultCache(tmp_path / "results")
        cache.put("k", make_model("cached_model", 0.7))
        got = cache.get("k", "cached_model")
        assert got is not None and got.record is None  # (bare: its bytes are not known to be put's)
    finally:
        entry_tags._tag_key.cache_clear()
