"""The grader's source hash, remembered between runs (``benchmark.engine.source_hash``): the
same hash as hashing the bytes, whatever happens to the files or to the memo."""

import json
import os

import pytest

from benchmark.engine import source_hash
from benchmark.engine.memo import private_folder
from benchmark.engine.source_hash import source_tree_hash


@pytest.fixture
def tree(tmp_path):
    tree = tmp_path / "pkg"
    (tree / "sub").mkdir(parents=True)
    (tree / "a.py").write_text("x = 1\n")
    (tree / "sub" / "t.json").write_text("{}\n")
    return tree


@pytest.fixture
def memo(tmp_path):
    folder = tmp_path / "memo"
    folder.mkdir(mode=0o700)
    return folder


@pytest.fixture
def reads(monkeypatch):
    """How many times the files' bytes were hashed."""
    counted = []
    real = source_hash._hash_files
    monkeypatch.setattr(source_hash, "_hash_files", lambda files: counted.append(1) or real(files))
    return counted


def test_a_remembered_hash_is_the_hash_and_saves_reading_the_files(tree, memo, reads):
    plain = source_tree_hash(tree)
    assert source_tree_hash(tree, memo) == plain
    assert source_tree_hash(tree, memo) == plain
    assert len(reads) == 2  # the plain call and the first remembered one
    assert len(list(memo.iterdir())) == 1


def test_other_bytes_of_the_same_size_and_time_are_hashed_again(tree, memo, reads):
    before = source_tree_hash(tree, memo)
    target = tree / "sub" / "t.json"
    info = os.stat(target)
    target.write_text("[]\n")  # same size
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))  # and the old modification time
    after = source_tree_hash(tree, memo)
    assert after == source_tree_hash(tree) != before
    assert len(reads) == 3


@pytest.mark.parametrize("change", ["add", "remove", "rename"])
def test_another_set_of_files_is_hashed_again(tree, memo, change):
    before = source_tree_hash(tree, memo)
    if change == "add":
        (tree / "b.md").write_text("more\n")
    elif change == "remove":
        (tree / "a.py").unlink()
    else:
        (tree / "a.py").rename(tree / "c.py")
    assert source_tree_hash(tree, memo) == source_tree_hash(tree) != before


@pytest.mark.parametrize("content", [b"not json", b"[]", b'{"signature": 1, "hash": "0123456789abcdef"}',
                                     b"{}"])
def test_a_memo_that_is_not_ours_is_ignored(tree, memo, content):
    right = source_tree_hash(tree)
    source_tree_hash(tree, memo)
    (path,) = memo.iterdir()
    path.write_bytes(content)
    assert source_tree_hash(tree, memo) == right


def test_a_forged_hash_is_used_only_under_the_exact_signature(tree, memo):
    """(The memo is in a folder only this user can write; this only shows what the key is.)"""
    source_tree_hash(tree, memo)
    (path,) = memo.iterdir()
    item = json.loads(path.read_text())
    path.write_text(json.dumps({"signature": item["signature"][::-1], "hash": "f" * 16}))
    assert source_tree_hash(tree, memo) == source_tree_hash(tree)


def test_the_private_folder_is_private(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = private_folder()
    assert folder == tmp_path / "cache" / "rubricbench"
    assert oct(os.stat(folder).st_mode & 0o777) == oct(0o700)
    os.chmod(folder, 0o770)  # open to the group: not used
    assert private_folder() is None
    os.chmod(folder, 0o700)
    assert private_folder() == folder


def test_a_linked_private_folder_is_not_used(tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "rubricbench").symlink_to(elsewhere, target_is_directory=True)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert private_folder() is None


def test_no_usable_folder_means_hashing_every_time(tmp_path, monkeypatch, tree, reads):
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache folder would go\n")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    assert private_folder() is None
    monkeypatch.setattr(source_hash, "_SOURCE_HASH", None)
    monkeypatch.setattr(source_hash, "PACKAGE", tree)
    assert source_hash.grader_source_hash() == source_tree_hash(tree)


def test_a_memo_that_cannot_be_written_or_read_costs_only_the_hashing(tree, memo, reads):
    source_tree_hash(tree, memo)
    (path,) = memo.iterdir()
    path.unlink()
    path.mkdir()  # a folder where the memo goes: neither read nor replaced
    assert source_tree_hash(tree, memo) == source_tree_hash(tree, memo) == source_tree_hash(tree)
    assert len(reads) == 4 and path.is_dir() and sorted(memo.iterdir()) == [path]
