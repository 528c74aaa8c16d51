import queue
import threading

tasks, results = queue.Queue(), queue.Queue()


def worker():
    while True:
        item = tasks.get()
        if item is None:
            tasks.task_done()
            break
        results.put(item * item)
        tasks.task_done()


threads = [threading.Thread(target=worker) for _ in range(3)]
for t in threads:
    t.start()
for i in range(10):
    tasks.put(i)
for _ in threads:
    tasks.put(None)
tasks.join()
for t in threads:
    t.join()
print(sorted(results.get_nowait() for _ in range(results.qsize())))
pq = queue.PriorityQueue()
for item in [(3, "c"), (1, "a"), (2, "b")]:
    pq.put(item)
lifo, simple = queue.LifoQueue(), queue.SimpleQueue()
for i in range(3):
    lifo.put(i)
    simple.put(i)
print([pq.get()[1] for _ in range(3)], [lifo.get() for _ in range(3)], simple.get(), simple.qsize())
bounded = queue.Queue(maxsize=1)
bounded.put("x")
try:
    bounded.put("y", timeout=0.01)
except queue.Full:
    print("full")
try:
    queue.Queue().get(timeout=0.01)
except queue.Empty:
    print("empty")
