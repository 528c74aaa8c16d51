import gc
import sys
import threading

gc.collect()
marker = object()
holder = [marker]
print(any(r is holder for r in gc.get_referrers(marker)), holder in gc.get_objects())
print(threading.get_ident() in sys._current_frames(), sys._getframe().f_code.co_name)
