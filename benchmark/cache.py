"""A content-addressed cache of graded models.

The key covers everything a model's result depends on: the bytes of each of its submission
files, its name and tier, the rubric, the fixtures, the grader (version and a hash of its
own source), the seed and the isolation settings (memory, timeout, unsafe, network, and the
kernel mechanisms detected). An unchanged model is not executed again; any change to one of
those inputs re-grades exactly the models it affects. Entries are plain JSON written
atomically under ``<results-dir>/.cache/``; an unreadable entry is a miss, never an error.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import orjson

from . import __version__
from .isolation import detect
from .manifest import fixture_hashes
from .options import cacheable
from .reporting.results_json import model_to_dict
from .reporting.writer import atomic_write_text
from .rubric import rubric_hash
from .scoring import prompt_sort_key
from .types import CATEGORY_ORDER, Category, CategoryScore, Check, Evidence, ModelResult, PromptResult

PACKAGE = Path(__file__).resolve().parent
_SOURCE_HASH: str | None = None


def grader_source_hash() -> str:
    """A hash of the grader's own code and templates (computed once per process)."""
    global _SOURCE_HASH
    if _SOURCE_HASH is None:
        digest = hashlib.sha256()
        for path in sorted(PACKAGE.rglob("*")):
            if path.is_file() and path.suffix in (".py", ".json", ".j2", ".css", ".md"):
                digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0" + path.read_bytes())
        _SOURCE_HASH = digest.hexdigest()[:16]
    return _SOURCE_HASH


def _file_hashes(model_dir: Path, names: list[str]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in names:
        path = model_dir / name
        out[name] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() and not path.is_symlink() else None
    return out


def run_context(test_data: Path, options: Any) -> dict[str, Any]:
    """The part of every key that is the same for the whole run."""
    support = None if options.unsafe else detect()
    return {
        "grader": __version__, "source": grader_source_hash(), "rubric": rubric_hash(),
        "fixtures": hashlib.sha256(json.dumps(fixture_hashes(test_data), sort_keys=True).encode()).hexdigest(),
        "options": {k: v for k, v in asdict(options).items() if k != "debug"},
        "kernel": asdict(support) if support else None,
    }


def model_key(context: dict[str, Any], name: str, tier: str, model_dir: Path, files: list[str]) -> str:
    payload = {**context, "model": name, "tier": tier, "files": _file_hashes(model_dir, files)}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


# ---- (de)serialising a ModelResult --------------------------------------------------------


def _check(item: dict[str, Any]) -> Check:
    return Check(item["id"], Category(item["category"]), item["points"], item["earned"],
                 item["status"], item["method"], item["rationale"],
                 tuple(Evidence(e["file"], e.get("line"), e.get("note", "")) for e in item["evidence"]))


def _prompt(prompt_id: str, item: dict[str, Any]) -> PromptResult:
    checks = [_check(c) for c in item["checks"]]
    scoring = item["detailed_scoring"]
    categories = tuple(
        CategoryScore(cat, scoring[cat.value]["earned"], scoring[cat.value]["max"],
                      scoring[cat.value]["factor"], tuple(c for c in checks if c.category is cat))
        for cat in CATEGORY_ORDER if cat.value in scoring)
    return PromptResult(prompt_id, item["title"], item["score"], item["max_score"], item["passed"],
                        item["status"], categories, tuple(item["execution"]), item.get("error"),
                        dict(item["files"]))


def model_from_dict(item: dict[str, Any]) -> ModelResult:
    prompts = tuple(_prompt(pid, item["prompts"][pid])
                    for pid in sorted(item["prompts"], key=prompt_sort_key))
    return ModelResult(item["model_name"], item["tier"], prompts, item["overall_score"],
                       item["total_possible"], item["percentage"], item["grade"], item["badge"])


class ResultCache:
    def __init__(self, results_dir: Path) -> None:
        self.directory = Path(results_dir) / ".cache" / "models"

    def get(self, key: str) -> ModelResult | None:
        """The entry, or None when it is missing or unusable (orjson parses strictly: a NaN,
        an Infinity or invalid UTF-8 is a miss too)."""
        path = self.directory / f"{key}.json"
        try:
            result = model_from_dict(orjson.loads(path.read_bytes()))
        except (OSError, ValueError, KeyError, TypeError):  # orjson.JSONDecodeError is a ValueError
            return None
        return result if cacheable(result) else None  # (never stored; and never replayed)

    def put(self, key: str, result: ModelResult) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.directory / f"{key}.json", json.dumps(model_to_dict(result)))
