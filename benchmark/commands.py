"""The commands behind the CLI: grade (``run``), ``--self-check`` and the saved-results ones.

``benchmark.cli`` parses the flags with light imports only and starts the sandbox zygote
before this module (and the grader with it) is imported.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple

from . import untrusted
from .engine import warmup
from .sandbox import spawner
from .engine.options import has_internal_error, has_reference_failure, reference_unjudged
from .engine.manifest import build_manifest
from .reporting import terminal
from .reporting.banner import format_banner
from .reporting.excerpts import attach_excerpts
from .reporting.results_json import model_to_dict, run_to_dict
from .reporting.writer import write_run
from .engine.cache import Measured, ResultCache, context_hash, kernel_profile
from .sandbox.isolation import detect
from .reporting.progress import Progress
from .preparing import prepare
from .runner import BenchmarkRunner, ModelEntry, Plan, PoolBroken
from .sandbox.sandbox_report import measured_isolation, missing_layers
from .secure_runner import SecureRunner
from .types import ModelResult, RunConfig, RunResult
from .untrusted import NAME_LIMIT, NOTE_LIMIT, for_stream, text
from .console import (EXIT_ERROR, EXIT_FAIL_UNDER, EXIT_OK, EXIT_REGRESSION, EXIT_TIMEOUT,
                      EXIT_VALIDATION, SCHEMA_VERSION, _error, _say, signals_held)


def _write(config: RunConfig, doc: dict[str, Any]) -> tuple[dict[str, Path], dict[str, str]]:
    """Write the run; a model whose record cannot be written is named on stderr (it is written
    as an error record, see ``reporting.failsafe``). Returns the paths and those models' reasons."""
    failures: dict[str, str] = {}
    paths = write_run(doc, Path(config.results_dir), failures=failures)
    for name, reason in failures.items():
        _error(f"model '{text(name, NAME_LIMIT)}' is recorded as an error: {reason}")
    return paths, failures


def _exit_code(models: list[ModelResult], skipped: bool = False, unwritable: bool = False) -> int:
    """1 for a grader failure (an unwritable record is one), 3 for a submission that could not
    be graded (a skipped folder is one) or a check a task's reference solution left unjudged
    (the pack's fault, as a pack that does not validate), 4 for a timed-out child, else 0."""
    if unwritable or any(has_internal_error(m) for m in models):
        return EXIT_ERROR
    if (skipped or any(p.status == "error" for m in models for p in m.prompts)
            or any(has_reference_failure(m) for m in models)):
        return EXIT_VALIDATION
    if any(e.get("timed_out") for m in models for p in m.prompts for e in p.execution):
        return EXIT_TIMEOUT
    return EXIT_OK


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _run_id() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ") + "-" + os.urandom(3).hex()  # (secrets.token_hex)


def _build_doc(config, runner, models, started, isolation, cached=(), skipped=()) -> dict[str, Any]:
    finished = _now()
    suite = runner.suite().describe() if runner.extended else None
    manifest = build_manifest(config, isolation, models, runner.test_data, finished, suite)
    run = RunResult(SCHEMA_VERSION, _run_id(), started, finished, manifest["config"], manifest,
                    tuple(models))
    return run_to_dict(run, cached_models=cached, skipped=skipped)


def _report(config: RunConfig, doc: dict[str, Any], paths: dict[str, Path]) -> None:
    if len(doc["models"]) > 1:
        _say(config, "🏆 Ranking:")
        for place, row in enumerate(doc["comparison"]["ranking"], 1):
            _say(config, f"  {place}. {row['model']}: {row['percentage']:.1f}%")
    for folder in doc.get("skipped_models", ()):  # (escaped in the document)
        _say(config, f"⚠️  not graded: model folder '{folder['folder']}' in {folder['tier']}: "
                     f"{folder['reason']}")
    for label, path in paths.items():
        _say(config, f"📄 {label}: {path}")


