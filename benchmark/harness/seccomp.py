"""A seccomp deny list, as a classic BPF program installed with prctl (x86_64 and aarch64).

Used twice: by the kernel layer before the harness starts (``confine.apply``, or before exec
for ``run_python_sandboxed``) and by the harness worker just before the submission loads
(``no_new_processes=True``); this file imports nothing from the grader so the child can load
it by path. Both filters are part of the kernel layer: the worker installs the second one
whether or not the audit-hook guard is on.

Denied with EPERM:
- namespace and mount control, tracing other processes, kernel modules, kexec, bpf, perf
  events, keyrings, userfaultfd, handle-based opens, reboot, swap, accounting, fanotify;
- io_uring (its operations, socket and connect among them, bypass every filter here), SysV
  IPC (shared memory, semaphores, message queues) and POSIX message queues, and taking
  another process's descriptors;
- every socket family but IPv4 and IPv6 (unix, netlink, packet, vsock, ...: a named unix
  socket is reachable through the filesystem from any network namespace), and socket pairs of
  any type but ``SOCK_STREAM`` (a connected stream pair cannot ``sendto`` a named socket);
- on x86_64, system calls of the x32 ABI (numbers with bit 30 set), which would otherwise
  dodge the numbers listed here; any architecture but the machine's own (a 32-bit ABI).
The two tables differ only in numbers (aarch64 uses the generic table: no fork or vfork, the
same numbers from 424 on); ``arch()`` picks the machine's, and none elsewhere.
``clone`` with any namespace flag is denied; ``clone3`` answers ENOSYS (its flags cannot be
inspected, and the C library then falls back to ``clone``). With ``no_new_processes``, also
fork, vfork, execve, execveat and any ``clone`` that does not create a thread; with
``pinned_fd`` (the worker's report pipe), dup2/dup3 onto that descriptor, its close, a
close_range over it and making it non-blocking (fcntl F_SETFL, ioctl FIONBIO), so the guard's
reports cannot be sent elsewhere or dropped; with ``own_pid``, changing another process's
scheduling, affinity, priority or limits (the supervisor's: it must read those reports).
"""

import ctypes
import errno
import os
import platform
import struct

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
X32_SYSCALL_BIT = 0x40000000
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
LD_W_ABS, JEQ_K, JGT_K, JGE_K, JSET_K, RET_K = 0x20, 0x15, 0x25, 0x35, 0x45, 0x06
ALU_AND_K = 0x54
AF_INET, AF_INET6 = 2, 10
SOCK_STREAM, SOCK_TYPE_MASK = 1, 0xF  # the type without SOCK_NONBLOCK and SOCK_CLOEXEC
NAMESPACE_FLAGS = 0x7E020000  # CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET
CLONE_THREAD = 0x10000
# from 424 on (pidfd_send_signal), every architecture numbers system calls alike
UNIFIED = {
    "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
    "fspick": 433, "mount_setattr": 442, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "pidfd_getfd": 438, "process_madvise": 440,
}
DENIED_X86_64 = {
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "mount": 165,
    "umount2": 166, "unshare": 272, "setns": 308, "pivot_root": 155, "chroot": 161,
    "bpf": 321, "keyctl": 250, "add_key": 248, "request_key": 249, "perf_event_open": 298,
    "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313,
    "delete_module": 176, "reboot": 169, "swapon": 167, "swapoff": 168, "userfaultfd": 323,
    "open_by_handle_at": 304, "name_to_handle_at": 303, "acct": 163,
    "shmget": 29, "shmat": 30, "shmctl": 31, "shmdt": 67,
    "semget": 64, "semop": 65, "semctl": 66, "semtimedop": 220, "msgget": 68, "msgsnd": 69,
    "msgrcv": 70, "msgctl": 71,
    "fanotify_init": 300, "fanotify_mark": 301, "syslog": 103, "kcmp": 312, "mq_open": 240,
    "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243, "mq_notify": 244,
    "mq_getsetattr": 245, **UNIFIED,
}
DENIED_AARCH64 = {  # include/uapi/asm-generic/unistd.h
    "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "mount": 40,
    "umount2": 39, "unshare": 97, "setns": 268, "pivot_root": 41, "chroot": 51,
    "bpf": 280, "keyctl": 219, "add_key": 217, "request_key": 218, "perf_event_open": 241,
    "kexec_load": 104, "kexec_file_load": 294, "init_module": 105, "finit_module": 273,
    "delete_module": 106, "reboot": 142, "swapon": 224, "swapoff": 225, "userfaultfd": 282,
    "open_by_handle_at": 265, "name_to_handle_at": 264, "acct": 89,
    "shmget": 194, "shmat": 196, "shmctl": 195, "shmdt": 197,
    "semget": 190, "semop": 193, "semctl": 191, "semtimedop": 192, "msgget": 186, "msgsnd": 189,
    "msgrcv": 188, "msgctl": 187,
    "fanotify_init": 262, "fanotify_mark": 263, "syslog": 116, "kcmp": 272, "mq_open": 180,
    "mq_unlink": 181, "mq_timedsend": 182, "mq_timedreceive": 183, "mq_notify": 184,
    "mq_getsetattr": 185, **UNIFIED,
}


