"""The unit of work sent to a worker, the grader identity it must match, and the bundle of
fixtures and pack files every worker receives once (no Dask import here).

- A unit is one model or one of its samples: ``{name, tier, key, files: {relative path: bytes},
  sample}``, the files being the suite's ``model_files()`` that are regular files in the
  model's (or the sample's) folder (KBs).
- The identity is what a worker's grader must equal before it grades anything: version,
  source hash, rubric hash, fixtures hash, each pack's id, version and content hash, and the
  installed version of Python and of every package the grader needs (bandit, radon and the
  rest of its requirements, theirs, and so on: ``dependency_versions``).
  ``expected`` is the identity plus the options (seed included), whether the core pack is
  graded, the kernel profile the admitted workers share, and the admission resource.
- The bundle holds the fixtures (``fixtures/<path>``) and each pack folder's files
  (``packs/<index>/<path>``) as bytes; a worker writes it into a private temporary folder
  and loads the suite from that copy, whose content hashes must equal the client's.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import tempfile
from importlib import metadata
from dataclasses import asdict
from pathlib import Path, PurePosixPath
from typing import Any

from .. import __version__
from ..engine.cache import grader_source_hash
from ..engine.manifest import fixture_hashes
from ..rubric import rubric_hash

BUNDLE_LIMIT = 64 * 1024 * 1024  # fixtures plus packs: sent to every worker, so kept small
SKIPPED_PARTS = ("__pycache__", ".git")


def fixtures_hash(test_data: Path) -> str:
    """The fixtures part of the cache key (``cache.run_context``), from the files themselves."""
    return hashlib.sha256(json.dumps(fixture_hashes(test_data), sort_keys=True).encode()).hexdigest()


DISTRIBUTION = "rubricbench"
# When the grader runs from a checkout that is not installed (no metadata of its own): the
# packages its analyses run on, whose requirements are then followed.
ANALYSERS = ("bandit", "radon", "PyYAML", "jsonschema", "fastjsonschema", "requests-mock", "psutil",
             "Jinja2", "orjson", "markdown-it-py", "packaging")


def _canonical(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def dependency_versions() -> dict[str, str | None]:
    """``{package: installed version}`` for every package the installed grader requires, what
    those require, and so on (optional extras left out), plus ``python`` (implementation and
    version): two workers that analyse code alike report the same mapping. A requirement that
    is not installed maps to None."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        todo = list(metadata.requires(DISTRIBUTION) or [])
    except metadata.PackageNotFoundError:
        todo = list(ANALYSERS)
    found: dict[str, str | None] = {}
    while todo:
        try:
            requirement = Requirement(todo.pop())
        except InvalidRequirement:
            continue
        name = _canonical(requirement.name)
        if name in found or (requirement.marker is not None
                             and not requirement.marker.evaluate({"extra": ""})):
            continue
        try:
            found[name] = metadata.version(requirement.name)
        except metadata.PackageNotFoundError:
            found[name] = None
            continue
        todo.extend(metadata.requires(requirement.name) or [])
    found["python"] = f"{platform.python_implementation()} {platform.python_version()}"
    return dict(sorted(found.items()))


def identity(test_data: Path, suite: list[dict[str, Any]] | None) -> dict[str, Any]:
    """What a worker's grader must equal: ``suite`` is ``Suite.describe()`` (None: core only)."""
    return {"grader": __version__, "source": grader_source_hash(), "rubric": rubric_hash(),
            "fixtures": fixtures_hash(test_data), "suite": suite, "dependencies": dependency_versions()}


def identity_differences(want: dict[str, Any], here: dict[str, Any]) -> list[str]:
    """What differs between two identities, in words: a part's name, and for the dependencies
    each package as ``name client-version/worker-version``."""
    found = [name for name in ("grader", "source", "rubric", "fixtures", "suite")
             if here.get(name) != want.get(name)]
    theirs, ours = want.get("dependencies") or {}, here.get("dependencies") or {}
    found += [f"{name} {theirs.get(name)} on the client, {ours.get(name)} here"
              for name in sorted(set(theirs) | set(ours)) if theirs.get(name) != ours.get(name)]
    return found


