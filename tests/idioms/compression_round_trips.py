import bz2
import gzip
import lzma
import zlib

payload = ("line of text %d\n" * 200 % tuple(range(200))).encode()
for name, module in (("zlib", zlib), ("gzip", gzip), ("bz2", bz2), ("lzma", lzma)):
    packed = module.compress(payload)
    print(name, module.decompress(packed) == payload, len(packed) < len(payload))
compressor = zlib.compressobj(level=9, wbits=-15)
raw = compressor.compress(payload) + compressor.flush()
print(zlib.decompress(raw, wbits=-15) == payload, len(zlib.compress(payload, 9)))
with gzip.open("log.txt.gz", "wt", encoding="utf-8") as handle:
    handle.write("hello\nworld\n")
with gzip.open("log.txt.gz", "rt", encoding="utf-8") as handle:
    print(handle.readlines())
with bz2.open("data.bz2", "wb") as handle:
    handle.write(payload)
with lzma.open("data.xz", "wb") as handle:
    handle.write(payload)
print(bz2.open("data.bz2").read() == payload, lzma.open("data.xz").read() == payload)
print(gzip.decompress(gzip.compress(b"x", mtime=0)), gzip.compress(b"abc", mtime=0).hex())
