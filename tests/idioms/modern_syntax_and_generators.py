import contextvars
from dataclasses import dataclass


@dataclass
class Point:
    x: int
    y: int


def describe(value):
    match value:
        case Point(x=0, y=0):
            return "origin"
        case Point(x=0, y=y):
            return f"on the y axis at {y}"
        case {"type": "circle", "r": r} if r > 0:
            return f"circle {r}"
        case [first, *rest]:
            return f"list starting {first} (+{len(rest)})"
        case str() | bytes():
            return "text"
        case _:
            return "other"


print([describe(v) for v in (Point(0, 0), Point(0, 5), {"type": "circle", "r": 2}, [1, 2, 3], "s", 4.5)])
if (n := len("walrus")) > 3:
    print(n)


def averager():
    total, count, average = 0, 0, None
    while True:
        value = yield average
        if value is None:
            return average
        total, count = total + value, count + 1
        average = total / count


gen = averager()
next(gen)
print([gen.send(v) for v in (10, 20, 30)])
try:
    gen.send(None)
except StopIteration as stop:
    print("returned", stop.value)


def delegate():
    result = yield from averager()
    yield result


d = delegate()
next(d)
d.send(4)
print(d.send(None))
squares = (i * i for i in range(5))
print(sum(squares), list(squares), {k: v for k, v in zip("ab", range(2))},
      {x % 3 for x in range(10)} == {0, 1, 2})
request_id = contextvars.ContextVar("request_id", default="none")
token = request_id.set("r-1")
ctx = contextvars.copy_context()
request_id.reset(token)
print(request_id.get(), ctx.run(request_id.get), ctx[request_id])
print(f"{'nested ' + f'{1 + 1}'}", *[1, 2], *{"k": 1}, [*range(3), *"ab"], {**{"a": 1}, "b": 2},
      (lambda *a, **k: (a, k))(1, x=2))
