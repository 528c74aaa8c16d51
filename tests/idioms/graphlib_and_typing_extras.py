import graphlib
import string
from collections.abc import Iterator
from typing import Annotated, Callable, ClassVar, NewType, ParamSpec, Self, TypeAlias, TypeVar

UserId = NewType("UserId", int)
Vector: TypeAlias = list[float]
P = ParamSpec("P")
R = TypeVar("R")


def logged(fn: Callable[P, R]) -> Callable[P, R]:
    def inner(*args: P.args, **kwargs: P.kwargs) -> R:
        return fn(*args, **kwargs)
    return inner


class Builder:
    count: ClassVar[int] = 0

    def add(self) -> Self:
        Builder.count += 1
        return self


@logged
def scale(v: Vector, k: Annotated[float, "factor"]) -> Vector:
    return [x * k for x in v]


def countdown(n: int) -> Iterator[int]:
    yield from range(n, 0, -1)


graph = {"deploy": {"build", "test"}, "test": {"build"}, "build": {"fetch"}}
order = list(graphlib.TopologicalSorter(graph).static_order())
print(order, UserId(5), scale([1.0, 2.0], 2), Builder().add().add().count, list(countdown(3)))
try:
    list(graphlib.TopologicalSorter({"a": {"b"}, "b": {"a"}}).static_order())
except graphlib.CycleError as exc:
    print("cycle", sorted(exc.args[1][:2]))
print(string.capwords("hello   world"), string.Formatter().format("{0}-{x}", 1, x=2))
