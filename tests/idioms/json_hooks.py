import dataclasses
import datetime
import decimal
import json


@dataclasses.dataclass
class Item:
    name: str
    price: decimal.Decimal


def default(obj):
    if dataclasses.is_dataclass(obj):
        return dataclasses.asdict(obj)
    if isinstance(obj, (datetime.date, decimal.Decimal)):
        return str(obj)
    raise TypeError(type(obj).__name__)


class Encoder(json.JSONEncoder):
    def default(self, obj):
        if isinstance(obj, set):
            return sorted(obj)
        return super().default(obj)


text = json.dumps({"item": Item("pen", decimal.Decimal("1.50")), "day": datetime.date(2024, 2, 29)},
                  default=default, sort_keys=True, indent=2)
print(text)
print(json.dumps({"s": {3, 1}, "u": "é"}, cls=Encoder), json.dumps("é", ensure_ascii=False))
hooked = json.loads('{"a": {"b": 1}, "c": 1.10}', object_hook=lambda d: {k.upper(): v for k, v in d.items()},
                    parse_float=decimal.Decimal)
print(hooked, json.loads('[["k", 1]]', object_pairs_hook=dict))
try:
    json.loads("{bad json}")
except json.JSONDecodeError as exc:
    print(exc.msg, exc.lineno, exc.colno)
with open("data.json", "w", encoding="utf-8") as handle:
    json.dump({"n": [1, 2]}, handle)
with open("data.json", encoding="utf-8") as handle:
    print(json.load(handle), json.dumps(float("inf")), json.dumps([1, 2], separators=(",", ":")))
