"""Per-model parts of the reports, rendered once and reused while nothing they show changes.

A model's drill-down in report.html (or its own page past the inline limit), its block of
summary_report.txt, its testsuite in junit.xml and its rows of summary.md's lost points are
most of what a run renders, and each is a function of the model's record alone and a few
values of the run (its place in the leaderboard, whether the run has packs, the packs'
titles). A :class:`Fragments` is handed to ``writer.render_reports`` (the renderers read it
from :data:`ACTIVE`); for each such part a renderer asks
:meth:`Fragments.part` with the model, the part's name, those values and a function that
renders it. The part is kept under a key made of the grader's rendering code (``version``),
the model's name, the record's exact content (its JSON) and those values: a part is
reused only for the very record and values it was rendered from, by the same code.

This base class remembers parts for one process only; ``engine.fragment_store`` keeps them
between runs on disk, which is what makes a run served from the result cache render little.
A renderer with no ``Fragments`` active renders every part itself, as before.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator

import orjson

ACTIVE: ContextVar[Fragments | None] = ContextVar("rubricbench_fragments", default=None)


def record_key(version: str, name: str, record: Mapping[str, Any]) -> str:
    """The key of one model's parts: the rendering code's ``version``, the model's name (its
    key in the document) and its record's exact JSON (keys in their order: the same record
    written in another order is only a miss), hashed; all but the record's ``cached``, which
    no part shows (the leaderboard's row and the summary's header line do, made outside the
    parts), so a run served from the cache reuses the parts of the run that graded."""
    digest = hashlib.sha256(version.encode() + b"\0" + name.encode("utf-8", "surrogatepass") + b"\0")
    digest.update(orjson.dumps({key: value for key, value in record.items() if key != "cached"}))
    return digest.hexdigest()


def part_name(kind: str, values: Any) -> str:
    """A part's name within its model's parts: its kind and the run's values it shows."""
    return f"{kind}:{hashlib.sha256(orjson.dumps(values, option=orjson.OPT_SORT_KEYS)).hexdigest()[:32]}"


class Fragments:
    """Rendered parts by model record (in memory); ``hits`` and ``misses`` count the asks."""

    def __init__(self, version: str) -> None:
        self.version = version
        self.parts: dict[str, dict[str, str]] = {}  # record key -> {part name: text}
        self.used: dict[str, dict[str, str]] = {}  # the parts this run asked for, by record key
        self.hits = 0
        self.misses = 0
        self._keys: dict[int, tuple[Mapping[str, Any], str]] = {}  # id(record) -> (record, key)

    def key_of(self, name: str, record: Mapping[str, Any]) -> str:
        held = self._keys.get(id(record))
        if held is None or held[0] is not record:
            held = (record, record_key(self.version, name, record))
            self._keys[id(record)] = held
        return held[1]

    def load(self, key: str) -> dict[str, str]:
        """The parts kept for a record key (none here; ``fragment_store`` reads them from disk)."""
        return {}

    def save(self) -> int:
        """Keep the parts this run used for the next (none here); returns the files written."""
        return 0

    def part(self, name: str, record: Mapping[str, Any], kind: str, values: Any, render: Callable[[], str]) -> str:
        key = self.key_of(name, record)
        if key not in self.parts:
            self.parts[key] = self.load(key)
        label = part_name(kind, values)
        text = self.parts[key].get(label)
        if text is None:
            self.misses += 1
            text = self.parts[key][label] = render()
        else:
            self.hits += 1
        self.used.setdefault(key, {})[label] = text
        return text


def part(name: str, record: Mapping[str, Any], kind: str, values: Any, render: Callable[[], str]) -> str:
    """The part rendered by ``render`` for model ``name``'s ``record`` and the run's ``values``,
    from the active :class:`Fragments` when there is one (else rendered here)."""
    fragments = ACTIVE.get()
    return render() if fragments is None else fragments.part(name, record, kind, values, render)


@contextmanager
def serving(fragments: Fragments | None) -> Iterator[None]:
    """Make ``fragments`` the renderers' store while the block runs (None: none)."""
    token = ACTIVE.set(fragments)
    try:
        yield
    finally:
        ACTIVE.reset(token)
