"""The core pack, compiled: its manifests as one JSON document shipped beside them.

``import yaml`` alone costs 25 to 33 ms, and a run served from the cache needs the core
rubric (for its hash and file list) but never a YAML parser. ``compile_pack`` turns the
core manifests into ``core/compiled.json``; ``scripts/gen_core_pack.py`` writes it and
``tests/test_core_pack.py`` fails while it is stale.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

CORE_DIR = Path(__file__).resolve().parent / "core"
COMPILED = CORE_DIR / "compiled.json"


def manifest_digest(folder: Path) -> str:
    """sha256 of pack.yaml and every task.yaml of ``folder`` (what the compiled form is of)."""
    digest = hashlib.sha256()
    for path in sorted([folder / "pack.yaml", *folder.glob("*/task.yaml")]):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def compile_pack(folder: Path = CORE_DIR) -> dict[str, Any]:
    """The pack's manifests as plain data; check points as floats and maxima as written
    (the forms the rubric hash has always been computed over). What a manifest may leave out
    is filled in as the loader would: a check's method is its type's, the maxima are the
    categories' sums."""
    import yaml

    from . import library  # noqa: F401  (the library types, whose methods a check may leave out)
    from .registry import check_type_named
    from .semantics import category_sums

    pack = yaml.safe_load((folder / "pack.yaml").read_text(encoding="utf-8"))
    tasks = []
    for task_id in pack["tasks"]:
        task = yaml.safe_load((folder / task_id / "task.yaml").read_text(encoding="utf-8"))
        task["points"] = float(task.get("points", pack.get("defaults", {}).get("points", 25)))
        for check in task["checks"]:
            check["points"] = float(check["points"])
            if "method" not in check:  # (a core.* row states its own: its module may not be loaded)
                check["method"] = check_type_named(check["use"]).method
        task.setdefault("maxima", {c: s for c, s in category_sums(task["checks"]).items() if s})
        tasks.append(task)
    return {"pack": pack, "tasks": tasks, "source": manifest_digest(folder)}


def load_compiled() -> dict[str, Any]:
    return json.loads(COMPILED.read_text(encoding="utf-8"))
