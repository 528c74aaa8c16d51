"""Run one package's own test suite with pytest and print each test's outcome (the driver of
``scripts/transparency.py``; imports nothing of the grader).

The same file runs inside the sandbox (a ``script`` run of ``SecureRunner.run_harness``) and
outside it (a plain ``python -I -B`` started by ``transparency.py`` with the harness's own
steps before ``runpy``), from the same staged folder layout: ``argv[1]`` is a JSON list of
pytest arguments. Before pytest starts, every staged file and folder is made read-only
(``chmod a-w``); afterwards the staged files are compared with what they were (a suite may
still write new files there: pyparsing's diagrams, hypothesis's example database). pytest's own
report goes to stderr; stdout gets one line, ``TRANSPARENCY `` and the result, JSON
compressed with zlib and base64 encoded (a suite of 5,000 tests would fill most of the
harness's 1 MiB stdout cap as plain JSON):

    {"exit": pytest's exit code, "tests": {nodeid: [outcome, detail]},
     "subtests": {nodeid: {outcome: how many of its subtests had it}},
     "staged_changed": [a staged file changed or removed, ...], "added": files written there}

outcome is passed, failed, skipped, xfailed, xpassed or error (a failed setup or teardown,
or a module that could not be collected: nodeid ``<collect> path``); detail is the first
line of the failure or the skip reason (for comparisons: the outcome alone counts).
"""

import base64
import hashlib
import json
import os
import stat
import sys
import zlib

MARKER = "TRANSPARENCY "
DETAIL_CAP = 300


def _detail(report):
    """The first line of a failure or the skip reason, the run's folder written ``<root>``
    (it differs inside and outside)."""
    return _first_line(report).replace(os.path.dirname(os.getcwd()), "<root>")


def _first_line(report):
    longrepr = report.longrepr
    if longrepr is None:
        return ""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (file, line, reason)
        return str(longrepr[2])[:DETAIL_CAP]
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None and getattr(crash, "message", None):
        return crash.message.strip().splitlines()[0][:DETAIL_CAP] if crash.message.strip() else ""
    lines = [line for line in str(longrepr).splitlines() if line.strip()]
    return lines[-1][:DETAIL_CAP] if lines else ""


class Outcomes:
    """A pytest plugin: one outcome per test id, from its setup, call and teardown reports."""

    def __init__(self, markers=()):
        self.tests = {}
        self.subtests = {}
        self.markers = markers

    def pytest_configure(self, config):
        for line in self.markers:  # markers a plugin the suite expects would register
            config.addinivalue_line("markers", line)

    def pytest_collectreport(self, report):
        if report.failed:
            self.tests["<collect> " + report.nodeid] = ["error", _detail(report)]

    def pytest_runtest_logreport(self, report):
        wasxfail = hasattr(report, "wasxfail")
        if type(report).__name__ == "SubtestReport":  # unittest's subTest, pytest's subtests
            tally = self.subtests.setdefault(report.nodeid, {})
            tally[report.outcome] = tally.get(report.outcome, 0) + 1
        elif report.when == "call":
            if report.passed:
                outcome = "xpassed" if wasxfail else "passed"
            elif report.skipped:
                outcome = "xfailed" if wasxfail else "skipped"
            else:
                outcome = "failed"
            self.tests[report.nodeid] = [outcome, _detail(report) if outcome != "passed" else ""]
        elif report.failed:  # setup or teardown: the test errored whatever its call did
            self.tests[report.nodeid] = ["error", f"{report.when}: {_detail(report)}"]
        elif report.skipped and report.when == "setup":
            self.tests[report.nodeid] = ["xfailed" if wasxfail else "skipped", _detail(report)]


def _staged(root):
    """{relative path: sha256} of every file under ``root``."""
    found = {}
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in files:
            path = os.path.join(folder, name)
            with open(path, "rb") as handle:
                found[os.path.relpath(path, root)] = hashlib.sha256(handle.read()).hexdigest()
    return found


def _read_only(root):
    """chmod a-w every staged file and folder (see docs/transparency.md: as the run's uid is 0
    in its user namespace, the bits bind pytest's own behaviour, not root's writes; the
    comparison after the run shows what changed)."""
    for folder, dirs, files in os.walk(root, topdown=False):
        for name in files + dirs:
            path = os.path.join(folder, name)
            mode = os.lstat(path).st_mode
            if not stat.S_ISLNK(mode):
                os.chmod(path, stat.S_IMODE(mode) & ~0o222)
    os.chmod(root, stat.S_IMODE(os.stat(root).st_mode) & ~0o222)


def main(argv):
    spec = json.loads(argv[1])
    root = os.getcwd()
    before = _staged(root)
    _read_only(root)
    import pytest

    plugin = Outcomes(spec.get("markers", ()))
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)  # pytest's own report goes to stderr; stdout is the result line's alone
    try:
        code = int(pytest.main(list(spec["args"]), plugins=[plugin]))
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
    after = _staged(root)
    changed = sorted(name for name in before if before[name] != after.get(name))
    result = {"exit": code, "tests": plugin.tests, "subtests": plugin.subtests,
              "staged_changed": changed,
              "added": len(set(after) - set(before))}
    packed = base64.b64encode(zlib.compress(json.dumps(result).encode("utf-8"), 9)).decode("ascii")
    sys.stdout.write(MARKER + packed + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv)
