"""Print the mean of the numbers in numbers.txt as JSON."""
import json

with open("numbers.txt", encoding="utf-8") as handle:
    values = [float(line) for line in handle if line.strip()]
print(json.dumps({"mean": sum(values) / len(values)}))
