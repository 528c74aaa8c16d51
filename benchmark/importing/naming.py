"""Explicit file names near a block, matched only against the files the task expects.

Three places name a file: the info string (``python title="x.py"``, ``python:x.py``,
``x.py``), the heading or the last line of the paragraph just before the block (``### x.py``,
``**x.py**``, ``File: x.py``, ``Here is `x.py`:``) and the block's first line as a comment
(``# x.py``, ``# file: x.py``, ``// x.json``). A directory prefix is dropped only when the
base name is an expected file; a name with ``..``, an absolute path or any other name never
matches, so nothing a reply says can point outside the model folder.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from .markdown import Block
from .tasks import ImportTask

_DECORATION = "`*_'\"#>[](){}<>:;,.!?= \t"
_LABELS = ("file", "filename", "file name", "path", "save as", "save this as")
_COMMENT = ("#", "//", "--")


def expected_name(word: str, task: ImportTask) -> str | None:
    """``word`` as one of the task's files: ``x.py``, ``src/x.py`` -> ``x.py``; else None."""
    word = word.strip(_DECORATION).replace("\\", "/")
    if not word or word.startswith("/") or ".." in word.split("/"):
        return None
    name = word if task.file(word) else PurePosixPath(word).name
    return name if task.file(name) else None


def _words(text: str) -> list[str]:
    for separator in ("=", ":", ",", "{", "}"):
        text = text.replace(separator, " ")
    return text.split()


def from_info(info: str, task: ImportTask) -> str | None:
    """``python title="x.py"``, ``python:x.py``, ``{.python file=x.py}``, ``x.py``."""
    names = {expected_name(word, task) for word in _words(info)} - {None}
    return names.pop() if len(names) == 1 else None


def _strip_label(line: str) -> str:
    line = line.strip().strip("*_#` \t")
    lowered = line.lower()
    for label in _LABELS:
        if lowered.startswith(label) and lowered[len(label):len(label) + 1] in (":", " ", "*", "`"):
            return line[len(label):].lstrip(":*_` \t")
    return line


def from_text_before(before: str, task: ImportTask) -> str | None:
    """The last line of the heading or paragraph before the block, when it is a file's label:
    the name alone (decorated or after ``File:``), or a sentence that ends with the name."""
    lines = before.strip().splitlines()
    if not lines:
        return None
    words = _strip_label(lines[-1]).split()
    if not words:
        return None
    named = {expected_name(word, task) for word in words} - {None}
    last = expected_name(words[-1], task)
    return last if last and named == {last} else None


def from_first_line(content: str, task: ImportTask) -> str | None:
    """``# x.py``, ``# file: x.py``, ``// x.json`` as the block's first line."""
    first = content.split("\n", 1)[0].strip()
    marker = next((mark for mark in _COMMENT if first.startswith(mark)), None)
    if marker is None or first.startswith("#!"):
        return None
    words = _strip_label(first[len(marker):]).split()
    return expected_name(words[0], task) if len(words) == 1 else None


def explicit_name(block: Block, task: ImportTask) -> tuple[str, str] | None:
    """(file name, rule) from the first place that names an expected file, or None."""
    for rule, found in (("name:info", from_info(block.info, task)),
                        ("name:before", from_text_before(block.before, task)),
                        ("name:comment", from_first_line(block.content, task))):
        if found:
            return found, rule
    return None
