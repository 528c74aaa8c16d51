"""One Markdown file holding every answer.

A heading that names a task (``## Prompt 3``) starts its section. A file without such
headings is split by block instead: a block goes to the task whose file it names, else to the
only task with a data file of its language (YAML, JSON), else to the task whose entry-point
function it defines (a script's ``__main__`` block only when it defines no other task's
function); the rest belong to no task."""

from __future__ import annotations

import hashlib
from pathlib import Path

from . import markdown, naming
from .choose import LANGUAGES, defines_entry
from .sources import Replies, Reply, _add, _decode, _read
from .tasks import MAIN_GUARD, ImportTask, task_named

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
    if not marks:
        result.replies = _by_block(parsed, tasks, str(path), digest)
        return result
    ends = [line for line, _ in marks[1:]] + [len(parsed.text.split("\n")) + 1]
    for (line, task), stop in zip(marks, ends):
        _add(found, Reply(task, f"{path}:{line}", digest, _section(parsed, line, stop)))
    result.replies = [found[task.id] for task in tasks if task.id in found]
    return result


def _owner(block: markdown.Block, tasks: tuple[ImportTask, ...]) -> ImportTask | None:
    named = [task for task in tasks if naming.explicit_name(block, task)]
    if named:
        return named[0]
    by_data = [task for task in tasks if any(spec.kind in ("yaml", "json")
                                             and block.language in LANGUAGES[spec.kind]
                                             for spec in task.files)]
    if len(by_data) == 1:
        return by_data[0]
    functions = [t for t in tasks if t.entry not in (None, MAIN_GUARD) and defines_entry(block.content, t.entry)]
    if functions:
        return functions[0] if len(functions) == 1 else None
    scripts = [t for t in tasks if t.entry == MAIN_GUARD and defines_entry(block.content, MAIN_GUARD)]
    return scripts[0] if len(scripts) == 1 else None


def _by_block(parsed: markdown.Parsed, tasks: tuple[ImportTask, ...], source: str,
              digest: str) -> list[Reply]:
    """A reply per task that owns at least one block (no unfenced fallback: no section)."""
    owned: dict[str, list[markdown.Block]] = {}
    for block in parsed.blocks:
        if (task := _owner(block, tasks)) is not None:
            owned.setdefault(task.id, []).append(block)
    return [Reply(task, source, digest, markdown.Parsed(tuple(owned[task.id]), (), ""))
            for task in tasks if task.id in owned]
