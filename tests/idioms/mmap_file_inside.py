import mmap
import os

with open("mapped.bin", "wb") as handle:
    handle.write(b"0123456789" * 10)
with open("mapped.bin", "r+b") as handle:
    with mmap.mmap(handle.fileno(), 0) as mapped:
        print(mapped[:10], mapped.find(b"5"), len(mapped))
        mapped[0:3] = b"abc"
        mapped.flush()
print(open("mapped.bin", "rb").read(12))
with open("mapped.bin", "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as ro:
    print(ro.readline()[:5], ro.size())
anonymous = mmap.mmap(-1, 4096)
anonymous.write(b"shared buffer")
anonymous.seek(0)
print(anonymous.read(6), mmap.PAGESIZE, os.path.getsize("mapped.bin"))
anonymous.close()
