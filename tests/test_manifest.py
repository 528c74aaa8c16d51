"""The manifest's dependency versions: the installed ones, however early they were asked for."""

from __future__ import annotations

from importlib import metadata

from benchmark.engine import manifest


def test_dependency_versions_are_the_installed_ones_and_a_copy_each_time():
    versions = manifest.dependency_versions()
    assert list(versions) == list(manifest.DEPENDENCIES)
    assert versions["radon"] == metadata.version("radon")
    versions["radon"] = "changed"
    assert manifest.dependency_versions()["radon"] == metadata.version("radon")


def test_the_versions_are_remembered_until_a_folder_of_the_path_changes(tmp_path, monkeypatch):
    """Remembered between runs (``memo``) under ``sys.path`` and its folders' times: a
    distribution installed into a folder of the path is seen by the next run."""
    import sys

    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(sys, "path", [str(site), *sys.path])
    looked = []
    real = manifest._looked_up
    monkeypatch.setattr(manifest, "_looked_up", lambda: looked.append(1) or real())
    for _ in range(2):
        manifest._dependency_versions.cache_clear()
        assert manifest.dependency_versions()["radon"] == metadata.version("radon")
    assert looked == [1]  # (the second process's ask: remembered)
    import os

    before = site.stat().st_mtime_ns
    fake = site / "radon-0.0.1.dist-info"
    fake.mkdir()
    (fake / "METADATA").write_text("Metadata-Version: 2.1\nName: radon\nVersion: 0.0.1\n")
    if site.stat().st_mtime_ns == before:  # (the file system's clock ticks coarsely: a later time)
        os.utime(site, ns=(before + 10**9, before + 10**9))
    manifest._dependency_versions.cache_clear()
    try:
        assert manifest.dependency_versions()["radon"] == "0.0.1" and looked == [1, 1]
    finally:
        manifest._dependency_versions.cache_clear()
