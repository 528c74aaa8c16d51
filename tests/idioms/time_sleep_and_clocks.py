import time

start, cpu = time.monotonic(), time.process_time()
time.sleep(0.02)
elapsed = time.monotonic() - start
print(elapsed >= 0.02, elapsed < 5, time.perf_counter_ns() > 0, time.process_time() >= cpu)
print(time.get_clock_info("monotonic").monotonic, time.thread_time() >= 0)
deadline = time.monotonic() + 0.01
polls = 0
while time.monotonic() < deadline:
    time.sleep(0.002)
    polls += 1
print(polls >= 1)
