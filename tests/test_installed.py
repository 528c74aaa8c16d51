"""benchmark.installed: dist-info versions read directly, importlib.metadata for the rest."""

import subprocess
import sys
from importlib import metadata

import pytest

from benchmark import installed
from benchmark.engine import manifest


def _dist_info(folder, name, version, *, header=None):
    info = folder / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    text = header if header is not None else f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    (info / "METADATA").write_text(text + "\nA long description.\nVersion: 0.0-body\n", encoding="utf-8")
    return info


@pytest.mark.parametrize("name", [*manifest.DEPENDENCIES, "fastjsonschema", "orjson", "rubricbench"])
def test_same_answer_as_importlib_metadata(name):
    assert installed.version(name) == metadata.version(name)


def test_not_installed():
    with pytest.raises(installed.NotInstalled):
        installed.version("surely-not-installed-distribution")


def test_spellings_of_a_name_find_the_same_distribution():
    assert installed.version("requests_mock") == installed.version("Requests-Mock") == metadata.version("requests-mock")


def test_first_entry_on_the_path_wins(tmp_path, monkeypatch):
    first, second = tmp_path / "a", tmp_path / "b"
    _dist_info(first, "Demo_Pkg", "2.0")
    _dist_info(second, "demo_pkg", "1.0")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "missing"), str(first), str(second), *sys.path])
    assert installed.version("demo-pkg") == "2.0" == metadata.version("demo-pkg")


def test_version_comes_from_the_header_not_the_folder_name(tmp_path, monkeypatch):
    _dist_info(tmp_path, "demo_pkg", "9.9", header="Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.2.3\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    assert installed.version("demo-pkg") == "1.2.3" == metadata.version("demo-pkg")


@pytest.mark.parametrize("layout", ["two candidates", "egg-info"])
def test_unusual_layouts_get_importlib_metadata_answer(tmp_path, monkeypatch, layout):
    if layout == "two candidates":
        _dist_info(tmp_path, "demo_pkg", "1.0")
        _dist_info(tmp_path, "Demo.Pkg", "3.0")
    else:
        egg = tmp_path / "demo_pkg.egg-info"
        egg.mkdir()
        (egg / "PKG-INFO").write_text("Metadata-Version: 1.1\nName: demo-pkg\nVersion: 4.5\n", encoding="utf-8")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    assert installed._fast_version("demo-pkg") is None  # handed on, not guessed
    assert installed.version("demo-pkg") == metadata.version("demo-pkg")


@pytest.mark.parametrize("backport", [False, True])
def test_metadata_without_a_version_is_unknown(tmp_path, monkeypatch, backport):
    """The standard library answers None for such a distribution; the importlib_metadata
    backport (imported by some libraries) raises KeyError: either way the answer is UNKNOWN."""
    _dist_info(tmp_path, "demo_pkg", "1.0", header="Metadata-Version: 2.1\nName: demo-pkg\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    assert installed._fast_version("demo-pkg") is None
    if backport:
        def missing(name):
            raise KeyError("Metadata field Version not present")
        monkeypatch.setattr(metadata, "version", missing)
    assert installed.version("demo-pkg") == installed.UNKNOWN


def test_an_archive_on_the_path_is_left_to_importlib_metadata(tmp_path, monkeypatch):
    archive = tmp_path / "bundle.zip"
    archive.write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip
    monkeypatch.setattr(sys, "path", [str(archive), *sys.path])
    assert installed._fast_version("radon") is None
    assert installed.version("radon") == metadata.version("radon")


def test_lookups_do_not_import_importlib_metadata():
    code = ("import sys; from benchmark.engine import manifest; manifest.dependency_versions(); "
            "print('importlib.metadata' in sys.modules, 'email' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_versions_lists_each_path_folder_once_and_answers_as_version(monkeypatch):
    names = [*manifest.DEPENDENCIES, "surely-not-installed-distribution"]  # (this one: every folder)
    listed = []
    real = installed.os.listdir
    monkeypatch.setattr(sys, "path", [*sys.path, *sys.path])  # (a test run's path often repeats folders)
    monkeypatch.setattr(installed.os, "listdir", lambda path: listed.append(path) or real(path))
    fast = installed._fast_versions(names)
    assert listed and len(listed) == len(set(listed))  # no folder read twice
    monkeypatch.setattr(installed.os, "listdir", real)
    assert fast == {**{name: metadata.version(name) for name in manifest.DEPENDENCIES},
                    "surely-not-installed-distribution": None}
    assert installed.versions(names) == fast  # the one not installed: importlib.metadata agrees
