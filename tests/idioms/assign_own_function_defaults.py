def greet(name="world", *, punct="!"):
    return "hello " + name + punct


greet.__defaults__ = ("there",)
greet.__kwdefaults__ = {"punct": "?"}


def other():
    return 42


greet2 = lambda: 0  # noqa: E731
greet2.__code__ = other.__code__
print(greet(), greet2())
del greet.__kwdefaults__
del greet.__defaults__
try:
    greet()
except TypeError as exc:
    print("no defaults left:", exc)


class Settings:
    level = 1


del Settings.level
print(hasattr(Settings, "level"))
