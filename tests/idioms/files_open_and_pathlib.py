import os
import pathlib

with open("notes.txt", "w", encoding="utf-8") as handle:
    handle.write("first line\n")
with open("notes.txt", "a", encoding="utf-8") as handle:
    print("second line", file=handle)
with open("notes.txt", encoding="utf-8") as handle:
    print([line.rstrip("\n") for line in handle])
with open("notes.txt", "r+") as handle:
    handle.seek(0)
    handle.write("FIRST")
print(open("notes.txt").read().splitlines()[0])
path = pathlib.Path("data") / "report.md"
path.parent.mkdir(exist_ok=True)
path.write_text("# Titre é\n", encoding="utf-8")
print(path.read_text(encoding="utf-8"), path.read_bytes(), path.stat().st_size, path.exists(), path.is_file())
path.with_suffix(".bak").write_bytes(b"\x00\xff")
print(path.suffix, path.stem, path.name, path.parent.name, path.with_name("x.txt").as_posix(),
      sorted(p.name for p in path.parent.iterdir()))
print(pathlib.Path("notes.txt").resolve() == pathlib.Path.cwd() / "notes.txt",
      os.path.abspath("notes.txt") == str(pathlib.Path("notes.txt").absolute()))
with open("default-encoding.txt", "w") as handle:
    handle.write("naïve café\n")
print(open("default-encoding.txt").read(), os.path.getsize("default-encoding.txt"))
try:
    open("missing.txt")
except FileNotFoundError as exc:
    print(type(exc).__name__, exc.errno, exc.filename)
try:
    with open("notes.txt", "x"):
        pass
except FileExistsError:
    print("exclusive create refused, as it should be")
with open("lines.txt", "w", newline="\n") as handle:
    handle.writelines(f"{i}\n" for i in range(3))
print(sum(1 for _ in open("lines.txt")), pathlib.Path("lines.txt").read_text().count("\n"))
pathlib.Path("notes.txt").touch()
pathlib.Path("empty.txt").touch()
print(pathlib.Path("empty.txt").stat().st_size, os.path.samefile("notes.txt", "./notes.txt"))
fd = os.open("raw.bin", os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
os.write(fd, b"raw bytes")
os.fsync(fd)
os.close(fd)
with open("raw.bin", "rb") as handle:
    print(handle.read(), os.fstat(handle.fileno()).st_size)
