import difflib
import pprint
import reprlib

a = ["one\n", "two\n", "three\n"]
b = ["one\n", "2\n", "three\n", "four\n"]
print("".join(difflib.unified_diff(a, b, fromfile="a.txt", tofile="b.txt")))
print(round(difflib.SequenceMatcher(None, "kitten", "sitting").ratio(), 4),
      difflib.get_close_matches("appel", ["ape", "apple", "peach"]))
print(list(difflib.ndiff(["a"], ["b"])))
data = {"users": [{"name": n, "roles": ["admin", "dev"] * 2, "id": i} for i, n in enumerate("abc")],
        "count": 3}
pprint.pprint(data, width=60, sort_dicts=True)
print(pprint.pformat(list(range(30)), compact=True, width=40), reprlib.repr(list(range(100))),
      reprlib.repr("x" * 100))
