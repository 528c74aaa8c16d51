"""The core pack's manifests compiled into the JSON document ``compiled.load_compiled`` reads.

Apart from ``compiled`` so that reading the compiled form never imports YAML or the check
library (which a manifest's defaults are filled in from): only ``scripts/gen_core_pack.py`` and
the test that holds the shipped form current import this module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from . import library  # noqa: F401  (the library types, whose methods a check may leave out)
from .compiled import CORE_DIR, manifest_digest
from .registry import check_type_named
from .semantics import category_sums


def compile_pack(folder: Path = CORE_DIR) -> dict[str, Any]:
    """The pack's manifests as plain data; check points as floats and maxima as written
    (the forms the rubric hash has always been computed over). What a manifest may leave out
    is filled in as the loader would: a check's method is its type's, the maxima are the
    categories' sums."""
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
