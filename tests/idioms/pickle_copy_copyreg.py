import copy
import copyreg
import pickle
from dataclasses import dataclass, field


@dataclass
class Node:
    name: str
    children: list = field(default_factory=list)


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


def reduce_point(p):
    return Point, (p.x * 10, p.y * 10)


copyreg.pickle(Point, reduce_point)
tree = Node("root", [Node("leaf")])
shallow, deep = copy.copy(tree), copy.deepcopy(tree)
tree.children[0].name = "changed"
print(shallow.children[0].name, deep.children[0].name)
for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
    assert pickle.loads(pickle.dumps(tree, protocol=protocol)) == tree
restored = pickle.loads(pickle.dumps(Point(1, 2)))
print(restored.x, restored.y, copy.copy(Point(3, 4)).x, pickle.HIGHEST_PROTOCOL)
cyclic = [1]
cyclic.append(cyclic)
again = copy.deepcopy(cyclic)
print(again[1] is again, pickle.loads(pickle.dumps(cyclic))[1][0])
with open("state.pkl", "wb") as handle:
    pickle.dump({"tree": tree, "n": 3}, handle)
with open("state.pkl", "rb") as handle:
    print(pickle.load(handle))
