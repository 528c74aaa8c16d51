"""benchmark.packs.suite.build_suite: which packs a run grades together."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmark.packs.loader import load_pack
from benchmark.packs.suite import SuiteError, build_suite

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "data_pack"


def test_a_pack_given_twice_from_one_folder_is_graded_once():
    once = build_suite([load_pack(EXAMPLE.resolve())])
    twice = build_suite([load_pack(EXAMPLE.resolve()), load_pack(EXAMPLE.resolve())])
    assert [p.id for p in twice.packs] == [p.id for p in once.packs] == ["core", "data_pack"]
    assert twice.describe() == once.describe()


def test_one_pack_id_from_two_folders_is_an_error_naming_both(tmp_path):
    copy = tmp_path / "elsewhere"
    shutil.copytree(EXAMPLE, copy)
    with pytest.raises(SuiteError, match=r"pack id 'data_pack' is used twice \(.*data_pack and .*elsewhere\)"):
        build_suite([load_pack(EXAMPLE.resolve()), load_pack(copy.resolve())], core=False)


def test_the_core_pack_alone_and_an_empty_suite():
    assert [p.id for p in build_suite().packs] == ["core"]
    with pytest.raises(SuiteError, match="the suite is empty"):
        build_suite([], core=False)
