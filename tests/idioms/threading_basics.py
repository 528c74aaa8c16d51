import signal
import threading
import time

counter, lock = 0, threading.Lock()


def increment(n):
    global counter
    for _ in range(n):
        with lock:
            counter += 1


threads = [threading.Thread(target=increment, args=(1000,), name=f"w{i}") for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(counter, [t.name for t in threads], threads[0].is_alive())
ready, seen = threading.Event(), []
waiter = threading.Thread(target=lambda: seen.append(ready.wait(2)))
waiter.start()
ready.set()
waiter.join()
fired = threading.Event()
timer = threading.Timer(0.01, fired.set)
timer.start()
print(seen, fired.wait(2), timer.daemon)
local = threading.local()
local.value = "main"
other = []
t = threading.Thread(target=lambda: other.append(getattr(local, "value", "unset")))
t.start()
t.join()
print(local.value, other)
cond, items = threading.Condition(), []


def consume():
    with cond:
        cond.wait_for(lambda: items)
        items.append("consumed")


c = threading.Thread(target=consume)
c.start()
with cond:
    items.append("produced")
    cond.notify_all()
c.join()
barrier, semaphore, rlock = threading.Barrier(2), threading.BoundedSemaphore(2), threading.RLock()
b = threading.Thread(target=barrier.wait)
b.start()
barrier.wait()
b.join()
with semaphore, rlock, rlock:
    print(items, threading.current_thread() is threading.main_thread(), threading.active_count())
daemon = threading.Thread(target=time.sleep, args=(0.01,), daemon=True)
daemon.start()
daemon.join()
print(daemon.daemon, isinstance(threading.get_native_id(), int),
      threading.get_ident() == threading.main_thread().ident)
t = threading.Thread(target=lambda: 1 / 0)
caught = []
threading.excepthook = lambda args: caught.append(args.exc_type.__name__)
t.start()
t.join()
print(caught)
woken = []
signal.signal(signal.SIGUSR1, lambda signum, frame: woken.append(signal.Signals(signum).name))
waker = threading.Thread(target=signal.pthread_kill, args=(threading.main_thread().ident, signal.SIGUSR1))
waker.start()
waker.join()
while not woken:
    time.sleep(0.001)
signal.pthread_kill(threading.get_ident(), 0)  # "is this thread alive?"
print(woken)
