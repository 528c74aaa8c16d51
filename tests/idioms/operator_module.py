import operator
from collections import namedtuple

Person = namedtuple("Person", "name age")
people = [Person("bo", 30), Person("al", 25)]
print(sorted(people, key=operator.attrgetter("age")), list(map(operator.itemgetter(1), [(1, 2), (3, 4)])))
print(operator.methodcaller("upper")("abc"), operator.add(2, 3), operator.mul("ab", 2))
print(operator.itemgetter("a", "b")({"a": 1, "b": 2}), operator.attrgetter("name", "age")(people[0]))
print(operator.contains([1, 2], 2), operator.truth(0), operator.neg(5), operator.index(7))
values = [1, 2]
operator.setitem(values, 0, 9)
print(values, operator.iadd([1], [2]), operator.concat("a", "b"), operator.length_hint(iter(range(4))))
