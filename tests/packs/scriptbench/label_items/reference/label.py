"""Label each item of items.csv: long when its text is over 5 characters."""
import csv
import sys

writer = csv.writer(sys.stdout, lineterminator="\n")
writer.writerow(["id", "label"])
with open("items.csv", newline="", encoding="utf-8") as handle:
    for row in csv.DictReader(handle):
        writer.writerow([row["id"], "long" if len(row["text"]) > 5 else "short"])
