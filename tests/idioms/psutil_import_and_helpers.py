import psutil
from psutil._common import bytes2human

# psutil reads the machine's /proc, which the sandbox does not show (see the by-design list):
# importing it and its pure helpers behave as outside
print(psutil.__version__, psutil.LINUX, psutil.POSIX, bytes2human(10_000_000), bytes2human(1024))
print(psutil.STATUS_RUNNING, issubclass(psutil.NoSuchProcess, psutil.Error), callable(psutil.Process))
