"""The reports' per-model parts kept between runs: ``<results-dir>/.cache/fragments/``.

One file per model record (``reporting.fragments.record_key``), written after a run's
reports are, holding the parts that run rendered or reused for it (``pack``: an index line,
then the texts as they are), framed ``{"tag": ..., "record": ...}`` and tagged like a
result-cache entry (``entry_tags``: an HMAC of the file's key and bytes by this user's private
key). A part is HTML or text that goes into a report as it is, so only a file whose tag
matches is read; any other file (bare, edited, moved to another key, another user's, not what
``pack`` writes) is ignored and its parts rendered again. Without a usable key nothing is read or written. The store never stops a run: a file
that cannot be read is a miss, one that cannot be written is left out.

Each file is rewritten with the parts the last run used, so a file holds one run's parts and
the folder one file per distinct record graded, as the entries folder does.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import orjson

from ..reporting.fragments import Fragments
from ..reporting.writer import atomic_write_bytes
from .entry_tags import entry_tag, tagged, untagged
from .manifest import dependency_versions
from .source_hash import grader_source_hash

MAX_FILE_BYTES = 16 * 1024 * 1024  # (a model's parts are some hundred KB; a bigger file is not ours)


def rendering_version() -> str:
    """What the parts depend on besides the record: the grader's code and templates, and the
    installed template engine and escaper (as the run's manifest lists them)."""
    versions = dependency_versions()
    return f"{grader_source_hash()} Jinja2 {versions.get('Jinja2')} MarkupSafe {versions.get('MarkupSafe')}"


def pack(parts: dict[str, str]) -> bytes:
    """A record's parts as a file's bytes: one line of JSON, ``[[name, length in bytes], ...]``,
    then the parts' UTF-8 texts one after another (no escaping: read back by slicing)."""
    blobs = [text.encode("utf-8", "surrogatepass") for text in parts.values()]
    return orjson.dumps([[name, len(blob)] for name, blob in zip(parts, blobs)]) + b"\n" + b"".join(blobs)


def unpack(data: bytes) -> dict[str, str] | None:
    """What :func:`pack` wrote, or None for anything else."""
    head, newline, body = data.partition(b"\n")
    try:
        index = orjson.loads(head) if newline else None
        if not isinstance(index, list):
            return None
        parts, at = {}, 0
        for name, size in index:
            if not (isinstance(name, str) and type(size) is int and 0 <= size <= len(body) - at):
                return None
            parts[name] = body[at:at + size].decode("utf-8", "surrogatepass")
            at += size
    except (ValueError, TypeError):  # (not JSON, not pairs, not UTF-8)
        return None
    return parts if at == len(body) else None


class FragmentStore(Fragments):
    """:class:`reporting.fragments.Fragments` kept in ``folder`` between runs."""

    def __init__(self, folder: str | Path, version: str | None = None) -> None:
        super().__init__(version if version is not None else rendering_version())
        self.folder = Path(folder)
        self.enabled = entry_tag("", b"") is not None  # (no private key: no store)
        self._loaded: dict[str, dict[str, str]] = {}  # the parts each record's file held

    def load(self, key: str) -> dict[str, str]:
        if not self.enabled:
            return {}
        try:
            with open(self.folder / f"{key}.json", "rb") as handle:
                raw = handle.read(MAX_FILE_BYTES + 1)
        except OSError:
            return {}
        if len(raw) > MAX_FILE_BYTES:
            return {}
        data, tagged = untagged(key, raw)
        parts = unpack(data) if tagged else None
        if parts is None:
            return {}
        self._loaded[key] = dict(parts)
        return parts

    def save(self) -> int:
        """Write each record's file whose parts changed in this run; returns how many were written."""
        if not self.enabled:
            return 0
        written = 0
        for key, parts in self.used.items():
            if parts == self._loaded.get(key):
                continue
            framed = tagged(key, pack(parts))
            if framed is None:
                continue
            with contextlib.suppress(OSError):  # (an unwritable cache folder: the parts are rendered next time)
                self.folder.mkdir(parents=True, exist_ok=True)
                atomic_write_bytes(self.folder / f"{key}.json", framed, durable=False)
                written += 1
        return written
