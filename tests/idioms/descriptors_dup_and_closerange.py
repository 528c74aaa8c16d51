import errno
import os

# descriptors of one's own: dup, dup2 onto another of one's own, close, closerange
read_end, write_end = os.pipe()
copy = os.dup(write_end)
os.write(copy, b"via a dup\n")
spare_read, spare_write = os.pipe()
os.dup2(write_end, spare_write)  # spare_write now writes into the first pipe
os.write(spare_write, b"via dup2\n")
os.close(copy)
print(os.read(read_end, 100).decode().split())

opened = [os.open("file_%d.txt" % i, os.O_CREAT | os.O_WRONLY, 0o600) for i in range(3)]
mine = sorted([*opened, read_end, write_end, spare_read, spare_write])
os.closerange(mine[0], mine[-1] + 1)  # what a daemon or a test fixture does
closed = []
for fd in mine:
    try:
        os.fstat(fd)
        closed.append(False)
    except OSError as exc:
        closed.append(exc.errno == errno.EBADF)
print("all closed:", all(closed), len(closed))
fd = os.open("file_0.txt", os.O_RDONLY)
print("reopened:", os.read(fd, 10) == b"")
os.close(fd)
for i in range(3):
    os.remove("file_%d.txt" % i)