# The calls that could take a descriptor away from its holder: dup2/dup3 onto it (newfd), close
# of it, close_range over it (aarch64 has no dup2)
FD_CALLS_X86_64 = {"dup2": 33, "dup3": 292, "close": 3, "close_range": 436, "fcntl": 72, "ioctl": 16}
FD_CALLS_AARCH64 = {"dup2": None, "dup3": 24, "close": 57, "close_range": 436, "fcntl": 25, "ioctl": 29}
F_SETFL, FIONBIO = 4, 0x5421  # (the pinned descriptor's flags, O_NONBLOCK among them, stay as set)
# The calls that change another process's scheduling or limits: with ``own_pid`` (the
# worker's), allowed on 0 (the caller) and on that pid only, so the worker cannot starve or
# cripple the supervisor that reads its reports (setpriority: PRIO_PROCESS only)
TARGETED_X86_64 = {"sched_setparam": 142, "sched_setscheduler": 144, "sched_setaffinity": 203,
                   "sched_setattr": 314, "prlimit64": 302, "setpriority": 141}
TARGETED_AARCH64 = {"sched_setparam": 118, "sched_setscheduler": 119, "sched_setaffinity": 122,
                    "sched_setattr": 274, "prlimit64": 261, "setpriority": 140}


class Arch:
    """One architecture's numbers: its audit value, the deny list, the calls that start a
    program or a process (denied with ``no_new_processes``), clone, clone3, socket and
    socketpair, and whether it has an x32 ABI to shut out."""

    def __init__(self, audit, denied, process_calls, clone, clone3, socket, socketpair, x32, fd_calls,
                 targeted):
        self.audit, self.denied, self.process_calls = audit, denied, process_calls
        self.clone, self.clone3, self.socket, self.socketpair, self.x32 = clone, clone3, socket, socketpair, x32
        self.fd_calls, self.targeted = fd_calls, targeted


ARCHES = {
    "x86_64": Arch(0xC000003E, DENIED_X86_64, {"fork": 57, "vfork": 58, "execve": 59, "execveat": 322},
                   56, 435, 41, 53, True, FD_CALLS_X86_64, TARGETED_X86_64),
    "aarch64": Arch(0xC00000B7, DENIED_AARCH64, {"execve": 221, "execveat": 281},
                    220, 435, 198, 199, False, FD_CALLS_AARCH64, TARGETED_AARCH64),
}


def arch(machine=None):
    """The numbers for ``machine`` (default: this one), or None where there is no table."""
    return ARCHES.get(machine or platform.machine())


_libc = ctypes.CDLL(None, use_errno=True)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _insn(code, jt, jf, k):
    return struct.pack("=HBBI", code, jt, jf, k)


def _sockets(deny, table):
    """socket(): IPv4 and IPv6 only; socketpair(): SOCK_STREAM only (args at offset 16, 24).
    Each block leaves the system call number reloaded for the blocks after it."""
    return [
        _insn(JEQ_K, 0, 5, table.socket), _insn(LD_W_ABS, 0, 0, 16),
        _insn(JEQ_K, 2, 0, AF_INET), _insn(JEQ_K, 1, 0, AF_INET6),
        _insn(RET_K, 0, 0, deny), _insn(LD_W_ABS, 0, 0, 0),
        _insn(JEQ_K, 0, 5, table.socketpair), _insn(LD_W_ABS, 0, 0, 24),
        _insn(ALU_AND_K, 0, 0, SOCK_TYPE_MASK), _insn(JEQ_K, 1, 0, SOCK_STREAM),
        _insn(RET_K, 0, 0, deny), _insn(LD_W_ABS, 0, 0, 0),
    ]


def _pinned(deny, table, fd):
    """Descriptor ``fd`` stays what it is: dup2/dup3 onto it, close of it and close_range over
    it are refused (each block leaves the system call number reloaded). Python's
    ``os.closerange`` falls back to closing one by one when close_range is refused, so it
    still closes every other descriptor of its range."""
    insns = []
    for name, offset in (("dup2", 24), ("dup3", 24), ("close", 16)):
        number = table.fd_calls[name]
        if number is not None:
            insns += [_insn(JEQ_K, 0, 3, number), _insn(LD_W_ABS, 0, 0, offset),
                      _insn(JEQ_K, 0, 1, fd), _insn(RET_K, 0, 0, deny), _insn(LD_W_ABS, 0, 0, 0)]
    insns += [_insn(JEQ_K, 0, 5, table.fd_calls["close_range"]), _insn(LD_W_ABS, 0, 0, 16),
              _insn(JGT_K, 3, 0, fd), _insn(LD_W_ABS, 0, 0, 24), _insn(JGE_K, 0, 1, fd),
              _insn(RET_K, 0, 0, deny), _insn(LD_W_ABS, 0, 0, 0)]
    for name, command in (("fcntl", F_SETFL), ("ioctl", FIONBIO)):  # its flags (O_NONBLOCK)
        insns += [_insn(JEQ_K, 0, 5, table.fd_calls[name]), _insn(LD_W_ABS, 0, 0, 16),
                  _insn(JEQ_K, 0, 3, fd), _insn(LD_W_ABS, 0, 0, 24), _insn(JEQ_K, 0, 1, command),
                  _insn(RET_K, 0, 0, deny), _insn(LD_W_ABS, 0, 0, 0)]
    return insns


