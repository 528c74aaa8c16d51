"""A pack's ``requires:`` entries are PEP 508 requirements: extras and environment markers are
evaluated against what is installed (a fake distribution on ``sys.path`` here), both ways."""

from __future__ import annotations

import sys

import pytest

from benchmark.packs.requirements import requirement_problem, rubricbench_problem, satisfies

PY = f"{sys.version_info.major}.{sys.version_info.minor}"


def dist(folder, name, version, extras=(), requires=()):
    """A wheel-style installed distribution: ``<name>-<version>.dist-info/METADATA``."""
    info = folder / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Provides-Extra: {extra}" for extra in extras] + [f"Requires-Dist: {r}" for r in requires]
    (info / "METADATA").write_text("\n".join(lines) + "\n\n")


@pytest.fixture
def site(tmp_path, monkeypatch):
    """acme-checks 1.2 with extras fast (needs turbo-lib>=2, installed as 2.1), gpu (needs
    cuda-lib, missing), nested (needs acme-base[extra_x], whose extra needs a missing dist) and
    old_python (needs a missing dist only below Python 3.0)."""
    dist(tmp_path, "acme-checks", "1.2", extras=["fast", "gpu", "nested", "old-python"], requires=[
        "base-lib>=1",  # an unconditional dependency: not asked about (not installed here)
        'turbo-lib>=2; extra == "fast"',
        'cuda-lib; extra == "gpu"',
        'acme-base[extra-x]; extra == "nested"',
        'ancient-lib; extra == "old-python" and python_version < "3.0"',
    ])
    dist(tmp_path, "turbo-lib", "2.1")
    dist(tmp_path, "acme-base", "0.9", extras=["extra-x"], requires=['missing-deep; extra == "extra-x"'])
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_a_marker_true_here_applies_the_requirement(site):
    assert requirement_problem(f'no-such-dist-xyz>=1; python_version >= "{PY}"') == (
        f'no-such-dist-xyz>=1; python_version >= "{PY}": no-such-dist-xyz is not installed')
    assert requirement_problem(f'acme-checks>=1.2; python_version >= "{PY}"') == ""
    assert requirement_problem('acme-checks>=2; sys_platform == "' + sys.platform + '"').endswith(
        "acme-checks 1.2 is installed, which is not >=2")


def test_a_marker_false_here_asks_for_nothing(site):
    assert requirement_problem(f'no-such-dist-xyz>=1; python_version < "{PY}"') == ""
    assert requirement_problem('acme-checks>=2; sys_platform == "no-such-platform"') == ""


def test_an_extra_is_met_when_what_it_adds_is_installed_at_a_version_it_allows(site):
    assert requirement_problem("acme-checks[fast]>=1.2") == ""
    assert requirement_problem("Acme_Checks[FAST]") == ""  # names and extras compare normalised
    assert requirement_problem("acme-checks[old_python]") == ""  # its one need applies below 3.0 only


def test_an_extra_whose_needs_are_missing_says_which(site):
    assert requirement_problem("acme-checks[fast,gpu]") == (
        "acme-checks[fast,gpu]: acme-checks[gpu] needs cuda-lib; extra == \"gpu\": cuda-lib is not installed")
    assert requirement_problem("acme-checks[nested]") == (
        'acme-checks[nested]: acme-checks[nested] needs acme-base[extra-x]; extra == "nested": '
        'acme-base[extra-x] needs missing-deep; extra == "extra-x": missing-deep is not installed')


def test_an_extra_the_distribution_does_not_offer_is_named_with_those_it_does(site):
    assert requirement_problem("acme-checks[socks]") == (
        "acme-checks[socks]: acme-checks 1.2 offers no extra 'socks' (its extras: fast, gpu, nested, old-python)")


def test_a_wrong_version_of_an_extra_dependency_is_reported(site):
    dist(site, "slow-lib", "1.0")
    dist(site, "acme-slow", "1.0", extras=["slow"], requires=['slow-lib>=3; extra == "slow"'])
    assert requirement_problem("acme-slow[slow]").endswith("slow-lib 1.0 is installed, which is not >=3")


@pytest.mark.parametrize("text, reason", [
    ("acme-checks @ https://example.invalid/acme.whl", "a URL requirement cannot be checked"),
    ("acme-checks >= one", "cannot read the requirement 'acme-checks >= one'"),
    ("acme-checks; python_version >>> '3'", "cannot read the requirement"),
])
def test_what_cannot_be_checked_is_refused_with_the_reason(site, text, reason):
    assert reason in requirement_problem(text)


def test_the_rubricbench_specifier_is_pep_440():
    assert satisfies("0.1.0", ">=0.1,<1") and not satisfies("0.1.0", ">=0.2")
    assert satisfies("0.2.0rc1", ">=0.1")  # a pre-release counts
    assert rubricbench_problem(">=99") == "needs rubricbench >=99; this is 0.1.0"
    assert rubricbench_problem("at least 1").startswith("not a version specifier")
