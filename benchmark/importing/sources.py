"""REPLIES as (task, reply) pairs: a folder of replies, a JSONL export, or one Markdown file.

- a folder: one ``.md``/``.txt``/``.markdown`` file per task, its stem a task's name
  (``prompt_3``, ``3``, ``p3``); other files are listed as ignored;
- a JSONL file: ``{"model", "task", "response"}`` or ``{"task", "messages"}`` (the last
  assistant message); records of other models are skipped; a model with several answers per
  task becomes ``samples`` (see ``jsonl``);
- one Markdown file: a heading naming a task (``## Prompt 3``, ``# p3``, ``## Task 3``) starts
  its section; blocks before the first such heading belong to no task.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from ..files import FileRefused, read_regular
from . import markdown
from .tasks import ImportTask, task_named

SUFFIXES = (".md", ".markdown", ".txt")
MAX_REPLIES_BYTES = 64 << 20  # one reply file, JSONL export or Markdown document
EXIT_ERROR, EXIT_USAGE, EXIT_NOT_FOUND = 1, 2, 5


class ImportInputError(Exception):
    """REPLIES cannot be read as replies; ``code`` is the exit code."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Reply:
    task: ImportTask
    source: str  # the reply file, or "file.jsonl:LINE"
    sha256: str  # of the reply file's bytes (JSONL: of the reply text, UTF-8)
    parsed: markdown.Parsed


@dataclass
class Replies:
    kind: str  # folder | jsonl | markdown
    replies: list[Reply] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    models: tuple[str, ...] = ()  # the models a JSONL file holds
    # a JSONL model imported as samples: (sample id, that sample's replies), ``replies`` empty
    samples: list[tuple[str, Replies]] | None = None


def _decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportInputError(EXIT_ERROR, f"{where} is not UTF-8 ({exc.reason} at byte {exc.start})")


def _read(path: Path) -> bytes:
    """The bytes of the regular file ``path``, at most ``MAX_REPLIES_BYTES`` (a device or a
    FIFO, even behind a link, would never end or never answer)."""
    try:
        return read_regular(path, MAX_REPLIES_BYTES)
    except FileRefused as exc:
        raise ImportInputError(EXIT_ERROR, f"cannot read {path}: {exc}") from None


def _add(found: dict[str, Reply], reply: Reply) -> None:
    if reply.task.id in found:
        raise ImportInputError(EXIT_USAGE, f"two replies for {reply.task.id}: "
                                           f"{found[reply.task.id].source} and {reply.source}")
    found[reply.task.id] = reply


def _folder(folder: Path, tasks: tuple[ImportTask, ...]) -> Replies:
    result, found = Replies("folder"), {}
    for path in sorted(folder.iterdir()):
        task = task_named(path.stem, tasks) if path.suffix.lower() in SUFFIXES else None
        if task is None:
            result.ignored.append(path.name)
            continue
        data = _read(path)  # a task's reply that is not a regular file is refused, not ignored
        text = _decode(data, str(path))
        _add(found, Reply(task, str(path), hashlib.sha256(data).hexdigest(), markdown.parse(text)))
    result.replies = [found[task.id] for task in tasks if task.id in found]
    return result