def self_check_command(config: RunConfig) -> int:
    from .sandbox.self_check import format_table, run_self_check, verdicts  # (psutil: only here)

    rows = verdicts(run_self_check(config.memory_mb), detect().any)
    print(format_banner(measured_isolation(SecureRunner("self-check", memory_mb=config.memory_mb))))
    print(format_table(rows))
    failed = [row["canary"] for row in rows if not row["pass"]]
    print(f"{len(rows) - len(failed)} passed, {len(failed)} failed")
    return EXIT_ERROR if failed else EXIT_OK


def _clustered(config: RunConfig) -> bool:
    return bool(config.cluster or config.scheduler or config.scheduler_file)


def run(config: RunConfig, *, fail_under: float | None = None) -> int:
    if _clustered(config):
        from .cluster_command import refused_options

        if refused_options(config):
            _error(refused_options(config))
            return EXIT_ERROR
    else:  # (on a cluster, the workers start their own zygotes)
        spawner.prestart()  # the zygote imports its libraries on the other core meanwhile
    warmup.tune_gc()
    prepared = prepare(config)
    if isinstance(prepared, int):
        return prepared
    runner, entries, skipped = prepared
    cache = ResultCache(Path(config.results_dir))  # --no-cache: graded afresh, then stored
    local = None if _clustered(config) else _local_plan(config, runner, entries, cache)
    warming = warmup.start(grading_here=config.workers <= 1 and not _clustered(config))
    try:
        with ExitStack() as stack:
            begun = _begin(config, runner, stack, local)
            if isinstance(begun, int):
                return begun
            probe, session = begun
            return _grade_and_write(config, runner, entries, skipped, warming, fail_under, probe,
                                    session, cache, local)
    finally:
        warming.grading(False)  # (an early return: nothing was graded)


class LocalPlan(NamedTuple):
    """A local run's cache plan, and how its isolation report is had: ``measured`` is the
    record of an earlier run this run reports instead of measuring (every model came from
    the cache, under keys holding that record's kernel profile), else None and ``kernel``
    is the profile this run detected (recorded with the report it measures)."""

    plan: Plan
    context: str  # cache.context_hash of the run's context but the kernel profile
    kernel: dict[str, Any] | None
    measured: Measured | None


def _local_plan(config: RunConfig, runner: BenchmarkRunner, entries: list[ModelEntry],
                cache: ResultCache) -> LocalPlan:
    """Key and look up every model. When the last run of the same context recorded what it
    measured (``ResultCache.measured``) and every model is served under keys holding that
    kernel profile, nothing is detected or probed: this run grades nothing and reports that
    record, and the zygote started in case it had to grade is ended unused. Otherwise the
    kernel is detected here, on the main thread before the run starts its threads (see
    ``cli._detect_first``; a ``--no-cache`` or ``--require-isolation`` run has detected
    already), and the keys hold what was detected."""
    base = runner.context_base()
    context = context_hash(base)
    measured = None
    if not (config.no_cache or config.unsafe or config.require_isolation):
        measured = cache.measured(context)
    if measured is not None:
        plan = runner.plan(entries, cache, kernel=measured.kernel, base=base)
        if not plan.todo:
            spawner.discard_unused()  # (the zygote prestarted in case a model had to be graded)
            return LocalPlan(plan, context, measured.kernel, measured)
    kernel = kernel_profile(runner.options)  # (None with --unsafe)
    if measured is None or kernel != measured.kernel:
        plan = runner.plan(entries, cache, refresh=config.no_cache, kernel=kernel, base=base)
    return LocalPlan(plan, context, kernel, None)


