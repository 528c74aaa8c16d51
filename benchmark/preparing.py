"""What a grading run checks before it grades anything: the submissions and test-data
folders, the task packs, the models asked for, the ``--unsafe`` confirmation and the results
folder. Each problem is said on stderr and becomes the run's exit code."""

from __future__ import annotations

import fnmatch
import sys
from pathlib import Path

from .console import EXIT_ERROR, EXIT_MISSING_MODEL, EXIT_NOT_FOUND, EXIT_VALIDATION, _error
from .engine.options import GradeOptions, default_test_data
from .reporting.writer import results_folder_problem
from .runner import TIERS, BenchmarkRunner, DiscoveryError, ModelEntry, RejectedModel, expand_samples
from .suggest import did_you_mean
from .types import RunConfig
from .untrusted import NAME_LIMIT, for_stream, text


def prepare(config: RunConfig) -> tuple[BenchmarkRunner, list[ModelEntry], list[RejectedModel]] | int:
    """(the runner, the models to grade, the model folders skipped), or an exit code."""
    submissions = Path(config.submissions_dir)
    test_data = default_test_data()
    hints = {"submissions": " (--submissions-dir names it; a model is a folder submissions/<tier>/<model>/)",
             "test data": " (the fixtures: $RUBRICBENCH_TEST_DATA names them; a checkout's test_data/ and "
                          "an installed wheel's copy are found by themselves)"}
    for folder, what in ((submissions, "submissions"), (test_data, "test data")):
        if not folder.is_dir():
            _error(f"{what} folder not found: {folder}{hints[what]}")
            return EXIT_NOT_FOUND
    runner = BenchmarkRunner(results_dir=config.results_dir, submissions_dir=submissions,
                             test_data=test_data, options=options_of(config),
                             packs=config.packs, core=config.core)
    if runner.extended and not _packs_valid(runner):
        return EXIT_VALIDATION
    chosen = _discover(config, runner)
    if isinstance(chosen, int):
        return chosen
    if not _confirm_unsafe(config):
        return EXIT_ERROR
    problem = results_folder_problem(config.results_dir)  # (before any grading is wasted)
    if problem:
        _error(problem)
        return EXIT_ERROR
    return (runner, *chosen)


def _confirm_unsafe(config: RunConfig) -> bool:
    if not config.unsafe or config.trusted_model:
        return True
    if not sys.stdin.isatty():
        _error("--unsafe needs --trusted-model when there is no terminal to confirm on")
        return False
    answer = input("--unsafe runs submissions without isolation. Type 'yes' to continue: ")
    return answer.strip().lower() == "yes"


def options_of(config: RunConfig) -> GradeOptions:
    """The grading options a run's flags ask for."""
    return GradeOptions(memory_mb=config.memory_mb, timeout_s=config.timeout_s,
                        unsafe=config.unsafe, allow_network=config.allow_network, debug=config.debug,
                        seed=config.seed)


def _packs_valid(runner: BenchmarkRunner) -> bool:
    """Every grading run validates its packs first: each problem on its own line, as
    ``rubricbench pack validate`` prints it; False when any is an error."""
    from .packs.problems import PackError
    from .packs.suite import SuiteError

    try:
        runner.suite()
    except PackError as exc:
        for problem in exc.problems:
            print(for_stream(text(problem.format()), getattr(sys.stderr, "encoding", None)),
                  file=sys.stderr)
        _error(f"a task pack did not validate ({len(exc.problems)} problem(s)); nothing was graded")
        return False
    except SuiteError as exc:
        _error(str(exc))
        return False
    return True


AVAILABLE_SHOWN = 10  # model names listed after "not found" (then "and N more")


def is_pattern(name: str) -> bool:
    """``--model`` takes shell-style patterns: ``*``, ``?`` and ``[...]`` (fnmatch); a name
    that is itself a model's name is that model, whatever it holds."""
    return any(char in name for char in "*?[")


def _matches(name: str, wanted: str) -> bool:
    return name == wanted or (is_pattern(wanted) and fnmatch.fnmatchcase(name, wanted))


def _chosen(name: str, wanted: tuple[str, ...]) -> bool:
    return not wanted or any(_matches(name, w) for w in wanted)


def _available(found: dict[str, ModelEntry]) -> str:
    names = sorted(found)
    shown = ", ".join(text(n, NAME_LIMIT) for n in names[:AVAILABLE_SHOWN]) or "none"
    return shown + (f", and {len(names) - AVAILABLE_SHOWN} more" if len(names) > AVAILABLE_SHOWN else "")


def _skipped(config: RunConfig, rejected: list[RejectedModel]) -> list[RejectedModel]:
    """Report each selected model folder that is not graded (its name, or a symbolic link)."""
    chosen = [r for r in rejected if _chosen(r.name, config.models)]
    for folder in chosen:
        _error(f"skipped model folder '{text(folder.name, NAME_LIMIT)}' in {folder.tier}: "
               f"{folder.reason}")
    return chosen


def _select(config: RunConfig, found: dict[str, ModelEntry],
            skipped: list[RejectedModel]) -> list[ModelEntry] | None:
    if config.models:
        names = [*found, *(r.name for r in skipped)]
        for wanted in config.models:
            if any(_matches(n, wanted) for n in names):
                continue
            if is_pattern(wanted):
                _error(f"--model {wanted}: the pattern matches no model under {config.submissions_dir} "
                       f"(available: {_available(found)})")
            else:
                _error(f"model '{wanted}' not found under {config.submissions_dir}"
                       f"{did_you_mean(wanted, [text(n, NAME_LIMIT) for n in names])} "
                       f"(available: {_available(found)})")
            return None
        return [found[n] for n in _in_order(config.models, found)]
    if not found and not skipped:
        root = config.submissions_dir
        _error(f"no models found under {root}: a model is a folder "
               f"{' or '.join(f'{Path(root) / tier}/MODEL' for tier in TIERS)}")
        return None
    return [found[name] for name in sorted(found)]


def _in_order(wanted: tuple[str, ...], found: dict[str, ModelEntry]) -> list[str]:
    """The models ``wanted`` names, in the order given (a pattern's matches sorted), each once."""
    chosen: dict[str, None] = {}
    for w in wanted:
        matches = [w] if w in found else sorted(n for n in found if _matches(n, w))
        chosen.update(dict.fromkeys(matches))
    return list(chosen)


def _discover(config: RunConfig,
              runner: BenchmarkRunner) -> tuple[list[ModelEntry], list[RejectedModel]] | int:
    """(the units to grade: the models, a model of samples as one unit per sample; the
    selected model and sample folders skipped), or the exit code when
    there is nothing to grade and nothing to record (1: the tree is unusable; 2: a model asked
    for is not there, or no model folder at all). When every selected folder is skipped, the
    list of models is empty: the run records the skipped folders and exits 3."""
    try:
        found, rejected = runner.scan()
    except DiscoveryError as exc:
        _error(str(exc))
        return EXIT_ERROR
    skipped = _skipped(config, rejected)
    entries = _select(config, found, skipped)
    if entries is None:
        return EXIT_MISSING_MODEL
    units, refused = expand_samples(entries)  # (a model of samples: one unit per sample)
    for folder in refused:
        _error(f"skipped sample folder '{text(folder.name, NAME_LIMIT)}' in {folder.tier}: {folder.reason}")
    return units, skipped + refused
