"""The manifest's facts are the same whether they were asked for early or when it is built."""

from __future__ import annotations

import subprocess
from importlib import metadata

from benchmark.engine import manifest


def test_a_git_commit_asked_early_is_the_one_git_gives():
    expected = subprocess.run(["git", "-C", str(manifest.GRADER_CHECKOUT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=False).stdout.strip() or None
    manifest.ask_git_commit()
    assert manifest.git_commit() == expected
    assert manifest.git_commit() == expected  # (asked again: git runs again)


def test_outside_a_checkout_the_git_commit_is_none_either_way(tmp_path):
    manifest.ask_git_commit(tmp_path)
    assert manifest.git_commit(tmp_path) is None
    assert manifest.git_commit(tmp_path) is None


def test_dependency_versions_are_the_installed_ones_and_a_copy_each_time():
    versions = manifest.dependency_versions()
    assert list(versions) == list(manifest.DEPENDENCIES)
    assert versions["radon"] == metadata.version("radon")
    versions["radon"] = "changed"
    assert manifest.dependency_versions()["radon"] == metadata.version("radon")
