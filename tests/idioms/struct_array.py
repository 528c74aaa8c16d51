import array
import struct

packed = struct.pack("<IhQ?", 1, -2, 3, True)
print(packed.hex(), struct.unpack("<IhQ?", packed), struct.calcsize("<IhQ?"))
header = struct.Struct(">4sHH")
print(header.unpack(header.pack(b"RIFF", 1, 2)), header.size)
print(list(struct.iter_unpack("<h", b"\x01\x00\x02\x00")))
buffer = bytearray(8)
struct.pack_into("<d", buffer, 0, 1.5)
print(struct.unpack_from("<d", buffer), buffer.hex())
a = array.array("i", [1, 2, 3])
a.append(4)
a.extend([5])
print(a, a.itemsize, a.tobytes()[:8].hex(), array.array("d", [0.5]).tolist(), a.typecode)
b = array.array("B", b"abc")
b.reverse()
print(b.tobytes(), memoryview(a)[1:3].tolist(), bytes(memoryview(b"xyz")[::2]))
