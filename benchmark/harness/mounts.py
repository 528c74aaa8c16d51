"""A private filesystem root for one sandboxed run (ctypes; grader-free, runs in the child).

``private_root(sandbox, reads, size_mb)`` is called in a new user and mount namespace, before
Landlock. Afterwards the process's ``/`` is a small read-only tmpfs that holds only:

- each of ``reads`` (the interpreter, system libraries, the harness), bind-mounted read-only
  at its own path (a symbolic link among them is re-created as the same link);
- ``sandbox`` at its own path: a fresh tmpfs of ``size_mb`` MB holding a copy of what the
  grader staged there, the only writable place for files. Disk use is capped by the kernel,
  and the files vanish with the run's last process;
- ``/dev/shm``: a tmpfs of the run's own (``SHM_OPTIONS``: 1 MB, 256 inodes, no exec), where
  the C library makes POSIX named semaphores (``multiprocessing``'s locks, queues and
  ``multiprocessing.pool.ThreadPool`` make one each, and remove its name at once). The
  machine's ``/dev/shm`` is not in the root at all; Landlock lets the run write to this one
  (``confine.apply``). Where the sandbox's path lies under ``/dev/shm``, its folder is made in
  this tmpfs and the sandbox mounted over it.

Nothing else of the host's filesystem can be named: named unix sockets, other models, the
grader, answer keys and results are not in this root at all, whatever system call (or
io_uring operation) tries to reach them. The old root is detached. The working folder is
re-entered by its path, so every path the grader sent stays valid.
"""

import ctypes
import os
import stat

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
MNT_DETACH = 2
# statvfs's f_flag bits -> the mount flags a remount must keep (the kernel locks them)
KEPT_FLAGS = ((os.ST_RDONLY, MS_RDONLY), (os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV),
              (os.ST_NOEXEC, MS_NOEXEC), (os.ST_NOATIME, MS_NOATIME),
              (os.ST_NODIRATIME, MS_NODIRATIME), (os.ST_RELATIME, MS_RELATIME))
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(os.uname().machine)
SKELETON_OPTIONS = b"size=1m,nr_inodes=4096,mode=0755"
SHM, SHM_MB = "/dev/shm", 1
SHM_OPTIONS = f"size={SHM_MB}m,nr_inodes=256,mode=1777".encode()
SANDBOX_INODES = 16384

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong,
                        ctypes.c_char_p]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.syscall.restype = ctypes.c_long


def _mount(source, target, fstype, flags, data=None):
    if _libc.mount(source, os.fsencode(target), fstype, flags, data) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {target}: {os.strerror(err)}")


def _kept_flags(path):
    found = os.statvfs(path).f_flag
    return sum(mount_flag for st_flag, mount_flag in KEPT_FLAGS if found & st_flag)


def _place(root, path):
    """Make ``path`` of the host appear at the same path under ``root``, read-only."""
    target = root + path
    os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
    if os.path.lexists(target):
        return
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        os.symlink(os.readlink(path), target)
        return
    if stat.S_ISDIR(info.st_mode):
        os.mkdir(target, 0o755)
    else:
        os.close(os.open(target, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o644))
    _mount(os.fsencode(path), target, None, MS_BIND | MS_REC)
    _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | _kept_flags(path))


def _copy_tree(source_fd, target):
    """Copy the staged tree (regular files and folders only; nothing is followed)."""
    todo = [(source_fd, target)]
    while todo:
        fd, folder = todo.pop()
        for entry in os.scandir(fd):
            inner = folder + "/" + entry.name
            if entry.is_dir(follow_symlinks=False):
                os.mkdir(inner, 0o700)
                todo.append((os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                                     | os.O_CLOEXEC, dir_fd=fd), inner))
            elif entry.is_file(follow_symlinks=False):
                _copy_file(fd, entry.name, inner)
        if fd != source_fd:
            os.close(fd)


def _copy_file(dir_fd, name, target):
    source = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        out = os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_CLOEXEC, 0o600)
        try:
            while chunk := os.read(source, 1 << 16):
                while chunk:
                    chunk = chunk[os.write(out, chunk):]
        finally:
            os.close(out)
    finally:
        os.close(source)


def _pivot(root):
    """Make ``root`` the process's ``/`` and detach the old root (pivot_root(".", "."))."""
    os.chdir(root)
    if _libc.syscall(ctypes.c_long(SYS_PIVOT_ROOT), b".", b".") != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"pivot_root: {os.strerror(err)}")
    if _libc.umount2(b".", MNT_DETACH) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"detach the old root: {os.strerror(err)}")
    os.chdir("/")


def private_root(sandbox, reads, size_mb):
    """See the module docstring. ``sandbox`` and ``reads`` are absolute paths."""
    if SYS_PIVOT_ROOT is None:
        raise OSError(f"pivot_root: unknown on {os.uname().machine}")
    cwd = os.getcwd()
    staged = os.open(sandbox, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        _mount(None, "/", None, MS_REC | MS_PRIVATE)
        # the skeleton is mounted over the sandbox folder itself: any folder would do, and
        # this one is ours; the staged files stay reachable through ``staged``
        _mount(b"rubricbench-root", sandbox, b"tmpfs", MS_NOSUID | MS_NODEV, SKELETON_OPTIONS)
        os.makedirs(sandbox + SHM, mode=0o755)  # first: anything placed beneath it lands in it
        _mount(b"rubricbench-shm", sandbox + SHM, b"tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
               SHM_OPTIONS)
        for path in sorted(set(reads)):  # a folder before what lies beneath it
            if path != sandbox and os.path.lexists(path):
                _place(sandbox, path)
        inner = sandbox + sandbox
        os.makedirs(inner, mode=0o755)
        options = f"size={int(size_mb)}m,nr_inodes={SANDBOX_INODES},mode=0700".encode()
        _mount(b"rubricbench-sandbox", inner, b"tmpfs", MS_NOSUID | MS_NODEV, options)
        _copy_tree(staged, inner)
    finally:
        os.close(staged)
    _pivot(sandbox)
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir(cwd)
