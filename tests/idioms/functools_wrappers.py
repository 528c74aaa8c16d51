import functools
import operator


def logged(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return ("logged", func(*args, **kwargs))
    return wrapper


@logged
def add(a, b):
    """Add two numbers."""
    return a + b


@functools.singledispatch
def describe(value):
    return "object"


@describe.register
def _(value: int):
    return "int"


@describe.register(list)
def _(value):
    return "list of " + str(len(value))


@functools.total_ordering
class Money:
    def __init__(self, cents):
        self.cents = cents

    def __eq__(self, other):
        return self.cents == other.cents

    def __lt__(self, other):
        return self.cents < other.cents


class Cell:
    def set(self, value, scale):
        self.value = value * scale
        return self
    double = functools.partialmethod(set, scale=2)


power_of_two = functools.partial(pow, 2)
print(add(2, 3), add.__name__, add.__doc__, add.__wrapped__(1, 1))
print(describe("x"), describe(3), describe([1, 2]), describe(True))
print(Money(5) >= Money(3), Money(2) <= Money(2), Money(1) > Money(4))
print(power_of_two(10), power_of_two.func.__name__, Cell().double(21).value)
print(functools.reduce(operator.mul, range(1, 6)), functools.reduce(lambda a, b: a + b, [], 0))
print(sorted(["b", "A", "c"],
             key=functools.cmp_to_key(lambda a, b: (a.lower() > b.lower()) - (a.lower() < b.lower()))))
