from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence


class Shape(ABC):
    @abstractmethod
    def area(self) -> float: ...

    def describe(self):
        return f"{type(self).__name__} of area {self.area()}"


class Square(Shape):
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side ** 2


class Frozen(Mapping):
    def __init__(self, data):
        self._data = dict(data)

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)


try:
    Shape()
except TypeError as exc:
    print("abstract:", exc)
print(Square(3).describe(), isinstance(Square(1), Shape), issubclass(list, Sequence))
f = Frozen({"a": 1})
print(dict(f), "a" in f, f.get("b", 0), list(f.items()), Shape.__abstractmethods__)
Shape.register(int)
print(isinstance(5, Shape))
