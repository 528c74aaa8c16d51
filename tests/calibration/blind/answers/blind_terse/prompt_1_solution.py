"""Filter customer records per a YAML config; print kept ones as a JSON array."""
import argparse
import json
import logging
import re
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml

log = logging.getLogger(__name__)
CORE = ("id", "name", "email", "age", "country", "signup")
RULE_KEYS = ("min_age", "max_age", "required_fields", "allowed_countries")
INT_RE = re.compile(r" *([0-9]+) *")
TS_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})")


class Fatal(Exception):
    pass


def to_int(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    match = INT_RE.fullmatch(value) if isinstance(value, str) else None
    return int(match[1]) if match else None


def to_utc(value: Any) -> datetime | None:
    if not (isinstance(value, str) and TS_RE.fullmatch(value)):
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S%z").astimezone(timezone.utc)
    except ValueError:
        return None


def blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def valid_email(value: Any) -> str | None:
    email = value.strip().lower() if isinstance(value, str) else ""
    local, _, domain = email.partition("@")
    return email if email.count("@") == 1 and local and "." in domain else None


def missing(rec: Any, required: list[str]) -> list[str]:
    if not isinstance(rec, dict):
        return ["<not an object>"]
    return [key for key in (*CORE, *required) if blank(rec.get(key))]


def clean(rec: Any, cfg: dict[str, Any]) -> dict[str, Any] | None:
    """Validated output object for ``rec``, or None (reason logged)."""
    if absent := missing(rec, cfg["required"]):
        log.info("drop %.60r: missing %s", rec, ", ".join(absent))
        return None
    rid, age, signup = to_int(rec["id"]), to_int(rec["age"]), to_utc(rec["signup"])
    email, name, country = valid_email(rec["email"]), rec["name"], rec["country"]
    country = country.strip().upper() if isinstance(country, str) else None
    checks = {"id": rid is not None and rid >= 1, "name": isinstance(name, str), "email": email,
              "age": age is not None and cfg["min_age"] <= age <= cfg["max_age"],
              "country": country in cfg["countries"], "signup": signup}
    if bad := [key for key, ok in checks.items() if not ok]:
        log.info("drop id=%r: bad %s", rec["id"], ", ".join(bad))
        return None
    return {"id": rid, "name": name.strip(), "email": email, "age": age, "country": country,
            "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"), "days_since_signup": (cfg["ref"] - signup).days}


def select(records: list[Any], cfg: dict[str, Any]) -> list[dict[str, Any]]:
    kept: dict[int, dict[str, Any]] = {}
    for rec in records:
        if (out := clean(rec, cfg)) is None:
            continue
        if out["id"] in kept:
            log.info("drop id=%r: duplicate id", rec["id"])
            continue
        kept[out["id"]] = out
    log.info("kept %d of %d", len(kept), len(records))
    return sorted(kept.values(), key=lambda row: row["id"])


def read(path: Path, parse: Any) -> Any:
    try:
        return parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError) as err:
        raise Fatal(f"{path}: {err}") from err


def shape_ok(raw: Any) -> bool:
    rules = raw.get("validation_rules") if isinstance(raw, dict) else None
    return isinstance(rules, dict) and {"data_source", "reference_date"} <= raw.keys() \
        and set(RULE_KEYS) <= rules.keys()


def types_ok(raw: dict[str, Any]) -> bool:
    lo, hi, req, countries = (raw["validation_rules"][key] for key in RULE_KEYS)
    return all(type(bound) is int for bound in (lo, hi)) and isinstance(req, list) \
        and isinstance(countries, list) and isinstance(raw["data_source"], str)


def load_config(path: Path) -> dict[str, Any]:
    raw = read(path, yaml.safe_load)
    if not shape_ok(raw) or not types_ok(raw):
        raise Fatal(f"{path}: need data_source (str), reference_date, validation_rules.{{{', '.join(RULE_KEYS)}}}")
    ref, rules = raw["reference_date"], raw["validation_rules"]
    ref = ref.astimezone(timezone.utc) if isinstance(ref, datetime) and ref.tzinfo else to_utc(ref)
    if ref is None:
        raise Fatal(f"{path}: reference_date must be YYYY-MM-DDTHH:MM:SS with Z or ±HH:MM")
    return {"source": path.parent / raw["data_source"], "ref": ref, "min_age": rules["min_age"],
            "max_age": rules["max_age"], "required": [str(field) for field in rules["required_fields"]],
            "countries": {str(code).strip().upper() for code in rules["allowed_countries"]}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("config", type=Path)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(message)s")
    try:
        cfg = load_config(args.config)
        records = read(cfg["source"], json.loads)
        if not isinstance(records, list):
            raise Fatal(f"{cfg['source']}: not a JSON array")
    except Fatal as err:
        log.error("%s", err)
        return 1
    print(json.dumps(select(records, cfg)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
