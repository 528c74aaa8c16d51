import multiprocessing
import queue
import threading
from multiprocessing.dummy import Pool as DummyPool
from multiprocessing.pool import ThreadPool


def square(n):
    return n * n


with ThreadPool(2) as pool:
    print(pool.map(square, range(6)), pool.apply(square, (7,)), pool.starmap(pow, [(2, 3), (3, 2)]))
    pending = pool.map_async(square, [1, 2])
    print(pending.get(timeout=5), sorted(pool.imap_unordered(square, range(4))))
with DummyPool(3) as pool:
    print(list(pool.imap(square, range(4))))
lock, rlock = multiprocessing.Lock(), multiprocessing.RLock()
with lock, rlock, rlock:
    print("multiprocessing locks held", multiprocessing.cpu_count() >= 1)
event, semaphore = multiprocessing.Event(), multiprocessing.Semaphore(2)
event.set()
print(event.is_set(), semaphore.acquire(timeout=1), semaphore.get_value() if hasattr(semaphore, "get_value") else 1)
shared = multiprocessing.Queue()
threads = [threading.Thread(target=shared.put, args=(i,)) for i in range(3)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(sorted(shared.get(timeout=5) for _ in range(3)))
simple = multiprocessing.SimpleQueue()
simple.put("x")
print(simple.get(), simple.empty(), multiprocessing.current_process().name, multiprocessing.get_start_method())
try:
    shared.get(timeout=0.01)
except queue.Empty:
    print("empty")
shared.close()
shared.join_thread()