def _begin(config: RunConfig, runner: BenchmarkRunner, stack: ExitStack,
           local: LocalPlan | None) -> tuple[Future, Any] | int:
    """(the isolation report as a future, the admitted cluster session or None), or an exit code.

    Locally the report and network probe run beside grading (a run served wholly from the
    cache reports its ``LocalPlan.measured`` record instead); only --require-isolation waits
    for them before grading; otherwise the banner is printed as soon as they are back (from
    the probe's thread), and always before the first model's results. On a cluster the
    report is the one an admitted worker made in its preflight."""
    probe: Future = Future()
    if _clustered(config):
        from . import cluster_command

        session = cluster_command.open_admitted(config, cluster_command.spec_of(config), runner, stack)
        if isinstance(session, int):
            return session
        probe.set_result(cluster_command.isolation_of(session))
        return probe, session
    if local is not None and local.measured is not None:
        probe.set_result(local.measured.isolation)
        return probe, None
    probes = ThreadPoolExecutor(max_workers=1, thread_name_prefix="isolation-probe")
    probe = probes.submit(lambda: measured_isolation(runner.options.runner("probe")))
    probes.shutdown(wait=False)
    if config.require_isolation:
        missing = missing_layers(probe.result())
        if missing:
            _say(config, format_banner(probe.result()))
            _error(f"--require-isolation: not applied: {'; '.join(missing)}")
            return EXIT_ERROR
    return probe, None


def _grade_and_write(config, runner, entries, skipped, warming, fail_under, probe, session,
                     cache, local) -> int:
    started = _now()
    progress = Progress(len(entries), quiet=config.quiet)
    grading_line = f"🔍 Grading {len(entries)} model(s): {', '.join(e.name for e in entries)}"
    if not entries:  # every model folder selected is skipped: the run still writes that down
        grading_line = "🔍 Grading no model: every model folder found is skipped (listed below)"
    if local is not None and local.measured is not None:  # the banner is not this run's measure
        grading_line += (f"\n   every model comes from the cache and nothing runs: the isolation above "
                         f"is what run {text(local.measured.run_id, NAME_LIMIT)} measured at "
                         f"{text(local.measured.measured_at, NAME_LIMIT)}, under the kernel profile "
                         f"that graded them")
    header = _Header(config, progress, probe, grading_line)
    probe.add_done_callback(lambda done: done.exception() is None and header.show())
    if session is not None:
        admitted = sum(row["admitted"] for row in session.rows)
        session.on_status = lambda flying, waiting: progress.note(
            f"{admitted} worker(s) admitted, {flying} in flight, {waiting} waiting")

    def on_done(result: ModelResult) -> None:
        progress.done(result.model)
        if not config.quiet:
            header.show()
            try:
                block = terminal.format_model_block(model_to_dict(result), show_checks=True)
            except Exception as exc:  # a record the writer will report: the run goes on
                block = (f"Model: {untrusted.text(result.model, 200)}: its results cannot be "
                         f"shown ({type(exc).__name__})")
            progress.write(block)

    try:
        models, cached = runner.grade(entries, workers=config.workers, on_done=on_done, cache=cache,
                                      on_plan=lambda fresh: warming.grading(fresh > 0),
                                      refresh=config.no_cache, cluster=session,
                                      plan=local.plan if local is not None else None)
    except PoolBroken as exc:
        progress.close()
        _error(f"{exc}: nothing of this run was written; models graded before it stay in the cache")
        return EXIT_ERROR
    finally:
        progress.close()
    header.show()
    # The document is built while the isolation probe may still be out (it is filled in last).
    doc = attach_excerpts(_build_doc(config, runner, models, started, None, cached, skipped),  # (a new document)
                          {entry.name: entry.path for entry in entries}, in_place=True)
    doc["_metadata"]["isolation"] = probe.result()
    if session is not None:  # (a local run's kernel profile is the isolation report's)
        from .cluster_command import metadata

        doc["_metadata"].update(metadata(session))
    elif local.measured is not None:
        doc["_metadata"]["isolation_source"] = local.measured.source()
    elif local.kernel is not None:  # measured by this run: what a run served from the cache reports
        cache.record_measured(local.context, Measured(local.kernel, probe.result(), doc["run_id"],
                                                      doc["_metadata"]["timestamp_utc"]))
    warming.join()  # its libraries are loaded and it compiles nothing while reports render
    with signals_held() as stopped:  # Ctrl-C or SIGTERM now: the results are written in full first
        try:
            paths, failures = _write(config, doc)
        except OSError as exc:  # (checked writable before grading; since then, a disk filled up ...)
            which = f"{exc.filename}: " if exc.filename else ""
            _error(f"cannot write the results into {config.results_dir}: {which}{exc.strerror or exc}")
            return EXIT_ERROR
        _report(config, doc, paths)
    if stopped:
        _error(f"{signal.Signals(stopped[0]).name} while the results were being written: they were "
               "written in full first")
        return EXIT_ERROR
    _name_causes(models)
    return _gate(_exit_code(models, bool(skipped), bool(failures)), doc, fail_under)


