"""The run manifest: everything needed to say what was graded, by what, and how."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import subprocess
import sys
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Any

from .. import __version__, installed, untrusted
from .memo import remembered
from ..rubric import rubric_hash
from ..types import ModelResult, RunConfig
from ..untrusted import RATIONALE_LIMIT

_SHORT_SHA = re.compile(r"[0-9a-f]{4,64}")
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
    warm-up thread of a grading run asks first, while the run waits for children; and
    remembered between runs while ``sys.path`` and its folders are unchanged, ``memo``)."""
    return dict(_dependency_versions())


def _looked_up() -> dict[str, str]:
    return {name: found if found is not None else "not installed"
            for name, found in installed.versions(list(DEPENDENCIES)).items()}


def _path_signature() -> str:
    """``sys.path`` and each of its folders' identity and modification time: installing,
    upgrading or removing a distribution adds or removes a ``*.dist-info`` folder in one of
    them, which changes that folder's time."""
    rows: list[Any] = [sys.executable, list(DEPENDENCIES)]
    for entry in sys.path:
        try:
            info = os.stat(entry or ".")
            rows.append([entry, info.st_dev, info.st_ino, info.st_mtime_ns])
        except OSError:
            rows.append([entry, None])
    return hashlib.sha256(json.dumps(rows).encode("utf-8", "surrogatepass")).hexdigest()


@lru_cache(maxsize=1)
def _dependency_versions() -> dict[str, str]:
    return remembered("dependencies", _path_signature(), _looked_up,
                      lambda value: isinstance(value, dict) and list(value) == list(DEPENDENCIES)
                      and all(isinstance(v, str) for v in value.values()))


def _asked_git(directory: Path) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(directory), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def _git_dirs(directory: Path) -> tuple[Path, Path] | None:
    """(the checkout's git folder, the folder its refs live in): ``.git`` itself, or for a
    worktree the folder its ``.git`` file names and that folder's ``commondir``."""
    dot_git = directory / ".git"
    if dot_git.is_dir():
        return dot_git, dot_git
    text = dot_git.read_text(encoding="utf-8").strip()
    if not text.startswith("gitdir: "):
        return None
    own = (directory / text[len("gitdir: "):]).resolve()
    common = own / "commondir"
    return own, (own / common.read_text(encoding="utf-8").strip()).resolve() if common.is_file() else own


def _head_signature(directory: Path) -> str | None:
    """What ``git rev-parse HEAD`` answers from: the bytes of ``HEAD``, of the loose ref it
    names (or None) and the size and times of ``packed-refs`` (a commit, checkout, reset or
    ``pack-refs`` changes one of them); None when the checkout is not laid out that way."""
    try:
        dirs = _git_dirs(directory)
        if dirs is None:
            return None
        own, common = dirs
        head = (own / "HEAD").read_bytes()
        parts: list[Any] = [str(directory.resolve()), head.decode("utf-8", "replace")]
        if head.startswith(b"ref: "):
            name = head[len(b"ref: "):].strip().decode("utf-8", "replace")
            if ".." in name or name.startswith("/"):
                return None
            loose = common / name
            target = loose.read_bytes() if loose.is_file() else None
            if target is not None and target.startswith(b"ref: "):  # (a chain: git is asked)
                return None
            parts.append(None if target is None else target.decode("ascii", "replace"))
        packed = common / "packed-refs"
        if packed.exists():
            info = packed.stat()
            parts.append([info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino])
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()
    except (OSError, ValueError):
        return None


def git_commit(directory: Path) -> str | None:
    """The checkout's commit, as ``git rev-parse --short HEAD`` gives it, asked of git when
    the manifest is built (not earlier: a git child alive during grading is one more child of
    the grader while its runs come and go), unless the answer for the same ``HEAD`` is
    remembered (``memo``)."""
    key = hashlib.sha256(str(directory.resolve()).encode()).hexdigest()[:16]
    return remembered(f"git-{key}", _head_signature(directory), lambda: _asked_git(directory),
                      lambda value: isinstance(value, str) and bool(_SHORT_SHA.fullmatch(value)))


def platform_string() -> str:
    """``platform.platform()``, remembered for this machine and interpreter (it runs ``uname
    -p`` each time it is asked in a new process)."""
    uname = os.uname()
    libc = os.confstr("CS_GNU_LIBC_VERSION") if "CS_GNU_LIBC_VERSION" in os.confstr_names else ""
    signature = json.dumps([list(uname), sys.executable, sys.version, libc])
    return remembered("platform", hashlib.sha256(signature.encode()).hexdigest(), platform.platform,
                      lambda value: isinstance(value, str) and 0 < len(value) < 300)


def _config(config: RunConfig) -> dict[str, Any]:
    """The run's flags; the task-pack ones, the seed and --pass-at only when used (a run with the
    defaults records exactly what it always has). Their strings (model names and folders given
    on the command line: a ``--model`` may name a folder whose name is refused) pass the
    untrusted-text boundary, as everything a report shows does."""
    flags = asdict(config)
    if not config.packs and config.core:
        del flags["packs"], flags["core"]
    else:
        flags["packs"] = list(config.packs)
    if config.seed == RunConfig.seed:
        del flags["seed"]
    if config.pass_at == RunConfig.pass_at:
        del flags["pass_at"]
    else:
        flags["pass_at"] = list(config.pass_at)
    cluster = {name: flags.pop(name) for name in CLUSTER_FLAGS}
    if any(cluster.values()):  # a cluster run records its flags under one key
        flags["cluster"] = {name: value for name, value in cluster.items() if value}
    return untrusted.data(flags, RATIONALE_LIMIT)


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
        "platform": platform_string(),
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
