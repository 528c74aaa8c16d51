"""The suites ``scripts/transparency.py`` runs: other projects' own tests, from their sdists.

Each package is installed pinned in the venv (the ``transparency`` extra of pyproject.toml,
with the packages its tests import); its sdist is fetched with ``pip download`` into
``.cache/transparency/`` and checked against the sha256 pinned here. Only the test folders
and the file with the suite's pytest configuration are staged, never the package's source,
so the tests import the installed package (the interpreter's prefix, which the sandbox may
read).

``BY_DESIGN`` lists the tests whose outcome differs inside the sandbox because it denies,
by design, what they need; ``PENDING`` those that differ through a guard rule a fix is
pending for (none at present: shutil's functions given a ``pathlib.Path`` were, until the guard
left their events' other-typed arguments to the ``open``/``os`` events they raise). Both are
tables of test id
-> reason, checked by ``transparency.py``: a test that differs and is listed nowhere is a
sandbox bug, and a listed test that no longer differs is reported as stale.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "transparency"


@dataclass(frozen=True)
class Reason:
    short: str  # for the table
    text: str   # the mechanism, for the list of differing tests


@dataclass(frozen=True)
class Suite:
    package: str                    # the distribution's name on the registry
    version: str
    sdist: str                      # the file pip downloads
    sha256: str
    stage: tuple[str, ...]          # folders and files of the sdist staged (with the config)
    run: tuple[str, ...]            # what pytest is given
    config: str | None = None       # the file holding the suite's pytest configuration
    markers: tuple[str, ...] = ()   # markers of a pytest plugin the suite's conftest expects
    note: str = ""                  # what of the suite is left out, and why
    by_design: dict[str, Reason] = field(default_factory=dict)
    pending: dict[str, Reason] = field(default_factory=dict)


# reasons (the sandbox's design, docs/transparency.md)
NO_PROCESS = Reason("starts a process", "it starts a process (subprocess): the guard denies "
                    "subprocess.Popen, and the worker's seccomp filter any new process")
NO_TCP = Reason("TCP on loopback", "it serves and connects over TCP on 127.0.0.1: Landlock "
                "denies TCP bind and connect (EACCES), and the run's network namespace has no "
                "interface up")
TASKS = Reason("100 threads, 64 tasks a run", "it starts 100 threads: a run has at most 64 "
               "tasks, processes and threads together (its pids cgroup, "
               "secure_runner.PIDS_MAX), so a thread past that cannot start")


SUITES: tuple[Suite, ...] = (
    Suite("more-itertools", "11.2.1", "more_itertools-11.2.1.tar.gz",
          "cbf08fd0af284dc69718b9b76a8e6203df624d70209ea511e4219d350c856f63",
          stage=("tests",), run=("tests",),
          by_design={"tests/test_more.py::TestConcurrentTee::test_concurrent_consumers": TASKS}),
    Suite("toolz", "1.2.0", "toolz-1.2.0.tar.gz",
          "9667a038e9d6ecba37995e26cb2f59ec6420b6ad8dd9677de59db9b956b08490",
          stage=("toolz/tests",), run=("toolz/tests",), config="pyproject.toml",
          note="toolz/sandbox/tests left out: staged without the package's own source, it and "
               "toolz/tests would both be a top-level package named tests"),
    Suite("six", "1.17.0", "six-1.17.0.tar.gz",
          "ff70335d468e7eb6ec65b95b99d3a2836546063f63acc5171de367e834932a81",
          stage=("test_six.py",), run=("test_six.py",), config="setup.cfg",
          by_design={"test_six.py::test_getoutput": NO_PROCESS}),
    Suite("attrs", "26.1.0", "attrs-26.1.0.tar.gz",
          "d03ceb89cb322a8fd706d4fb91940737b6642aa36998fe130a9bc96c985eff32",
          stage=("tests",), run=("tests",), config="pyproject.toml"),
    Suite("python-dateutil", "4.0.0", "python_dateutil-4.0.0.tar.gz",
          "d7295ff14fdc0f92f662100bfb6c551d160ca090f2939f1ec5b9794265c03f06",
          stage=("tests",), run=("tests",), config="pyproject.toml",
          markers=("no_cover: pytest-cov's marker (its conftest adds it; pytest-cov is not installed)",),
          by_design={"tests/test_imports.py::test_import_without_six": NO_PROCESS}),
    Suite("boltons", "26.2.0", "boltons-26.2.0.tar.gz",
          "d39cfd15c1a1c3bd4d705c82252fa9edb8e4f5e8cc039f8e39afac7b1b47e92c",
          stage=("tests",), run=("tests",), config="pyproject.toml",
          by_design={"tests/test_socketutils.py::test_socketutils_netstring": NO_TCP,
                     "tests/test_socketutils.py::test_socketutils_netstring_timeout": NO_TCP}),
    Suite("pyparsing", "3.3.3", "pyparsing-3.3.3.tar.gz",
          "928ae7e20211f3b6f3915a72f06a0cfd29ab9d24279dd6346b6b1a7146397d36",
          stage=("tests", "examples"), run=("tests", "examples/tiny/tests"),
          by_design={"tests/test_unit.py::TestShowBestPractices::test_cli_invocation_with_module_flag":
                     NO_PROCESS}),
    Suite("Jinja2", "3.1.6", "jinja2-3.1.6.tar.gz",
          "0137fb05990d35f1275a587e9aee6d56da821fc83491a0fb838183be43f66d6d",
          stage=("tests",), run=("tests",), config="pyproject.toml"),
)
BY_NAME = {suite.package: suite for suite in SUITES}
FAST = ("toolz", "six", "Jinja2")  # the subset tests/test_transparency.py runs


class FetchError(RuntimeError):
    """An sdist could not be had (registry unreachable) or is not the pinned file."""


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch_all(suites: tuple[Suite, ...] | list[Suite], cache: Path = CACHE) -> dict[str, Path]:
    """{package: its sdist in ``cache``}: the missing ones downloaded with one pip call, every
    one checked against its pinned sha256 (a file that is not the pinned one is removed)."""
    missing = [suite for suite in suites if not (cache / suite.sdist).is_file()]
    if missing:
        cache.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary",
             ":all:", "--dest", str(cache), *(f"{s.package}=={s.version}" for s in missing)],
            capture_output=True, text=True, timeout=600)
        absent = [suite.sdist for suite in missing if not (cache / suite.sdist).is_file()]
        if done.returncode != 0 or absent:
            raise FetchError(
                f"could not download the sdists {absent or [s.sdist for s in missing]} into "
                f"{cache} with pip (is the package registry reachable?): "
                f"{done.stderr.strip()[-800:]}")
    found = {}
    for suite in suites:
        path = cache / suite.sdist
        digest = _sha256(path)
        if digest != suite.sha256:
            path.unlink()
            raise FetchError(f"{path.name}: sha256 {digest}, pinned {suite.sha256} (file removed)")
        found[suite.package] = path
    return found


def fetch(suite: Suite, cache: Path = CACHE) -> Path:
    """The suite's sdist (see ``fetch_all``)."""
    return fetch_all([suite], cache)[suite.package]


def staged_files(suite: Suite, sdist: Path) -> dict[str, bytes]:
    """{path: bytes} of the suite's test files and config, relative to the sdist's top folder
    (regular files only)."""
    wanted = (*suite.stage, *((suite.config,) if suite.config else ()))
    files = {}
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            top, _, name = member.name.partition("/")
            if not member.isfile() or not name:
                continue
            if any(name == item or name.startswith(item + "/") for item in wanted):
                if "__pycache__" not in name.split("/"):
                    files[name] = archive.extractfile(member).read()
    return files
