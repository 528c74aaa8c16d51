"""Work from saved results files, without regrading: rebuild a run's reports
(``--report-only``), compare two runs (``--compare``) and the score gates the CLI applies.

Nothing here prints or chooses an exit code; the CLI does both.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .run_diff import diff_runs, regressions
from .run_stats import ALPHA
from .diff_html import render_diff_html
from .diff_text import gate_line, gate_scope, render_diff_text, settings_warning
from ..files import FileRefused
from ..untrusted import all_clean, escape
from .results_json import load_results
from .saved_error import SavedRunError  # noqa: F401 (its home until now)
from .view import Run, run_view
from .writer import atomic_write_text, results_folder_problem, write_reports


def _spelled_out(value: Any) -> Any:
    """Plain JSON data with the unsafe characters of every string, keys included, spelled out
    (``untrusted.escape``); numbers, booleans and None kept."""
    if isinstance(value, str):
        return escape(value)
    if isinstance(value, Mapping):
        return {escape(key): _spelled_out(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_spelled_out(item) for item in value]
    return value


def load_saved(path: str | Path) -> dict[str, Any]:
    """A results document read from ``path`` and validated against the schema. A saved file is
    untrusted (hand-edited, another tool's, an older grader's): a control character, bidi
    override or lone surrogate in any of its strings is spelled out, as the grader does before
    writing, so no report built from it carries one."""
    try:
        doc = load_results(path)
        return doc if all_clean(doc) else _spelled_out(doc)
    except FileRefused as exc:
        raise SavedRunError(f"results file not found: {path}" if exc.missing else f"{path}: {exc}") from None
    except (OSError, ValueError) as exc:  # JSON, UTF-8 and schema errors are ValueErrors
        kind = "not valid JSON" if isinstance(exc, json.JSONDecodeError) else "not usable"
        raise SavedRunError(f"{path}: {kind}: {exc}") from None


def _writable(folder: Path) -> None:
    """``SavedRunError`` when nothing can be written in ``folder`` (checked before writing)."""
    problem = results_folder_problem(folder)
    if problem:
        raise SavedRunError(problem)


def rebuild_reports(path: str | Path) -> dict[str, Path]:
    """Validate the saved run at ``path`` and write every report next to it."""
    doc = load_saved(path)
    folder = Path(path).parent
    _writable(folder)
    try:
        return write_reports(doc, folder)
    except OSError as exc:  # (e.g. a folder where a report goes: the others are written)
        raise SavedRunError(f"cannot write the reports into {folder}: {exc.strerror or exc}") from None


@dataclass(frozen=True)
class Comparison:
    text: str
    html_path: Path
    regressions: tuple[Mapping[str, Any], ...]
    gate: str | None = None  # the regression gate's line (--fail-on-regression)
    warning: str | None = None  # the grading settings that differ, when any


def compare_files(old_path: str | Path, new_path: str | Path, out_dir: str | Path | None = None,
                  threshold: float | None = None, significance: float | None = None) -> Comparison:
    """Diff two saved runs; write the HTML comparison into ``out_dir`` (default: next to NEW).
    Each model's change is tested at ``significance`` (default 0.05); given, the regression
    gate counts only significant drops."""
    old, new = run_view(load_saved(old_path)), run_view(load_saved(new_path))
    diff = diff_runs(old, new, alpha=significance if significance is not None else ALPHA)
    failed = regressions(diff, threshold, significant=significance is not None) if threshold is not None else []
    folder = Path(out_dir) if out_dir is not None else Path(new_path).parent
    name = f"comparison_{old.run_id}_vs_{new.run_id}.html"
    _writable(folder)
    try:
        html_path = atomic_write_text(folder / name, render_diff_html(diff, threshold, failed, significance))
    except OSError as exc:
        raise SavedRunError(f"cannot write {folder / name}: {exc.strerror or exc}") from None
    gate = gate_line(threshold, failed, gate_scope(diff), significance) if threshold is not None else None
    return Comparison(render_diff_text(diff, threshold, failed, significance), html_path, tuple(failed), gate,
                      settings_warning(diff))


def models_under(doc: Mapping[str, Any] | Run, percentage: float) -> list[tuple[str, float]]:
    """Models (best first) whose percentage is below ``percentage`` (``--fail-under``)."""
    return [(model.name, model.percentage) for model in run_view(doc).models if model.percentage < percentage]
