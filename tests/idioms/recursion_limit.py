import sys


def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)


def flatten(items):
    for item in items:
        if isinstance(item, list):
            yield from flatten(item)
        else:
            yield item


sys.setrecursionlimit(6000)
print(sys.getrecursionlimit(), depth(5000))
nested = [1]
for _ in range(200):
    nested = [nested, 2]
print(sum(flatten(nested)))
try:
    depth(100000)
except RecursionError as exc:
    print("RecursionError:", exc)
