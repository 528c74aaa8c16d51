"""Atomic file writes and ``write_run``: validate the document, then write each output.

A write goes to a unique temp file in the target's folder, is flushed and fsynced, then
renamed over the target with ``os.replace`` and the folder is fsynced. On any failure the
temp file is removed and the previous file is left as it was. ``durable=False`` skips both
fsyncs, for files whose reader detects and ignores a torn one (the result cache's entries:
after a crash the rename may reach the disk before the data, leaving a short or zero-filled
file, which strict JSON parsing refuses).
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .chart import render_comparison_chart
from .encoding import dumps, dumps_bytes  # noqa: F401  (re-exported: they have always been here)
from .conformance import unchanged
from .failsafe import SERIALISATION_ERRORS, isolate_failures
from .fragments import Fragments, serving
from .html_report import MODEL_PAGES, render_html_report, render_model_pages
from .junit import render_junit
from .markdown_summary import render_markdown_summary
from .results_json import validate_results
from .text_summary import render_summary
from .view import run_view

RUN_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}")
LATEST_NAME = "latest_results.json"
LATEST_DIR = "latest"  # a link to the newest run's folder of reports
DEFAULT_MODE = 0o644
# Outputs rebuilt from the results document alone: kind -> (file name, renderer).
REPORTS = {
    "summary": ("summary_report.txt", render_summary),
    "chart": ("comparison_chart.txt", render_comparison_chart),
    "report": ("report.html", render_html_report),
    "junit": ("junit.xml", render_junit),
    "markdown": ("summary.md", render_markdown_summary),
}
# Outputs of many files in a folder beside them: kind -> (folder, renderer -> {file name: text}).
# report.html's per-model pages, past its inline limit (none for a smaller run).
PAGES = {"report_pages": (MODEL_PAGES, render_model_pages)}
WRITE_THREADS = 16


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


def atomic_write_bytes(path: str | Path, data: bytes, *, durable: bool = True) -> Path:
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
            if durable:
                os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        if isinstance(exc, OSError) and exc.errno:  # named by the file meant, not the temporary one
            raise OSError(exc.errno, exc.strerror, str(target)) from exc
        raise
    if durable:
        _fsync_dir(folder)
    return target


def results_folder_problem(folder: str | Path) -> str | None:
    """Why results cannot be written under ``folder``, or None. A file is created and removed
    in the folder, or, while it does not exist, in its nearest existing parent (as root,
    permission bits say nothing about a read-only or virtual file system); nothing is left
    behind. A run checks this before it grades anything."""
    folder = Path(folder).absolute()
    existing = folder
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        return f"results folder {folder}: {existing} is not a folder"
    try:
        handle, name = tempfile.mkstemp(prefix=".rubricbench-write-check-", dir=existing)
        os.close(handle)
        os.unlink(name)
    except OSError as exc:
        return f"results folder {folder} cannot be written: {exc.strerror or exc}"
    return None


def atomic_write_text(path: str | Path, text: str, *, durable: bool = True) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"), durable=durable)


def atomic_write_json(path: str | Path, obj: Any) -> Path:
    """Serialise first (a failure leaves nothing behind), then write atomically."""
    return atomic_write_bytes(path, dumps_bytes(obj))


def render_reports(doc: Mapping[str, Any], fragments: Fragments | None = None,
                   views: list[Any] | None = None) -> dict[str, tuple[str, str]]:
    """Every report for the validated ``doc`` as ``{kind: (file name, text)}``; renders all
    before any write. The document is read into its typed view once (``view.run_view``), and
    every renderer takes that view. A page of ``PAGES`` is ``{"<kind>/<file name>":
    ("<folder>/<file name>", text)}``. With ``fragments``, the renderers take each model's
    parts from it when it holds them for that model's record (``reporting.fragments``). Given
    a ``views`` list, the view is appended to it (the caller's own reading of the document)."""
    run = run_view(doc)
    if views is not None:
        views.append(run)
    with serving(fragments):
        outputs = {kind: (name, render(run)) for kind, (name, render) in REPORTS.items()}
        for kind, (folder, render_pages) in PAGES.items():
            outputs.update({f"{kind}/{name}": (f"{folder}/{name}", text)
                            for name, text in render_pages(run).items()})
    return outputs


def _by_kind(paths: dict[str, Path]) -> dict[str, Path]:
    """The paths written, one per kind: a kind of ``PAGES`` by its folder (when it wrote any)."""
    found = {kind: path for kind, path in paths.items() if "/" not in kind}
    found.update({kind.split("/", 1)[0]: path.parent for kind, path in paths.items() if "/" in kind})
    return found


def _write_all(folder: Path, outputs: Mapping[str, tuple[str, str | bytes]]) -> dict[str, Path]:
    """Each ``{kind: (name, text or UTF-8 bytes)}`` written atomically into ``folder``, side by
    side on threads (each waits on its own fsync with the GIL released). Every write is
    attempted; the first failure is raised once all have finished."""
    folder.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=max(1, min(WRITE_THREADS, len(outputs))), thread_name_prefix="write") as pool:
        futures = {kind: pool.submit(atomic_write_bytes if isinstance(text, bytes) else atomic_write_text,
                                     folder / name, text)
                   for kind, (name, text) in outputs.items()}
    return {kind: future.result() for kind, future in futures.items()}


