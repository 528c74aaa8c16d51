import sys
import json
import yaml
import logging
from datetime import datetime, timezone

logging.basicConfig(level=logging.INFO)
log = logging.getLogger(__name__)


def load_config(path):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def parse_signup(value):
    value = value.replace("Z", "+00:00")
    return datetime.fromisoformat(value).astimezone(timezone.utc)


def process(config):
    with open(config["data_source"], encoding="utf-8") as f:
        records = json.load(f)
    rules = config["validation_rules"]
    reference = parse_signup(config["reference_date"])
    kept = {}
    for record in records:
        try:
            record_id = int(record["id"])
            age = int(record["age"])
            if not (rules["min_age"] <= age <= rules["max_age"]):
                continue
            country = record["country"].strip().upper()
            if country not in rules["allowed_countries"]:
                continue
            signup = parse_signup(record["signup"])
        except (KeyError, ValueError, TypeError, AttributeError) as e:
            log.info(f"dropping record {record.get("id")}: {e}")
            continue
        if record_id in kept:
            continue
        kept[record_id] = {
            "id": record_id,
            "name": record["name"].strip(),
            "email": record["email"].strip().lower(),
            "age": age,
            "country": country,
            "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "days_since_signup": (reference - signup).days,
        }
    return [kept[k] for k in sorted(kept)]


if __name__ == "__main__":
    config = load_config(sys.argv[1])
    print(json.dumps(process(config), indent=2))
