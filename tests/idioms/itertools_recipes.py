import itertools

data = [("a", 1), ("a", 2), ("b", 3)]
print(list(itertools.chain([1, 2], (3,), "ab")), list(itertools.chain.from_iterable([[1], [2, 3]])))
print([(k, [v for _, v in g]) for k, g in itertools.groupby(data, key=lambda kv: kv[0])])
print(list(itertools.islice(itertools.count(10, 5), 3)), list(itertools.islice(itertools.cycle("xy"), 5)))
print(list(itertools.product("ab", repeat=2)), len(list(itertools.permutations(range(4), 2))))
print(list(itertools.combinations("abc", 2)), list(itertools.combinations_with_replacement("ab", 2)))
print(list(itertools.accumulate([1, 2, 3, 4])), list(itertools.accumulate([3, 1, 4], max)))
print(list(itertools.pairwise("abcd")), list(itertools.zip_longest("ab", "xyz", fillvalue="-")))
left, right = itertools.tee(range(3))
print(list(left), list(right), list(itertools.starmap(pow, [(2, 3), (3, 2)])))
print(list(itertools.compress("abcdef", [1, 0, 1, 0, 1, 1])),
      list(itertools.dropwhile(lambda x: x < 3, [1, 4, 1])))
print(list(itertools.takewhile(lambda x: x < 3, [1, 2, 5, 1])),
      list(itertools.filterfalse(None, [0, 1, "", "a"])))
print(list(itertools.repeat("z", 3)))
