"""A pack's ``rubricbench:`` specifier and ``requires:`` distributions, checked against what is
installed. ``packaging`` does the comparing when it is installed; otherwise a small parser
handles ``>=``, ``<=``, ``>``, ``<``, ``==`` and ``!=`` on dotted integers (clauses joined by commas).
"""

from __future__ import annotations

import re

_CLAUSE = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*([0-9]+(?:\.[0-9]+)*)\s*$")
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*)$")


def _dotted(version: str) -> tuple[int, ...]:
    numbers = re.match(r"[0-9]+(?:\.[0-9]+)*", version)
    parts = [int(n) for n in numbers.group().split(".")] if numbers else [0]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def _by_hand(version: str, specifier: str) -> bool:
    """True when ``version`` satisfies ``specifier``; ValueError for a clause it cannot read."""
    have = _dotted(version)
    for clause in filter(None, (c.strip() for c in specifier.split(","))):
        match = _CLAUSE.match(clause)
        if not match:
            raise ValueError(f"cannot read the version clause {clause!r}")
        op, want = match.group(1), _dotted(match.group(2))
        ok = {">=": have >= want, "<=": have <= want, ">": have > want, "<": have < want,
              "==": have == want, "!=": have != want}[op]
        if not ok:
            return False
    return True


def satisfies(version: str, specifier: str) -> bool:
    """True when ``version`` satisfies the PEP 440 ``specifier`` (ValueError when unreadable)."""
    try:
        from packaging.specifiers import InvalidSpecifier, SpecifierSet
    except ImportError:
        return _by_hand(version, specifier)
    try:
        return SpecifierSet(specifier).contains(version, prereleases=True)
    except InvalidSpecifier as exc:
        raise ValueError(f"not a version specifier: {exc}") from exc


def rubricbench_problem(specifier: str) -> str:
    """Why the running RubricBench does not satisfy ``specifier`` ("" when it does)."""
    from .. import __version__

    try:
        ok = satisfies(__version__, specifier)
    except ValueError as exc:
        return str(exc)
    return "" if ok else f"needs rubricbench {specifier}; this is {__version__}"


def requirement_problem(requirement: str) -> str:
    """Why the distribution ``requirement`` (``name>=1.2``) is not installed as asked ("" when it is)."""
    from .. import installed

    match = _REQUIREMENT.match(requirement)
    if not match:
        return f"cannot read the requirement {requirement!r}"
    name, specifier = match.group(1), match.group(2).strip()
    try:
        found = installed.version(name)
    except installed.NotInstalled:
        return f"{requirement}: {name} is not installed"
    try:
        ok = not specifier or satisfies(found, specifier)
    except ValueError as exc:
        return f"{requirement}: {exc}"
    return "" if ok else f"{requirement}: {name} {found} is installed, which is not {specifier}"
