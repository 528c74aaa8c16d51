"""The plan as a terminal table and as ``import_report.json`` (provenance per file)."""

from __future__ import annotations

import argparse
import hashlib
from dataclasses import dataclass
from typing import Any

from .. import untrusted
from .choose import Choice
from .sources import Replies, Reply

REPORT_NAME = "import_report.json"
REPORT_FORMAT = "rubricbench-import/1"
_COLUMNS = ("prompt", "file", "source", "block", "lines", "rule", "warnings")


@dataclass(frozen=True)
class Planned:
    task: str
    choice: Choice
    reply: Reply | None

    def data(self) -> bytes | None:
        """What is written: the chosen text, UTF-8, with one newline added only if it has none."""
        text = self.choice.text
        if text is None:
            return None
        return (text if text.endswith("\n") else text + "\n").encode("utf-8", "surrogatepass")


def _cells(row: Planned) -> tuple[str, ...]:
    choice, block = row.choice, row.choice.block
    lines = f"{choice.lines[0]}-{choice.lines[1]}" if choice.lines else "-"
    source = untrusted.text(row.reply.source, 60) if row.reply else "(no reply)"
    return (row.task, choice.file, source, str(block.index) if block else "-", lines,
            choice.rule or "-", ",".join(choice.warnings) or "-")


def table(rows: list[Planned]) -> list[str]:
    """Aligned plain-text lines: header, rule, one line per expected file."""
    body = [_COLUMNS] + [_cells(row) for row in rows]
    widths = [max(len(line[col]) for line in body) for col in range(len(_COLUMNS))]
    text = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip()
            for line in body]
    return [text[0], "  ".join("-" * width for width in widths)] + text[1:]


def _entry(row: Planned) -> dict[str, Any]:
    choice, block, data = row.choice, row.choice.block, row.data()
    return {
        "prompt": row.task, "file": choice.file,
        "source": untrusted.text(row.reply.source) if row.reply else None,
        "source_sha256": row.reply.sha256 if row.reply else None,
        "block": block.index if block else None,
        "lines": list(choice.lines) if choice.lines else None,
        "fence": block.fence if block else None,
        "info": untrusted.text(block.info, untrusted.NAME_LIMIT) if block else None,
        "rule": choice.rule, "candidates": choice.candidates,
        "warnings": list(choice.warnings),
        "sha256": hashlib.sha256(data).hexdigest() if data is not None else None,
        "bytes": len(data) if data is not None else None,
    }


def build_report(rows: list[Planned], args: argparse.Namespace, replies: Replies,
                 sample: str | None = None) -> dict[str, Any]:
    """``lines`` are the block's content lines (1-based, inclusive) in its reply; ``block`` its
    0-based index among the reply's fenced blocks; ``sha256`` is of the bytes written. A
    sample's report names its sample after its model (a single submission's has no ``sample``)."""
    return {
        "format": REPORT_FORMAT, "model": args.model,
        **({"sample": sample} if sample is not None else {}), "tier": args.tier,
        "replies": untrusted.text(str(args.replies)), "input": replies.kind,
        "models_in_input": list(replies.models),
        "ignored": [untrusted.text(name, untrusted.NAME_LIMIT) for name in replies.ignored],
        "files": [_entry(row) for row in rows],
    }
