import faulthandler
import sys

faulthandler.enable()
print(faulthandler.is_enabled())
with open("traceback.txt", "w") as handle:
    faulthandler.dump_traceback(handle)
with open("traceback.txt") as handle:
    text = handle.read()
print("most recent call first" in text, 'idiom.py", line' in text)
faulthandler.disable()
faulthandler.enable(file=sys.stderr, all_threads=True)
print(faulthandler.is_enabled())
