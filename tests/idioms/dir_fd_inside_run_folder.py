import os
import stat

os.makedirs("box/inner")
folder = os.open("box", os.O_RDONLY | os.O_DIRECTORY)
try:
    fd = os.open("note.txt", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=folder)
    os.write(fd, b"via dir_fd")
    os.close(fd)
    print(open("box/note.txt").read(), os.stat("note.txt", dir_fd=folder).st_size)
    os.mkdir("made", dir_fd=folder)
    os.rename("note.txt", "made/moved.txt", src_dir_fd=folder, dst_dir_fd=folder)
    os.symlink("moved.txt", "made/link.txt", dir_fd=folder)
    os.chmod("made/moved.txt", 0o600, dir_fd=folder)
    print(sorted(os.listdir(folder)), os.readlink("made/link.txt", dir_fd=folder))
    print(oct(stat.S_IMODE(os.stat("made/moved.txt", dir_fd=folder).st_mode)),
          os.access("made", os.W_OK, dir_fd=folder))
    os.unlink("made/link.txt", dir_fd=folder)
    os.remove("made/moved.txt", dir_fd=folder)
    os.rmdir("made", dir_fd=folder)
    with os.scandir(folder) as entries:
        print(sorted(e.name for e in entries))
    inner = os.open("inner", os.O_RDONLY | os.O_DIRECTORY, dir_fd=folder)
    print(os.fstat(inner).st_mode & stat.S_IFDIR != 0)
    os.close(inner)
    print(sorted((os.path.basename(root), sorted(dirs)) for root, dirs, files, _fd in os.fwalk("box")))
    opener = lambda name, flags: os.open(name, flags, dir_fd=folder)  # noqa: E731
    with open("opened.txt", "w", opener=opener) as handle:
        handle.write("with an opener")
    print(open("box/opened.txt").read())
finally:
    os.close(folder)
cwd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
print(os.stat("box", dir_fd=cwd).st_nlink >= 2)
os.close(cwd)
