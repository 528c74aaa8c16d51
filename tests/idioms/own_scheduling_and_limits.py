import os
import resource

# a program tuning its own priority, affinity and limits (pid 0: the caller)
before = os.getpriority(os.PRIO_PROCESS, 0)
os.nice(1)
print("nicer by one:", os.getpriority(os.PRIO_PROCESS, 0) == before + 1)
os.setpriority(os.PRIO_PROCESS, 0, before + 2)
os.setpriority(os.PRIO_PROCESS, os.getpid(), before + 2)
print("priority set:", os.getpriority(os.PRIO_PROCESS, os.getpid()) == before + 2)
cpus = os.sched_getaffinity(0)
os.sched_setaffinity(0, cpus)
os.sched_setaffinity(os.getpid(), cpus)
print("affinity kept:", os.sched_getaffinity(0) == cpus)
print("policy:", os.sched_getscheduler(0) == os.SCHED_OTHER)
os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
print("batch:", os.sched_getscheduler(0) == os.SCHED_BATCH)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, 128), hard))
print("own limit lowered:", resource.getrlimit(resource.RLIMIT_NOFILE)[0] == min(soft, 128))
print("prlimit on itself:", resource.prlimit(0, resource.RLIMIT_NOFILE)[0] == min(soft, 128),
      resource.prlimit(os.getpid(), resource.RLIMIT_NOFILE)[0] == min(soft, 128))
