"""Sandbox clean-up: never through a link, no depth limit, unreadable folders, failures reported."""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from benchmark.sandbox import cleanup
from benchmark.sandbox import process_tools as pt
from benchmark.engine.grading import INTERNAL_ERROR, grade_prompt
from benchmark.prompts import module_for
from benchmark.secure_runner import SecureRunner

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model"
CLEANUP = ROOT / "benchmark" / "sandbox" / "cleanup.py"
NOBODY = 65534


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _chain(root: Path, depth: int) -> None:
    """``depth`` nested folders named ``d`` below ``root``, a file at the bottom (relative
    opens: the full path is far longer than PATH_MAX)."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        deeper = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = deeper
    os.close(os.open("bottom.txt", os.O_WRONLY | os.O_CREAT, 0o400, dir_fd=fd))
    os.close(fd)


def _hostile_tree(root: Path, victim: Path, depth: int = 0) -> None:
    """What a submission can leave: a link to a file outside in a read-only folder (below
    which a chain ``depth`` deep), an unreadable folder (mode 000) holding another, a
    read-only file, a link to a folder outside."""
    (root / "ro").mkdir(parents=True)
    (root / "ro" / "victim_link").symlink_to(victim)
    (root / "ro" / "up").symlink_to(victim.parent)
    _chain(root / "ro", depth)
    (root / "locked" / "inner").mkdir(parents=True)
    (root / "locked" / "inner" / "file").write_text("x")
    (root / "locked" / "inner" / "file").chmod(0o400)


def _lock(root: Path) -> None:
    (root / "locked" / "inner").chmod(0)
    (root / "locked").chmod(0)
    (root / "ro").chmod(0o500)


def test_a_1500_deep_chain_is_removed_completely_without_recursion(tmp_path):
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir()
    _chain(sandbox, 1500)
    before = _open_fds()
    pt.remove_tree(sandbox)
    assert not sandbox.exists() and list(tmp_path.iterdir()) == []
    assert _open_fds() == before


def test_mode_000_folders_read_only_files_and_links_are_removed_and_nothing_outside_changes(tmp_path):
    victim = tmp_path / "outside" / "victim.txt"
    victim.parent.mkdir()
    victim.write_text("keep\n")
    victim.chmod(0o644)
    _hostile_tree(tmp_path / "sandbox", victim)
    _lock(tmp_path / "sandbox")
    pt.remove_tree(tmp_path / "sandbox")
    assert not (tmp_path / "sandbox").exists()
    assert stat.S_IMODE(victim.stat().st_mode) == 0o644 and victim.read_text() == "keep\n"
    assert stat.S_IMODE(victim.parent.stat().st_mode) == 0o755


def test_no_chmod_ever_resolves_through_a_link_even_where_permission_is_denied(tmp_path, monkeypatch):
    """As root nothing is ever denied, so the permission checks a non-root grader meets are
    imitated: removing an entry needs write and search access to its folder. A remover that
    answered the denial by chmod-ing the entry's path would change the victim's mode."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n")
    victim.chmod(0o644)
    _hostile_tree(tmp_path / "sandbox", victim)
    _lock(tmp_path / "sandbox")
    unlink, rmdir, chmod = os.unlink, os.rmdir, os.chmod
    changed: list[str] = []

    def as_non_root(real):
        def call(name, *, dir_fd=None):
            folder = os.fstat(dir_fd) if dir_fd is not None else os.stat(os.path.dirname(name) or ".")
            if folder.st_mode & 0o300 != 0o300:
                raise PermissionError(errno.EACCES, "Permission denied", name)
            return real(name, dir_fd=dir_fd)
        return call

    def spy(path, mode, *args, **kwargs):
        changed.append(os.path.realpath(path))  # what the call resolves to, links followed
        assert os.path.isdir(path), path  # a folder, never the file a link names
        assert not os.path.islink(path) or str(path).startswith("/proc/self/fd/"), path
        return chmod(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", as_non_root(unlink))
    monkeypatch.setattr(os, "rmdir", as_non_root(rmdir))
    monkeypatch.setattr(os, "chmod", spy)
    pt.remove_tree(tmp_path / "sandbox")
    monkeypatch.undo()
    assert stat.S_IMODE(victim.stat().st_mode) == 0o644
    assert not (tmp_path / "sandbox").exists()
    assert changed and all(p.startswith(str(tmp_path / "sandbox")) for p in changed)


def _unprivileged_python() -> str | None:
    """A Python the unprivileged user can run (this venv's may sit in root's home)."""
    for candidate in dict.fromkeys([sys.executable, shutil.which("python3"), "/usr/bin/python3"]):
        try:
            if candidate and subprocess.run([candidate, "-c", "pass"], user=NOBODY, group=NOBODY,
                                            extra_groups=[], capture_output=True, cwd="/").returncode == 0:
                return candidate
        except OSError:
            continue
    return None


def _remove_as_nobody(sandbox: Path) -> dict:
    """Run ``benchmark/sandbox/cleanup.py`` (standard library only) on ``sandbox`` as user nobody."""
    python = _unprivileged_python() if os.geteuid() == 0 else sys.executable
    if python is None:
        pytest.skip("no Python that user nobody can run")
    script = (f"import importlib.util, json\nspec = importlib.util.spec_from_file_location('c', {str(CLEANUP)!r})\n"
              "c = importlib.util.module_from_spec(spec); spec.loader.exec_module(c)\n"
              f"try:\n    c.remove_tree({str(sandbox)!r}); print(json.dumps({{'error': None}}))\n"
              "except c.CleanupError as exc:\n    print(json.dumps({'error': str(exc)}))\n")
    kwargs = {"user": NOBODY, "group": NOBODY, "extra_groups": []} if os.geteuid() == 0 else {}
    out = subprocess.run([python, "-c", script], capture_output=True, text=True, cwd="/", **kwargs)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture
def shared_tmp():
    """A folder user nobody owns (pytest's own tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="rubricbench-cleanup-test-"))
    if os.geteuid() == 0:
        os.chown(folder, NOBODY, NOBODY)
    yield folder
    subprocess.run(["chmod", "-R", "u+rwx", str(folder)], capture_output=True)
    subprocess.run(["rm", "-rf", str(folder)], check=True)


def _own_by_nobody(top: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chown", "-R", "-h", f"{NOBODY}:{NOBODY}", str(top)], check=True)


def test_as_an_unprivileged_user_links_locked_folders_and_deep_chains_are_removed(shared_tmp):
    victim = shared_tmp / "victim.txt"
    victim.write_text("keep\n")
    victim.chmod(0o644)
    sandbox = shared_tmp / "sandbox"
    _hostile_tree(sandbox, victim, depth=1500)
    _own_by_nobody(shared_tmp)
    _lock(sandbox)
    assert _remove_as_nobody(sandbox) == {"error": None}
    assert not sandbox.exists()
    assert stat.S_IMODE(victim.stat().st_mode) == 0o644


@pytest.mark.skipif(os.geteuid() != 0, reason="needs a folder the unprivileged user cannot change")
def test_a_tree_that_cannot_be_removed_raises_naming_what_remains(shared_tmp):
    sandbox = shared_tmp / "sandbox"
    (sandbox / "a" / "stuck").mkdir(parents=True)
    (sandbox / "a" / "stuck" / "file").write_text("x")
    _own_by_nobody(sandbox)
    os.chown(sandbox / "a" / "stuck", 0, 0)
    (sandbox / "a" / "stuck").chmod(0o555)  # root's: nobody may neither empty nor chmod it
    result = _remove_as_nobody(sandbox)
    assert result["error"] == f"[Errno 1] could not remove {sandbox}/a/stuck: Operation not permitted"
    assert (sandbox / "a" / "stuck" / "file").exists()


def test_a_missing_tree_is_not_an_error(tmp_path):
    pt.remove_tree(tmp_path / "never-created")


def test_a_failed_sandbox_clean_up_is_an_internal_error_of_that_prompt(monkeypatch):
    remove = pt.remove_tree

    def remove_then_fail(path):
        remove(path)
        raise cleanup.CleanupError(errno.EBUSY, f"could not remove {path}/work/mnt: Device or resource busy")

    monkeypatch.setattr(pt, "remove_tree", remove_then_fail)
    with pytest.raises(cleanup.CleanupError, match="could not remove"):
        with SecureRunner("m", kernel=False).sandbox():
            pass
    result = grade_prompt(module_for("prompt_3"), REFERENCE, test_data=ROOT / "test_data")
    assert result.status == "error" and result.score == 0
    assert result.error.startswith(f"{INTERNAL_ERROR}: sandbox clean-up failed: could not remove ")
    assert result.error.endswith("/work/mnt: Device or resource busy")


def _dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(done.stdout)


def test_sandboxes_of_a_killed_grader_are_swept_and_no_other_folder_is(tmp_path):
    """A grader killed before its clean-up (SIGKILL) leaves its sandbox folders behind; the
    next grader's first sandbox removes those of dead owners, as named by ``sandbox_prefix``,
    and leaves alone a live owner's, another pid namespace's (its owner cannot be seen from
    here: a grader that is pid 1 of a container took the host's live folders for dead ones),
    another kind of folder, and a link (never followed)."""
    dead, alive, ns = _dead_pid(), os.getpid(), cleanup.pid_namespace()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("x")
    folder = tmp_path / "base"
    folder.mkdir()
    made = {
        f"rubricbench-spinning_model-p{dead}-a1b2": True,  # removed
        f"rubricbench-m-p{dead}-c3": True,
        f"rubricbench-m-p{dead}n{ns}-c4": True,  # (named as now: pid and pid namespace)
        f"rubricbench-m-p{alive}n{ns}-d4": False,  # its owner lives
        f"rubricbench-m-p{dead}n{ns + 1}-d5": False,  # another namespace's: its owner is not seen
        "rubricbench-probe-p1x": False,  # not a sandbox name
        f"rubricbench-odd name-p{dead}-e5": False,
    }
    for name in made:
        (folder / name / "work" / "deep").mkdir(parents=True)
        (folder / name / "work" / "deep" / "f.txt").write_text("y")
    (folder / f"rubricbench-m-p{dead}-link").symlink_to(outside, target_is_directory=True)
    assert pt.sandbox_prefix("m") == f"rubricbench-m-p{alive}n{ns}-"

    removed = cleanup.sweep_dead_sandboxes(str(folder))

    assert sorted(path.name for path in removed) == sorted(name for name, gone in made.items() if gone)
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [name for name, gone in made.items() if not gone] + [f"rubricbench-m-p{dead}-link"])
    assert (outside / "keep.txt").read_text() == "x"


def test_a_runner_sweeps_before_its_first_sandbox_once_per_folder(monkeypatch):
    import benchmark.secure_runner as secure_runner

    swept = []
    monkeypatch.setattr(secure_runner, "_swept", set())
    monkeypatch.setattr(pt, "sweep_dead_sandboxes", lambda folder=None: swept.append(folder) or [])
    runner = SecureRunner("m", unsafe=True)
    for _ in range(3):
        with runner.sandbox() as root:
            assert root.name.startswith(f"rubricbench-m-p{os.getpid()}n{cleanup.pid_namespace()}-")
    assert swept == [None]  # the default temporary folder, once
