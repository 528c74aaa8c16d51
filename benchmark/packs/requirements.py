"""A pack's ``rubricbench:`` specifier and ``requires:`` distributions, checked against what is
installed, with ``packaging`` (a pinned dependency: the reference implementation of PEP 440
versions and PEP 508 requirements, which pip vendors).

A requirement is PEP 508 without a URL: ``name``, optional ``[extras]``, an optional version
specifier, an optional ``; marker``. A marker false here (``; python_version < "3.11"``) makes
the requirement not apply: nothing is asked. An extra is met when the distribution offers it and
every requirement the extra adds (its ``Requires-Dist`` entries whose marker holds with that
``extra``) is met in turn, extras included. A URL (``name @ https://...``) is refused: what is
installed cannot show where it came from.
"""

from __future__ import annotations

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name

MAX_EXTRA_DEPTH = 8  # extras that require extras: a bound, not a limit any real package meets


def satisfies(version: str, specifier: str) -> bool:
    """True when ``version`` satisfies the PEP 440 ``specifier``, pre-releases included
    (ValueError when the specifier cannot be read)."""
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
    """Why the PEP 508 ``requirement`` (``name[extra]>=1.2; marker``) is not met by what is
    installed ("" when it is, or when its marker is false here)."""
    try:
        parsed = Requirement(requirement)
    except InvalidRequirement as exc:
        return (f"cannot read the requirement {requirement!r}: {exc} (write name[extras]>=version; marker, "
                "as pip reads it)")
    if parsed.url:
        return (f"{requirement}: a URL requirement cannot be checked against what is installed; "
                "give the distribution's name and a version specifier")
    why = _unmet(parsed, 0)
    return f"{requirement}: {why}" if why else ""


def _unmet(requirement: Requirement, depth: int, extra: str = "") -> str:
    """Why ``requirement`` is not met ("" when it is, or when its marker does not apply)."""
    from .. import installed

    if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
        return ""
    name = requirement.name
    try:
        found = installed.version(name)
    except installed.NotInstalled:
        return f"{name} is not installed"
    if requirement.specifier and not requirement.specifier.contains(found, prereleases=True):
        return f"{name} {found} is installed, which is not {requirement.specifier}"
    for wanted in sorted(requirement.extras):
        if why := _extra_unmet(name, found, wanted, depth):
            return why
    return ""


def _extra_unmet(name: str, found: str, wanted: str, depth: int) -> str:
    """Why the extra ``wanted`` of the installed ``name`` is not met ("" when it is)."""
    from importlib import metadata

    meta = metadata.distribution(name).metadata
    offered = {canonicalize_name(e): e for e in meta.get_all("Provides-Extra") or []}
    key = canonicalize_name(wanted)
    if key not in offered:
        return f"{name} {found} offers no extra {wanted!r} (its extras: {', '.join(sorted(offered)) or 'none'})"
    if depth >= MAX_EXTRA_DEPTH:
        return f"extras nested deeper than {MAX_EXTRA_DEPTH} levels under {name}[{wanted}]"
    for line in meta.get_all("Requires-Dist") or []:
        try:
            needed = Requirement(line)
        except InvalidRequirement:
            continue  # the distribution's own metadata; pip would have refused it at install
        if needed.marker is None or not needed.marker.evaluate({"extra": key}) or needed.marker.evaluate({"extra": ""}):
            continue  # not added by this extra (needed without it, or not here)
        if why := _unmet(needed, depth + 1, key):
            return f"{name}[{wanted}] needs {needed}: {why}"
    return ""
