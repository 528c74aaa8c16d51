"""Command line: flags -> RunConfig -> BenchmarkRunner -> reporters -> exit code.

Exit codes (the spec's table): 0 success; 1 general error (bad configuration, a grader
failure, refused --unsafe); 2 unknown model or no model found; 3 a submission file could not
be graded (status ``error``: missing, empty, binary, non-UTF-8, syntax error ...); 4 a child
hit the wall-clock timeout; 5 the submissions or test-data folder does not exist.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .grading import GradeOptions, default_test_data, has_internal_error
from .manifest import build_manifest
from .reporting import terminal
from .reporting.banner import format_banner
from .reporting.results_json import model_to_dict, run_to_dict
from .reporting.writer import write_run
from .isolation import detect
from .runner import BenchmarkRunner, DiscoveryError, ModelEntry
from .sandbox_report import probe_network
from .secure_runner import SecureRunner
from .self_check import format_table, run_self_check, verdicts
from .types import ModelResult, RunConfig, RunResult

EXIT_OK, EXIT_ERROR, EXIT_MISSING_MODEL, EXIT_VALIDATION, EXIT_TIMEOUT, EXIT_NOT_FOUND = range(6)
MEM_CHOICES = (256, 384, 512, 768, 1024)
SCHEMA_VERSION = "1.0"


def _env(name: str, default: str | None = None) -> str | None:
    """Our RUBRICBENCH_* variable, or the spec's AIBUGBENCH_* alias."""
    return os.environ.get(f"RUBRICBENCH_{name}", os.environ.get(f"AIBUGBENCH_{name}", default))


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="rubricbench", description="Grade LLM-written code submissions.")
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--model", help="grade one model by name")
    target.add_argument("--all-models", action="store_true", help="grade every model found (default)")
    parser.add_argument("--workers", type=int, default=1, help="models graded in parallel (default 1)")
    parser.add_argument("--submissions-dir", default="submissions", help="root of the submissions")
    parser.add_argument("--results-dir", default=_env("RESULTS_DIR", "results"), help="output folder")
    parser.add_argument("--mem", type=int, choices=MEM_CHOICES, default=512, help="child memory limit (MB)")
    parser.add_argument("--unsafe", action="store_true", help="drop the isolation layers (trusted code only)")
    parser.add_argument("--allow-network", action="store_true", help="let submissions use the network")
    parser.add_argument("--trusted-model", action="store_true", help="skip the --unsafe confirmation")
    parser.add_argument("--no-metadata", action="store_true", help="skip git/dependency metadata")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only essential output")
    parser.add_argument("--debug", action="store_true", default=_truthy(_env("DEBUG")),
                        help="re-raise grader exceptions instead of recording them")
    parser.add_argument("--require-isolation", action="store_true",
                        help="fail when a kernel or guard isolation layer is unavailable")
    parser.add_argument("--self-check", action="store_true",
                        help="run canary submissions against each isolation layer and exit")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    return args


def config_from_args(args: argparse.Namespace) -> RunConfig:
    timeout = float(_env("TIMEOUT", "30") or 30)
    return RunConfig(
        submissions_dir=args.submissions_dir, results_dir=args.results_dir,
        models=(args.model,) if args.model else (), all_models=not args.model,
        workers=args.workers, memory_mb=args.mem, timeout_s=timeout, unsafe=args.unsafe,
        allow_network=args.allow_network, trusted_model=args.trusted_model,
        no_metadata=args.no_metadata, quiet=args.quiet, debug=args.debug,
        require_isolation=args.require_isolation,
    )


def _say(config: RunConfig, text: str = "") -> None:
    """Print unless quiet; falls back to ASCII on terminals that cannot encode the text."""
    if config.quiet:
        return
    try:
        print(text, flush=True)
    except UnicodeEncodeError:
        print(text.encode("ascii", "replace").decode("ascii"), flush=True)


def _error(text: str) -> None:
    print(f"error: {text}", file=sys.stderr)


def _confirm_unsafe(config: RunConfig) -> bool:
    if not config.unsafe or config.trusted_model:
        return True
    if not sys.stdin.isatty():
        _error("--unsafe needs --trusted-model when there is no terminal to confirm on")
        return False
    answer = input("--unsafe runs submissions without isolation. Type 'yes' to continue: ")
    return answer.strip().lower() == "yes"


def _options(config: RunConfig) -> GradeOptions:
    return GradeOptions(memory_mb=config.memory_mb, timeout_s=config.timeout_s,
                        unsafe=config.unsafe, allow_network=config.allow_network, debug=config.debug)


def _select(config: RunConfig, found: dict[str, ModelEntry]) -> list[ModelEntry] | None:
    if config.models:
        missing = [m for m in config.models if m not in found]
        if missing:
            _error(f"model '{missing[0]}' not found under {config.submissions_dir} "
                   f"(available: {', '.join(sorted(found)) or 'none'})")
            return None
        return [found[m] for m in config.models]
    if not found:
        _error(f"no models found under {config.submissions_dir}")
        return None
    return [found[name] for name in sorted(found)]


