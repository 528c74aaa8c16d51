#!/usr/bin/env python3
"""Write benchmark/reporting/schema_check.py: the results schema compiled by fastjsonschema.

Generating the validator's code takes about 40 ms per process (most of it compiling 170 KB
of generated Python); shipped as a module, it is compiled once into ``__pycache__`` like the
rest of the grader. Run this after changing benchmark/schema/results.schema.json or the
pinned fastjsonschema; ``tests/test_schema_fast_path.py`` fails while the module is stale,
and ``results_json`` falls back to compiling the schema at run time if it ever is.

    .venv/bin/python scripts/gen_schema_check.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmark.reporting.results_json import generated_schema_check  # noqa: E402

TARGET = ROOT / "benchmark" / "reporting" / "schema_check.py"


def main() -> int:
    TARGET.write_text(generated_schema_check(), encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
