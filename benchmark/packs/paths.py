"""Paths a task manifest names: they exist, stay inside the task folder, and never stage an
answer key.

Answer keys (``answers``, ``cases_file``, the ``reference`` folder and anything under an
``answers/`` folder) are read by the grader only and never staged: no ``fixtures`` entry, no
``run.stage`` source and no ``run.stdin`` may be one of them, lie under one, or contain one
(A.7). Every problem is placed on the line of the manifest value that names the path.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Any

from .problems import Problem
from .yamlpos import Document, JsonPath


def escape_reason(folder: Path, relative: str) -> str:
    """Why ``relative`` is not a path inside ``folder`` ("" when it is): absolute, with a
    ``..`` part or a backslash, or a symbolic link on the way that leads outside."""
    if not isinstance(relative, str) or not relative:
        return "not a path"
    if "\\" in relative or relative.startswith("/") or PurePosixPath(relative).is_absolute() or ":" in relative[:2]:
        return "is absolute or uses backslashes: give a path relative to the task folder"
    if ".." in PurePosixPath(relative).parts:
        return "escapes the folder ('..')"
    root = Path(os.path.realpath(folder))
    target = Path(os.path.realpath(folder / relative))
    if target != root and root not in target.parents:
        return "escapes the folder (a symbolic link leads outside it)"
    return ""


def _under(path: str, other: str) -> bool:
    """True when ``path`` is ``other`` or lies inside it (as folders)."""
    a, b = PurePosixPath(path).parts, PurePosixPath(other).parts
    return a[:len(b)] == b


def _referenced(task: dict[str, Any]) -> list[tuple[JsonPath, str, str]]:
    """(manifest path, file path, "file"|"folder") of every file the task names."""
    refs: list[tuple[JsonPath, str, str]] = [(("prompt",), task["prompt"], "file")]
    refs += [(("fixtures", i), p, "any") for i, p in enumerate(task.get("fixtures", []))]
    refs += [(("answers", label), p, "file") for label, p in task.get("answers", {}).items()]
    run = task["run"]
    refs += [(("run", "stage", name), p, "file") for name, p in run.get("stage", {}).items()]
    for key in ("stdin", "cases_file"):
        if key in run:
            refs.append((("run", key), run[key], "file"))
    for index, named in enumerate(run.get("runs", [])):  # (a script task's named runs)
        refs += [(("run", "runs", index, "stage", name), p, "file") for name, p in named.get("stage", {}).items()
                 if p is not None]
        if "stdin" in named:
            refs.append((("run", "runs", index, "stdin"), named["stdin"], "file"))
    for name, spec in task.get("perturb", {}).get("inputs", {}).items():
        refs.append((("perturb", "inputs", name, "from"), spec["from"], "file"))
    if "reference" in task:
        refs.append((("reference",), task["reference"], "folder"))
        refs += [(("files", i, "path"), f"{task['reference']}/{f['path']}", "file")
                 for i, f in enumerate(task["files"])]
    return refs


def _exists(folder: Path, relative: str, kind: str) -> str:
    path = folder / relative
    if kind == "file" and path.is_dir():
        return "is a folder: a file is needed here"
    if kind == "file" and not path.is_file():
        return "no such file in the task folder"
    if kind == "folder" and not path.is_dir():
        return "no such folder in the task folder"
    if kind == "any" and not path.exists():
        return "no such file in the task folder"
    return ""


def _parent_only(task: dict[str, Any]) -> list[str]:
    keys = list(task.get("answers", {}).values()) + ["answers"]
    keys += [task["run"]["cases_file"]] if "cases_file" in task["run"] else []
    return keys + ([task["reference"]] if "reference" in task else [])


def _staged(task: dict[str, Any]) -> list[tuple[JsonPath, str]]:
    staged = [(("fixtures", i), p) for i, p in enumerate(task.get("fixtures", []))]
    staged += [(("run", "stage", name), p) for name, p in task["run"].get("stage", {}).items()]
    staged += ([(("run", "stdin"), task["run"]["stdin"])] if "stdin" in task["run"] else [])
    for index, named in enumerate(task["run"].get("runs", [])):
        staged += [(("run", "runs", index, "stage", name), p) for name, p in named.get("stage", {}).items()
                   if p is not None]
        staged += [(("run", "runs", index, "stdin"), named["stdin"])] if "stdin" in named else []
    return staged


def _generated_from(task: dict[str, Any]) -> list[tuple[JsonPath, str]]:
    """The files perturbed inputs are generated from: what a generator makes of them is staged."""
    return [(("perturb", "inputs", name, "from"), spec["from"])
            for name, spec in task.get("perturb", {}).get("inputs", {}).items()]


STAGED_LIMIT = 32 * 1024 * 1024  # a run's staged files together (the sandbox's file-size limit)
MIB = 1024 * 1024


def _staged_size(doc: Document, folder: Path) -> list[Problem]:
    """A run's staged files must fit in its sandbox, where nothing may write more than
    ``STAGED_LIMIT`` (``sandbox.process_tools.FILE_SIZE_LIMIT``); past it every run dies
    before the harness reports, and each model would be charged for the pack's fault."""
    sizes = []
    for relative in doc.data["run"].get("stage", {}).values():
        try:
            sizes.append((os.stat(folder / relative).st_size, relative))
        except OSError:  # (reported as a missing file)
            return []
    total = sum(size for size, _ in sizes)
    if total <= STAGED_LIMIT:
        return []
    size, largest = max(sizes)
    return [doc.problem(("run", "stage"), f"the staged files take {total / MIB:.1f} MiB (largest: {largest}, "
                                          f"{size / MIB:.1f} MiB); a run's staged files may take at most "
                                          f"{STAGED_LIMIT // MIB} MiB together (no file in the sandbox may "
                                          "exceed 32 MiB, and the whole sandbox holds 64 MB)")]


