"""``rubricbench import REPLIES --model NAME`` (or ``--all-models`` for a JSONL file): plan,
show, check the target, write, report; each model in turn, and each sample of a model a JSONL
file gives several answers per task (``<model>/samples/<id>/``, see ``jsonl``) in turn.

Exit codes follow the grader's: 0 every expected file found; 1 an unreadable reply or a
write refused (existing files without ``--force``, a symbolic link on the way); 2 bad usage,
an invalid model name, or a JSONL file without that model; 3 a required file is missing, or
(with ``--strict``) a choice is ambiguous, in which case nothing is written (stderr says
which files, of which model); 5 REPLIES does not exist. With several models, the first of 1,
2, 5 and 3 that any model's import gave (with several samples, that any sample's gave).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import untrusted
from ..suggest import SuggestingParser
from ..runner import TIERS, model_name_problem
from .choose import Choice, choose
from .document import load_document
from .jsonl import load_jsonl, models_in
from .report import Planned, build_report, table
from .sources import EXIT_NOT_FOUND, EXIT_USAGE, ImportInputError, Replies, _folder
from .tasks import ImportTask, builtin_tasks
from .target import TargetError, check_target, on_the_way, write_all

EXIT_OK, EXIT_MISSING = 0, 3
SAMPLES = "samples"  # <model>/samples/<id>/: a model graded as its samples


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = SuggestingParser(
        prog="rubricbench import",
        description="Cut each expected file out of raw chat replies into submissions/<tier>/<model>/.")
    parser.add_argument("replies", metavar="REPLIES",
                        help="a folder of replies (prompt_3.md, 3.md, p3.md), a .jsonl file, or one "
                             "Markdown file holding every answer")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--model", action="append", metavar="MODEL",
                       help="the model's name (its folder); repeat it to import several models of "
                            "a JSONL file")
    which.add_argument("--all-models", action="store_true",
                       help="every model a JSONL file holds (each record names its model)")
    parser.add_argument("--tier", choices=TIERS, default="user_submissions")
    parser.add_argument("--submissions-dir", default="submissions", help="root of the submissions")
    parser.add_argument("--dry-run", action="store_true", help="print the plan; write nothing")
    parser.add_argument("--force", action="store_true", help="overwrite files already there")
    parser.add_argument("--strict", action="store_true",
                        help="an ambiguous choice is an error (exit 3, nothing written)")
    return parser.parse_args(argv)


def load(path: Path, model: str, tasks: tuple[ImportTask, ...]) -> Replies:
    """REPLIES by its shape: a folder, a ``.jsonl``/``.ndjson`` file, or one Markdown file."""
    if not path.exists():
        raise ImportInputError(EXIT_NOT_FOUND, f"{path} does not exist")
    if path.is_dir():
        return _folder(path, tasks)
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        return load_jsonl(path, model, tasks)
    return load_document(path, tasks)


def plan(replies: Replies, tasks: tuple[ImportTask, ...]) -> list[Planned]:
    """A row per expected file of every task; a task without a reply has its files missing."""
    by_task = {reply.task.id: reply for reply in replies.replies}
    rows: list[Planned] = []
    for task in tasks:
        reply = by_task.get(task.id)
        if reply is None:
            rows += [Planned(task.id, Choice(spec.name, None, None, None, None, ("missing",)), None)
                     for spec in task.files]
        else:
            rows += [Planned(task.id, choice, reply) for choice in choose(reply.parsed, task)]
    return rows


def _say(message: str, stream=None) -> None:
    stream = stream or sys.stdout
    print(untrusted.for_stream(message, getattr(stream, "encoding", None)), file=stream, flush=True)


def _exit_code(rows: list[Planned], strict: bool) -> int:
    if any("missing" in row.choice.warnings for row in rows):
        return EXIT_MISSING
    if strict and any("ambiguous" in row.choice.warnings for row in rows):
        return EXIT_MISSING
    return EXIT_OK


def _kept_note(names: list[str]) -> str:
    """What becomes of expected files no reply gives that the model's folder already holds:
    nothing (import never deletes), so they are graded as they are."""
    them, they = ("them", "they are") if len(names) > 1 else ("it", "it is")
    return (f"kept: {', '.join(names)}: no reply gives {them}, and the model's folder already has "
            f"{them}; {they} graded as {they} (remove {them} to have {them} graded as missing)")


def run(args: argparse.Namespace) -> int:
    problem = model_name_problem(args.model)
    if problem:
        raise ImportInputError(EXIT_USAGE, f"--model {args.model!r} cannot name a model: {problem}")
    for tier in TIERS:  # (the grader stops at a name in two tiers, whichever model it is asked for)
        other = Path(args.submissions_dir) / tier / args.model
        if tier != args.tier and other.is_dir() and not other.is_symlink():
            raise ImportInputError(EXIT_USAGE, f"model '{args.model}' is already in {other}; the grader "
                                               "refuses a model name in two tiers")
    tasks = builtin_tasks()
    replies = load(Path(args.replies), args.model, tasks)
    folder = Path(args.submissions_dir) / args.tier / args.model
    mixed = _Mixed(folder, replies.samples is not None, tasks, args.force)
    if replies.samples is None:
        return _import_one(args, replies, tasks, folder, None, mixed)
    _held(args, replies)
    codes = []
    for sample, sample_replies in replies.samples:
        _say(f"== sample {untrusted.text(sample, untrusted.NAME_LIMIT)} ==")
        try:
            codes.append(_import_one(args, sample_replies, tasks, folder / SAMPLES / sample, sample,
                                     mixed))
        except MixedFolder:
            raise
        except TargetError as exc:  # this sample's; the others go on
            _say(f"error: {untrusted.text(str(exc))}", sys.stderr)
            codes.append(exc.code)
    return next((code for code in PRIORITY if code in codes), EXIT_OK)


def _held(args: argparse.Namespace, replies: Replies) -> None:
    if len(replies.models) > 1:
        held = ", ".join(untrusted.text(m, untrusted.NAME_LIMIT) for m in replies.models)
        _say(f"{untrusted.text(args.replies)} holds models {held}; imported: {args.model}")


class MixedFolder(TargetError):
    """Submission files at a model folder's top level and a ``samples/`` folder in it."""