def _exit_code(models: list[ModelResult]) -> int:
    if any(has_internal_error(m) for m in models):
        return EXIT_ERROR
    if any(p.status == "error" for m in models for p in m.prompts):
        return EXIT_VALIDATION
    if any(e.get("timed_out") for m in models for p in m.prompts for e in p.execution):
        return EXIT_TIMEOUT
    return EXIT_OK


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _run_id() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


def _build_doc(config, runner, models, started, isolation) -> dict[str, Any]:
    finished = _now()
    manifest = build_manifest(config, isolation, models, runner.test_data, finished)
    run = RunResult(SCHEMA_VERSION, _run_id(), started, finished, manifest["config"], manifest,
                    tuple(models))
    return run_to_dict(run)


def _report(config: RunConfig, doc: dict[str, Any], paths: dict[str, Path]) -> None:
    if len(doc["models"]) > 1:
        _say(config, "🏆 Ranking:")
        for place, row in enumerate(doc["comparison"]["ranking"], 1):
            _say(config, f"  {place}. {row['model']}: {row['percentage']:.1f}%")
    for label, path in paths.items():
        _say(config, f"📄 {label}: {path}")


def measured_isolation(probe_runner) -> dict[str, Any]:
    """The runner's layer report plus a network probe made from inside the sandbox."""
    report = probe_runner.isolation_report()
    report["network_probe"] = probe_network(probe_runner)
    return report


def missing_layers(isolation: dict[str, Any]) -> list[str]:
    missing = [f"{layer} layer ({isolation[layer].get('reason') or isolation[layer].get('status')})"
               for layer in ("kernel", "guard") if isolation[layer].get("status") != "applied"]
    kernel = isolation["kernel"]
    if kernel.get("status") == "applied":
        missing += [f"kernel: {name}" for name in ("network_namespace", "pid_namespace", "landlock_abi",
                                                   "seccomp") if not kernel.get(name)
                    and not (name == "network_namespace" and isolation["network"].startswith("allowed"))]
    return missing


def self_check_command(config: RunConfig) -> int:
    rows = verdicts(run_self_check(config.memory_mb), detect().any)
    print(format_banner(measured_isolation(SecureRunner("self-check", memory_mb=config.memory_mb))))
    print(format_table(rows))
    failed = [row["canary"] for row in rows if not row["pass"]]
    print(f"{len(rows) - len(failed)} passed, {len(failed)} failed")
    return EXIT_ERROR if failed else EXIT_OK


def run(config: RunConfig) -> int:
    submissions = Path(config.submissions_dir)
    test_data = default_test_data()
    for folder, what in ((submissions, "submissions"), (test_data, "test data")):
        if not folder.is_dir():
            _error(f"{what} folder not found: {folder}")
            return EXIT_NOT_FOUND
    runner = BenchmarkRunner(results_dir=config.results_dir, submissions_dir=submissions,
                             test_data=test_data, options=_options(config))
    try:
        entries = _select(config, runner.discover())
    except DiscoveryError as exc:
        _error(str(exc))
        return EXIT_ERROR
    if entries is None:
        return EXIT_MISSING_MODEL
    if not _confirm_unsafe(config):
        return EXIT_ERROR
    isolation = measured_isolation(runner.options.runner("probe"))
    _say(config, format_banner(isolation))
    missing = missing_layers(isolation)
    if config.require_isolation and missing:
        _error(f"--require-isolation: not applied: {'; '.join(missing)}")
        return EXIT_ERROR
    _say(config, f"🔍 Grading {len(entries)} model(s): {', '.join(e.name for e in entries)}")
    started = _now()

    def on_done(result: ModelResult) -> None:
        _say(config, terminal.format_model_block(model_to_dict(result), show_checks=True))

    models = runner.grade(entries, workers=config.workers, on_done=on_done)
    doc = _build_doc(config, runner, models, started, isolation)
    paths = write_run(doc, Path(config.results_dir))
    _report(config, doc, paths)
    return _exit_code(models)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    config = config_from_args(args)
    try:
        return self_check_command(config) if args.self_check else run(config)
    except KeyboardInterrupt:
        _error("interrupted")
        return EXIT_ERROR


class AICodeBenchmark:
    """The spec's programmatic entry point."""

    def __init__(self, submissions_dir: str = "submissions", results_dir: str = "results",
                 **options: Any) -> None:
        self.config = replace(RunConfig(), submissions_dir=submissions_dir,
                              results_dir=results_dir, quiet=True, **options)

    def run_single_model(self, model_name: str) -> dict[str, Any]:
        runner = BenchmarkRunner(model_name, self.config.results_dir,
                                 submissions_dir=self.config.submissions_dir,
                                 options=_options(self.config))
        return runner.run_all_tests()
