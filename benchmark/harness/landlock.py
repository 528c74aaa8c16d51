"""Landlock through its three system calls (ctypes; grader-free, run in the child before any submission code).

``restrict(reads, execs, writes)`` allows reading beneath ``reads``, executing beneath
``execs`` and everything beneath ``writes``; all other file access handled by the kernel's
ABI is denied. Where the ABI has them, TCP bind/connect are denied too (``deny_tcp``) and
signals and abstract unix sockets are scoped to the sandbox.
"""

from __future__ import annotations

import ctypes
import os
import struct

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
TRUNCATE, IOCTL_DEV, REFER = 1 << 14, 1 << 15, 1 << 13
FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX, SCOPE_SIGNAL = 1 << 0, 1 << 1

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def abi_version() -> int:
    """The kernel's Landlock ABI version, or -1 when Landlock is unavailable."""
    return int(_libc.syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), CREATE_RULESET_VERSION))


def fs_rights(abi: int) -> int:
    rights = (1 << 13) - 1  # ABI 1: bits 0..12
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"landlock {what}: {os.strerror(err)}")
    return result


def _ruleset(abi: int, deny_tcp: bool) -> int:
    handled_net = (NET_BIND_TCP | NET_CONNECT_TCP) if deny_tcp and abi >= 4 else 0
    scoped = (SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL) if abi >= 6 else 0
    attr = struct.pack("=QQQ", fs_rights(abi), handled_net, scoped)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    buf = ctypes.create_string_buffer(attr[:size], size)
    return _check(_libc.syscall(SYS_CREATE_RULESET, buf, ctypes.c_size_t(size), 0), "create_ruleset")


def _allow(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path that does not exist needs no rule
    try:
        if not os.path.isdir(path):
            rights &= FILE_ONLY
        attr = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
        _check(_libc.syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, attr, 0), f"add_rule {path}")
    finally:
        os.close(fd)


def restrict(reads, execs, writes, *, deny_tcp: bool = True) -> None:
    abi = abi_version()
    if abi < 1:
        raise OSError("Landlock is not available")
    ruleset = _ruleset(abi, deny_tcp)
    everything = fs_rights(abi)
    for path in reads:
        _allow(ruleset, path, READ_FILE | READ_DIR | (WRITE_FILE if path == "/dev/null" else 0))
    for path in execs:
        _allow(ruleset, path, EXECUTE | READ_FILE | READ_DIR)
    for path in writes:
        _allow(ruleset, path, everything)
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    _check(_libc.syscall(SYS_RESTRICT_SELF, ruleset, 0), "restrict_self")
    os.close(ruleset)
