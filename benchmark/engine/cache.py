"""A content-addressed cache of graded models.

The key covers everything a model's result depends on: the bytes of each of its submission
files, its name and tier, the rubric, the fixtures, the grader (version and a hash of its
own source), the seed and the isolation settings (memory, timeout, unsafe, network, the
kernel mechanisms detected, and whether the guard is on). An unchanged model is not executed again; any change to one of
those inputs re-grades exactly the models it affects. Entries are plain JSON written
atomically under ``<results-dir>/.cache/``; an unreadable entry is a miss, never an error.
They are not fsynced (one entry per graded model; a results file is): an entry torn by a
crash (cut short, or zero-filled where the data never reached the disk) is not strict JSON
or not a record the schema accepts, so it is a miss and the model is graded again.
An entry ``put`` stores is ``{"tag": <hex>, "record": <record>}``: the tag is an HMAC by this
user's private key (``entry_tags.entry_tag``), and ``get`` does not check again a record whose tag
matches (it was checked when stored); any other entry is checked in full. Without a usable
key, entries are bare records, always checked in full.
Beside the entries, ``.cache/isolation/`` keeps what the last run of a context measured of the
machine (``Measured``: its kernel profile and isolation report), which a run served wholly
from the cache under that profile reports instead of measuring (``benchmark.commands``).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import orjson

from .. import __version__
from .cache_folder import entries_dir, measures_dir
from .manifest import fixture_hashes
from .options import cacheable
from .entry_tags import tagged, untagged
from .source_hash import PACKAGE, SOURCE_SUFFIXES, grader_source_hash, source_tree_hash  # noqa: F401 (re-exported)
from ..reporting.conformance import known_to_conform
from ..reporting.excerpts import attach_excerpts
from ..reporting.failsafe import schema_problems
from ..reporting.results_json import model_to_dict
from ..reporting.writer import atomic_write_bytes, atomic_write_text
from ..rubric import rubric_hash
from ..sandbox.kernel_support import KernelSupport
from ..sandbox.limits import GUARD_OFF_ENV
from ..scoring import prompt_sort_key
from ..types import CATEGORY_ORDER, CaseGroup, Category, CategoryScore, Check, Evidence, ModelResult, PromptResult
from ..untrusted import json_text_clean


def _file_hashes(model_dir: Path, names: list[str]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in names:
        path = model_dir / name
        out[name] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() and not path.is_symlink() else None
    return out


def kernel_profile(options: Any) -> dict[str, Any] | None:
    """This machine's kernel mechanisms as detected (None with ``--unsafe``): the key's ``kernel``."""
    from ..sandbox.isolation import detect  # (a run served from the cache detects nothing)

    support = None if options.unsafe else detect()
    return asdict(support) if support else None


def base_context(test_data: Path, options: Any, suite: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Every part of the run's context but the kernel profile (see :func:`run_context`)."""
    extra = {} if suite is None else {"suite": suite}
    return {**extra,
        "grader": __version__, "source": grader_source_hash(), "rubric": rubric_hash(),
        "fixtures": hashlib.sha256(json.dumps(fixture_hashes(test_data), sort_keys=True).encode()).hexdigest(),
        "options": {k: v for k, v in asdict(options).items() if k != "debug"},
        "guard": not options.unsafe and os.environ.get(GUARD_OFF_ENV) != "1",
    }


def run_context(test_data: Path, options: Any, suite: list[dict[str, Any]] | None = None, *,
                kernel: dict[str, Any] | None = None,
                base: dict[str, Any] | None = None) -> dict[str, Any]:
    """The part of every key that is the same for the whole run; ``suite`` describes the
    packs graded (their versions, content hashes and plugins) when not the core pack alone;
    ``kernel`` is the profile of the machines that grade (default: this one's, detected; a
    cluster's admitted workers share one); ``base``: :func:`base_context`, when already made."""
    base = base if base is not None else base_context(test_data, options, suite)
    return {**base, "kernel": kernel if kernel is not None else kernel_profile(options)}


def context_hash(base: dict[str, Any]) -> str:
    """The name of a :func:`base_context`'s isolation record (``ResultCache.measured``)."""
    return hashlib.sha256(json.dumps(base, sort_keys=True).encode()).hexdigest()


def file_hashes(model_dir: Path, files: list[str]) -> dict[str, str | None]:
    """The sha256 of each of a model's files as they are now (None: missing, or a link)."""
    return _file_hashes(model_dir, files)


