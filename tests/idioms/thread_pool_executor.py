import concurrent.futures as cf
import time


def slow_square(n):
    time.sleep(0.001)
    return n * n


with cf.ThreadPoolExecutor(max_workers=4, thread_name_prefix="pool") as pool:
    print(list(pool.map(slow_square, range(8))))
    futures = {pool.submit(slow_square, n): n for n in range(5)}
    print(sorted(f.result() for f in cf.as_completed(futures)))
    failing = pool.submit(lambda: 1 / 0)
    print(type(failing.exception()).__name__, failing.done())
    done, pending = cf.wait([pool.submit(slow_square, 3)], timeout=5)
    print(len(done), len(pending))
    callbacks = []
    f = pool.submit(slow_square, 2)
    f.add_done_callback(lambda fut: callbacks.append(fut.result()))
    f.result()
print(callbacks)
