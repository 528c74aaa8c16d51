import collections

Point = collections.namedtuple("Point", "x y z", defaults=[0])
print(Point(1, 2), Point(1, 2, 3)._asdict())
print(Point._field_defaults, Point(1, 2)._replace(z=9), Point._make([4, 5, 6]))
