"""Source excerpts for evidence: a few lines around each evidence line, stored in the results.

Filled in when a run is written, from the model folders the runner graded (a model of
samples: each sample's record from its folder, and the mean record's evidence, named
``samples/<id>/<file>``, from that sample's). A file's lines are
used only when the file still has the sha256 recorded for it at grading time (``files`` of
the prompt), so an excerpt always shows the text that was graded; symbolic links, files that
changed or vanished, and names that are not the prompt's graded files get no excerpt. The
excerpt is a display aid (the HTML report shows it); it never affects a score. The result
cache stores a record with its excerpts (``ResultCache.put``, from the files just graded), and
an entry that has its excerpt already is left as it is, so a record read back from the cache
reads no file here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..sample_names import SAMPLES
from ..submission import read_text
from ..untrusted import escape

CONTEXT = 2  # lines shown before and after the evidence line
MAX_LINE_CHARS = 160
MAX_EXCERPTS_PER_CHECK = 8
LINE_BREAK = re.compile(r"\r\n|\r|\n")  # the breaks ast and PyYAML count lines by


def _clip(line: str) -> str:
    """A source line as the report shows it: control and bidirectional characters spelled out
    (``untrusted.escape``: a line cannot reorder or redraw what is shown around it), cut to
    ``MAX_LINE_CHARS``."""
    shown = escape(line[: MAX_LINE_CHARS + 1])
    return shown if len(shown) <= MAX_LINE_CHARS else shown[: MAX_LINE_CHARS - 1] + "…"


def excerpt_for(lines: list[str], line: Any, context: int = CONTEXT) -> dict[str, Any] | None:
    """``{"start": n, "lines": [...]}`` around 1-based ``line``, or None when out of range."""
    if isinstance(line, bool) or not isinstance(line, int) or not 1 <= line <= len(lines):
        return None
    first = max(1, line - context)
    last = min(len(lines), line + context)
    return {"start": first, "lines": [_clip(text) for text in lines[first - 1:last]]}


class _GradedFiles:
    """Lines of a model's graded files, read once each, keyed by name and expected sha256."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.cache: dict[tuple[str, str], list[str] | None] = {}

    def lines(self, name: str, sha256: str) -> list[str] | None:
        key = (name, sha256)
        if key not in self.cache:
            self.cache[key] = self._read(name, sha256)
        return self.cache[key]

    def _read(self, name: str, sha256: str) -> list[str] | None:
        if "/" in name or name in ("", ".", ".."):
            return None  # a bare file name inside the model folder, nothing else
        text, error, digest = read_text(self.folder / name)
        if text is None or error is not None or digest != sha256:
            return None
        return text.split("\n") if "\r" not in text else LINE_BREAK.split(text)  # (the same lines)


class _SampleFiles:
    """The graded files of a model's samples, named ``samples/<id>/<file>`` as a model's mean
    record names them (``benchmark.sampling``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.samples: dict[str, _GradedFiles] = {}

    def lines(self, name: str, sha256: str) -> list[str] | None:
        parts = name.split("/")
        if len(parts) != 3 or parts[0] != SAMPLES or parts[1] in ("", ".", ".."):
            return None
        if parts[1] not in self.samples:
            self.samples[parts[1]] = _GradedFiles(self.folder / SAMPLES / parts[1])
        return self.samples[parts[1]].lines(parts[2], sha256)


def _wants(item: Mapping[str, Any], hashes: Mapping[str, Any]) -> str | None:
    """The sha256 of the graded file whose lines ``item`` (an evidence entry or a run's
    ``raised``) could be shown from, or None: it has its excerpt already (a record the result
    cache stored with its excerpts), names no graded file, or has no line to show."""
    line = item.get("line")
    if "excerpt" in item or isinstance(line, bool) or not isinstance(line, int):
        return None
    sha256 = hashes.get(item.get("file"))
    return sha256 if isinstance(sha256, str) else None


def _fill_prompt(prompt: dict[str, Any], files: _GradedFiles | _SampleFiles) -> None:
    hashes = prompt.get("files") if isinstance(prompt.get("files"), Mapping) else {}
    for run in prompt.get("execution") or ():  # the line an exception came through
        raised = run.get("raised") if isinstance(run, Mapping) else None
        sha256 = _wants(raised, hashes) if isinstance(raised, dict) else None
        lines = files.lines(raised["file"], sha256) if sha256 is not None else None
        excerpt = excerpt_for(lines, raised.get("line")) if lines is not None else None
        if excerpt is not None:
            raised["excerpt"] = excerpt
    for check in prompt.get("checks") or ():
        shown = 0
        for item in check.get("evidence") or ():
            if shown >= MAX_EXCERPTS_PER_CHECK:
                break
            if "excerpt" in item:
                shown += 1
                continue
            sha256 = _wants(item, hashes)
            lines = files.lines(item["file"], sha256) if sha256 is not None else None
            excerpt = excerpt_for(lines, item.get("line")) if lines is not None else None
            if excerpt is not None:
                item["excerpt"] = excerpt
                shown += 1


def _copied(value: Any, *path: str) -> Any:
    """A copy of ``value`` in which the dicts and lists along ``path`` (``"*"``: every
    entry) are new; everything else is shared with ``value``."""
    if not path:
        return dict(value) if isinstance(value, Mapping) else value
    key, rest = path[0], path[1:]
    if key == "*" and isinstance(value, Mapping):
        return {k: _copied(v, *rest) for k, v in value.items()}
    if key == "*" and isinstance(value, list):
        return [_copied(v, *rest) for v in value]
    if isinstance(value, Mapping):
        out = dict(value)
        if key in out:
            out[key] = _copied(out[key], *rest)
        return out
    return value


def attach_excerpts(doc: Mapping[str, Any], folders: Mapping[str, str | Path], *,
                    in_place: bool = False) -> dict[str, Any]:
    """A copy of ``doc`` whose evidence entries carry ``excerpt`` where the graded file is
    in ``folders[model]`` unchanged. ``doc`` itself is not modified: the copy has its own
    dicts down to each evidence entry and shares everything it does not change.

    ``in_place=True`` fills ``doc``'s own evidence entries and returns ``doc``: for a document
    nothing else holds a part of, such as one ``results_json.run_to_dict`` has just built
    (its evidence entries are new dicts; the copy costs about half of this function)."""
    out = doc if in_place else _copied(_copied(_copied(_copied(
        doc, "models", "*", "prompts", "*", "checks", "*", "evidence", "*"),
        "models", "*", "prompts", "*", "execution", "*", "raised"),
        "models", "*", "samples", "*", "prompts", "*", "checks", "*", "evidence", "*"),
        "models", "*", "samples", "*", "prompts", "*", "execution", "*", "raised")
    for name, model in (out.get("models") or {}).items():
        folder = folders.get(name)
        if folder is None or not isinstance(model, Mapping):
            continue
        samples = model.get("samples") if isinstance(model.get("samples"), Mapping) else {}
        _fill_model(model, _SampleFiles(Path(folder)) if samples else _GradedFiles(Path(folder)))
        for sid, sample in samples.items():  # (each sample's own record, from its folder)
            if isinstance(sample, Mapping) and "/" not in sid and sid not in (".", ".."):
                _fill_model(sample, _GradedFiles(Path(folder) / SAMPLES / sid))
    return out


def _fill_model(model: Mapping[str, Any], files: _GradedFiles | _SampleFiles) -> None:
    for prompt in (model.get("prompts") or {}).values():
        if isinstance(prompt, Mapping):
            _fill_prompt(prompt, files)
