"""Honest code runs unchanged, shown on code nobody here wrote: the fast subset of
``scripts/transparency.py`` (docs/transparency.md). Each package's own test suite, from its
sdist, runs inside the sandbox as a graded answer does and outside it; every test's outcome
must be the same, except the tests listed with their reason in ``transparency_suites``.

The sdists are fetched with pip on first use into ``.cache/transparency/`` (and checked
against their pinned sha256): without the package registry this test fails, saying so."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import transparency  # noqa: E402
from transparency_suites import BY_NAME, FAST, SUITES, Reason, fetch, fetch_all, staged_files  # noqa: E402

from benchmark.secure_runner import SecureRunner  # noqa: E402


@pytest.fixture(scope="module")
def runner():
    fetch_all([BY_NAME[package] for package in FAST])  # one pip call for what is missing
    return SecureRunner("transparency", memory_mb=transparency.MEMORY_MB,
                        timeout_s=transparency.TIMEOUT_S)


@pytest.mark.parametrize("package", FAST)
def test_a_packages_own_suite_has_the_same_outcomes_inside_the_sandbox_as_outside(package, runner):
    comparison = transparency.run_suite(BY_NAME[package], runner)
    assert transparency.failures(comparison) == [], "\n".join(transparency._describe(comparison))
    assert len(comparison.identical) > 100  # the suite ran, on both sides


def test_only_the_tests_and_the_pytest_config_are_staged_never_the_package_source():
    suite = BY_NAME["toolz"]
    files = staged_files(suite, fetch(suite))
    assert "pyproject.toml" in files and "toolz/tests/test_itertoolz.py" in files
    assert not [name for name in files if not name.startswith("toolz/tests/") and name != "pyproject.toml"]


def _side(outcomes):
    return transparency.Side({name: [outcome, ""] for name, outcome in outcomes.items()},
                             exit=0, staged_changed=[], added=0, wall_s=0.0)


def test_a_difference_listed_nowhere_is_a_failure_and_so_is_a_listing_that_no_longer_differs():
    reason = Reason("starts a process", "it starts a process")
    suite = SUITES[0].__class__("demo", "1", "demo-1.tar.gz", "0" * 64, stage=("tests",),
                                run=("tests",), by_design={"t::listed": reason, "t::fixed": reason})
    inside = _side({"t::same": "passed", "t::listed": "failed", "t::fixed": "passed", "t::bug": "error"})
    outside = _side({"t::same": "passed", "t::listed": "passed", "t::fixed": "passed", "t::bug": "passed",
                     "t::lost": "passed"})
    comparison = transparency.compare(suite, inside, outside)
    assert comparison.identical == ["t::fixed", "t::same"]
    assert list(comparison.by_design) == ["t::listed"]
    assert comparison.unexplained == ["t::bug", "t::lost"]  # "t::lost" never ran inside
    assert comparison.stale == ["t::fixed"]
    assert len(transparency.failures(comparison)) == 3
