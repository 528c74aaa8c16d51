"""The command line's flags: the parser, and the checks argparse cannot express (flags that go
together, flags a mode would ignore, the cluster and report flags). ``benchmark.cli`` turns the
parsed flags into a ``RunConfig``; everything here is importable from there as before.
"""

from __future__ import annotations

import argparse
import os
import textwrap

from .console import EXIT_MEANINGS
from .suggest import SuggestingParser
from .types import MEM_CHOICES, RunConfig


def _env(name: str, default: str | None = None) -> str | None:
    """Our RUBRICBENCH_* variable, or the spec's AIBUGBENCH_* alias; one set to nothing but
    blanks counts as unset (a CI job's empty variable must not mean the working folder)."""
    for prefix in ("RUBRICBENCH", "AIBUGBENCH"):
        value = os.environ.get(f"{prefix}_{name}", "")
        if value.strip():
            return value
    return default


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


class _Given(argparse.Action):
    """Store the value and note that it was given (``--compare`` writes next to NEW otherwise)."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        namespace.results_dir_given = True


class _ModelName(argparse.Action):
    """``--model NAME``, repeatable: ``model`` keeps the last name given (the spec's field) and
    ``models`` every name, in order, each once."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        names = list(getattr(namespace, "models", None) or ())
        namespace.models = names if values in names else [*names, values]


def _epilog() -> str:
    """The other commands, and what each exit code means (wrapped here: the epilog is raw)."""
    lines = ["other commands:",
             "  rubricbench import REPLIES --model NAME   raw chat replies -> a submission folder",
             "  rubricbench pack validate|list|new|docs|catalogue   check, scaffold and document packs",
             "", "exit codes (when several apply: 1, then 3, then 4, then 7; README.md says each in full):"]
    for code, meaning in EXIT_MEANINGS:
        lines += textwrap.wrap(meaning, 90, initial_indent=f"  {code}  ", subsequent_indent="     ")
    return "\n".join(lines)


MAX_K = 10_000


def _ks(value: str) -> tuple[int, ...]:
    """``--pass-at 1,5``: distinct whole numbers from 1 to ``MAX_K``, in increasing order."""
    try:
        ks = sorted({int(part) for part in value.split(",")})
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a list of whole numbers such as 1,5") from None
    if not ks or ks[0] < 1 or ks[-1] > MAX_K:
        raise argparse.ArgumentTypeError(f"each k is from 1 to {MAX_K} (got {value!r})")
    return tuple(ks)


def _parser() -> argparse.ArgumentParser:
    parser = SuggestingParser(prog="rubricbench", description="Grade LLM-written code submissions.",
                              epilog=_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--model", action=_ModelName, metavar="MODEL",
                        help="grade this model (repeat the flag to grade several)")
    target.add_argument("--all-models", action="store_true", help="grade every model found (default)")
    parser.add_argument("--workers", type=int, default=1, help="models graded in parallel (default 1)")
    parser.add_argument("--submissions-dir", default="submissions", help="root of the submissions")
    parser.add_argument("--results-dir", default=_env("RESULTS_DIR", "results"), help="output folder",
                        action=_Given)
    parser.add_argument("--mem", type=int, choices=MEM_CHOICES, default=512, help="child memory limit (MB)")
    parser.add_argument("--unsafe", action="store_true", help="drop the isolation layers (trusted code only)")
    parser.add_argument("--allow-network", action="store_true", help="let submissions use the network")
    parser.add_argument("--trusted-model", action="store_true", help="skip the --unsafe confirmation")
    parser.add_argument("--no-metadata", action="store_true", help="skip git/dependency metadata")
    loudness = parser.add_mutually_exclusive_group()
    loudness.add_argument("-q", "--quiet", action="store_true", help="print only essential output")
    loudness.add_argument("-v", "--verbose", action="store_true",
                          help="print each model's prompts, category breakdown and lost checks as it "
                               "finishes (by default: a model x task table and the lost points, folded)")
    parser.add_argument("--debug", action="store_true", default=_truthy(_env("DEBUG")),
                        help="re-raise grader exceptions instead of recording them")
    packs = parser.add_argument_group("task packs (docs/packs.md)")
    packs.add_argument("--pack", action="append", metavar="PATH|NAME",
                       help="also grade this task pack: a folder with pack.yaml, or an installed "
                            "pack's name (repeatable; validated before grading)")
    parser.add_argument("--seed", type=int, default=RunConfig.seed,
                        help="seed of every generated (perturbed) input and of the statistics' "
                             "resampling (default %(default)s)")
    parser.add_argument("--pass-at", type=_ks, default=RunConfig.pass_at, metavar="K[,K...]",
                        help="the k of each pass@k reported per task, e.g. 1,5 (default 1; a k above "
                             "a model's number of samples is left out): docs/statistics.md")
    packs.add_argument("--no-core", action="store_true",
                       help="grade only the --pack packs, not the four core prompts")
    parser.add_argument("--no-cache", action="store_true",
                        help="grade every model again, even when its cached result is current, and "
                             "store the new results in the cache")
    parser.add_argument("--require-isolation", action="store_true",
                        help="fail when a kernel or guard isolation layer is unavailable")
    parser.add_argument("--self-check", action="store_true",
                        help="run canary submissions against each isolation layer and exit")
    _add_cluster_flags(parser)
    _add_report_flags(parser)
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if not -2**63 <= args.seed < 2**63:  # the results record it as a 64-bit JSON integer
        parser.error(f"--seed takes an integer from {-2**63} to {2**63 - 1}")
    _check_report_flags(parser, args)
    _check_cluster_flags(parser, args)
    _check_unused_flags(parser, args, argv)
    return args


# What each mode that grades nothing reads; any other flag given with it would be silently
# ignored, so it is refused (a usage error, exit 2), as argparse refuses conflicting flags.
MODE_FLAGS = {
    "self_check": {"self_check", "mem"},
    "report_only": {"report_only", "quiet"},
    "compare": {"compare", "quiet", "results_dir", "fail_on_regression", "significance"},
}
DERIVED = {"models", "results_dir_given"}  # set by --model and --results-dir, not flags themselves


def _given(argv: list[str] | None, dests) -> list[str]:
    """The destinations of the flags given on the command line, in parser order (a default,
    even one taken from the environment, is not given): ``argv`` parsed again with every
    default None (no flag given stores None; a string default would be converted by its type)."""
    parser = _parser()
    parser.set_defaults(**dict.fromkeys(set(dests) - DERIVED))
    found = vars(parser.parse_args(argv))
    return [dest for dest in dests if dest not in DERIVED and found.get(dest) is not None]


def _check_unused_flags(parser: argparse.ArgumentParser, args: argparse.Namespace,
                        argv: list[str] | None) -> None:
    mode = next((mode for mode in MODE_FLAGS if getattr(args, mode)), None)
    if mode is None:
        return
    unused = [f"--{dest.replace('_', '-')}" for dest in _given(argv, list(vars(args)))
              if dest not in MODE_FLAGS[mode] | DERIVED]
    if unused:
        plural = "s" if len(unused) > 1 else ""
        parser.error(f"argument{plural} {', '.join(unused)}: not allowed with argument "
                     f"--{mode.replace('_', '-')} (it grades nothing)")


def _add_cluster_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("grading on a Dask cluster (docs/cluster.md; pip install rubricbench[dask])")
    where = group.add_mutually_exclusive_group()
    where.add_argument("--cluster", metavar="local:N",
                       help="grade on an owned local Dask cluster of N worker processes (1 thread each)")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="grade on an existing Dask cluster (tls://, or tcp:// on loopback only; "
                            "default $RUBRICBENCH_SCHEDULER)")
    where.add_argument("--scheduler-file", metavar="PATH",
                       help="grade on the cluster whose scheduler wrote PATH (dask scheduler --scheduler-file)")
    group.add_argument("--tls-ca", metavar="PEM", help="CA certificate for mutual TLS to the scheduler")
    group.add_argument("--tls-cert", metavar="PEM", help="this client's certificate")
    group.add_argument("--tls-key", metavar="PEM", help="this client's private key")


