"""Where a results folder keeps its cache: ``<results-dir>/.cache/models/`` (the entries,
``cache.ResultCache``), ``.cache/isolation/`` (what runs measured of the machine) and
``.cache/fragments/`` (the reports' per-model parts, ``fragment_store``).

Loads nothing of the grader: the command line asks :func:`has_entries` before it imports
the grader, to leave the sandbox zygote unstarted in a run the cache may serve wholly
(``benchmark.cli``)."""

from __future__ import annotations

import os
from pathlib import Path


def entries_dir(results_dir: str | Path) -> Path:
    return Path(results_dir) / ".cache" / "models"


def measures_dir(results_dir: str | Path) -> Path:
    return Path(results_dir) / ".cache" / "isolation"


def fragments_dir(results_dir: str | Path) -> Path:
    """The reports' per-model parts kept between runs (``fragment_store.FragmentStore``)."""
    return Path(results_dir) / ".cache" / "fragments"


def has_entries(results_dir: str | Path) -> bool:
    """Whether the cache under ``results_dir`` holds an entry (a ``<key>.json`` file; an entry
    being written is a hidden temporary file). False when there is no such folder or it
    cannot be read."""
    try:
        with os.scandir(entries_dir(results_dir)) as found:
            return any(entry.name.endswith(".json") and not entry.name.startswith(".") for entry in found)
    except OSError:
        return False
