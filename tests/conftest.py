"""Shared by every test: the grader's per-user folder (``benchmark.engine.memo``: the remembered
source hash, platform, git commit and the cache's tag key) is a fresh one for the session, so
the suite neither reads nor leaves anything in the user's own ``~/.cache/rubricbench``."""

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def private_cache_home(tmp_path_factory):
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    yield
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before
