"""Why a submitted file does not parse, when the cause is that it is not a file at all but a
chat reply: code inside markdown fences, or prose around the code.

Only the message changes: the grader still scores every file exactly as delivered (nothing is
extracted from the fences). The fences come from the same CommonMark parse ``rubricbench
import`` uses (``benchmark.importing.markdown``), never from a regex on backticks; the
diagnosis is made only when the parser's own error line is a fence line or a line of prose,
so a fence quoted inside a docstring never explains an unrelated syntax error.
"""

from __future__ import annotations

import keyword
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # markdown_it costs ~13 ms to import: only a file its parser rejected needs it
    from .importing import markdown

DELIVERED = "the grader scores files exactly as delivered"
_WORD = re.compile(r"[^\W\d_][^\W_]*(?:['’][^\W\d_]+)?")
_MARKUP = re.compile(r"^(?:#{1,6}\s+|>\s*|[-*+]\s+|\d{1,3}[.)]\s+|\*\*|__)+")
_CODE_MARKS = frozenset("=()[]{}<>;@$\\|")
_QUOTE_LIMIT = 60


def looks_like_prose(line: str) -> bool:
    """A line of a chat message rather than code: at least three words (after any markdown
    heading, list or emphasis marker), no code punctuation, not opening with a keyword.
    ``Here is the fixed script:`` is prose; ``return total`` and ``key: value`` are not."""
    stripped = _MARKUP.sub("", line.strip())
    words = _WORD.findall(stripped)
    if len(words) < 3 or _CODE_MARKS & set(stripped):
        return False
    if keyword.iskeyword(words[0]) or keyword.issoftkeyword(words[0]):
        return False
    covered = sum(len(word) for word in words) + stripped.count(" ")
    return covered >= 0.75 * len(stripped)


def _quote(line: str) -> str:
    line = line.strip()
    return line if len(line) <= _QUOTE_LIMIT else line[:_QUOTE_LIMIT - 1] + "…"


def _spans(blocks: tuple[markdown.Block, ...]) -> str:
    spans = [f"{b.first_line}-{b.last_line}" for b in blocks[:5]]
    more = f" and {len(blocks) - 5} more" if len(blocks) > 5 else ""
    if len(spans) == 1:
        return f"a fenced block at lines {spans[0]}"
    return f"{len(blocks)} fenced blocks at lines {', '.join(spans)}{more}"


def chat_reply(text: str, error_line: int | None) -> str | None:
    """``the file is a chat reply: ...`` when ``text``, which its parser rejected at
    ``error_line`` (1-based; None when unknown), is a chat reply; else None."""
    lines = text.splitlines()
    at = lines[error_line - 1] if error_line and 0 < error_line <= len(lines) else None
    from .importing import markdown

    blocks = markdown.parse(text).blocks
    fences = {b.first_line for b in blocks} | {b.last_line for b in blocks if b.closed}
    prose = at is not None and looks_like_prose(at)
    if blocks and (error_line in fences or prose):
        return f"the file is a chat reply: the code sits in {_spans(blocks)}; {DELIVERED}"
    if prose:
        return f"the file is a chat reply: line {error_line} is prose ({_quote(at)!r}), not code; {DELIVERED}"
    return None


def explained(text: str, error_line: int | None, parser: str, error: str) -> str | None:
    """The chat-reply diagnosis followed by what ``parser`` said, or None when the file is
    not a chat reply (the caller keeps its own message)."""
    reply = chat_reply(text, error_line)
    if reply is None:
        return None
    where = f" at line {error_line}" if error_line else ""
    return f"{reply} ({parser} stops{where}: {error})"
