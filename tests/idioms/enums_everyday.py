import enum
from enum import Enum, Flag, IntEnum, StrEnum, auto, unique


@unique
class Color(Enum):
    RED = auto()
    GREEN = auto()

    @property
    def lower(self):
        return self.name.lower()


class Level(IntEnum):
    LOW = 1
    HIGH = 10


class Mode(StrEnum):
    READ = auto()
    WRITE = auto()


class Perm(Flag):
    R = auto()
    W = auto()
    X = auto()


print(list(Color), Color["RED"], Color(2), Color.GREEN.lower, Color.RED.value)
print(Level.HIGH > Level.LOW, Level.LOW + 1, sorted([Level.HIGH, Level.LOW]), Level(10).name)
print(Mode.READ, Mode.WRITE == "write", f"{Mode.READ}", Mode("read").name)
rw = Perm.R | Perm.W
print(rw, Perm.R in rw, Perm.X in rw, list(rw), Perm(0), bool(Perm(0)))
Animal = Enum("Animal", "CAT DOG")
print(Animal.DOG.value, enum.Enum.__name__, len(Color.__members__))
