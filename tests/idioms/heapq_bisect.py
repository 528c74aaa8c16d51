import bisect
import heapq

heap = []
for value in (5, 1, 8, 3, 2):
    heapq.heappush(heap, value)
print([heapq.heappop(heap) for _ in range(3)], heapq.nsmallest(2, [9, 4, 7]), heapq.nlargest(2, "abcz"))
tasks = [(2, "write"), (1, "read"), (3, "exec")]
heapq.heapify(tasks)
print(heapq.heappop(tasks), heapq.heappushpop(tasks, (0, "first")), list(heapq.merge([1, 4], [2, 3])))
scores = [10, 20, 30, 40]
print(bisect.bisect_left(scores, 20), bisect.bisect_right(scores, 20), bisect.bisect(scores, 35))
bisect.insort(scores, 25)
print(scores, "FDCBA"[bisect.bisect([60, 70, 80, 90], 85)])
print(bisect.bisect_left([("a", 1), ("c", 3)], "b", key=lambda item: item[0]))
