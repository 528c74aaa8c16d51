import asyncio
import concurrent.futures
import time


def blocking(n):
    time.sleep(0.001)
    return n + 100


async def producer(queue):
    for i in range(5):
        await queue.put(i)
    await queue.put(None)


async def consumer(queue, seen):
    while (item := await queue.get()) is not None:
        seen.append(item)
        queue.task_done()


async def guarded(lock, log, name):
    async with lock:
        log.append(name + " in")
        await asyncio.sleep(0)
        log.append(name + " out")


async def main():
    try:
        await asyncio.wait_for(asyncio.sleep(10), timeout=0.01)
    except asyncio.TimeoutError:
        print("wait_for timed out")
    print(await asyncio.wait_for(asyncio.sleep(0, result="in time"), timeout=1))
    print(await asyncio.to_thread(blocking, 1))
    loop = asyncio.get_running_loop()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        print(await asyncio.gather(*(loop.run_in_executor(pool, blocking, i) for i in range(3))))
    print(await loop.run_in_executor(None, blocking, 9))
    queue, seen = asyncio.Queue(maxsize=2), []
    await asyncio.gather(producer(queue), consumer(queue, seen))
    print(seen)
    lock, log = asyncio.Lock(), []
    await asyncio.gather(guarded(lock, log, "a"), guarded(lock, log, "b"))
    print(log)
    event, semaphore = asyncio.Event(), asyncio.Semaphore(2)
    waiter = asyncio.create_task(event.wait())
    event.set()
    print(await waiter, semaphore.locked())
    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(asyncio.sleep(0.001, result=i)) for i in range(3)]
    print([t.result() for t in tasks])
    try:
        async with asyncio.timeout(0.01):
            await asyncio.sleep(10)
    except TimeoutError:
        print("timeout context")
    results = await asyncio.gather(asyncio.sleep(0, result=1), asyncio.sleep(-1, result=2),
                                   return_exceptions=True)
    print(results, [r async for r in agen()])
    slow = asyncio.create_task(asyncio.sleep(10))
    slow.cancel()
    try:
        await slow
    except asyncio.CancelledError:
        print("cancelled", slow.cancelled())
    done, pending = await asyncio.wait([asyncio.create_task(asyncio.sleep(0, result="w"))])
    print(len(done), len(pending), [await c for c in asyncio.as_completed([asyncio.sleep(0, result="c")])])
    future = loop.create_future()
    loop.call_soon(future.set_result, "called soon")
    loop.call_later(0.001, lambda: None)
    print(await future, await asyncio.shield(asyncio.sleep(0, result="shielded")))
    condition = asyncio.Condition()
    async with condition:
        condition.notify_all()
    print("streams:", await streams())


async def agen():
    for i in range(3):
        await asyncio.sleep(0)
        yield i


async def streams():
    import socket
    left, right = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=left)
    r2, w2 = await asyncio.open_connection(sock=right)
    writer.write(b"hello\n")
    await writer.drain()
    line = await r2.readline()
    writer.close()
    w2.close()
    await writer.wait_closed()
    await w2.wait_closed()
    return line


asyncio.run(main())
print(asyncio.run(asyncio.sleep(0, result="second run")))
runner = asyncio.Runner()
print(runner.run(asyncio.sleep(0, result="runner")))
runner.close()
