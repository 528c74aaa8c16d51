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
from typing import Any

from . import untrusted
from .engine import warmup
from .engine.manifest import build_manifest
from .reporting import terminal
from .reporting.banner import format_banner
from .reporting.excerpts import attach_excerpts
from .reporting.results_json import model_to_dict, run_to_dict
from .reporting.writer import write_run
from .engine.cache import Measured, ResultCache
from .reporting.progress import Progress
from .preparing import prepare
from .runner import BenchmarkRunner, result_unit
from .sampling import combine
from .types import GradingStopped, ModelResult, RunConfig, RunResult
from .untrusted import NAME_LIMIT, for_stream, text
from .console import EXIT_ERROR, EXIT_OK, EXIT_REGRESSION, SCHEMA_VERSION, _error, _say, signals_held
from .exit_status import exit_code as _exit_code, gate as _gate, name_causes as _name_causes
from .local_plan import LocalPlan, local_plan as _local_plan
from .engine.cache_folder import fragments_dir
from .engine.fragment_store import FragmentStore


def _write(config: RunConfig, doc: dict[str, Any]) -> tuple[dict[str, Path], dict[str, str], Any]:
    """Write the run; a model whose record cannot be written is named on stderr (it is written
    as an error record, see ``reporting.failsafe``). Returns the paths, those models' reasons
    and the view of the document the reports were rendered from."""
    failures: dict[str, str] = {}
    views: list[Any] = []
    paths = write_run(doc, Path(config.results_dir), failures=failures,
                      fragments=FragmentStore(fragments_dir(config.results_dir)), views=views)
    for name, reason in failures.items():
        _error(f"model '{text(name, NAME_LIMIT)}' is recorded as an error: {reason}")
    return paths, failures, views[0]



def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _run_id() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ") + "-" + os.urandom(3).hex()  # (secrets.token_hex)


def _build_doc(config, runner, units, started, isolation, cached=(), skipped=()) -> dict[str, Any]:
    """The results document of the graded ``units`` (models, or samples: folded into their
    model here, ``sampling.combine``); ``cached``: the units served from the cache."""
    finished = _now()
    suite = runner.suite().describe() if runner.extended else None
    models = combine(units)
    manifest = build_manifest(config, isolation, models, runner.test_data, finished, suite)
    run = RunResult(SCHEMA_VERSION, _run_id(), started, finished, manifest["config"], manifest,
                    tuple(models))
    return run_to_dict(run, cached_models=cached, skipped=skipped, seed=config.seed,
                       pass_at=config.pass_at)


def _report(config: RunConfig, run: Any, paths: dict[str, Path]) -> None:
    """After grading: the model x task table, the lost points (folded; not with --verbose,
    whose blocks list every lost check), the folders not graded and the files written. ``run``:
    the view of the document as written (``view.run_view``), which the reports were made from."""
    if not config.quiet:
        from .reporting.terminal_losses import format_losses

        try:
            lines = terminal.format_table(run) + ([] if config.verbose else format_losses(run))
        except Exception as exc:  # (as for a model's block: the results are written, the run goes on)
            if config.debug:
                raise
            lines = [f"🏆 the table cannot be shown ({type(exc).__name__}): see summary_report.txt"]
        if lines:
            _say(config, "\n".join(lines))
    for folder in run.skipped:  # (escaped in the document)
        _say(config, f"⚠️  not graded: model folder '{folder.folder}' in {folder.tier}: {folder.reason}")
    for label, path in paths.items():
        _say(config, f"📄 {label}: {path}")


