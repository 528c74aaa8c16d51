"""Where imported files go: only ``<submissions>/<tier>/<model>/<expected name>``, or, for a
model imported as samples, ``<submissions>/<tier>/<model>/samples/<id>/<expected name>``.

Refused (``TargetError``, exit 1): a file name that is not a plain name (``..``, a path, an
absolute path), a symbolic link anywhere from the tier folder down (even with ``--force``), an
existing file without ``--force``, and a write the system refuses. Every write is atomic (temp
file, fsync, rename).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..reporting.writer import atomic_write_bytes, atomic_write_json
from .report import REPORT_NAME, Planned

EXIT_REFUSED = 1


class TargetError(Exception):
    code = EXIT_REFUSED


def _plain(name: str) -> bool:
    return bool(name) and name not in (".", "..") and "/" not in name and "\\" not in name \
        and not Path(name).is_absolute() and "\x00" not in name


def on_the_way(folder: Path, tier: Path | None = None) -> list[Path]:
    """``tier`` (default: ``folder``'s parent) and every folder from it down to ``folder``:
    ``tier/model``, or ``tier/model``, ``tier/model/samples``, ``tier/model/samples/ID``."""
    tier = folder.parent if tier is None else tier
    below = folder.relative_to(tier).parts
    return [tier] + [tier.joinpath(*below[:depth]) for depth in range(1, len(below) + 1)]


def check_target(folder: Path, rows: list[Planned], force: bool,
                 tier: Path | None = None) -> dict[str, bytes]:
    """``{file name: bytes}`` to write into ``folder``, once every name and path is safe; a
    symbolic link or a file anywhere from ``tier`` (default: ``folder``'s parent) down to
    ``folder`` is refused."""
    for path in on_the_way(folder, tier):
        if path.is_symlink():
            raise TargetError(f"{path} is a symbolic link; refusing to write through it")
        if path.exists() and not path.is_dir():
            raise TargetError(f"{path} exists and is not a folder")
    files = {row.choice.file: data for row in rows if (data := row.data()) is not None}
    existing = []
    for name in [*files, REPORT_NAME]:
        if not _plain(name):
            raise TargetError(f"{name!r} is not a plain file name; refusing to write it")
        path = folder / name
        if path.is_symlink():
            raise TargetError(f"{path} is a symbolic link; refusing to replace it")
        if path.exists():
            existing.append(name)
    if existing and not force:
        raise TargetError(f"{folder} already has {', '.join(existing)}; use --force to overwrite")
    return files


def write_all(folder: Path, files: dict[str, bytes], report: dict[str, Any]) -> list[Path]:
    """Each file, then ``import_report.json``, atomically; ``TargetError`` naming the folder
    when the system refuses a write (a read-only file system, a file on the way)."""
    try:
        written = [atomic_write_bytes(folder / name, data) for name, data in files.items()]
        atomic_write_json(folder / REPORT_NAME, report)
    except OSError as exc:
        raise TargetError(f"cannot write into {folder}: {exc.strerror or exc}") from None
    return written
