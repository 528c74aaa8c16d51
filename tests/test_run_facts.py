"""The manifest's platform string and git commit, remembered between runs
(``benchmark.engine.memo``): always what ``platform.platform()`` and ``git rev-parse --short
HEAD`` say, asked again whenever what they answer from changes."""

import platform
import shutil
import subprocess

import pytest

from benchmark.engine import manifest, memo

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture(autouse=True)
def private(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home-cache"))


@pytest.fixture
def asked(monkeypatch):
    """Each time git itself was asked."""
    calls = []
    real = manifest._asked_git
    monkeypatch.setattr(manifest, "_asked_git", lambda directory: calls.append(directory) or real(directory))
    return calls


def _git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "t@example.invalid")
    _git(repo, "config", "user.name", "t")
    (repo / "a.txt").write_text("1\n")
    _git(repo, "add", "a.txt")
    _git(repo, "commit", "-q", "-m", "one")
    return repo


def _short(repo):
    return _git(repo, "rev-parse", "--short", "HEAD")


def test_the_commit_is_remembered_until_head_moves(repo, asked):
    assert manifest.git_commit(repo) == _short(repo) and len(asked) == 1
    assert manifest.git_commit(repo) == _short(repo) and len(asked) == 1
    (repo / "a.txt").write_text("2\n")
    _git(repo, "commit", "-q", "-am", "two")
    assert manifest.git_commit(repo) == _short(repo) and len(asked) == 2
    _git(repo, "checkout", "-q", "--detach", "HEAD~1")
    assert manifest.git_commit(repo) == _short(repo) and len(asked) == 3
    _git(repo, "checkout", "-q", "main")
    _git(repo, "pack-refs", "--all")  # the branch now lives in packed-refs
    assert manifest.git_commit(repo) == _short(repo) and len(asked) == 4
    _git(repo, "reset", "-q", "--hard", "HEAD~1")
    assert manifest.git_commit(repo) == _short(repo) and len(asked) == 5


def test_a_worktree_has_its_own_commit(repo, tmp_path, asked):
    (repo / "a.txt").write_text("2\n")
    _git(repo, "commit", "-q", "-am", "two")
    _git(repo, "worktree", "add", "-q", "--detach", str(tmp_path / "wt"), "HEAD~1")
    assert manifest.git_commit(tmp_path / "wt") == _short(tmp_path / "wt") != manifest.git_commit(repo)
    assert manifest.git_commit(tmp_path / "wt") == _short(tmp_path / "wt") and len(asked) == 2
    _git(tmp_path / "wt", "checkout", "-q", "--detach", "main")
    assert manifest.git_commit(tmp_path / "wt") == _short(repo) and len(asked) == 3


def test_a_folder_that_is_not_a_checkout_is_asked_each_time(tmp_path, asked):
    assert manifest.git_commit(tmp_path) is None and manifest.git_commit(tmp_path) is None
    assert len(asked) == 2


def test_a_remembered_commit_of_the_wrong_shape_is_not_used(repo, asked, tmp_path):
    manifest.git_commit(repo)
    (entry,) = (tmp_path / "home-cache" / "rubricbench").glob("git-*.json")
    entry.write_text(entry.read_text().replace(_short(repo), "<b>evil</b>"))
    assert manifest.git_commit(repo) == _short(repo) and len(asked) == 2


def test_the_platform_string_is_platform_s_and_is_remembered(monkeypatch):
    expected = platform.platform()
    calls = []
    monkeypatch.setattr(manifest.platform, "platform", lambda: calls.append(1) or expected)
    assert manifest.platform_string() == expected and manifest.platform_string() == expected
    assert calls == [1]


def test_without_a_private_folder_nothing_is_remembered(repo, asked, tmp_path, monkeypatch):
    (tmp_path / "file").write_text("a file where the folder would go\n")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    assert memo.private_folder() is None
    assert manifest.git_commit(repo) == manifest.git_commit(repo) == _short(repo) and len(asked) == 2
