"""Where sandbox folders are made (``benchmark.sandbox.staging``): a tmpfs only for runs with a
private root, never a folder another user could tamper with."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from benchmark.sandbox import staging
from benchmark.secure_runner import SecureRunner


def _mountinfo(tmp_path: Path, point: str, fstype: str) -> str:
    path = tmp_path / "mountinfo"
    path.write_text(f"22 1 0:5 / / rw - ext4 /dev/vda rw\n"
                    f"25 22 0:23 / {point} rw,relatime shared:7 - {fstype} {fstype} rw\n")
    return str(path)


def test_a_tmpfs_mount_point_is_usable(tmp_path):
    folder = tmp_path / "shm"
    folder.mkdir(mode=0o700)
    assert staging.usable_tmpfs(str(folder), 0, _mountinfo(tmp_path, str(folder), "tmpfs"))


def test_a_folder_that_is_no_tmpfs_mount_point_is_not_used(tmp_path):
    folder = tmp_path / "shm"
    folder.mkdir(mode=0o700)
    assert not staging.usable_tmpfs(str(folder), 0, _mountinfo(tmp_path, str(folder), "ext4"))
    assert not staging.usable_tmpfs(str(folder), 0, _mountinfo(tmp_path, "/elsewhere", "tmpfs"))


def test_a_world_writable_folder_without_the_sticky_bit_is_not_used(tmp_path):
    folder = tmp_path / "shm"
    folder.mkdir()
    os.chmod(folder, 0o777)  # any user could rename our sandbox folder away and plant another
    info = _mountinfo(tmp_path, str(folder), "tmpfs")
    assert not staging.usable_tmpfs(str(folder), 0, info)
    os.chmod(folder, 0o1777)
    assert staging.usable_tmpfs(str(folder), 0, info)


def test_a_link_or_a_full_tmpfs_is_not_used(tmp_path):
    folder = tmp_path / "shm"
    folder.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(folder)
    assert not staging.usable_tmpfs(str(link), 0, _mountinfo(tmp_path, str(link), "tmpfs"))
    assert not staging.usable_tmpfs(str(folder), 1 << 40, _mountinfo(tmp_path, str(folder), "tmpfs"))


def test_only_runs_with_a_private_root_stage_on_the_tmpfs(monkeypatch, tmp_path):
    shm = tmp_path / "shm"
    shm.mkdir(mode=0o700)
    monkeypatch.setattr(staging, "tmpfs_base", lambda: str(shm))
    assert staging.base(True) == str(shm)
    assert staging.base(False) is None  # the child writes there itself: the default folder


def test_a_runner_without_a_private_root_keeps_its_sandbox_in_the_temporary_folder():
    with SecureRunner("m", unsafe=True).sandbox() as root:
        assert root.parent == Path(tempfile.gettempdir()).resolve()


@pytest.mark.skipif(not SecureRunner("m").private_root or staging.tmpfs_base() is None,
                    reason="needs the private root and a usable /dev/shm")
def test_a_confined_runner_stages_on_the_tmpfs_and_the_run_sees_the_same_files():
    runner = SecureRunner("m")
    with runner.sandbox() as root:
        assert root.parent == Path(staging.SHM).resolve()
    files = {"m.py": b"def f():\n    return open('data/x.txt').read()\n", "data/x.txt": b"staged"}
    res = runner.run_harness({"mode": "call", "module": "m.py", "function": "f",
                              "calls": [{"label": "a", "args": [], "kwargs": {}}]}, files)
    assert res.observation["results"][0]["value"] == "staged"
    assert not list(Path(staging.SHM).glob("rubricbench-m-*")), "the staging folder is removed"
