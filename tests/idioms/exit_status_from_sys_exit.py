import atexit
import sys

atexit.register(print, "exit handler ran")
print("about to exit with 3")
sys.exit(3)
