"""``rubricbench pack new PATH --task ID --mode script|call|parse [--id PACK_ID]``: a task to
start from.

Writes ``pack.yaml`` when the folder has none (else adds the task to its ``tasks`` list, every
other line of the file kept as written), and the task folder: a complete, valid ``task.yaml``
for the mode with comments, ``prompt.md``, a reference solution that earns full marks, and the
fixtures and answer keys the mode needs. ``pack validate`` accepts the result, behavioural
gates included. An existing task folder is never overwritten (``ScaffoldError``).

Each new manifest starts with a line for editors (``_schema_line``): a relative ``$schema``
path when the pack sits in the tree holding this ``benchmark`` package, else a comment naming
the schema by its ``$id``; never an absolute path, which would be one machine's.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from .schema_check import SCHEMA_DIR

MODES = ("script", "call", "parse")
ID_PATTERN = re.compile(r"^[a-z][a-z0-9_]{1,40}$")


class ScaffoldError(Exception):
    """What cannot be scaffolded (a bad id, an existing task folder, a tasks list not found)."""


PACKAGE_ROOT = SCHEMA_DIR.parent.parent  # the folder holding ``benchmark/``: a checkout or site-packages


def _schema_line(name: str, manifest: Path) -> str:
    """The first line of the new ``manifest`` (``name`` is pack or task): a yaml-language-server
    ``$schema`` path relative to it when the schema is in the same tree (a pack committed beside
    RubricBench, like examples/), else a comment naming the schema by its ``$id`` and file name
    (docs/packs.md, "Editor support", says how to point an editor at it)."""
    schema = SCHEMA_DIR / f"{name}.schema.json"
    here = manifest.parent.resolve()
    if here.is_relative_to(PACKAGE_ROOT):
        return f"# yaml-language-server: $schema={Path(os.path.relpath(schema, here)).as_posix()}\n"
    schema_id = json.loads(schema.read_text(encoding="utf-8"))["$id"]
    return f"# JSON Schema: {schema_id} (RubricBench's benchmark/schema/{schema.name})\n"


PACK_YAML = """\
schema_version: 1
id: {pack_id}   # ^[a-z][a-z0-9_]{{1,40}}$; "core" is reserved
version: 1               # your counter: raise it when a task's grading changes
title: {pack_id} tasks
submission_root: {pack_id}   # a model's answers live in <model>/{pack_id}/
tasks: [{task_id}]   # one folder per task, beside this file
defaults:
  points: 25             # each task's total, unless its task.yaml says otherwise
  pass_fraction: 0.6     # share of the points a task needs to pass
"""

TASK_HEAD = """\
schema_version: 1
id: {task_id}                  # must equal the folder's name
title: {title}
prompt: prompt.md              # the text a model is given (not part of the pack's hash)
"""

SCRIPT_TASK = """\
files:                         # what a model submits; main file first
  - {{path: {task_id}.py, kind: python}}
fixtures: [data/input.txt]     # the only task files that may ever reach a child
answers: {{fixture: answers/expected.json}}   # run label -> answer key (read by the grader only)
reference: reference           # a gold copy of every file: it must score full marks
run:
  mode: script                 # run the entry file as a script in the sandbox
  entry: {task_id}.py
  argv: ["--input", "input.txt"]
  stage: {{input.txt: data/input.txt}}   # staged name -> fixture
  timeout_s: 10
  output: {{from: stdout, parse: json}}
checks:                        # id, category, points, check type (`use`) and its `with`
  - {{id: parses,          category: syntax,          points: 3,   use: compiles}}
  - {{id: main_guard,      category: structure,       points: 2,   use: ast.main_guard}}
  - {{id: uses_argparse,   category: structure,       points: 1,   use: ast.imports, with: {{require: [argparse]}}}}
  # a script that does nothing exits 0 too: keep exit_zero small, pay for the right output
  - {{id: runs_clean,      category: execution,       points: 1,   use: exec.exit_zero}}
  - {{id: output_matches,  category: execution,       points: 12,  use: output.json_equal,
     with: {{runs: [fixture], partial: top_level_items}}}}
  - {{id: json_only,       category: quality,         points: 1,   use: output.only_parsed}}
  - {{id: specific_excepts, category: quality,        points: 1,   use: ast.specific_exceptions}}
  - {{id: bandit_clean,    category: security,        points: 1.5, use: bandit.no_issues}}
  - {{id: sandbox_clean,   category: security,        points: 0.5, use: exec.sandbox_violations}}
  - {{id: no_nested_loops, category: performance,     points: 1,   use: ast.no_nested_loops}}
  - {{id: complexity,      category: maintainability, points: 1,   use: radon.max_complexity, with: {{limit: 10}}}}
