"""One Markdown file holding every answer: a heading that names a task starts its section."""

from __future__ import annotations

import hashlib
from pathlib import Path

from . import markdown
from .sources import Replies, Reply, _add, _decode, _read
from .tasks import ImportTask, task_named

_TASK_WORDS = ("prompt", "task", "question", "problem")


def heading_task(heading: str, tasks: tuple[ImportTask, ...]) -> ImportTask | None:
    """``Prompt 3``, ``Prompt 3: Data transformation``, ``prompt_3``, ``P3``, ``Task #3`` -> task."""
    words = heading.replace("`", " ").replace("*", " ").replace(":", " ").replace("#", " ").split()
    if not words:
        return None
    first = words[0].lower().rstrip(".")
    if first in _TASK_WORDS and len(words) > 1:
        return task_named(words[1].rstrip(".)"), tasks)
    return task_named(first, tasks)


def _section(parsed: markdown.Parsed, start: int, stop: int) -> markdown.Parsed:
    """The blocks whose opening fence is on lines [start, stop), and the text with every other
    line blanked (so line numbers still point into the whole file)."""
    lines = parsed.text.split("\n")
    kept = [line if start <= number < stop else "" for number, line in enumerate(lines, 1)]
    blocks = tuple(b for b in parsed.blocks if start <= b.first_line < stop)
    return markdown.Parsed(blocks, (), "\n".join(kept))


def load_document(path: Path, tasks: tuple[ImportTask, ...]) -> Replies:
    data = _read(path)
    parsed = markdown.parse(_decode(data, str(path)))
    digest = hashlib.sha256(data).hexdigest()
    marks = [(h.line, task) for h in parsed.headings
             if (task := heading_task(h.text, tasks)) is not None]
    result, found = Replies("markdown"), {}
    ends = [line for line, _ in marks[1:]] + [len(parsed.text.split("\n")) + 1]
    for (line, task), stop in zip(marks, ends):
        _add(found, Reply(task, f"{path}:{line}", digest, _section(parsed, line, stop)))
    result.replies = [found[task.id] for task in tasks if task.id in found]
    return result
