import os
import pathlib
import shutil
import tarfile
import zipfile

src = pathlib.Path("project")
(src / "pkg").mkdir(parents=True)
(src / "pkg" / "mod.py").write_text("x = 1\n")
(src / "README").write_text("readme\n")
with zipfile.ZipFile("bundle.zip", "w", compression=zipfile.ZIP_DEFLATED) as archive:
    for path in sorted(src.rglob("*")):
        archive.write(path)
    archive.writestr("extra/note.txt", "note")
with zipfile.ZipFile("bundle.zip") as archive:
    print(archive.namelist(), archive.read("extra/note.txt"), archive.testzip())
    archive.extractall("unzipped")
print(sorted(str(p) for p in pathlib.Path("unzipped").rglob("*")))
with tarfile.open("bundle.tar.gz", "w:gz") as archive:
    archive.add("project", arcname="project")
with tarfile.open("bundle.tar.gz") as archive:
    print(sorted(archive.getnames()))
    archive.extractall("untarred", filter="data")
print(pathlib.Path("untarred/project/pkg/mod.py").read_text())
made = shutil.make_archive("made", "zip", root_dir="project")
print(os.path.basename(made), sorted(zipfile.ZipFile(made).namelist()))
shutil.unpack_archive("made.zip", "unpacked")
print(sorted(os.listdir("unpacked")), sorted(name for name, *_ in shutil.get_archive_formats())[:3])
with zipfile.ZipFile("bundle.zip", "a") as archive:
    with archive.open("appended.txt", "w") as handle:
        handle.write(b"more")
print(zipfile.is_zipfile("bundle.zip"), tarfile.is_tarfile("bundle.tar.gz"),
      len(zipfile.ZipFile("bundle.zip").infolist()))
