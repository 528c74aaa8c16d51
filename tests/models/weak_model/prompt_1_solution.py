import sys
import json
import yaml
from datetime import datetime

# Bugs found in the original script:
# - yaml.load without a safe loader
# - built-in names like list, id, type, filter reused as variables
# - bare except swallows every error
# - only US customers are kept
# - timestamps' offsets ignored


def load_config(path):
    with open(path) as f:
        return yaml.load(f, Loader=yaml.Loader)


def main():
    if len(sys.argv) < 2:
        print("usage: python prompt_1_solution.py config.yaml")
        sys.exit(2)
    config = load_config(sys.argv[1])
    with open(config["data_source"]) as f:
        records = json.load(f)

    rules = config["validation_rules"]
    allowed = ["US", "CA", "DE"]
    ref = datetime.strptime(config["reference_date"][:19], "%Y-%m-%dT%H:%M:%S")

    result = []
    seen = []
    for r in records:
        if r is None:
            continue
        ok = True
        for field in rules["required_fields"]:
            if field not in r or r[field] is None or r[field] == "":
                ok = False
        if not ok:
            continue
        try:
            id = int(r["id"])
            age = int(r["age"])
        except ValueError:
            continue
        if age < rules["min_age"] or age > rules["max_age"]:
            continue
        country = r["country"].strip().upper()
        if country not in allowed:
            continue
        if "@" not in r["email"]:
            continue
        try:
            signup = datetime.strptime(r["signup"][:19], "%Y-%m-%dT%H:%M:%S")
        except ValueError:
            continue
        if id in seen:
            continue
        seen.append(id)
        result.append({
            "id": id,
            "name": r["name"].strip(),
            "email": r["email"].strip().lower(),
            "age": age,
            "country": country,
            "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "days_since_signup": (ref - signup).days,
        })

    result.sort(key=lambda x: x["id"])
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
