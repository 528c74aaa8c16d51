import cProfile
import io
import pstats
import timeit


def work():
    return sum(i * i for i in range(1000))


profiler = cProfile.Profile()
profiler.enable()
work()
profiler.disable()
out = io.StringIO()
stats = pstats.Stats(profiler, stream=out).sort_stats("cumulative")
stats.print_stats(3)
print("function calls" in out.getvalue(), any(key[2] == "work" for key in stats.stats))
print(isinstance(timeit.timeit("sum(range(100))", number=100), float),
      len(timeit.repeat(work, number=5, repeat=2)))
print(timeit.Timer(work).autorange()[0] >= 1)
with cProfile.Profile() as p:
    work()
print(len(pstats.Stats(p).stats) > 0)
