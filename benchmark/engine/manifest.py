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

from .. import __version__
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
    from importlib import metadata  # (~8 ms with email: not for a run with --no-metadata)

    versions = {}
    for name in DEPENDENCIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


GRADER_CHECKOUT = Path(__file__).resolve().parents[2]
_git_asked: dict[str, subprocess.Popen] = {}


def _git_command(directory: Path) -> list[str]:
    return ["git", "-C", str(directory), "rev-parse", "--short", "HEAD"]


def ask_git_commit(directory: Path = GRADER_CHECKOUT) -> None:
    """Start ``git rev-parse`` for ``directory`` now; :func:`git_commit` takes its answer
    (the run does not wait for git when it builds its manifest)."""
    if str(directory) not in _git_asked:
        try:
            _git_asked[str(directory)] = subprocess.Popen(
                _git_command(directory), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True)
        except OSError:
            pass


def git_commit(directory: Path = GRADER_CHECKOUT) -> str | None:
    asked = _git_asked.pop(str(directory), None)
    if asked is not None:
        try:
            out, _ = asked.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            asked.kill()
            asked.communicate()
            return None
        return out.strip() or None
    try:
        out = subprocess.run(_git_command(directory), capture_output=True, text=True, timeout=5, check=False)
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
        manifest["git_commit"] = git_commit(GRADER_CHECKOUT)
    return manifest
