"""Command line: flags -> RunConfig -> ``benchmark.commands`` (grading, reports) -> exit code.

The exit codes are listed in ``benchmark.console``. Subcommands: ``import`` (chat replies ->
a submission folder) and ``pack`` (validate, list ... task packs).
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
from dataclasses import replace
from typing import Any

# The exit codes and the two output helpers live in ``benchmark.console`` (``commands`` uses
# them, and must not import this module, which imports it); they stay importable from here.
from .console import (EXIT_ERROR, EXIT_FAIL_UNDER, EXIT_MISSING_MODEL, EXIT_NOT_FOUND,  # noqa: F401
                      EXIT_OK, EXIT_REGRESSION, EXIT_TIMEOUT, EXIT_VALIDATION, SCHEMA_VERSION,
                      PipeSafe, _error, _say)
from . import missing_dependency
from .types import MAX_TIMEOUT_S, RunConfig

# The flags and their checks live in ``benchmark.cli_args``; importable from here as before.
from .cli_args import (MEM_CHOICES, MODE_FLAGS, _env, _truthy, parse_args)  # noqa: F401


class ConfigError(ValueError):
    """The environment asks for something the run cannot do (exit 1, before any grading)."""


def _timeout_s() -> float:
    """``RUBRICBENCH_TIMEOUT`` (or its alias) in seconds, over 0 and at most a day; 30 when
    unset or blank. ``ConfigError`` names the variable otherwise (NaN and infinities included:
    the results must record it)."""
    raw = _env("TIMEOUT")
    if raw is None:
        return 30.0
    ours = bool(os.environ.get("RUBRICBENCH_TIMEOUT", "").strip())
    name = "RUBRICBENCH_TIMEOUT" if ours else "AIBUGBENCH_TIMEOUT"
    raw = raw.strip()
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds <= MAX_TIMEOUT_S:
        raise ConfigError(f"{name}={raw!r}: the wall-clock time-out is a number of seconds over 0 "
                          f"and at most {MAX_TIMEOUT_S:g}")
    return seconds


def config_from_args(args: argparse.Namespace) -> RunConfig:
    """The run's configuration: the flags, and ``RUBRICBENCH_TIMEOUT`` (``ConfigError``)."""
    timeout = _timeout_s()
    return RunConfig(
        submissions_dir=args.submissions_dir, results_dir=args.results_dir,
        models=tuple(getattr(args, "models", None) or ([args.model] if args.model else ())),
        all_models=not args.model,
        workers=args.workers, memory_mb=args.mem, timeout_s=timeout, unsafe=args.unsafe,
        allow_network=args.allow_network, trusted_model=args.trusted_model,
        no_metadata=args.no_metadata, quiet=args.quiet, verbose=args.verbose, debug=args.debug,
        require_isolation=args.require_isolation, no_cache=args.no_cache,
        packs=tuple(args.pack or ()), core=not args.no_core, seed=args.seed,
        pass_at=args.pass_at,
        cluster=args.cluster, scheduler=args.scheduler, scheduler_file=args.scheduler_file,
        tls_ca=args.tls_ca, tls_cert=args.tls_cert, tls_key=args.tls_key,
    )


