"""The run manifest: everything needed to say what was graded, by what, and how."""

from __future__ import annotations

import hashlib
import platform
import subprocess
import sys
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Any

from .. import __version__, installed
from ..rubric import rubric_hash
from ..types import ModelResult, RunConfig

CLUSTER_FLAGS = ("cluster", "scheduler", "scheduler_file", "tls_ca", "tls_cert", "tls_key")
DEPENDENCIES = ("PyYAML", "radon", "bandit", "jsonschema", "requests", "requests-mock", "psutil",
                "Jinja2", "MarkupSafe")


def fixture_hashes(test_data: Path) -> dict[str, str]:
    if not test_data.is_dir():
        return {}
    return {path.relative_to(test_data).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(test_data.rglob("*")) if path.is_file()}


def dependency_versions() -> dict[str, str]:
    """The installed version of each of ``DEPENDENCIES`` (looked up once per process: the
    warm-up thread of a grading run asks first, while the run waits for children)."""
    return dict(_dependency_versions())


@lru_cache(maxsize=1)
def _dependency_versions() -> dict[str, str]:
    return {name: found if found is not None else "not installed"
            for name, found in installed.versions(list(DEPENDENCIES)).items()}


def git_commit(directory: Path) -> str | None:
    """The checkout's commit, asked of git when the manifest is built (not earlier: a git
    child alive during grading is one more child of the grader while its runs come and go)."""
    try:
        out = subprocess.run(["git", "-C", str(directory), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def _config(config: RunConfig) -> dict[str, Any]:
    """The run's flags; the task-pack ones and the seed only when used (a run with the
    defaults records exactly what it always has)."""
    flags = asdict(config)
    if not config.packs and config.core:
        del flags["packs"], flags["core"]
    else:
        flags["packs"] = list(config.packs)
    if config.seed == RunConfig.seed:
        del flags["seed"]
    cluster = {name: flags.pop(name) for name in CLUSTER_FLAGS}
    if any(cluster.values()):  # a cluster run records its flags under one key
        flags["cluster"] = {name: value for name, value in cluster.items() if value}
    return flags


def build_manifest(config: RunConfig, isolation: dict[str, Any], models: list[ModelResult],
                   test_data: Path, timestamp_utc: str,
                   suite: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The run's manifest; ``suite`` (each pack's id, version, content hash, plugins and task
    keys) is recorded when the run graded more than the core pack."""
    manifest: dict[str, Any] = {
        "grader_version": __version__,
        "rubric_hash": rubric_hash(),
        "fixture_hashes": fixture_hashes(test_data),
        "submission_hashes": {m.model: {name: digest for p in m.prompts
                                        for name, digest in p.files.items()} for m in models},
        "python_version": platform.python_version(),
        "python_executable": sys.executable,
        "platform": platform.platform(),
        "isolation": isolation,
        "config": _config(config),
        "timestamp_utc": timestamp_utc,
    }
    if suite is not None:
        manifest["suite"] = suite
    if not config.no_metadata:
        manifest["dependencies"] = dependency_versions()
        manifest["git_commit"] = git_commit(Path(__file__).resolve().parents[2])
    return manifest