# syntax 3, structure 3, execution 13, quality 2, security 2, performance 1, maintainability 1 = 25
"""

SCRIPT_REFERENCE = '''\
"""Count the lines and words of a text file; print them as JSON."""

import argparse
import json
import sys


def count(path: str) -> dict:
    """The number of lines and words in the file at ``path``."""
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    return {"lines": len(lines), "words": sum(len(line.split()) for line in lines)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--input", required=True)
    args = parser.parse_args()
    try:
        report = count(args.input)
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''

SCRIPT_PROMPT = """\
# {title}

Write `{task_id}.py`, a command-line script: `python {task_id}.py --input FILE` reads the text
file FILE and prints one JSON object on stdout, `{{"lines": L, "words": W}}`: its number of
lines and of whitespace-separated words. Print nothing else on stdout; use `argparse`; exit 1
with a message on stderr when the file cannot be read.
"""

CALL_TASK = """\
files:
  - {{path: {task_id}.py, kind: python}}
reference: reference           # a gold copy of every file: it must score full marks
run:
  mode: call                   # import the module in the sandbox, call the function per case
  module: {task_id}.py
  function: solve
  signature: {{required: [a, b]}}   # read by ast.signature
  timeout_s: 5
  cases:                       # the child gets the arguments only; expectations stay here
    - {{label: small,    args: [2, 3],    expect: 5}}
    - {{label: negative, args: [-4, 1],   expect: -3}}
    - {{label: zero,     args: [0, 7],    expect: 7}}
    - {{label: not_int,  args: ["2", 3],  raises: TypeError}}
perturb:                       # generated cases; the reference's answers are expected
  count: 6                     # cases perturbed_1 .. perturbed_6
  seed: run
  generator: builtin.cases_grid
  with: {{args: [[1, 7, -10], [0, 5]]}}
  expected: reference
checks:
  - {{id: compiles,         category: syntax,          points: 2, use: compiles}}
  - {{id: defines_solve,    category: syntax,          points: 1, use: ast.defines, with: {{function: solve}}}}
  - {{id: signature,        category: structure,       points: 2, use: ast.signature}}
  - {{id: docstrings,       category: structure,       points: 1, use: ast.docstrings}}
  - {{id: fixed_cases,      category: execution,       points: 7, use: cases.equal, with: {{labels: [small, negative, zero]}}}}
  - {{id: rejects_bad_input, category: execution,      points: 3, use: cases.raises, with: {{labels: [not_int]}}}}
  - {{id: generated_cases,  category: execution,       points: 3, use: cases.equal, with: {{labels: [perturbed]}}}}
  - {{id: no_mutation,      category: quality,         points: 1, use: cases.no_mutation}}
  - {{id: specific_excepts, category: quality,         points: 2, use: ast.specific_exceptions, with: {{if_none: pass}}}}
  - {{id: bandit_clean,     category: security,        points: 1, use: bandit.no_issues}}
  - {{id: sandbox_clean,    category: security,        points: 1, use: exec.sandbox_violations}}
  - {{id: no_nested_loops,  category: performance,     points: 1, use: ast.no_nested_loops}}
# syntax 3, structure 3, execution 13, quality 3, security 2, performance 1 = 25
"""

CALL_REFERENCE = '''\
"""Add two integers."""


def solve(a, b):
    """The sum of the integers ``a`` and ``b``; TypeError for anything else (bool too)."""
    for value in (a, b):
        if type(value) is not int:
            raise TypeError(f"expected an int, got {type(value).__name__}")
    return a + b
'''

CALL_PROMPT = """\
# {title}

Write `{task_id}.py` defining `solve(a, b)`: it returns the sum of the integers `a` and `b`,
and raises `TypeError` when either is not an `int` (a `bool` is not accepted). It prints
nothing and has a docstring.
"""

PARSE_TASK = """\
files:
  - {{path: {task_id}.yaml, kind: yaml}}
answers: {{config: answers/config.json}}   # label -> answer key (read by the grader only)
reference: reference           # a gold copy of every file: it must score full marks
run: {{mode: parse}}             # nothing runs: each yaml/json file is parsed by the grader
checks:
  - {{id: loads,      category: syntax,    points: 5,  use: parse.loads}}
  - {{id: keys,       category: structure, points: 5,  use: parse.keys, with: {{required: [/name, /port]}}}}
  - {{id: equivalent, category: execution, points: 15, use: parse.equivalent, with: {{against: config}}}}
