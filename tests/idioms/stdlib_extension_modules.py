import importlib
import importlib.machinery
import sys

# extension modules of the interpreter's own, most of them imported for the first time here
names = ["_bz2", "_lzma", "_sqlite3", "_ssl", "_hashlib", "_csv", "_json", "_uuid", "_zoneinfo",
         "_statistics",
         "_queue", "_asyncio", "_elementtree", "pyexpat", "_lsprof", "_contextvars", "_multibytecodec",
         "_codecs_jp", "array", "mmap", "resource", "termios", "fcntl", "grp", "select", "unicodedata",
         "_random", "_bisect", "_heapq", "_datetime", "_pickle", "_struct", "binascii", "zlib", "math",
         "cmath"]
suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
loaded = []
for name in names:
    module = importlib.import_module(name)
    origin = getattr(module, "__file__", None)
    loaded.append((name, "built-in" if origin is None else origin.endswith(suffixes)))
print(loaded)
print(sys.modules["_csv"].QUOTE_ALL, sys.modules["unicodedata"].numeric("½"),
      sys.modules["_bisect"].bisect_right([1, 3], 2))
import ctypes  # noqa: E402  (its own types and buffers, no native library: allowed)

print(ctypes.sizeof(ctypes.c_int64), ctypes.c_uint8(300).value, ctypes.create_string_buffer(b"ab", 4).raw)


class Pair(ctypes.Structure):
    _fields_ = [("a", ctypes.c_int16), ("b", ctypes.c_int16)]


print(bytes(Pair(1, 2)).hex(), Pair.from_buffer_copy(b"\x03\x00\x04\x00").b,
      ctypes.alignment(ctypes.c_double))
