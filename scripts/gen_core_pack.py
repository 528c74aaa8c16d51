#!/usr/bin/env python3
"""Write benchmark/packs/core/compiled.json from the core pack's manifests.

Run after editing any ``benchmark/packs/core/*.yaml``; ``tests/test_core_pack.py`` fails
while the compiled form is stale.

    .venv/bin/python scripts/gen_core_pack.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmark.packs.compile_core import compile_pack  # noqa: E402
from benchmark.packs.compiled import COMPILED  # noqa: E402


def main() -> int:
    COMPILED.write_text(json.dumps(compile_pack(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {COMPILED.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
