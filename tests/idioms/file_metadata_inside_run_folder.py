import os
import shutil
import stat

with open("owned.txt", "w") as handle:
    handle.write("x")
os.chown("owned.txt", os.getuid(), os.getgid())
shutil.chown("owned.txt", user=os.getuid(), group=os.getgid())
os.lchown("owned.txt", -1, -1)
print(os.stat("owned.txt").st_uid == os.getuid())
try:
    os.setxattr("owned.txt", "user.origin", b"idiom")
    print(os.getxattr("owned.txt", "user.origin"), os.listxattr("owned.txt"))
    os.removexattr("owned.txt", "user.origin")
    print(os.listxattr("owned.txt"))
except OSError as exc:  # a file system without user attributes: the same answer both sides
    print("no user xattrs:", exc.errno)
os.mkfifo("pipe.fifo", 0o600)
print(stat.S_ISFIFO(os.stat("pipe.fifo").st_mode), oct(stat.S_IMODE(os.stat("pipe.fifo").st_mode)))
os.mknod("node.txt", stat.S_IFREG | 0o640)
print(stat.S_ISREG(os.stat("node.txt").st_mode), os.path.getsize("node.txt"))
reader = os.open("pipe.fifo", os.O_RDONLY | os.O_NONBLOCK)
writer = os.open("pipe.fifo", os.O_WRONLY)
os.write(writer, b"through a fifo")
print(os.read(reader, 100))
os.close(writer)
os.close(reader)
print(sorted(os.listdir(".")), os.access("owned.txt", os.R_OK | os.W_OK), os.access("missing", os.F_OK))
