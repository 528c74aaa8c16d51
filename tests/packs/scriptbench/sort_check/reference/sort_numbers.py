"""Print the numbers of numbers.json sorted, as JSON."""
import json

with open("numbers.json", encoding="utf-8") as handle:
    print(json.dumps(sorted(json.load(handle))))
