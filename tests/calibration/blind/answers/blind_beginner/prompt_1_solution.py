import sys
import os
import json
import yaml
from datetime import datetime, timezone


def load_config(config_path):
    try:
        with open(config_path) as f:
            config = yaml.safe_load(f)
    except Exception as e:
        print("Error: could not load config file:", e, file=sys.stderr)
        sys.exit(1)

    if not isinstance(config, dict):
        print("Error: config is not a mapping", file=sys.stderr)
        sys.exit(1)

    for key in ["data_source", "reference_date", "validation_rules"]:
        if key not in config:
            print("Error: missing config key", key, file=sys.stderr)
            sys.exit(1)

    for key in ["min_age", "max_age", "required_fields", "allowed_countries"]:
        if key not in config["validation_rules"]:
            print("Error: missing validation rule", key, file=sys.stderr)
            sys.exit(1)

    return config


def main():
    if len(sys.argv) < 2:
        print("Usage: python prompt_1_solution.py <config.yaml>", file=sys.stderr)
        sys.exit(2)

    config_path = sys.argv[1]
    config = load_config(config_path)
    rules = config["validation_rules"]

    # data_source is relative to the config file
    data_path = os.path.join(os.path.dirname(config_path), config["data_source"])

    try:
        reference_date = datetime.fromisoformat(config["reference_date"].replace("Z", "+00:00"))
    except Exception as e:
        print("Error: bad reference_date:", e, file=sys.stderr)
        sys.exit(1)

    try:
        with open(data_path) as f:
            records = json.load(f)
    except Exception as e:
        print("Error: could not load records file:", e, file=sys.stderr)
        sys.exit(1)

    allowed_countries = [c.upper() for c in rules["allowed_countries"]]
    fields_to_check = ["id", "name", "email", "age", "country", "signup"] + rules["required_fields"]

    results = []
    seen_ids = []
    dropped = 0

    for record in records:
        if not isinstance(record, dict):
            print("Skipping entry that is not an object:", record, file=sys.stderr)
            dropped += 1
            continue

        try:
            # check required fields
            missing = None
            for field in fields_to_check:
                if field not in record or record[field] is None:
                    missing = field
                    break
                if isinstance(record[field], str) and record[field].strip() == "":
                    missing = field
                    break
            if missing:
                print("Dropping record", record.get("id"), "- missing field", missing, file=sys.stderr)
                dropped += 1
                continue

            # id
            record_id = record["id"]
            if isinstance(record_id, str):
                record_id = record_id.strip()
                if not record_id.isdigit():
                    print("Dropping record - invalid id", record["id"], file=sys.stderr)
                    dropped += 1
                    continue
                record_id = int(record_id)
            if record_id < 1:
                print("Dropping record - invalid id", record["id"], file=sys.stderr)
                dropped += 1
                continue

            name = record["name"].strip()

            # email
            email = record["email"].strip().lower()
            if "@" not in email or "." not in email.split("@")[1]:
                print("Dropping record", record_id, "- invalid email", email, file=sys.stderr)
                dropped += 1
                continue

            # age (can be a string)
            age = record["age"]
            if isinstance(age, str):
                age = age.strip()
            age = int(age)
            if age < rules["min_age"] or age > rules["max_age"]:
                print("Dropping record", record_id, "- age out of range", age, file=sys.stderr)
                dropped += 1
                continue

            # country
            country = record["country"].strip().upper()
            if country not in allowed_countries:
                print("Dropping record", record_id, "- country not allowed", country, file=sys.stderr)
                dropped += 1
                continue

            # signup date, convert to UTC
            signup = datetime.fromisoformat(record["signup"].replace("Z", "+00:00"))
            if signup.tzinfo is None:
                signup = signup.replace(tzinfo=timezone.utc)
            signup = signup.astimezone(timezone.utc)
            days = (reference_date - signup).days

            # duplicates
            if record_id in seen_ids:
                print("Dropping record", record_id, "- duplicate id", file=sys.stderr)
                dropped += 1
                continue
            seen_ids.append(record_id)

            results.append({
                "id": record_id,
                "name": name,
                "email": email,
                "age": age,
                "country": country,
                "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "days_since_signup": days,
            })
        except Exception as e:
            print("Dropping record", record.get("id"), "- error:", e, file=sys.stderr)
            dropped += 1

    results.sort(key=lambda r: r["id"])
    print("Kept", len(results), "records, dropped", dropped, file=sys.stderr)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
