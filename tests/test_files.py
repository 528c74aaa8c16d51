"""Bounded reads of one regular file (benchmark.files): what is read, and what is refused
before anything could block."""

from __future__ import annotations

import os

import pytest

from benchmark import cli
from benchmark.files import FileRefused, read_regular


def test_a_regular_file_is_read_whole_up_to_the_limit(tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes(b"x" * 10)
    assert read_regular(path, 10) == b"x" * 10
    with pytest.raises(FileRefused, match=r"file too large \(10 bytes, limit 9\)"):
        read_regular(path, 9)


@pytest.mark.parametrize("kind", ["fifo", "device", "folder", "missing", "link"])
def test_what_is_not_a_regular_file_is_refused_without_being_read(tmp_path, kind):
    path = tmp_path / "x"
    if kind == "fifo":
        os.mkfifo(path)  # no writer: a blocking open or read would wait forever
    elif kind == "device":
        path.symlink_to("/dev/zero")  # followed: a device, refused before it is opened
    elif kind == "folder":
        path.mkdir()
    elif kind == "link":
        (tmp_path / "real").write_text("ok")
        path.symlink_to(tmp_path / "real")
        assert read_regular(path, 10) == b"ok"  # followed when asked
    with pytest.raises(FileRefused) as refused:
        read_regular(path, 1 << 20, follow_links=kind not in ("link",))
    expected = {"fifo": "not a regular file", "device": "not a regular file", "folder": "not a regular file",
                "missing": "file not found", "link": "is a symbolic link (not followed)"}[kind]
    assert str(refused.value) == expected
    assert refused.value.missing is (kind == "missing")


def test_report_only_and_compare_refuse_a_saved_run_that_is_a_device_or_a_fifo(tmp_path, capsys):
    fifo = tmp_path / "results.json"
    os.mkfifo(fifo)
    assert cli.main(["--report-only", "/dev/zero"]) == cli.EXIT_ERROR
    assert cli.main(["--compare", str(fifo), str(fifo)]) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert "/dev/zero: not a regular file" in err and f"{fifo}: not a regular file" in err