def main(argv: list[str] | None = None) -> int:
    """The command line (exit codes: ``benchmark.console``). When the reader of stdout leaves
    (``| head``) or stdout cannot be written (closed, a full disk), output stops and the run
    still finishes and writes its results."""
    stdout = sys.stdout  # (None when the descriptor was closed: ``rubricbench ... >&-``)
    sys.stdout = PipeSafe(stdout if stdout is not None else open(os.devnull, "w", encoding="utf-8"))
    try:
        return _main(argv)
    except ModuleNotFoundError as exc:  # a Python without the grader's dependencies (imported lazily)
        said = missing_dependency(exc)
        if said is None:
            raise
        _error(said)
        return EXIT_ERROR
    finally:
        sys.stdout = stdout


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["import"]:  # the subcommands; every flag below is unchanged
        from .importing.command import main as import_main

        return import_main(argv[1:])
    if argv[:1] == ["pack"]:
        from .pack_command import main as pack_main

        return pack_main(argv[1:])
    args = parse_args(argv)
    try:
        config = config_from_args(args)
    except ConfigError as exc:
        _error(str(exc))
        return EXIT_ERROR
    grading = not (args.self_check or args.report_only or args.compare)
    if grading and not (config.cluster or config.scheduler or config.scheduler_file):
        if not _may_be_served(args):  # (else ``local_plan`` starts it once a model is to be graded)
            from .sandbox import spawner

            spawner.prestart()  # the zygote imports its libraries while we import ours
        if args.workers > 1 and args.no_cache:  # a pool will grade: its server can start too
            from .engine import pool_server

            pool_server.prestart()
        if not args.unsafe and (args.no_cache or args.require_isolation):  # (see _detect_first)
            from .sandbox import isolation

            _detect_first(isolation)
    from . import commands
    from .reporting.saved_error import SavedRunError

    previous = {}
    if grading and not (config.cluster or config.scheduler or config.scheduler_file):
        # Ctrl-C, or a SIGTERM (a CI job cancelled, ``timeout``), stops the sandboxes at once
        from .sandbox import abort_on  # (the spawner is not loaded for it)

        previous = {signum: abort_on(signum, reason) for signum, reason in STOPPED_BY.items()}
    try:
        if args.self_check:
            return commands.self_check_command(config)
        if args.report_only or args.compare:
            return commands.saved_command(args, config)
        return commands.run(config, fail_under=args.fail_under)
    except SavedRunError as exc:
        _error(str(exc))
        return EXIT_ERROR
    except KeyboardInterrupt as exc:
        why = str(exc) if str(exc) in STOPPED_BY.values() else INTERRUPTED
        _error(f"{why}: nothing of this run was written; models graded before it stay in the cache")
        return EXIT_ERROR
    finally:
        for signum, handler in previous.items():  # (the command line in a process that goes on)
            signal.signal(signum, handler)


INTERRUPTED = "interrupted"
TERMINATED = "terminated (SIGTERM)"
STOPPED_BY = {signal.SIGINT: INTERRUPTED, signal.SIGTERM: TERMINATED}


def _may_be_served(args: argparse.Namespace) -> bool:
    """Whether the cache may serve this run wholly, measuring nothing (``local_plan``): it
    has entries, and neither --no-cache, --unsafe nor --require-isolation is given. Such a
    run starts no sandbox zygote unless it finds a model to grade; any other starts one
    first, so that its imports overlap the grader's."""
    from .engine.cache_folder import has_entries

    return not (args.no_cache or args.unsafe or args.require_isolation) and has_entries(args.results_dir)


def _detect_first(isolation: Any) -> None:
    """Detect the kernel mechanisms now, before the run starts its threads (only the zygote's
    reader exists, which waits on its socket and sets events of its own). Each probe is a
    fork that runs Python without exec, and a forked child inherits every lock of its parent
    as it was: one held by another thread at that moment (``tempfile``'s, for one, by a
    grading thread making a sandbox) is never released in the child, and the probe, then the
    run, would wait forever. Every later ``detect()`` of the run returns this answer.

    Here only when the run will grade or must measure (``--no-cache``, ``--require-isolation``);
    otherwise the run may be served wholly from the cache and measure nothing, and it detects
    once it knows it will grade (``local_plan.local_plan``, still before any thread of its own)."""
    isolation.detect()


class AICodeBenchmark:
    """The spec's programmatic entry point."""

    def __init__(self, submissions_dir: str = "submissions", results_dir: str = "results",
                 **options: Any) -> None:
        self.config = replace(RunConfig(), submissions_dir=submissions_dir,
                              results_dir=results_dir, quiet=True, **options)

    def run_single_model(self, model_name: str) -> dict[str, Any]:
        from .preparing import options_of
        from .runner import BenchmarkRunner

        runner = BenchmarkRunner(model_name, self.config.results_dir,
                                 submissions_dir=self.config.submissions_dir,
                                 options=options_of(self.config))
        return runner.run_all_tests()
