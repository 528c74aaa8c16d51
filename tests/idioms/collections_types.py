from collections import ChainMap, Counter, OrderedDict, UserDict, defaultdict, deque

words = "the cat and the hat and the bat".split()
counts = Counter(words)
print(counts.most_common(2), counts["dog"], sum(counts.values()), (counts + Counter(the=1))["the"])
groups = defaultdict(list)
for w in words:
    groups[len(w)].append(w)
print(dict(groups), defaultdict(int)["missing"])
od = OrderedDict(a=1, b=2, c=3)
od.move_to_end("a")
od.popitem(last=False)
print(od, list(reversed(od)))
d = deque(range(5), maxlen=4)
d.appendleft(-1)
d.rotate(1)
print(d, d.popleft(), d.pop(), d.maxlen)
defaults = {"color": "red", "size": 1}
cm = ChainMap({"size": 5}, defaults)
print(cm["size"], cm["color"], dict(cm.new_child({"x": 0})), len(cm))


class Lower(UserDict):
    def __setitem__(self, key, value):
        super().__setitem__(key.lower(), value)


print(Lower({"A": 1, "b": 2}))