# syntax 5, structure 5, execution 15 = 25
"""

PARSE_REFERENCE = """\
name: demo
port: 8080
"""

PARSE_ANSWER = '{"name": "demo", "port": 8080}\n'

PARSE_PROMPT = """\
# {title}

Write `{task_id}.yaml`, a settings file with two keys: `name`, the string `demo`, and `port`,
the integer `8080`.
"""


def _files(mode: str, task_id: str) -> dict[str, str]:
    """Task-relative path -> text, for every file of a new task."""
    if mode == "script":
        return {"task.yaml": SCRIPT_TASK, "prompt.md": SCRIPT_PROMPT,
                f"reference/{task_id}.py": SCRIPT_REFERENCE,
                "data/input.txt": "the quick brown fox\njumps over\n\nthe lazy dog\n",
                "answers/expected.json": '{"lines": 4, "words": 9}\n'}
    if mode == "call":
        return {"task.yaml": CALL_TASK, "prompt.md": CALL_PROMPT, f"reference/{task_id}.py": CALL_REFERENCE}
    return {"task.yaml": PARSE_TASK, "prompt.md": PARSE_PROMPT, f"reference/{task_id}.yaml": PARSE_REFERENCE,
            "answers/config.json": PARSE_ANSWER}


def _add_task(pack_yaml: Path, task_id: str) -> bool:
    """Add ``task_id`` to the ``tasks`` list of an existing pack.yaml, changing only that list
    (flow ``tasks: [a, b]`` or block ``- a`` items). False when it is listed already."""
    text = pack_yaml.read_text(encoding="utf-8")
    flow = re.search(r"^tasks:[ \t]*\[([^\]\n]*)\]", text, re.MULTILINE)
    if flow:
        names = [n.strip().strip("'\"") for n in flow.group(1).split(",") if n.strip()]
        if task_id in names:
            return False
        inner = flow.group(1).rstrip()
        new = f"{inner}, {task_id}" if inner.strip() else task_id
        text = text[:flow.start(1)] + new + text[flow.end(1):]
    else:
        block = re.search(r"^tasks:[ \t]*(#.*)?\n((?:[ \t]*-[ \t]*[^\n]*\n)+)", text, re.MULTILINE)
        if not block:
            raise ScaffoldError(f"{pack_yaml}: no tasks list found to add {task_id} to; add it by hand")
        items = block.group(2)
        names = [line.split("-", 1)[1].split("#")[0].strip().strip("'\"") for line in items.splitlines()]
        if task_id in names:
            return False
        indent = re.match(r"[ \t]*", items).group(0)
        text = text[:block.end(2)] + f"{indent}- {task_id}\n" + text[block.end(2):]
    pack_yaml.write_text(text, encoding="utf-8")
    return True


def scaffold(folder: Path, task_id: str, mode: str, pack_id: str | None = None) -> list[Path]:
    """Create the task (and the pack when new); the files written or changed, in order."""
    folder = Path(folder)
    pack_id = pack_id or folder.resolve().name.lower().replace("-", "_")
    for kind, name in (("task", task_id), ("pack", pack_id)):
        if not ID_PATTERN.match(name):
            raise ScaffoldError(f"{kind} id {name!r} does not match {ID_PATTERN.pattern} (give --id)"
                                if kind == "pack" else f"task id {name!r} does not match {ID_PATTERN.pattern}")
    if mode not in MODES:
        raise ScaffoldError(f"mode {mode!r} is not one of {', '.join(MODES)}")
    task_dir = folder / task_id
    if task_dir.exists():
        raise ScaffoldError(f"{task_dir} exists already: not overwritten")
    written = []
    pack_yaml = folder / "pack.yaml"
    if pack_yaml.is_file():
        if _add_task(pack_yaml, task_id):
            written.append(pack_yaml)
    else:
        folder.mkdir(parents=True, exist_ok=True)
        pack_yaml.write_text(_schema_line("pack", pack_yaml) + PACK_YAML.format(pack_id=pack_id, task_id=task_id),
                             encoding="utf-8")
        written.append(pack_yaml)
    title = task_id.replace("_", " ").capitalize()
    for relative, template in _files(mode, task_id).items():
        path = task_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        text = template.format(task_id=task_id, title=title) if relative in ("task.yaml", "prompt.md") else template
        if relative == "task.yaml":
            text = _schema_line("task", path) + TASK_HEAD.format(task_id=task_id, title=title) + text
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
