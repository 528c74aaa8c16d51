import asyncio


async def answer():
    await asyncio.sleep(0)
    return 42


loop = asyncio.new_event_loop()
try:
    print(loop.run_until_complete(answer()))
finally:
    loop.close()