def _not_text(path: Path) -> str:
    """Why ``path`` cannot be fed as UTF-8 text ("" when it can: ``observe`` decodes it so)."""
    try:
        path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    return ""


def _answer_problem(folder: Path, relative: str) -> str:
    """Why an answer key does not load as grading loads it ("" when it does): a broken key
    would fail that label for every model, and ``--pack`` validates without the gates."""
    # (not at the top: importing outputs before the prompts package is circular, via benchmark.prompts)
    from .outputs import load_answer

    return (load_answer(folder, relative)[1] or "").removeprefix(f"answer key {relative}: ")


def check_paths(doc: Document, folder: Path) -> list[Problem]:
    """Problems of every path ``doc`` (a schema-valid task.yaml) names (see the module's docstring)."""
    task, problems = doc.data, []
    for where, relative, kind in _referenced(task):
        reason = escape_reason(folder, relative) or _exists(folder, relative, kind)
        if not reason and where[-1] == "stdin" and (why := _not_text(folder / relative)):
            reason = f"{why}: stdin is fed to the program as UTF-8 text"
        if not reason and where[0] == "answers":
            reason = _answer_problem(folder, relative)
        if reason:
            problems.append(doc.problem(where, f"{relative}: {reason}"))
    for where, relative in _staged(task) + _generated_from(task):
        key = next((k for k in _parent_only(task) if _under(relative, k) or _under(k, relative)), None)
        if key is not None:
            problems.append(doc.problem(where, f"{relative} would stage the answer key {key}: answer keys "
                                               "are read by the grader only and are never staged"))
    fixtures = task.get("fixtures", [])
    for where, relative in _staged(task)[len(fixtures):]:
        if not any(_under(relative, listed) for listed in fixtures):
            problems.append(doc.problem(where, f"{relative} is staged but not in fixtures (not listed, "
                                               "nor inside a listed folder)"))
    return problems + _staged_size(doc, folder)
