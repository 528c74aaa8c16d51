import functools


@functools.lru_cache(maxsize=32)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


@functools.cache
def square(n):
    return n * n


class Circle:
    def __init__(self, r):
        self.r = r
        self.computed = 0

    @functools.cached_property
    def area(self):
        self.computed += 1
        return 3 * self.r * self.r


print(fib(40), fib.cache_info())
print([square(i) for i in (2, 2, 3)], square.cache_info().hits)
fib.cache_clear()
print(fib.cache_info().currsize)
c = Circle(2)
print(c.area, c.area, c.computed, "area" in vars(c))
