import enum
import sys


class ExitCode(enum.IntEnum):
    OK = 0
    USAGE = 2


print("usage error")
sys.exit(ExitCode.USAGE)