def self_check_command(config: RunConfig) -> int:
    from .sandbox.isolation import detect
    from .sandbox.sandbox_report import measured_isolation
    from .sandbox.self_check import format_table, run_self_check, verdicts  # (psutil: only here)
    from .secure_runner import SecureRunner

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
    # (locally the zygote is started by the command line, or by ``local_plan`` once it knows the
    # run grades or measures; on a cluster, the workers start their own zygotes)
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
    from .sandbox.sandbox_report import measured_isolation, missing_layers  # (not for a run served wholly from the cache)

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
    sampled = any(entry.sample is not None for entry in entries)  # (then samples are counted)
    progress = Progress(len(entries), quiet=config.quiet, noun="models and samples" if sampled else "models")
    grading_line = terminal.format_grading_line(list(dict.fromkeys(entry.name for entry in entries)),
                                                units=len(entries))
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
        session.on_status = lambda flying, waiting: progress.note(
            f"{session.admitted_now()} worker(s) admitted, {flying} in flight, {waiting} waiting"
            + ("" if session.admitted_now() else f" (the run ends after {session.wait_s:g} s without one)"))

    planned: list[bool] = []  # (the runner hands over every cached model before it plans the rest)

    def on_done(result: ModelResult) -> None:
        progress.done(result_unit(result), cached=not planned)
        if config.quiet or not (config.verbose or (progress.lines and planned)):
            return  # (a terminal shows the bar; a cached model, in no time, only the table at the end)
        header.show()
        try:
            record = model_to_dict(result, cached=not planned)
            if result.sample is not None:  # (a sample's line names it: model/samples/id)
                record["model_name"] = result_unit(result)
            shown = (terminal.format_model_block(record, show_checks=True) if config.verbose
                     else terminal.format_model_line(record))
        except Exception as exc:  # a record the writer will report: the run goes on
            shown = (f"Model: {untrusted.text(result.model, 200)}: its results cannot be "
                     f"shown ({type(exc).__name__})")
        progress.write(shown)

    def on_plan(fresh: int) -> None:
        planned.append(True)
        warming.grading(fresh > 0)

    try:
        models, cached = runner.grade(entries, workers=config.workers, on_done=on_done, cache=cache,
                                      on_plan=on_plan,
                                      refresh=config.no_cache, cluster=session,
                                      plan=local.plan if local is not None else None)
    except GradingStopped as exc:  # (a pool that lost a worker; a cluster that lost its scheduler)
        progress.close()
        _error(f"{exc}: nothing of this run was written; models graded before it stay in the cache")
        return EXIT_ERROR
    finally:
        progress.close()
    header.show()
    # The document is built while the isolation probe may still be out (it is filled in last).
    doc = attach_excerpts(_build_doc(config, runner, models, started, None, cached, skipped),  # (a new document)
                          {entry.name: entry.path.parent.parent if entry.sample else entry.path
                           for entry in entries}, in_place=True)
    doc["_metadata"]["isolation"] = probe.result()
    if session is not None:  # (a local run's kernel profile is the isolation report's)
        from .cluster_command import mark_graded_by, metadata

        doc["_metadata"].update(metadata(session))
        mark_graded_by(doc, session)
    elif local.measured is not None:
        doc["_metadata"]["isolation_source"] = local.measured.source()
    elif local.kernel is not None:  # measured by this run: what a run served from the cache reports
        cache.record_measured(local.context, Measured(local.kernel, probe.result(), doc["run_id"],
                                                      doc["_metadata"]["timestamp_utc"]))
    warming.join()  # its libraries are loaded and it compiles nothing while reports render
    with signals_held() as stopped:  # Ctrl-C or SIGTERM now: the results are written in full first
        try:
            paths, failures, run = _write(config, doc)
        except OSError as exc:  # (checked writable before grading; since then, a disk filled up ...)
            which = f"{exc.filename}: " if exc.filename else ""
            _error(f"cannot write the results into {config.results_dir}: {which}{exc.strerror or exc}")
            return EXIT_ERROR
        _report(config, run, paths)
    if stopped:
        _error(f"{signal.Signals(stopped[0]).name} while the results were being written: they were "
               "written in full first")
        return EXIT_ERROR
    _name_causes(models)
    return _gate(_exit_code(models, bool(skipped), bool(failures)), doc, fail_under)



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



def saved_command(args: argparse.Namespace, config: RunConfig) -> int:
    """``--report-only`` and ``--compare``: work from saved results files, no grading."""
    from .reporting.saved_runs import compare_files, rebuild_reports

    if args.report_only:
        for label, written in rebuild_reports(args.report_only).items():
            _say(config, f"📄 {label}: {written}")
        return EXIT_OK
    out_dir = config.results_dir if args.results_dir_given else None
    result = compare_files(args.compare[0], args.compare[1], out_dir, args.fail_on_regression, args.significance)
    if config.quiet:  # -q: the gate's line only (and a warning that the runs were graded unalike)
        if result.warning:
            print(for_stream(result.warning, getattr(sys.stderr, "encoding", None)), file=sys.stderr, flush=True)
        if result.gate:
            print(for_stream(result.gate, getattr(sys.stdout, "encoding", None)), flush=True)
    else:
        print(for_stream(result.text, getattr(sys.stdout, "encoding", None)), end="", flush=True)
    _say(config, f"📄 comparison: {result.html_path}")
    return EXIT_REGRESSION if result.regressions else EXIT_OK


