import csv
import io

rows = [{"name": "Ann", "note": 'says "hi", twice'}, {"name": "Bo", "note": "line\nbreak"}]
with open("people.csv", "w", newline="", encoding="utf-8") as handle:
    writer = csv.DictWriter(handle, fieldnames=["name", "note"])
    writer.writeheader()
    writer.writerows(rows)
with open("people.csv", newline="", encoding="utf-8") as handle:
    print(list(csv.DictReader(handle)) == rows)
with open("people.csv", "rb") as handle:
    print(handle.read())
out = io.StringIO()
writer = csv.writer(out, delimiter=";", quoting=csv.QUOTE_NONNUMERIC)
writer.writerow(["a", 1, 2.5])
print(repr(out.getvalue()), list(csv.reader(["x,y", "1,'2,3'"], quotechar="'")))
dialect = csv.Sniffer().sniff("a|b|c\n1|2|3\n")
print(dialect.delimiter, csv.Sniffer().has_header("name,age\nann,3\nbo,4\n"))
