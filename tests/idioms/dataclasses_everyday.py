import dataclasses
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True, order=True)
class Version:
    major: int
    minor: int = 0


@dataclass(kw_only=True)
class Config:
    name: str
    tags: list[str] = field(default_factory=list)
    retries: int = 3
    secret: str = field(default="", repr=False, compare=False)

    def __post_init__(self):
        self.name = self.name.strip()


v = Version(1, 2)
try:
    v.major = 3
except dataclasses.FrozenInstanceError as exc:
    print("frozen:", type(exc).__name__)
print(v, sorted([Version(2), Version(1, 5), v]), hasattr(v, "__dict__"), Version.__slots__)
c = Config(name="  svc ", tags=["a"])
c2 = dataclasses.replace(c, retries=5)
print(c, c2, c == Config(name="svc", tags=["a"], secret="x"))
print(dataclasses.asdict(c2), dataclasses.astuple(v), [f.name for f in dataclasses.fields(Config)])
print(Config(name="x").tags is not Config(name="y").tags, dataclasses.is_dataclass(c))
Dyn = dataclasses.make_dataclass("Dyn", [("x", int), ("y", int, field(default=5))])
print(Dyn(1))
