"""YAML with positions: plain data plus where each value sits in the file.

``read_yaml(path)`` never raises for what is in the file: a non-UTF-8, binary, empty or
unparseable file, a custom tag, a duplicate key or an alias loop each becomes a ``Problem``
with a 1-based line and column, and the data is then ``None`` (or, for duplicate keys, the
last value, as PyYAML keeps it). Scalars resolve as ``yaml.safe_load`` resolves them, except
that a timestamp stays the text it was written as (JSON has no dates). Only the standard tags
are accepted (A.11: YAML stays data). Unquoted YAML 1.1 booleans (``on``, ``yes``, ``no``...)
are remembered by path, so the schema step can warn where a string was meant.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .problems import Problem

MAX_BYTES = 1_000_000
MAX_NODES = 200_000  # values built, counting every expansion of an alias (a billion laughs stops here)
TAG = "tag:yaml.org,2002:"
SCALAR_TAGS = {TAG + name for name in ("null", "bool", "int", "float", "str")}
YAML11_BOOLEANS = {"on", "off", "yes", "no", "y", "n"}

JsonPath = tuple[str | int, ...]


@dataclass
class Document:
    """A YAML file read with positions. ``positions[path]`` is the (line, col) of the value at
    ``path``; ``key_positions[path]`` that of its key in the enclosing mapping."""

    file: Path
    data: Any = None
    problems: list[Problem] = field(default_factory=list)
    positions: dict[JsonPath, tuple[int, int]] = field(default_factory=dict)
    key_positions: dict[JsonPath, tuple[int, int]] = field(default_factory=dict)
    yaml11_booleans: dict[JsonPath, str] = field(default_factory=dict)  # path -> the text written

    @property
    def ok(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)

    def position(self, path: JsonPath, *, key: bool = False) -> tuple[int | None, int | None]:
        """The (line, col) of the value at ``path`` (of its key, with ``key``); for a path the
        file does not hold, that of its deepest existing ancestor; (None, None) for no data."""
        path = tuple(path)
        if key and path in self.key_positions:
            return self.key_positions[path]
        while path not in self.positions and path:
            path = path[:-1]
        return self.positions.get(path, (None, None))

    def problem(self, path: JsonPath, message: str, *, key: bool = False,
                severity: str = "error") -> Problem:
        line, col = self.position(path, key=key)
        return Problem(self.file, line, col, format_path(path), message, severity)


def format_path(path: JsonPath) -> str:
    """``("checks", 1, "points")`` -> ``"checks/1/points"``."""
    return "/".join(str(part) for part in path)


def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


class _Builder:
    """Plain data from a composed node tree, recording positions and problems on the way."""

    def __init__(self, doc: Document, loader: yaml.SafeLoader):
        self.doc, self.loader, self.count, self.active = doc, loader, 0, set()

    def fail(self, node: yaml.Node, path: JsonPath, message: str) -> None:
        line, col = _mark(node)
        self.doc.problems.append(Problem(self.doc.file, line, col, format_path(path), message))

    def build(self, node: yaml.Node, path: JsonPath) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise _TooBig(node)
        self.doc.positions.setdefault(path, _mark(node))
        if id(node) in self.active:
            self.fail(node, path, "an alias refers to a value that contains it")
            return None
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node, path)
        self.active.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode) and node.tag == TAG + "seq":
                return [self.build(item, path + (i,)) for i, item in enumerate(node.value)]
            if isinstance(node, yaml.MappingNode) and node.tag == TAG + "map":
                return self.mapping(node, path)
            self.fail(node, path, f"the tag {node.tag} is not accepted (only plain YAML data)")
            return None
        finally:
            self.active.discard(id(node))

    def scalar(self, node: yaml.ScalarNode, path: JsonPath) -> Any:
        if node.tag == TAG + "timestamp":
            return node.value
        if node.tag not in SCALAR_TAGS:
            self.fail(node, path, f"the tag {node.tag} is not accepted (only plain YAML data)")
            return None
        value = self.loader.construct_object(node)
        if isinstance(value, bool) and node.style is None and node.value.lower() in YAML11_BOOLEANS:
            self.doc.yaml11_booleans[path] = node.value
        return value

    def mapping(self, node: yaml.MappingNode, path: JsonPath) -> dict[str, Any]:
        out: dict[str, Any] = {}
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == TAG + "merge":
                self.fail(key_node, path, "a key must be plain text (no merge keys, no lists or mappings as keys)")
                continue
            key = key_node.value
            line, col = _mark(key_node)
            if key in seen:
                self.fail(key_node, path + (key,), f"key {key!r} repeats line {seen[key]}")
            seen[key] = line
            self.doc.key_positions[path + (key,)] = (line, col)
            self.doc.positions.pop(path + (key,), None)
            out[key] = self.build(value_node, path + (key,))
        return out


class _TooBig(Exception):
    def __init__(self, node: yaml.Node):
        super().__init__()
        self.node = node


def _decode(raw: bytes, doc: Document) -> str | None:
    """The text of ``raw``, or None with a problem saying where it stops being UTF-8 text."""
    def at(offset: int, message: str) -> None:
        line = raw.count(b"\n", 0, offset) + 1
        col = offset - (raw.rfind(b"\n", 0, offset) + 1) + 1
        doc.problems.append(Problem(doc.file, line, col, "", message))

    if b"\x00" in raw:
        at(raw.index(b"\x00"), "a binary file (it holds a NUL byte), not YAML text")
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        at(exc.start, f"not UTF-8 text (byte 0x{raw[exc.start]:02x} cannot start or continue a character)")
        return None
    return text[1:] if text.startswith("\ufeff") else text


def read_yaml(path: Path) -> Document:
    """``path`` read as YAML with positions (see the module's docstring); never raises for content."""
    doc = Document(Path(path))
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        doc.problems.append(Problem(doc.file, None, None, "", f"cannot be read: {exc.strerror or exc}"))
        return doc
    if len(raw) > MAX_BYTES:
        doc.problems.append(Problem(doc.file, 1, 1, "", f"larger than {MAX_BYTES} bytes"))
        return doc
    text = _decode(raw, doc)
    return doc if text is None else parse_yaml(text, doc)


def parse_yaml(text: str, doc: Document) -> Document:
    """Fill ``doc`` from YAML ``text`` (see the module's docstring)."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            doc.problems.append(Problem(doc.file, 1, 1, "", "the file is empty (a YAML mapping was expected)"))
            return doc
        doc.data = _Builder(doc, loader).build(node, ())
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (None, None)
        reason = " ".join(part for part in (exc.context, exc.problem) if part)
        doc.problems.append(Problem(doc.file, line, col, "", f"not valid YAML: {reason}"))
        doc.data = None
    except yaml.YAMLError as exc:
        doc.problems.append(Problem(doc.file, None, None, "", f"not valid YAML: {exc}"))
        doc.data = None
    except _TooBig as exc:
        line, col = _mark(exc.node)
        doc.problems.append(Problem(doc.file, line, col, "", f"expands to more than {MAX_NODES} values"))
        doc.data = None
    except RecursionError:
        doc.problems.append(Problem(doc.file, None, None, "", "nested too deeply"))
        doc.data = None
    finally:
        loader.dispose()
    return doc
