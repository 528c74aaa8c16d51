import gc
import os
import resource
import sys
import time
import tracemalloc

usage = resource.getrusage(resource.RUSAGE_SELF)
print(usage.ru_maxrss > 0, usage.ru_utime >= 0, resource.getpagesize() > 0)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
print(soft > 0, hard == resource.RLIM_INFINITY or hard >= soft)
tracemalloc.start()
blob = [bytes(1000) for _ in range(100)]
current, peak = tracemalloc.get_traced_memory()
snapshot = tracemalloc.take_snapshot()
print(current >= 100_000, peak >= current, len(snapshot.statistics("lineno")) > 0)
tracemalloc.stop()
print(os.getpid() > 0, os.getppid() >= 0, isinstance(os.times().user, float), time.process_time() >= 0)
print(len(gc.get_stats()), gc.isenabled(), sys.getallocatedblocks() > 0, gc.get_threshold()[0] > 0)
print(os.cpu_count() >= 1, len(os.sched_getaffinity(0)) >= 1, os.getuid() == os.geteuid(), os.getpgrp() > 0)