def _check_cluster_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    grading = not (args.self_check or args.report_only or args.compare)
    if grading and not (args.cluster or args.scheduler_file or args.scheduler):
        args.scheduler = _env("SCHEDULER") or None  # (a default for grading runs only)
    clustered = bool(args.cluster or args.scheduler or args.scheduler_file)
    tls = [flag for flag in ("tls_ca", "tls_cert", "tls_key") if getattr(args, flag)]
    if tls and (args.cluster or not clustered):
        parser.error("--tls-ca/--tls-cert/--tls-key apply to --scheduler and --scheduler-file")
    if tls and len(tls) != 3:
        parser.error("mutual TLS needs all three of --tls-ca, --tls-cert and --tls-key")
    if not clustered:
        return
    if args.self_check or args.report_only or args.compare:
        parser.error("a cluster flag applies to grading runs only")
    if args.workers > 1:
        parser.error("--workers N and a cluster flag cannot be combined (the cluster's workers grade)")
    if args.cluster:
        from .cluster.spec import ClusterConfigError, parse_local

        try:
            parse_local(args.cluster)
        except ClusterConfigError as exc:
            parser.error(str(exc))


def _add_report_flags(parser: argparse.ArgumentParser) -> None:
    parser.set_defaults(results_dir_given=False, models=[])
    saved = parser.add_argument_group("saved results (no grading)")
    saved.add_argument("--report-only", metavar="RESULTS_JSON",
                       help="validate a saved results.json and rebuild its reports next to it")
    saved.add_argument("--compare", nargs=2, metavar=("OLD_JSON", "NEW_JSON"),
                       help="compare two saved runs: text on stdout, HTML next to NEW (or in --results-dir)")
    saved.add_argument("--fail-on-regression", type=float, metavar="PTS",
                       help="with --compare: exit 6 when a model's overall score drops by more than PTS")
    saved.add_argument("--significance", type=float, metavar="ALPHA",
                       help="with --compare: a change counts only when significant at ALPHA (e.g. 0.05; "
                            "default: every change is shown with its p-value at 0.05, and "
                            "--fail-on-regression counts any drop over PTS)")
    parser.add_argument("--fail-under", type=float, metavar="PCT",
                        help="exit 7 when a graded model scores under PCT percent")


def _check_report_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    saved = [flag for flag, on in (("--report-only", args.report_only), ("--compare", args.compare),
                                   ("--self-check", args.self_check)) if on]
    if len(saved) > 1:
        parser.error(f"{' and '.join(saved)} cannot be combined")
    if saved and saved[0] != "--self-check" and (args.model or args.all_models):
        parser.error(f"{saved[0]} works on saved results; --model/--all-models do not apply")
    if args.fail_on_regression is not None and (not args.compare or not args.fail_on_regression >= 0):
        parser.error("--fail-on-regression needs --compare and a number of points >= 0")
    if args.significance is not None and (not args.compare or not 0 < args.significance < 1):
        parser.error("--significance needs --compare and a level between 0 and 1 (e.g. 0.05)")
    if args.no_core and not args.pack:
        parser.error("--no-core needs at least one --pack")
    if args.fail_under is not None and (saved or not 0 <= args.fail_under <= 100):
        parser.error("--fail-under applies to grading runs and takes a percentage from 0 to 100")
