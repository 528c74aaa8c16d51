import gc
import sys
import weakref


class Thing:
    def __init__(self, name):
        self.name = name


events = []
t = Thing("a")
ref = weakref.ref(t)
cache = weakref.WeakValueDictionary({"a": t})
keyed = weakref.WeakKeyDictionary({t: 1})
weakref.finalize(t, events.append, "finalized")
proxy = weakref.proxy(t)
print(ref() is t, proxy.name, len(cache), len(keyed))
del t
gc.collect()
print(ref(), len(cache), len(keyed), events)
ws = weakref.WeakSet()
keep = Thing("b")
ws.add(keep)
print(len(ws), sys.getsizeof(0), sys.getsizeof(()) <= sys.getsizeof((1, 2)), sys.getrefcount(keep) >= 2)
