from typing import NamedTuple


class Row(NamedTuple):
    name: str
    age: int = 0
    tags: tuple = ()

    def label(self) -> str:
        return f"{self.name}:{self.age}"


print(Row("a"), Row("b", 3)._replace(age=4), Row("c").label())
