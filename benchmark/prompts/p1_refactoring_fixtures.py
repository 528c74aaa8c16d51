"""Prompt 1's fixed inputs: the legacy script to refactor, its config and its records.

The legacy script runs on these inputs and prints something, but it is wrong in the ways
``HAZARDS`` in ``p1_refactoring`` lists; ``tests/test_prompt_1.py`` proves each hazard is
really present here. The records cover every rule of the prompt's evaluation contract.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

LEGACY_NAME = "process_records.py"
CONFIG_NAME = "records_config.yaml"
RECORDS_NAME = "records.json"

LEGACY_SCRIPT = '''\
#!/usr/bin/env python
# process_records.py -- nightly customer export (legacy, "works fine, do not touch")
# Usage: python process_records.py records_config.yaml
import sys, json, yaml
from datetime import datetime


def load_config(path):
    f = open(path)
    config = yaml.load(f, Loader=yaml.Loader)
    return config


def process(config):
    list = json.load(open(config["data_source"]))
    rules = config["validation_rules"]
    id = 0
    filter = []
    for r in list:
        try:
            for field in rules["required_fields"]:
                if r[field] == None:
                    raise Exception("missing " + field)
            # filter by configured countries
            if r["country"] != "US":
                continue
            type = r["age"]
            if type < rules["min_age"] or type > rules["max_age"]:
                continue
            signup = datetime.strptime(r["signup"][:19], "%Y-%m-%dT%H:%M:%S")
            days = (datetime.now() - signup).days
            filter.append({"id": r["id"], "name": r["name"], "email": r["email"],
                           "age": type, "country": r["country"],
                           "signup": signup.isoformat() + "Z",
                           "days_since_signup": days})
            id = id + 1
        except:
            pass
    print("processed %d records" % id)
    return filter


if __name__ == "__main__":
    config = load_config(sys.argv[1])
    result = process(config)
    print(json.dumps(result))
'''

CONFIG_TEXT = """\
# Configuration for process_records.py
data_source: records.json          # relative to this file's folder
reference_date: "2025-01-01T00:00:00Z"
validation_rules:
  min_age: 18
  max_age: 65
  required_fields:
    - name
    - email
    - country
  allowed_countries:
    - US
    - CA
    - DE
"""


def _rec(rid: Any, name: Any, email: Any, age: Any, country: Any, signup: Any,
         **extra: Any) -> dict[str, Any]:
    record = {"id": rid, "name": name, "email": email, "age": age, "country": country,
              "signup": signup}
    record.update(extra)
    return {key: value for key, value in record.items() if value is not _ABSENT}


_ABSENT = object()

# Input order is deliberately not sorted by id; comments name the rule each record exercises.
RECORDS: list[Any] = [
    _rec(18, "Jamal Wright", "jamal.wright@example.com", 45, "CA", "2022-07-04T16:45:00Z",
         plan=None),                                                  # kept; plan not required
    _rec(1, "Alice Smith", "alice@example.com", 34, "US", "2024-03-15T09:30:00Z", plan="pro"),
    _rec(2, "  Bob Jones ", "Bob.Jones@Example.COM", "42", "ca",
         "2024-06-01T23:30:00-05:00", plan="free"),                   # string age, date rolls over
    _rec("3", "Chloé Martin", "chloe@example.fr", 29, "FR", "2024-01-20T10:00:00+01:00"),
    _rec(4, "Dieter Braun", None, 51, "DE", "2023-09-09T09:09:09+02:00"),  # null email
    _rec(5, "Eve Adams", "eve@example.com", 17, "US", "2024-04-01T12:00:00Z"),   # too young
    _rec(6, "Frank Li", "frank@example.com", "70", "CA", "2021-05-05T05:05:05Z"),  # too old
    _rec(7, "Grace Kim", "grace@example.com", 65, " us ", "2025-01-01T01:30:00+02:00"),
    _rec("8", "Hiro Tanaka", "hiro@example.jp", 18, "US", "2023-11-05T08:00:00+09:00"),
    _rec(9, "   ", "nobody@example.com", 40, "US", "2024-02-02T02:02:02Z"),  # blank name
    _rec(10, "Jon Snow", "jon@example.com", 30, _ABSENT, "2024-03-03T03:03:03Z"),  # no country
    _rec(11, "Kim Lee", "kim@example.com", "abc", "US", "2024-07-07T07:07:07Z"),  # bad age
    _rec(12, "Liam Ford", "liam@example.com", 33, "CA", "2024-05-10T12:00:00"),  # naive time
    _rec(13, "Mia Wong", "mia@example.com", 30.5, "DE", "2024-08-08T08:08:08Z"),  # float age
    _rec(1, "Alice Duplicate", "alice.dup@example.com", 35, "US", "2024-09-09T09:09:09Z"),
    _rec(15, "Noah Berg", "not-an-email", 28, "DE", "2024-10-10T10:10:10+02:00"),
    _rec(16, "Inês Duarte", "INES@example.com", " 27 ", "De", "2024-02-29T00:15:00+01:00"),
    None,                                                             # not an object
    _rec("A-20", "Omar Haddad", "omar@example.com", 39, "US", "2024-06-06T06:06:06Z"),
    _rec(21, "Pia Sorensen", "pia@example.com", 52, "DE", "2024-02-30T10:00:00Z"),  # no such day
    _rec(19, "Kara Nowak", "  kara.nowak@example.org ", 23, "US", "2024-08-19T14:00:00-07:00"),
    _rec(22, "Quinn Park", "quinn@example.com", 31, "CA", "2024-11-30T18:45:00+05:30",
         plan=""),                                                    # kept; plan not required
]


def records_bytes(records: list[Any]) -> bytes:
    return (json.dumps(records, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def config_bytes(config: dict[str, Any]) -> bytes:
    """A config as block-style YAML; strings that look like dates come out quoted."""
    text = yaml.safe_dump(config, sort_keys=False, default_flow_style=False, allow_unicode=True)
    return text.encode("utf-8")
