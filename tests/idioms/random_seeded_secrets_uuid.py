import random
import secrets
import string
import uuid

rng = random.Random(42)
print(rng.random(), rng.randint(1, 100), rng.choice("abcdef"), rng.sample(range(100), 5))
items = list(range(10))
rng.shuffle(items)
print(items, rng.uniform(1, 2), rng.gauss(0, 1), rng.choices("xyz", weights=[1, 2, 3], k=5))
random.seed(7)
print(random.randrange(0, 100, 5), random.getrandbits(16), [random.random() for _ in range(2)])
token = secrets.token_hex(16)
print(len(token), all(c in string.hexdigits for c in token), len(secrets.token_bytes(8)),
      len(secrets.token_urlsafe(16)) > 16)
print(0 <= secrets.randbelow(10) < 10, secrets.compare_digest("abc", "abc"), secrets.choice("a") == "a")
u = uuid.uuid4()
print(u.version, len(str(u)), uuid.UUID(str(u)) == u,
      uuid.uuid5(uuid.NAMESPACE_DNS, "example.org"), uuid.uuid3(uuid.NAMESPACE_URL, "x"))
print(uuid.UUID("12345678123456781234567812345678").hex, uuid.UUID(int=1).urn, uuid.uuid1().version)