def model_key(context: dict[str, Any], name: str, tier: str, model_dir: Path, files: list[str],
              hashes: dict[str, str | None] | None = None) -> str:
    """The cache key of a model: the run's context, its name and tier, and its files' hashes
    (``hashes``, when :func:`file_hashes` was taken already)."""
    hashes = hashes if hashes is not None else _file_hashes(model_dir, files)
    payload = {**context, "model": name, "tier": tier, "files": hashes}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def graded_as_keyed(result: ModelResult, hashes: dict[str, str | None] | None) -> bool:
    """Whether every file the result was graded from has bytes its key was made from: a file
    changed between the keying and its reading (a submission folder edited during a run) would
    otherwise store a result for other code under the key (red team B, F4). No hashes: True."""
    if hashes is None:
        return True
    keyed = {digest for digest in hashes.values() if digest}
    return all(digest is None or digest in keyed
               for prompt in result.prompts for digest in (prompt.files or {}).values())


# ---- (de)serialising a ModelResult --------------------------------------------------------


_CATEGORIES = {category.value: category for category in Category}  # (an unknown one: KeyError, a miss)


def _check(item: dict[str, Any]) -> Check:
    return Check(item["id"], _CATEGORIES[item["category"]], item["points"], item["earned"],
                 item["status"], item["method"], item["rationale"],
                 tuple([Evidence(e["file"], e.get("line"), e.get("note", "")) for e in item["evidence"]]),
                 item.get("cause"), tuple([CaseGroup(g["group"], g["right"], g["of"]) for g in item.get("cases", ())]))


def _prompt(prompt_id: str, item: dict[str, Any]) -> PromptResult:
    by_category: dict[Category, list[Check]] = {category: [] for category in CATEGORY_ORDER}
    for check in map(_check, item["checks"]):  # (one pass; each category keeps the entry's order)
        by_category.setdefault(check.category, []).append(check)
    scoring = item["detailed_scoring"]
    categories = tuple(
        CategoryScore(cat, scoring[cat.value]["earned"], scoring[cat.value]["max"],
                      scoring[cat.value]["factor"], tuple(by_category[cat]))
        for cat in CATEGORY_ORDER if cat.value in scoring)
    return PromptResult(prompt_id, item["title"], item["score"], item["max_score"], item["passed"],
                        item["status"], categories, tuple(item["execution"]), item.get("error"),
                        dict(item["files"]), tuple(item.get("denials", ())), item.get("cap"))


def model_from_dict(item: dict[str, Any], record: bytes | None = None) -> ModelResult:
    """The result a record was made from; ``record``: the record's JSON bytes, kept on the
    result (``ModelResult.record``) when they are exactly what ``put`` stored for it."""
    prompts = tuple(_prompt(pid, item["prompts"][pid])
                    for pid in sorted(item["prompts"], key=prompt_sort_key))
    return ModelResult(item["model_name"], item["tier"], prompts, item["overall_score"],
                       item["total_possible"], item["percentage"], item["grade"], item["badge"],
                       record=record)


def _record_of(item: Any, name: str | None) -> bool:
    """Whether ``item`` is a record (a dict) of model ``name`` (any model when None)."""
    return isinstance(item, dict) and (name is None or item.get("model_name") == name)


def _trusted(raw: str, item: Any, name: str | None) -> bool:
    """An entry as ``put`` writes it: clean text only (``put`` escapes nothing but what JSON
    must, so any other escape in ``raw`` is a sign of tampering), a record the schema accepts."""
    if not _record_of(item, name):
        return False
    return json_text_clean(raw) and not schema_problems(item.get("model_name"), item)


@dataclass(frozen=True)
class Measured:
    """What a run measured of this machine for a run context (``context_hash``): the kernel
    profile it detected (``kernel_profile``, part of every key it graded under) and its
    isolation report (``_metadata.isolation``: the layers and the network probe), with the
    run that measured them. A run whose models all come from the cache, under keys holding
    this profile, reports this instead of measuring again (``benchmark.commands``)."""

    kernel: dict[str, Any]
    isolation: dict[str, Any]
    run_id: str
    measured_at: str

    def source(self) -> dict[str, str]:
        """``_metadata.isolation_source`` of a run that reports it."""
        return {"measured_by_run": self.run_id, "measured_at": self.measured_at,
                "why": "every model came from the cache, graded under this kernel profile"}


def _is_profile(item: Any) -> bool:
    """A kernel profile as ``kernel_profile`` makes it (the fields and types of ``KernelSupport``)."""
    if not isinstance(item, dict) or set(item) != {f.name for f in fields(KernelSupport)}:
        return False
    flags = [value for name, value in item.items() if name not in ("landlock_abi", "reasons")]
    reasons = item["reasons"]
    return (all(type(value) is bool for value in flags) and type(item["landlock_abi"]) is int
            and isinstance(reasons, dict) and all(isinstance(v, str) for v in reasons.values()))


