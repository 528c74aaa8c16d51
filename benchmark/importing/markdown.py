"""A reply's fenced blocks, from markdown-it-py's CommonMark parse (never a regex on fences).

Fences of any length, backticks or tildes, nested fences inside a longer fence, fences in
lists and quotes: all as CommonMark reads them. ``<think>`` sections are blanked first, line
for line, so every line number still points into the reply as it was received.
"""

from __future__ import annotations

from dataclasses import dataclass

from markdown_it import MarkdownIt

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"


@dataclass(frozen=True)
class Block:
    index: int  # 0-based, in reply order
    info: str  # the info string after the opening fence
    fence: str  # the opening fence's marker: "```", "~~~~" ...
    content: str  # the block's content: the reply's own characters (see _verbatim)
    first_line: int  # 1-based line of the opening fence
    last_line: int  # 1-based line of the closing fence (the last line when unclosed)
    closed: bool
    before: str  # text of the heading or paragraph just before the block ("" when none)

    @property
    def language(self) -> str:
        """The info string's first word, lower case: "python" for ``python title="x.py"``."""
        word = self.info.strip().split(maxsplit=1)[0] if self.info.strip() else ""
        return word.lstrip("{.").split(":", 1)[0].rstrip("}").lower()

    @property
    def content_lines(self) -> tuple[int, int]:
        """1-based first and last line of the content (first > last for an empty block)."""
        return self.first_line + 1, self.first_line + _count_lines(_normalized(self.content))


@dataclass(frozen=True)
class Heading:
    line: int  # 1-based
    text: str


@dataclass(frozen=True)
class Parsed:
    blocks: tuple[Block, ...]
    headings: tuple[Heading, ...]
    text: str  # the reply with <think> sections blanked


def _count_lines(content: str) -> int:
    return content.count("\n") + (1 if content and not content.endswith("\n") else 0)


def blank_think(text: str) -> str:
    """``text`` with every ``<think>...</think>`` section (and all before a lone ``</think>``)
    replaced by its newlines only, so line numbers are unchanged; an unclosed ``<think>``
    blanks to the end."""
    opened, closed = text.find(THINK_OPEN), text.find(THINK_CLOSE)
    if closed != -1 and (opened == -1 or closed < opened):  # the opening tag was in the prompt
        text = _blank(text, 0, closed + len(THINK_CLOSE))
    start = text.find(THINK_OPEN)
    while start != -1:
        end = text.find(THINK_CLOSE, start)
        stop = len(text) if end == -1 else end + len(THINK_CLOSE)
        text = _blank(text, start, stop)
        start = text.find(THINK_OPEN, stop)
    return text


def _blank(text: str, start: int, stop: int) -> str:
    ends = "".join(char for char in text[start:stop] if char in "\r\n")  # every line end kept
    return text[:start] + ends + text[stop:]


def source_lines(text: str) -> list[str]:
    """``text`` in lines with their ends, split where CommonMark splits (``\r\n``, ``\r``,
    ``\n``; not at a form feed or U+2028, which ``str.splitlines`` would split at)."""
    lines: list[str] = []
    for piece in text.splitlines(keepends=True):
        if lines and not lines[-1].endswith(("\n", "\r")):
            lines[-1] += piece
        else:
            lines.append(piece)
    return lines


def _normalized(text: str) -> str:
    """What markdown-it makes of source text: line ends as ``\n``, NUL as U+FFFD."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")


def _verbatim(content: str, lines: list[str], first: int) -> str:
    """The block's content as the reply's own characters (CRLF, NUL kept): its source lines
    less the opening fence's indentation, when they are exactly what markdown-it read;
    otherwise (a fence inside a list or quote) markdown-it's content."""
    fence = lines[first - 1]
    indent = len(fence) - len(fence.lstrip(" "))
    raw = lines[first:first + _count_lines(content)]
    text = "".join(line[min(indent, len(line) - len(line.lstrip(" "))):] for line in raw)
    return text if _normalized(text) == content else content


def parse(reply: str) -> Parsed:
    """Every top-level or nested fenced block of ``reply`` and every heading, in order."""
    text = blank_think(reply)
    tokens = MarkdownIt("commonmark").parse(text)
    lines = source_lines(text)
    blocks: list[Block] = []
    headings: list[Heading] = []
    before = ""
    for position, token in enumerate(tokens):
        if token.type == "inline" and token.map:
            before = token.content
            if tokens[position - 1].type == "heading_open":
                headings.append(Heading(token.map[0] + 1, token.content))
        elif token.type == "fence" and token.map:
            blocks.append(_block(len(blocks), token, before, lines))
            before = ""
        elif token.type.endswith("_open") and token.type not in ("paragraph_open", "heading_open"):
            before = ""  # a list or quote between the text and the fence breaks the link
    return Parsed(tuple(blocks), tuple(headings), text)


def _block(index: int, token, before: str, lines: list[str]) -> Block:
    start, end = token.map  # 0-based, end exclusive
    closed = end - start == _count_lines(token.content) + 2
    content = _verbatim(token.content, lines, start + 1)
    return Block(index, token.info, token.markup, content, start + 1, end, closed, before)
