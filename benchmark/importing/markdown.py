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
    content: str  # the block's content, exactly as CommonMark gives it
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
        return self.first_line + 1, self.first_line + _count_lines(self.content)


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
    return text[:start] + "\n" * text.count("\n", start, stop) + text[stop:]


def parse(reply: str) -> Parsed:
    """Every top-level or nested fenced block of ``reply`` and every heading, in order."""
    text = blank_think(reply)
    tokens = MarkdownIt("commonmark").parse(text)
    blocks: list[Block] = []
    headings: list[Heading] = []
    before = ""
    for position, token in enumerate(tokens):
        if token.type == "inline" and token.map:
            before = token.content
            if tokens[position - 1].type == "heading_open":
                headings.append(Heading(token.map[0] + 1, token.content))
        elif token.type == "fence" and token.map:
            blocks.append(_block(len(blocks), token, before))
            before = ""
        elif token.type.endswith("_open") and token.type not in ("paragraph_open", "heading_open"):
            before = ""  # a list or quote between the text and the fence breaks the link
    return Parsed(tuple(blocks), tuple(headings), text)


def _block(index: int, token, before: str) -> Block:
    start, end = token.map  # 0-based, end exclusive
    closed = end - start == _count_lines(token.content) + 2
    return Block(index, token.info, token.markup, token.content, start + 1, end, closed, before)