def _is_report(item: Any) -> bool:
    """An isolation report of a measured, confined run (``sandbox_report.measured_isolation``)."""
    probe = item.get("network_probe") if isinstance(item, dict) else None
    return (isinstance(item, dict) and item.get("unsafe") is False and isinstance(item.get("network"), str)
            and all(isinstance(item.get(layer), dict) for layer in ("process", "kernel", "guard"))
            and isinstance(probe, dict) and set(probe) == {"kernel_layer", "with_guard"}
            and all(isinstance(value, str) for value in probe.values()))


class ResultCache:
    def __init__(self, results_dir: Path) -> None:
        self.directory = entries_dir(results_dir)
        self.measures = measures_dir(results_dir)

    def measured(self, context: str) -> Measured | None:
        """The record :meth:`record_measured` wrote for ``context``, or None when there is none
        or it is unusable (read as untrusted, like an entry: strict JSON, clean text, a kernel
        profile and an isolation report of the shapes this grader writes)."""
        try:
            raw = (self.measures / f"{context}.json").read_bytes()
            item = orjson.loads(raw)
            if not (json_text_clean(raw.decode("utf-8")) and isinstance(item, dict)
                    and _is_profile(item.get("kernel")) and _is_report(item.get("isolation"))
                    and all(isinstance(item.get(k), str) for k in ("run_id", "measured_at"))):
                return None
            return Measured(item["kernel"], item["isolation"], item["run_id"], item["measured_at"])
        except (OSError, ValueError):
            return None

    def record_measured(self, context: str, measured: Measured) -> None:
        """Store what this run measured for ``context`` (replacing the last record)."""
        try:
            text = json.dumps(asdict(measured), ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError):
            return
        if json_text_clean(text):
            try:  # (the cache never stops a run: an unwritable one only stays empty)
                self.measures.mkdir(parents=True, exist_ok=True)
                atomic_write_text(self.measures / f"{context}.json", text, durable=False)
            except OSError:
                pass

    def get(self, key: str, name: str | None = None) -> ModelResult | None:
        """The entry (for model ``name``, when given), or None when it is missing or unusable.
        An entry is read as untrusted: orjson parses strictly (a NaN, an Infinity, invalid
        UTF-8 or a lone surrogate is a miss), and one that is not what this grader writes (a
        string ``benchmark.untrusted`` would escape, a record the results schema rejects,
        another model's name) is a miss too, so the model is graded again. An entry that
        carries this user's tag for this key (see ``entry_tag``) was checked so by ``put``
        and is not checked again; any other entry, tagged or not, is checked in full."""
        path = self.directory / f"{key}.json"
        try:
            raw, tagged = untagged(key, path.read_bytes())
            item = orjson.loads(raw)
            if tagged:
                if not _record_of(item, name):
                    return None
                known_to_conform(item)  # (the writer's check of the document need not walk it)
            elif not _trusted(raw.decode("utf-8"), item, name):
                return None
            result = model_from_dict(item, raw if tagged else None)  # (tagged: put's own bytes)
        except (OSError, ValueError, KeyError, TypeError):  # orjson.JSONDecodeError is a ValueError
            return None
        return result if cacheable(result) else None  # (never stored; and never replayed)

    def put(self, key: str, result: ModelResult, folder: Path | None = None) -> bytes | None:
        """Store ``result``; one that ``get`` would refuse (not strict JSON, text the boundary
        would escape, a record the schema rejects) is not stored (the writer reports that
        model; the cache never stops a run). Stored with this user's tag when there is a key.
        ``folder``: the model's folder, whose graded files give the record its source excerpts
        (``reporting.excerpts``), as the run's document will show them. Returns the record's
        JSON bytes as stored (None when it was not stored), for ``ModelResult.record``."""
        record = model_to_dict(result)
        if folder is not None:
            attach_excerpts({"models": {result.model: record}}, {result.model: folder}, in_place=True)
        try:  # escapes only what JSON must
            text = json.dumps(record, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError, RecursionError):
            return None
        if not json_text_clean(text) or schema_problems(result.model, record):
            return None
        record_bytes = text.encode("utf-8")
        data = tagged(key, record_bytes) or record_bytes  # (no key: a bare record)
        try:  # (an unwritable cache folder: the run goes on, the model is not stored)
            self.directory.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(self.directory / f"{key}.json", data, durable=False)
        except OSError:
            pass
        return record_bytes
