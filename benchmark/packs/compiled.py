"""The core pack, compiled: its manifests as one JSON document shipped beside them.

``import yaml`` alone costs 25 to 33 ms, and a run served from the cache needs the core
rubric (for its hash and file list) but never a YAML parser. ``compile_core.compile_pack``
turns the core manifests into ``core/compiled.json``; ``scripts/gen_core_pack.py`` writes it
and ``tests/test_core_pack.py`` fails while it is stale.
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


def load_compiled() -> dict[str, Any]:
    return json.loads(COMPILED.read_text(encoding="utf-8"))
