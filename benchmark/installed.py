"""Installed distributions' versions without importing ``importlib.metadata``.

``importlib.metadata.version`` imports the email package, zipfile and csv to parse a whole
METADATA file: about 25 ms of a run, where the lookups themselves take 3 ms. A wheel-installed
distribution (what pip and uv install) is a ``<name>-<version>.dist-info`` folder on
``sys.path`` whose METADATA header has a ``Version:`` line; ``version`` reads that line
(``versions``, for several names, lists each folder of the path once). It looks
where ``importlib.metadata`` looks, in the same order (the ``sys.path`` entries, first match
wins), and hands anything it is not sure of to ``importlib.metadata`` itself: an entry with
more than one candidate, an ``.egg-info``, an egg or zip on the path, a METADATA without a
``Version:`` line, a name not found at all (so "not installed" is always its answer). A
distribution whose metadata names no version is ``UNKNOWN``, whichever answers.
"""

from __future__ import annotations

import os
import re
import sys

_SEPARATORS = re.compile(r"[-_.]+")
_HEADER_LIMIT = 64 * 1024  # the header is a few lines; the description after it can be long


class NotInstalled(LookupError):
    """No distribution of that name is installed."""


def _normalized(name: str) -> str:
    return _SEPARATORS.sub("-", name).lower()


def _candidates(names: list[str], wanted: str) -> list[str]:
    """The ``names`` of a folder that may be ``wanted``'s metadata (dist-info or egg-info)."""
    found = []
    for item in names:
        stem, dot, suffix = item.rpartition(".")
        if dot and suffix in ("dist-info", "egg-info") and _normalized(stem.split("-", 1)[0]) == wanted:
            found.append(item)
    return found


def _header_version(folder: str) -> str | None:
    """The ``Version:`` of a dist-info folder's METADATA header, or None."""
    try:
        with open(os.path.join(folder, "METADATA"), "rb") as handle:
            head = handle.read(_HEADER_LIMIT)
    except OSError:
        return None
    for line in head.decode("utf-8", "replace").splitlines():
        if not line.strip():
            return None  # the header ended without one
        key, colon, value = line.partition(":")
        if colon and key.strip().lower() == "version" and value.strip():
            return value.strip()
    return None


def _fast_versions(names: list[str]) -> dict[str, str | None]:
    """Each of ``names``: its version read from its dist-info, or None (hand it on). Every
    ``sys.path`` folder is listed once for all of them."""
    todo = {name: _normalized(name) for name in names}
    out: dict[str, str | None] = dict.fromkeys(names)
    listed: set[str] = set()
    for entry in sys.path:
        if not todo:
            break
        if entry and not os.path.isdir(entry):
            if os.path.exists(entry):
                break  # an egg or zip on the path: importlib.metadata reads those
            continue
        if entry in listed:  # a folder twice on the path: its first place decided
            continue
        listed.add(entry)
        try:
            listing = os.listdir(entry or ".")
        except OSError:
            continue
        for name, wanted in list(todo.items()):
            found = _candidates(listing, wanted)
            if found:
                del todo[name]  # decided here: read, or handed on
                if len(found) == 1 and found[0].endswith(".dist-info"):
                    out[name] = _header_version(os.path.join(entry or ".", found[0]))
    return out


def _fast_version(name: str) -> str | None:
    return _fast_versions([name])[name]


UNKNOWN = "unknown"  # installed, but its metadata names no version


def versions(names: list[str]) -> dict[str, str | None]:
    """:func:`version` of each of ``names`` (None for one not installed), each folder of
    ``sys.path`` listed once."""
    out = {}
    for name, found in _fast_versions(names).items():
        try:
            out[name] = found if found is not None else _metadata_version(name)
        except NotInstalled:
            out[name] = None
    return out


def version(name: str) -> str:
    """The installed version of distribution ``name``, as ``importlib.metadata.version(name)``
    gives it, or ``UNKNOWN`` for one whose metadata has no ``Version:`` (the standard library
    answers None there, the importlib_metadata backport, once imported, raises KeyError);
    raises ``NotInstalled`` when there is none."""
    found = _fast_version(name)
    return found if found is not None else _metadata_version(name)


def _metadata_version(name: str) -> str:
    """:func:`version` as importlib.metadata answers it (the general case, with everything
    it imports)."""
    from importlib import metadata

    try:
        found = metadata.version(name)
    except metadata.PackageNotFoundError as exc:
        raise NotInstalled(name) from exc
    except KeyError:
        return UNKNOWN
    return found if isinstance(found, str) and found else UNKNOWN
