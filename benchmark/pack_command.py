"""``rubricbench pack validate|list|new|docs|catalogue``: the task-pack subcommands.

validate prints every problem (warnings too) one per line as ``file:line:col: json/path:
message``, then ``PATH: N error(s), M warning(s)``; it exits 1 on any error, else 0 (2 for bad
usage, as argparse does). Unless ``--no-behaviour``, a pack without errors then goes through the
behavioural gates of ``benchmark.engine.pack_gates`` (reference and empty submissions graded in the
sandbox), whose scores are printed one line per task before the problems. ``new`` scaffolds a
task (``benchmark.packs.scaffold``); ``docs`` and ``catalogue`` print Markdown
(``benchmark.packs.docs``). validate and docs take a pack as ``--pack`` does
(``benchmark.packs.suite.find_pack``): a folder holding pack.yaml, else a pack id (``core``,
the built-in pack, or an installed pack's name); the built-in folder is checked as the built-in
pack, so its reserved id is accepted there and only there. Pack files are the operator's, but
every line still passes the untrusted-text boundary before it is printed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import untrusted
from .console import _error
from .suggest import SuggestingParser
from .packs.problems import Problem, count, sort_problems


def _print(line: str) -> None:
    print(untrusted.for_stream(untrusted.text(line), getattr(sys.stdout, "encoding", None)), flush=True)


EPILOG = """commands:
  validate PACK            check a pack: manifests, files, plugins, then the behavioural gates
  list                     built-in check types, the built-in and installed packs, plugin names
  new PATH --task ID --mode script|call|parse [--id PACK_ID]
                           scaffold a task (and the pack when new) that validates as written
  docs PACK                a pack's tasks and rubrics as Markdown
  catalogue                every built-in check type and generator as Markdown

PACK is a folder holding pack.yaml or, when no such folder exists, a pack id: core (the
built-in pack) or the name of an installed pack (see list)."""

PACK_HELP = "the pack's folder (holding pack.yaml), or a pack id: core or an installed pack's name"


def _print_lines(markdown: str) -> int:
    """Print a document that is the command's product: 0, or 1 when stdout could not take it
    (a full disk, an I/O error: said on stderr; a reader that left, ``| head``, is its choice)."""
    for line in markdown.splitlines():
        _print(line)
    sys.stdout.flush()
    failure = getattr(sys.stdout, "failure", None)
    if failure is not None:
        print(f"error: cannot write the output: {failure.strerror or failure}", file=sys.stderr)
        return 1
    return 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = SuggestingParser(prog="rubricbench pack", description="Check, write and document task packs.",
                                     epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    validate = commands.add_parser("validate", help="check a pack's manifests, files and plugins")
    validate.add_argument("path", metavar="PACK", help=PACK_HELP)
    validate.add_argument("--no-behaviour", action="store_true",
                          help="skip the reference and empty-submission gates (no sandbox runs)")
    commands.add_parser("list", help="built-in check types, installed packs and plugin names")
    new = commands.add_parser("new", help="scaffold a task (and its pack when new)")
    new.add_argument("path", metavar="PATH", help="the pack's folder (created when missing)")
    new.add_argument("--task", required=True, metavar="ID", help="the new task's id (its folder's name)")
    new.add_argument("--mode", required=True, choices=("script", "call", "parse"), help="the task's run mode")
    new.add_argument("--id", dest="pack_id", metavar="PACK_ID",
                     help="the pack's id, for a new pack.yaml (default: the folder's name)")
    docs = commands.add_parser("docs", help="a pack's tasks and rubrics as Markdown")
    docs.add_argument("path", metavar="PACK", help=PACK_HELP)
    commands.add_parser("catalogue", help="every built-in check type and generator as Markdown")
    return parser.parse_args(argv)


def _behaviour(pack) -> list[Problem]:
    """Print each task's gate scores; return the gates' problems (or [] with a note when that
    module is not installed)."""
    from .engine.pack_gates import run_gates

    results = run_gates(pack)
    for result in results:
        _print(result.summary())
    return [problem for result in results for problem in result.problems]


def _find(spec: str) -> tuple[Path, bool] | None:
    """The folder of the pack ``spec`` names and whether it is the built-in one, or None after
    saying on stderr why there is none."""
    from .packs.suite import SuiteError, find_pack

    try:
        return find_pack(spec)
    except SuiteError as exc:
        _error(str(exc))
        return None


def validate(spec: str, behaviour: bool) -> int:
    from .packs.loader import check_pack

    found = _find(spec)
    if found is None:
        return 1
    pack, problems = check_pack(found[0], builtin=found[1])
    if pack is not None and behaviour:
        problems = sort_problems(problems + _behaviour(pack))
    for problem in problems:
        _print(problem.format())
    errors, warnings = count(problems)
    _print(f"{spec}: {errors} error(s), {warnings} warning(s)")
    return 1 if errors else 0


def _first_line(doc: str) -> str:
    return doc.strip().splitlines()[0] if doc.strip() else "(no docstring)"


def list_all() -> int:
    from .packs import registry
    from .packs.compiled import CORE_DIR
    from .packs.loader import _ensure_builtins, discover_installed_packs

    _ensure_builtins()
    _print("check types (built in):")
    for name in sorted(registry.CHECK_TYPES):
        _print(f"  {name}: {_first_line(registry.CHECK_TYPES[name].doc)}")
    _print(f"built-in pack: core ({CORE_DIR}), graded unless --no-core")
    _print("installed packs:")
    for pack in discover_installed_packs() or []:
        _print(f"  {pack.name} ({pack.source}): {pack.folder or ''} {pack.problem}".rstrip())
    for group in (registry.CHECK_GROUP, registry.GENERATOR_GROUP):
        _print(f"plugins ({group}): {', '.join(registry.plugin_names(group)) or 'none'}")
    return 0


def new_task(path: Path, task_id: str, mode: str, pack_id: str | None) -> int:
    from .packs.scaffold import ScaffoldError, scaffold

    try:
        written = scaffold(path, task_id, mode, pack_id)
    except ScaffoldError as exc:
        _print(f"error: {exc}")
        return 1
    except OSError as exc:  # a file on the way, a read-only or virtual file system
        _print(f"error: cannot write the task into {path}: {exc.strerror or exc}")
        return 1
    for file in written:
        _print(f"wrote {file}")
    _print(f"next: edit {path / task_id / 'prompt.md'} and task.yaml, then rubricbench pack validate {path}")
    return 0


def docs(spec: str) -> int:
    from .packs.docs import pack_docs
    from .packs.loader import check_pack

    found = _find(spec)
    if found is None:
        return 1
    pack, problems = check_pack(found[0], builtin=found[1])
    if pack is None:
        for problem in problems:
            _print(problem.format())
        return 1
    return _print_lines(pack_docs(pack))


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.command == "validate":
        return validate(args.path, not args.no_behaviour)
    if args.command == "new":
        return new_task(Path(args.path), args.task, args.mode, args.pack_id)
    if args.command == "docs":
        return docs(args.path)
    if args.command == "catalogue":
        from .packs.docs import catalogue

        return _print_lines(catalogue())
    return list_all()