def _own_only(deny, table, pid):
    """Scheduling and limits of the caller only (0 or ``pid``); setpriority of PRIO_PROCESS only."""
    insns = []
    for name, number in table.targeted.items():
        if name == "setpriority":
            insns += [_insn(JEQ_K, 0, 6, number), _insn(LD_W_ABS, 0, 0, 16), _insn(JEQ_K, 0, 3, 0),
                      _insn(LD_W_ABS, 0, 0, 24), _insn(JEQ_K, 2, 0, 0), _insn(JEQ_K, 1, 0, pid),
                      _insn(RET_K, 0, 0, deny), _insn(LD_W_ABS, 0, 0, 0)]
        else:
            insns += [_insn(JEQ_K, 0, 4, number), _insn(LD_W_ABS, 0, 0, 16), _insn(JEQ_K, 2, 0, 0),
                      _insn(JEQ_K, 1, 0, pid), _insn(RET_K, 0, 0, deny), _insn(LD_W_ABS, 0, 0, 0)]
    return insns


def program(no_new_processes=False, machine=None, pinned_fd=None, own_pid=None):
    """The filter for ``machine`` (default: this one); KeyError where there is no table.
    With ``pinned_fd`` (the worker's report pipe), that descriptor cannot be replaced, closed
    or made non-blocking (``_pinned``); with ``own_pid``, no other process's scheduling or
    limits can be changed (``_own_only``)."""
    table = ARCHES[machine or platform.machine()]
    deny = RET_ERRNO | errno.EPERM
    insns = [_insn(LD_W_ABS, 0, 0, 4), _insn(JEQ_K, 1, 0, table.audit),
             _insn(RET_K, 0, 0, deny), _insn(LD_W_ABS, 0, 0, 0)]
    if table.x32:
        insns += [_insn(JGE_K, 0, 1, X32_SYSCALL_BIT), _insn(RET_K, 0, 0, deny)]
    numbers = set(table.denied.values())
    if no_new_processes:
        numbers |= set(table.process_calls.values())
    for number in sorted(numbers):
        insns += [_insn(JEQ_K, 0, 1, number), _insn(RET_K, 0, 0, deny)]
    insns += [_insn(JEQ_K, 0, 1, table.clone3), _insn(RET_K, 0, 0, RET_ERRNO | errno.ENOSYS)]
    insns += _sockets(deny, table)
    if pinned_fd is not None:
        insns += _pinned(deny, table, pinned_fd)
    if own_pid is not None:
        insns += _own_only(deny, table, own_pid)
    # clone: deny namespace flags; with no_new_processes, also anything but a new thread
    insns += [_insn(JEQ_K, 0, 5 if no_new_processes else 3, table.clone), _insn(LD_W_ABS, 0, 0, 16),
              _insn(JSET_K, 0, 1, NAMESPACE_FLAGS), _insn(RET_K, 0, 0, deny)]
    if no_new_processes:
        insns += [_insn(JSET_K, 1, 0, CLONE_THREAD), _insn(RET_K, 0, 0, deny)]
    insns.append(_insn(RET_K, 0, 0, RET_ALLOW))
    return b"".join(insns)


def supported():
    return arch() is not None


def install_deny_list(no_new_processes=False, pinned_fd=None, own_pid=None):
    if not supported():
        raise OSError(f"no seccomp filter is written for {platform.machine()} (x86_64 and aarch64 only)")
    code = program(no_new_processes, pinned_fd=pinned_fd, own_pid=own_pid)
    buf = ctypes.create_string_buffer(code, len(code))
    prog = _SockFprog(len(code) // 8, ctypes.cast(buf, ctypes.c_void_p))
    if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(NO_NEW_PRIVS)")
    if _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"seccomp: {os.strerror(err)}")


def probe():
    """Install the filter and check that denied calls are refused: unshare, io_uring_setup,
    shmget and a unix socket (run in a throw-away fork)."""
    install_deny_list()
    _libc.syscall.restype = ctypes.c_long
    table = arch()
    calls = {"unshare": (table.denied["unshare"], 0x10000000, 0, 0),
             "io_uring_setup": (table.denied["io_uring_setup"], 1, 0, 0),
             "shmget": (table.denied["shmget"], 0x52420001, 0, 0),  # never creates
             "socket(AF_UNIX)": (table.socket, 1, 1, 0)}
    for name, (number, *args) in calls.items():
        result = _libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) for a in args))
        if result >= 0 or ctypes.get_errno() != errno.EPERM:
            raise OSError(f"seccomp filter installed but {name} was not refused")