class _Mixed:
    """Whether this import puts top-level submission files and ``samples/`` into one model
    folder (the grader grades only ``samples/`` when it exists): asked once, before the
    model's first write (or, with ``--dry-run``, where it would be). Without ``--force`` that
    is refused (``MixedFolder``, exit 1, nothing of the model written); with it, a warning."""

    def __init__(self, folder: Path, samples: bool, tasks: tuple[ImportTask, ...],
                 force: bool) -> None:
        self.folder, self.samples, self.tasks, self.force = folder, samples, tasks, force
        self.asked = False

    def problem(self) -> str | None:
        folder = self.folder
        if folder.parent.is_symlink() or folder.is_symlink() or not folder.is_dir():
            return None  # (nothing there, or a link check_target refuses)
        if self.samples:
            top = [spec.name for task in self.tasks for spec in task.files
                   if (folder / spec.name).exists() or (folder / spec.name).is_symlink()]
            if top:
                return (f"{folder} holds submission files at its top level ({', '.join(top)}) and this "
                        f"import writes samples into {folder / SAMPLES}")
        elif (folder / SAMPLES).is_dir() or (folder / SAMPLES).is_symlink():
            return f"{folder} holds {SAMPLES}/ and this import writes submission files at its top level"
        return None

    def check(self, dry_run: bool) -> None:
        if self.asked:
            return
        self.asked = True
        problem = self.problem()
        if problem is None:
            return
        problem = untrusted.text(problem)
        grades = f"the grader grades only the samples when {SAMPLES}/ exists"
        if self.force or dry_run:
            refused = "" if self.force else " (without --force this import is refused)"
            _say(f"warning: {problem}; {grades}{refused}", sys.stderr)
            return
        raise MixedFolder(f"{problem}; {grades}; use --force to write all the same")


def _import_one(args: argparse.Namespace, replies: Replies, tasks: tuple[ImportTask, ...],
                folder: Path, sample: str | None, mixed: _Mixed) -> int:
    """One submission (a model's, or one sample's): plan, show, check the target, write, report."""
    rows = plan(replies, tasks)
    for line in table(rows):
        _say(line)
    if sample is None:
        _held(args, replies)
    for name in replies.ignored:
        _say(f"ignored: {untrusted.text(name, untrusted.NAME_LIMIT)} (not a reply to a known prompt)")
    code = _exit_code(rows, args.strict)
    tier = Path(args.submissions_dir) / args.tier
    linked = any(path.is_symlink() for path in on_the_way(folder, tier)[1:])
    kept = [row.choice.file for row in rows if row.choice.text is None
            and (folder / row.choice.file).is_file() and not (folder / row.choice.file).is_symlink()
            and not linked]
    if kept:
        _say(_kept_note(kept))
    if args.dry_run or (args.strict and code != EXIT_OK):
        if args.dry_run:
            mixed.check(dry_run=True)
        _say("dry run: nothing written" if args.dry_run else "--strict: nothing written")
        _why(args.model, sample, rows, args.strict, code)
        return code
    mixed.check(dry_run=False)
    report = build_report(rows, args, replies, sample)
    written = write_all(folder, check_target(folder, rows, args.force, tier), report)
    _say(f"wrote {len(written)} files and import_report.json to {untrusted.text(str(folder))}")
    _why(args.model, sample, rows, args.strict, code)
    return code


def _why(model: str, sample: str | None, rows: list[Planned], strict: bool, code: int) -> None:
    """On stderr, why a model's (or a sample's) import exits 3: its missing files (and, with
    --strict, its ambiguous ones), each with its task."""
    if code != EXIT_MISSING:
        return
    name = untrusted.text(model, untrusted.NAME_LIMIT)
    if sample is not None:
        name += f" sample {untrusted.text(sample, untrusted.NAME_LIMIT)}"
    for kind in ("missing", "ambiguous") if strict else ("missing",):
        files = [f"{row.task}: {row.choice.file}" for row in rows if kind in row.choice.warnings]
        if files:
            said = "no reply gives" if kind == "missing" else "--strict: more than one block could be"
            _say(f"exit 3: model {name}: {said} {'; '.join(files)}", sys.stderr)


PRIORITY = (1, EXIT_USAGE, EXIT_NOT_FOUND, EXIT_MISSING)  # which exit code several imports give


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        if args.all_models:
            if Path(args.replies).suffix.lower() not in (".jsonl", ".ndjson"):
                raise ImportInputError(EXIT_USAGE, "--all-models takes a JSONL file (.jsonl or .ndjson)")
            names = models_in(Path(args.replies))
        else:
            names = list(dict.fromkeys(args.model))
    except ImportInputError as exc:
        _say(f"error: {untrusted.text(str(exc))}", sys.stderr)
        return exc.code
    codes = []
    for name in names:
        if len(names) > 1:
            _say(f"== model {untrusted.text(name, untrusted.NAME_LIMIT)} ==")
        try:
            codes.append(run(argparse.Namespace(**{**vars(args), "model": name})))
        except (ImportInputError, TargetError) as exc:  # this model's; the others go on
            _say(f"error: {untrusted.text(str(exc))}", sys.stderr)
            codes.append(exc.code)
    return next((code for code in PRIORITY if code in codes), EXIT_OK)
