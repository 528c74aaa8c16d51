import asyncio


async def work(n):
    await asyncio.sleep(0.001)
    return n * 2


async def main():
    return await asyncio.gather(*(work(i) for i in range(5)))


print(asyncio.run(main()))
