import pathlib
import shutil
import tempfile

base = pathlib.Path("work")
(base / "src" / "deep").mkdir(parents=True)
(base / "src" / "deep" / "data.txt").write_text("payload\n")
shutil.copyfile(base / "src" / "deep" / "data.txt", base / "copyfile.txt")
shutil.copy(base / "copyfile.txt", base / "copy.txt")
shutil.copy2(base / "copy.txt", base / "copy2.txt")
shutil.copymode(base / "copy.txt", base / "copy2.txt")
shutil.copystat(base / "copy.txt", base / "copy2.txt")
shutil.copytree(base / "src", base / "tree")
shutil.move(base / "copy2.txt", base / "tree" / "moved.txt")
archive = shutil.make_archive(str(base / "bundle"), "zip", root_dir=base / "tree")
shutil.unpack_archive(pathlib.Path(archive), base / "unpacked")
print(sorted(p.relative_to(base).as_posix() for p in base.rglob("*")))
shutil.rmtree(base / "tree")
with tempfile.TemporaryDirectory() as scratch:
    shutil.copyfile(base / "copy.txt", pathlib.Path(scratch) / "x.txt")
    print((pathlib.Path(scratch) / "x.txt").read_text(), end="")
shutil.rmtree(base)
print(base.exists())
