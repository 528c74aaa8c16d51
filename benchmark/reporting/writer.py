"""Atomic file writes and ``write_run``: validate the document, then write each output.

A write goes to a unique temp file in the target's folder, is flushed and fsynced, then
renamed over the target with ``os.replace`` and the folder is fsynced. On any failure the
temp file is removed and the previous file is left as it was.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .chart import render_comparison_chart
from .html_report import render_html_report
from .junit import render_junit
from .markdown_summary import render_markdown_summary
from .results_json import validate_results
from .text_summary import render_summary

RUN_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}")
LATEST_NAME = "latest_results.json"
DEFAULT_MODE = 0o644
# Outputs rebuilt from the results document alone: kind -> (file name, renderer).
REPORTS = {
    "summary": ("summary_report.txt", render_summary),
    "chart": ("comparison_chart.txt", render_comparison_chart),
    "report": ("report.html", render_html_report),
    "junit": ("junit.xml", render_junit),
    "markdown": ("summary.md", render_markdown_summary),
}


def _fsync_dir(folder: Path) -> None:
    """Make the rename durable; not every platform can open a folder, which is fine."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    target = Path(path)
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    try:
        mode = target.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = DEFAULT_MODE
    fd, tmp_name = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(folder)
    return target


def atomic_write_text(path: str | Path, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


def dumps_bytes(obj: Any) -> bytes:
    """Strict JSON (NaN/Infinity and non-JSON types refused), key order as given, UTF-8 kept
    readable, two-space indent, a final newline; encoded as UTF-8.

    The standard library's C encoder checks ``obj`` (it raises on NaN, infinities and
    non-JSON types; it cannot indent) and orjson writes the indented text: together about
    five times faster than ``json.dumps(indent=2)``, whose indenting encoder is pure Python,
    and the same bytes for documents like ours (floats with few digits; orjson spells some
    very small or large floats differently, e.g. ``1e16`` for ``1e+16``, the same number).
    The check skips the C encoder's cycle bookkeeping (half its time): a document that
    contains itself still fails, with a RecursionError there instead of a ValueError."""
    import orjson

    json.dumps(obj, ensure_ascii=False, allow_nan=False, separators=(",", ":"),
               check_circular=False)
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE)


def dumps(obj: Any) -> str:
    """:func:`dumps_bytes` as text."""
    return dumps_bytes(obj).decode("utf-8")


def atomic_write_json(path: str | Path, obj: Any) -> Path:
    """Serialise first (a failure leaves nothing behind), then write atomically."""
    return atomic_write_bytes(path, dumps_bytes(obj))


def render_reports(doc: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """Every report for ``doc`` as ``{kind: (file name, text)}``; renders all before any write."""
    return {kind: (name, render(doc)) for kind, (name, render) in REPORTS.items()}


def _write_all(folder: Path, outputs: Mapping[str, tuple[str, str | bytes]]) -> dict[str, Path]:
    """Each ``{kind: (name, text or UTF-8 bytes)}`` written atomically into ``folder``, side by
    side on threads (each waits on its own fsync with the GIL released). Every write is
    attempted; the first failure is raised once all have finished."""
    folder.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=max(1, len(outputs)), thread_name_prefix="write") as pool:
        futures = {kind: pool.submit(atomic_write_bytes if isinstance(text, bytes) else atomic_write_text,
                                     folder / name, text)
                   for kind, (name, text) in outputs.items()}
    return {kind: future.result() for kind, future in futures.items()}


def write_reports(doc: Mapping[str, Any], folder: str | Path) -> dict[str, Path]:
    """Validate ``doc``, render every report, then write them into ``folder`` (``--report-only``).

    The results file itself is not rewritten. A schema failure writes nothing."""
    validate_results(doc)
    return _write_all(Path(folder), render_reports(doc))


def write_run(doc: Mapping[str, Any], results_dir: str | Path, *, update_latest: bool = True) -> dict[str, Path]:
    """Validate ``doc``, then write ``<results_dir>/<run_id>/results.json`` and every report
    (summary_report.txt, comparison_chart.txt, report.html, junit.xml, summary.md) and
    ``<results_dir>/latest_results.json``. Returns the paths by kind.

    A schema failure raises ``ResultsSchemaError`` before any file is written; so does a
    rendering failure (every output is rendered before the first write).
    """
    validate_results(doc)
    run_id = doc["run_id"]
    if not RUN_ID_RE.fullmatch(run_id) or ".." in run_id:
        raise ValueError(f"unsafe run_id {run_id!r}")
    results_json = dumps_bytes(doc)
    rendered = render_reports(doc)
    run_dir = Path(results_dir) / run_id
    paths = _write_all(run_dir, {"results": ("results.json", results_json), **rendered})
    if update_latest:  # last: it names a run folder that is complete
        paths["latest"] = atomic_write_bytes(Path(results_dir) / LATEST_NAME, results_json)
    return paths