def identity_digest(ident: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:12]


def expected(ident: dict[str, Any], options: Any, core: bool, kernel: dict[str, Any] | None,
             resource: str) -> dict[str, Any]:
    """The identity plus what a unit is graded with (``options``: a ``GradeOptions``)."""
    return {**ident, "options": asdict(options), "core": core, "kernel_profile": kernel,
            "resource": resource}


def _files_under(root: Path) -> dict[str, bytes]:
    found = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.is_file() and not path.is_symlink() and not set(relative.parts) & set(SKIPPED_PARTS):
            found[relative.as_posix()] = path.read_bytes()
    return found


def bundle(test_data: Path, pack_folders: list[Path]) -> dict[str, bytes]:
    """Fixtures and pack files as bytes; ValueError when they are too large to send."""
    files = {f"fixtures/{name}": data for name, data in _files_under(Path(test_data)).items()}
    for index, folder in enumerate(pack_folders):
        files.update({f"packs/{index}/{name}": data for name, data in _files_under(Path(folder)).items()})
    size = sum(len(data) for data in files.values())
    if size > BUNDLE_LIMIT:
        raise ValueError(f"fixtures and packs are {size >> 20} MB; at most {BUNDLE_LIMIT >> 20} MB "
                         f"are sent to every worker")
    return files


def make_unit(name: str, tier: str, key: str, model_dir: Path, names: list[str],
              sample: str | None = None) -> dict[str, Any]:
    """One model (or one of its samples: ``model_dir`` is the sample's folder) as a unit: each
    listed file that is a regular file (not a link) as bytes. The worker grades it under the
    model's name; the client gives the result its sample's id back."""
    files = {}
    for relative in names:
        path = Path(model_dir) / relative
        if path.is_file() and not path.is_symlink():
            files[relative] = path.read_bytes()
    return {"name": name, "tier": tier, "key": key, "files": files, "sample": sample}


def safe_relative(name: str) -> PurePosixPath:
    """``name`` as a relative path inside a folder; ValueError for anything that could leave it."""
    path = PurePosixPath(name)
    if not name or path.is_absolute() or any(part in ("", ".", "..") for part in path.parts) or "\\" in name:
        raise ValueError(f"refused path {name!r}")
    return path


def write_tree(root: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` under ``root`` (created exclusively: nothing is overwritten)."""
    for name, data in files.items():
        target = Path(root, *safe_relative(name).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(data)


def materialise(files: dict[str, bytes], prefix: str) -> Path:
    """A private temporary folder (mode 0700) holding ``files``."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    write_tree(root, files)
    return root


def to_result(unit: dict[str, Any], outcome: dict[str, Any] | str, suite: list[dict[str, Any]] | None):
    """The ``ModelResult`` of a unit: the worker's record, read as the cache reads an entry
    (the results schema must accept it, for this model), else an error on every task saying
    why (``outcome`` is then the internal-error reason)."""
    from ..engine.cache import model_from_dict
    from ..reporting.failsafe import error_record, schema_problems
    from ..types import INTERNAL_ERROR

    reason = outcome if isinstance(outcome, str) else None
    if reason is None:
        problems = schema_problems(unit["name"], outcome)
        if not problems and outcome.get("model_name") == unit["name"]:
            try:
                return model_from_dict(outcome)
            except (KeyError, TypeError, ValueError) as exc:
                problems = [f"{type(exc).__name__}: {exc}"]
        reason = f"{INTERNAL_ERROR}: cluster: the worker's record is unusable: {(problems or ['another model'])[0]}"
    return model_from_dict(error_record(unit["name"], {"tier": unit["tier"]}, reason, suite))
