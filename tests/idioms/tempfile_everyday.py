import os
import tempfile

base = tempfile.gettempdir()
print(os.path.isabs(base), os.path.isdir(base), os.access(base, os.W_OK))
with tempfile.TemporaryDirectory(prefix="job-") as folder:
    path = os.path.join(folder, "out.txt")
    with open(path, "w") as handle:
        handle.write("data")
    print(os.path.basename(folder).startswith("job-"), os.listdir(folder), os.path.dirname(folder) == base)
print(os.path.exists(folder))
with tempfile.NamedTemporaryFile("w+", suffix=".csv", delete=True) as named:
    named.write("a,b\n")
    named.flush()
    named.seek(0)
    print(named.name.endswith(".csv"), named.read(), os.path.exists(named.name))
named_kept = tempfile.NamedTemporaryFile(delete=False)
named_kept.write(b"kept")
named_kept.close()
print(open(named_kept.name, "rb").read())
os.unlink(named_kept.name)
fd, raw_path = tempfile.mkstemp(suffix=".bin", dir=".")
os.write(fd, b"\x00\x01")
os.close(fd)
print(os.path.getsize(raw_path), oct(os.stat(raw_path).st_mode & 0o777))
os.remove(raw_path)
made = tempfile.mkdtemp()
os.rmdir(made)
with tempfile.SpooledTemporaryFile(max_size=10, mode="w+") as spooled:
    spooled.write("small")
    print(spooled._rolled)
    spooled.write("x" * 100)
    print(spooled._rolled, (spooled.seek(0), spooled.read(5))[1])
with tempfile.TemporaryFile() as anonymous:
    anonymous.write(b"anonymous")
    anonymous.seek(0)
    print(anonymous.read())
with tempfile.TemporaryDirectory(dir=".") as local:
    print(os.path.dirname(os.path.abspath(local)) == os.getcwd())
