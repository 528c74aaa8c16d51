from typing import (Any, Final, Generic, Literal, Optional, Protocol, TypedDict, TypeVar, cast,
                    get_args, get_origin, get_type_hints, overload, runtime_checkable)

T = TypeVar("T")
MAX: Final = 3


class Movie(TypedDict, total=False):
    title: str
    year: int


@runtime_checkable
class Closer(Protocol):
    def close(self) -> None: ...


class Resource:
    def close(self) -> None:
        pass


class Stack(Generic[T]):
    def __init__(self) -> None:
        self.items: list[T] = []

    def push(self, item: T) -> "Stack[T]":
        self.items.append(item)
        return self


@overload
def double(x: int) -> int: ...
@overload
def double(x: str) -> str: ...
def double(x: Any) -> Any:
    return x * 2


def pick(mode: Literal["r", "w"], size: Optional[int] = None) -> str:
    return mode


movie: Movie = {"title": "x"}
print(movie, Movie.__required_keys__, sorted(Movie.__optional_keys__))
print(isinstance(Resource(), Closer), isinstance(object(), Closer))
print(Stack[int]().push(1).push(2).items, double(2), double("ab"), cast(int, "not checked"), MAX)
hints = get_type_hints(pick)
print(hints["mode"], get_args(hints["mode"]), get_origin(hints["size"]), get_args(hints["size"]))
print(get_type_hints(Stack.push))
