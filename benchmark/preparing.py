"""What a grading run checks before it grades anything: the submissions and test-data
folders, the task packs, the models asked for, the ``--unsafe`` confirmation and the results
folder. Each problem is said on stderr and becomes the run's exit code."""

from __future__ import annotations

import sys
from pathlib import Path

from .console import EXIT_ERROR, EXIT_MISSING_MODEL, EXIT_NOT_FOUND, EXIT_VALIDATION, _error
from .engine.options import GradeOptions, default_test_data
from .reporting.writer import results_folder_problem
from .runner import TIERS, BenchmarkRunner, DiscoveryError, ModelEntry, RejectedModel
from .types import RunConfig
from .untrusted import NAME_LIMIT, for_stream, text


def prepare(config: RunConfig) -> tuple[BenchmarkRunner, list[ModelEntry], list[RejectedModel]] | int:
    """(the runner, the models to grade, the model folders skipped), or an exit code."""
    submissions = Path(config.submissions_dir)
    test_data = default_test_data()
    for folder, what in ((submissions, "submissions"), (test_data, "test data")):
        if not folder.is_dir():
            _error(f"{what} folder not found: {folder}")
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


def _skipped(config: RunConfig, rejected: list[RejectedModel]) -> list[RejectedModel]:
    """Report each selected model folder that is not graded (its name, or a symbolic link)."""
    chosen = [r for r in rejected if not config.models or r.name in config.models]
    for folder in chosen:
        _error(f"skipped model folder '{text(folder.name, NAME_LIMIT)}' in {folder.tier}: "
               f"{folder.reason}")
    return chosen


def _select(config: RunConfig, found: dict[str, ModelEntry],
            skipped: list[RejectedModel]) -> list[ModelEntry] | None:
    if config.models:
        missing = [m for m in config.models if m not in found and m not in {r.name for r in skipped}]
        if missing:
            _error(f"model '{missing[0]}' not found under {config.submissions_dir} "
                   f"(available: {', '.join(sorted(found)) or 'none'})")
            return None
        return [found[m] for m in config.models if m in found]
    if not found and not skipped:
        root = config.submissions_dir
        _error(f"no models found under {root}: a model is a folder "
               f"{' or '.join(f'{Path(root) / tier}/MODEL' for tier in TIERS)}")
        return None
    return [found[name] for name in sorted(found)]


def _discover(config: RunConfig,
              runner: BenchmarkRunner) -> tuple[list[ModelEntry], list[RejectedModel]] | int:
    """(the models to grade, the selected model folders skipped), or the exit code when
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
    return entries, skipped
