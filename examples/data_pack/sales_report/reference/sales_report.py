"""Reference solution: summarise a sales CSV as a JSON report on stdout."""

import argparse
import csv
import json
import sys
from collections import defaultdict


def parse_row(row: dict) -> tuple[str, str, float] | None:
    """(region, product, revenue) of a row, or None when units or price is not a number."""
    try:
        units = int(row["units"])
        price = float(row["unit_price"])
    except (KeyError, TypeError, ValueError):
        return None
    return row["region"].strip(), row["product"].strip(), units * price


def summarise(rows: list[dict]) -> dict:
    by_region: dict[str, float] = defaultdict(float)
    by_product: dict[str, float] = defaultdict(float)
    skipped = 0
    for row in rows:
        parsed = parse_row(row)
        if parsed is None:
            skipped += 1
            continue
        region, product, revenue = parsed
        by_region[region] += revenue
        by_product[product] += revenue
    top = max(sorted(by_product), key=lambda name: by_product[name]) if by_product else None
    return {
        "rows": len(rows) - skipped,
        "skipped_rows": skipped,
        "total_revenue": round(sum(by_region.values()), 2),
        "by_region": {name: round(value, 2) for name, value in sorted(by_region.items())},
        "top_product": top,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--input", required=True, help="the sales CSV")
    args = parser.parse_args(argv)
    try:
        with open(args.input, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as exc:
        print(f"cannot read {args.input}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(summarise(rows), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