def write_reports(doc: Mapping[str, Any], folder: str | Path) -> dict[str, Path]:
    """Validate ``doc``, render every report, then write them into ``folder`` (``--report-only``).

    The results file itself is not rewritten. A schema failure writes nothing."""
    validate_results(doc)
    return _by_kind(_write_all(Path(folder), render_reports(doc)))


def _checked_bytes(doc: dict[str, Any], failures: dict[str, str] | None) -> bytes:
    """``doc`` validated and serialised; with ``failures``, see :func:`write_run`. Neither step
    changes ``doc``, so its records' prompts are keyed once for both (``conformance.unchanged``)."""
    try:
        with unchanged():
            validate_results(doc)
            return dumps_bytes(doc)
    except SERIALISATION_ERRORS:  # ResultsSchemaError is a ValueError
        if failures is None:
            raise
    failures.update(isolate_failures(doc))
    validate_results(doc)  # a problem outside the models' records still stops the run
    return dumps_bytes(doc)


def write_run(doc: dict[str, Any], results_dir: str | Path, *, update_latest: bool = True,
              failures: dict[str, str] | None = None, fragments: Fragments | None = None,
              views: list[Any] | None = None) -> dict[str, Path]:
    """Validate ``doc``, then write ``<results_dir>/<run_id>/results.json`` and every report
    (summary_report.txt, comparison_chart.txt, report.html, junit.xml, summary.md; past report.html's
    inline limit also its per-model pages, ``models/m<index>.html``, kind ``report_pages``), then
    ``<results_dir>/latest_results.json`` and the link ``<results_dir>/latest`` to the run's
    folder. Returns the paths by kind.

    A schema or serialisation failure raises (``ResultsSchemaError``, ``TypeError`` ...) before
    any file is written; so does a rendering failure (every output is rendered before the first
    write). Given a ``failures`` dict, a model whose own record cannot be serialised or
    validated does not stop the run: ``doc`` gets an error record for it saying why
    (``failsafe.isolate_failures``), ``failures`` gets its name and the reason, and the other
    models are written as usual. ``fragments``: see :func:`render_reports`; a store that keeps
    them (``engine.fragment_store``) is saved once every file is written. ``views``: see
    :func:`render_reports`.
    """
    results_json = _checked_bytes(doc, failures)
    run_id = doc["run_id"]
    if not RUN_ID_RE.fullmatch(run_id) or ".." in run_id or run_id in (LATEST_DIR, LATEST_NAME):
        raise ValueError(f"unsafe run_id {run_id!r}")
    rendered = render_reports(doc, fragments, views)
    run_dir = Path(results_dir) / run_id
    paths = _by_kind(_write_all(run_dir, {"results": ("results.json", results_json), **rendered}))
    if update_latest:  # last: it names a run folder that is complete
        paths["latest"] = atomic_write_bytes(Path(results_dir) / LATEST_NAME, results_json)
        linked = _point_latest(Path(results_dir), run_id)
        if linked is not None:
            paths["latest_dir"] = linked
    if fragments is not None:  # (last: the run's files never wait on the cache of its parts)
        fragments.save()
    return paths


def _point_latest(results_dir: Path, run_id: str) -> Path | None:
    """``<results_dir>/latest``: a symbolic link to the newest run's folder (relative, so the
    results folder can move), replaced atomically. Something else of that name (a folder the
    user made) is left alone, and a file system without links only goes without: None."""
    link = results_dir / LATEST_DIR
    if os.path.lexists(link) and not link.is_symlink():
        return None
    temporary = results_dir / f".{LATEST_DIR}.{os.getpid()}.tmp"
    try:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        os.symlink(run_id, temporary, target_is_directory=True)
        os.replace(temporary, link)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()
        return None
    return link
