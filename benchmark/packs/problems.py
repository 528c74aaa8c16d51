"""What is wrong with a pack, and where: one ``Problem`` per mistake, printed as
``file:line:col: json/path: message`` (A.8).

A problem is the pack author's fault, reported as data; ``PackError`` carries every problem
of a pack that cannot be loaded (house rule 5: their fault is an outcome, listed in full).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SEVERITIES = ("error", "warning")


@dataclass(frozen=True)
class Problem:
    """One mistake. ``line``/``col`` are 1-based, None when the file has no position for it
    (unreadable, missing); ``path`` is a JSON path like ``checks/1/points``, "" for the file."""

    file: Path
    line: int | None
    col: int | None
    path: str
    message: str
    severity: str = "error"

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def location(self, relative_to: Path | None = None) -> str:
        """``file:line:col`` (or ``file:line``, or ``file``) with the file shown relative to
        ``relative_to`` when it lies inside it."""
        name = str(self.file)
        if relative_to is not None:
            try:
                name = str(Path(self.file).relative_to(relative_to))
            except ValueError:
                pass
        parts = [name] + [str(n) for n in (self.line, self.col) if n is not None]
        return ":".join(parts)

    def format(self, relative_to: Path | None = None) -> str:
        """``file:line:col: json/path: message``; no path part for a file-wide problem, and
        ``warning: `` before the message of a warning."""
        prefix = "warning: " if self.severity == "warning" else ""
        where = f"{self.path}: " if self.path else ""
        return f"{self.location(relative_to)}: {where}{prefix}{self.message}"

    def sort_key(self) -> tuple[str, int, int, str]:
        return (str(self.file), self.line or 0, self.col or 0, self.path)


def sort_problems(problems: list[Problem]) -> list[Problem]:
    """Sorted by file, then line, column, path and message (the same order every run);
    duplicates dropped."""
    return sorted(set(problems), key=lambda p: (*p.sort_key(), p.message))


def count(problems: list[Problem]) -> tuple[int, int]:
    """(errors, warnings)."""
    errors = sum(1 for p in problems if p.is_error)
    return errors, len(problems) - errors


class PackError(Exception):
    """A pack that cannot be loaded; ``problems`` lists every mistake found, sorted."""

    def __init__(self, problems: list[Problem]):
        self.problems = sort_problems(problems)
        super().__init__("\n".join(p.format() for p in self.problems))
