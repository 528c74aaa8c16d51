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