def _name_causes(models: list[ModelResult]) -> None:
    """Each prompt behind an exit code 1, 3 or 4 on stderr, with ``-q`` too (as ``--fail-under``
    names its models): one that could not be graded, with its reason, and one whose child run
    hit the wall-clock time-out; then, once per task, a reference solution that failed."""
    references: dict[str, tuple[str, set[str]]] = {}
    for model in models:
        for prompt in model.prompts:
            where = f"model '{model.model}' {prompt.prompt_id}"
            late = [run for run in prompt.execution if run.get("timed_out")]
            if prompt.status == "error":
                _error(f"{where}: {text(prompt.error, NOTE_LIMIT)}")
            elif late:
                _error(f"{where}: a child run hit the wall-clock time-out "
                       f"(killed after {late[0].get('wall_s', 0):.1f} s)")
            for check in (c for cat in prompt.categories for c in cat.checks if reference_unjudged(c)):
                references.setdefault(prompt.prompt_id, (check.rationale, set()))[1].add(model.model)
    for rationale, names in references.values():  # (it names the task; it passed the text boundary)
        _error(f"{rationale} (checks of {len(names)} model(s) not judged)")


class _Header:
    """The isolation banner and the "Grading ..." line: printed once, from whichever thread
    gets there first (the probe's, when it is back; the main thread, before a model's results)."""

    def __init__(self, config: RunConfig, progress: Progress, probe: Future, grading_line: str) -> None:
        self._config, self._progress, self._probe = config, progress, probe
        self._grading_line = grading_line
        self._lock = threading.Lock()
        self._shown = False

    def show(self) -> None:
        if self._config.quiet:
            return
        with self._lock:
            if self._shown:
                return
            for text in (format_banner(self._probe.result()), self._grading_line):
                if self._progress.enabled:
                    self._progress.write(text)
                else:
                    _say(self._config, text)
            self._shown = True


def _gate(code: int, doc: dict[str, Any], fail_under: float | None) -> int:
    """``--fail-under``: exit 7 when a model scored under the bar; grading problems (1, 3, 4) win."""
    if fail_under is None:
        return code
    from .reporting.saved_runs import models_under  # (the saved-results code: only when asked)

    below = models_under(doc, fail_under)
    for name, percentage in below:
        _error(f"--fail-under {fail_under:g}: {name} scored {percentage:.2f}%")
    return EXIT_FAIL_UNDER if below and code == EXIT_OK else code


def saved_command(args: argparse.Namespace, config: RunConfig) -> int:
    """``--report-only`` and ``--compare``: work from saved results files, no grading."""
    from .reporting.saved_runs import compare_files, rebuild_reports

    if args.report_only:
        for label, written in rebuild_reports(args.report_only).items():
            _say(config, f"📄 {label}: {written}")
        return EXIT_OK
    out_dir = config.results_dir if args.results_dir_given else None
    result = compare_files(args.compare[0], args.compare[1], out_dir, args.fail_on_regression)
    print(for_stream(result.text, getattr(sys.stdout, "encoding", None)), end="", flush=True)
    _say(config, f"📄 comparison: {result.html_path}")
    return EXIT_REGRESSION if result.regressions else EXIT_OK


