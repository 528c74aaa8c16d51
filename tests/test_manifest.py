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
