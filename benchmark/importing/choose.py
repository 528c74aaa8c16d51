"""Which block becomes which file, and why: every decision names its rule.

Order (issue 17): an explicit name for one of the task's files (``naming``); else the
language; among several candidates for a Python file, those that parse, then those that
define the entry point, then the last (models revise). Shell, diff and console blocks are
never code. A reply without any fence gives its Python file the longest span of lines that
parses (flagged ``unfenced``). The chosen text is the block's content, never reformatted.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass

from . import naming
from .markdown import Block, Parsed
from .tasks import MAIN_GUARD, FileSpec, ImportTask

LANGUAGES = {"python": ("", "python", "py", "python3", "py3"), "yaml": ("yaml", "yml"),
             "json": ("json", "jsonc")}
NEVER_CODE = frozenset({"bash", "sh", "shell", "zsh", "console", "shell-session", "shellsession",
                        "powershell", "ps1", "cmd", "bat", "diff", "patch", "pycon"})
MAX_UNFENCED_LINES = 2000


@dataclass(frozen=True)
class Choice:
    file: str
    text: str | None  # what is written (None: missing)
    rule: str | None  # name:info | name:before | name:comment | language | unfenced
    block: Block | None
    lines: tuple[int, int] | None  # 1-based content lines in the reply
    warnings: tuple[str, ...]
    candidates: int = 0


def parses(kind: str, text: str) -> bool:
    """Whether ``text`` is a valid document of ``kind`` (Python by ``ast``, YAML safely)."""
    try:
        if kind == "python":
            ast.parse(text)
        elif kind == "json":
            json.loads(text)
        elif kind == "yaml":
            import yaml

            return isinstance(yaml.safe_load(text), (dict, list))
    except Exception:  # SyntaxError, ValueError, RecursionError, yaml.YAMLError: not a document
        return False
    return True


def defines_entry(text: str, entry: str | None) -> bool:
    """A top-level ``def entry`` (or, for a script, an ``if __name__ == "__main__":`` block)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in tree.body:
        if entry == MAIN_GUARD and isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry:
            return True
    return False


def _fits_language(block: Block, spec: FileSpec) -> bool:
    return block.language in LANGUAGES.get(spec.kind, ())


def _usable(block: Block, spec: FileSpec, task: ImportTask) -> bool:
    if not parses(spec.kind, block.content):
        return False
    return spec.kind != "python" or task.entry is None or defines_entry(block.content, task.entry)


def _narrow(pool: list[Block], spec: FileSpec, task: ImportTask) -> list[Block]:
    """Those that parse, then those that define the entry point (each step only if any do)."""
    stages = [lambda b: parses(spec.kind, b.content)]
    if spec.kind == "python" and task.entry:
        stages.append(lambda b: defines_entry(b.content, task.entry))
    for keep in stages:
        pool = [block for block in pool if keep(block)] or pool
    return pool


def _pool(blocks: tuple[Block, ...], spec: FileSpec, task: ImportTask) -> list[Block]:
    """Blocks an explicit name gives to ``spec`` (trusted when one is usable), else by language."""
    code = [b for b in blocks if b.language not in NEVER_CODE]
    names = {b.index: naming.explicit_name(b, task) for b in code}
    named = [b for b in code if names[b.index] and names[b.index][0] == spec.name]
    by_language = [b for b in code if not names[b.index] and _fits_language(b, spec)]
    if not by_language and spec.kind in ("yaml", "json"):  # untagged data: what parses as it
        by_language = [b for b in code if not names[b.index] and b.language == ""
                       and parses(spec.kind, b.content) and not _other_data_kind(b, spec)]
    if named and any(_usable(b, spec, task) for b in named):
        return named
    return named + by_language


def _other_data_kind(block: Block, spec: FileSpec) -> bool:
    """JSON is also YAML: an untagged block that is JSON goes to the JSON file."""
    return spec.kind == "yaml" and parses("json", block.content)


def choose_file(parsed: Parsed, spec: FileSpec, task: ImportTask) -> Choice:
    pool = sorted(_pool(parsed.blocks, spec, task), key=lambda b: b.index)
    if not pool:
        if not parsed.blocks and spec.kind == "python":
            return unfenced(parsed.text, spec)
        return Choice(spec.name, None, None, None, None, ("missing",))
    finalists = _narrow(pool, spec, task)
    chosen = finalists[-1]
    named = naming.explicit_name(chosen, task)
    warnings = [] if chosen.closed else ["truncated"]
    if any(block.content != chosen.content for block in finalists):
        warnings.append("ambiguous")
    return Choice(spec.name, chosen.content, named[1] if named else "language", chosen,
                  chosen.content_lines, tuple(warnings), len(pool))


def choose(parsed: Parsed, task: ImportTask) -> tuple[Choice, ...]:
    """One :class:`Choice` per expected file of ``task``, in the task's order."""
    return tuple(choose_file(parsed, spec, task) for spec in task.files)


def _substantial(text: str) -> bool:
    """Parses, and is more than bare expressions (``Sure`` alone parses as a name)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(not isinstance(node, ast.Expr) for node in tree.body)


def unfenced(text: str, spec: FileSpec) -> Choice:
    """The longest span of lines that parses, starting at an unindented line (EvalPlus's rule)."""
    lines = text.split("\n")[:MAX_UNFENCED_LINES]
    best: tuple[int, int] | None = None
    starts = [i for i, line in enumerate(lines) if line.strip() and not line[0].isspace()]
    for start in starts:
        for stop in range(len(lines), start, -1):
            if best and stop - start <= best[1] - best[0]:
                break
            if lines[stop - 1].strip() and _substantial("\n".join(lines[start:stop])):
                best = (start, stop)
                break
    if best is None:
        return Choice(spec.name, None, None, None, None, ("missing",))
    body = "\n".join(lines[best[0]:best[1]]) + "\n"
    return Choice(spec.name, body, "unfenced", None, (best[0] + 1, best[1]), ("unfenced",), 1)
