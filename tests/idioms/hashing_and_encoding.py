import base64
import binascii
import hashlib
import hmac
import zlib

data = b"The quick brown fox"
print(hashlib.sha256(data).hexdigest(), hashlib.md5(data).hexdigest(), hashlib.sha1(data).hexdigest()[:12])
print(hashlib.blake2b(data, digest_size=16).hexdigest(), hashlib.sha3_256(data).hexdigest()[:16],
      hashlib.new("sha512", data).hexdigest()[:16])
h = hashlib.sha256()
for chunk in (b"The quick ", b"brown fox"):
    h.update(chunk)
print(h.hexdigest() == hashlib.sha256(data).hexdigest(), "sha256" in hashlib.algorithms_available)
print(hashlib.pbkdf2_hmac("sha256", b"pw", b"salt", 1000).hex()[:32],
      hashlib.scrypt(b"pw", salt=b"s", n=16, r=8, p=1, dklen=16).hex())
mac = hmac.new(b"key", data, hashlib.sha256)
print(mac.hexdigest(), hmac.compare_digest(mac.digest(), hmac.digest(b"key", data, "sha256")))
print(base64.b64encode(data), base64.urlsafe_b64encode(b"\xff\xfe"), base64.b64decode("aGk="),
      base64.b32encode(b"hi"), base64.b16encode(b"hi"))
print(base64.a85encode(b"hi"), binascii.hexlify(b"\x01\xff"), binascii.crc32(data),
      zlib.adler32(data), bytes.fromhex("0aff"))
with open("blob.bin", "wb") as handle:
    handle.write(data * 1000)
with open("blob.bin", "rb") as handle:
    print(hashlib.file_digest(handle, "sha256").hexdigest())
