"""The seccomp deny list as a program, for every architecture it has numbers for, run on a
small classic-BPF interpreter here: the machine's own filter is also tested in the kernel
(tests/test_kernel_layer.py), the others only this way."""

from __future__ import annotations

import errno
import struct

import pytest

from benchmark.harness import seccomp

CLONE_NEWNET, CLONE_THREAD_FLAGS = 0x40000000, 0x003D0F00  # the flags pthread_create passes
SOCK_DGRAM, SOCK_CLOEXEC, AF_UNIX, AF_NETLINK = 2, 0x80000, 1, 16
EPERM = seccomp.RET_ERRNO | errno.EPERM
ENOSYS = seccomp.RET_ERRNO | errno.ENOSYS
ALLOWED = {  # read, write, openat, getpid
    "x86_64": (0, 1, 257, 39),
    "aarch64": (63, 64, 56, 172),
}


def run(code: bytes, nr: int, audit: int, *args: int) -> int:
    """What the filter returns for a call (seccomp_data: nr, arch, ip, six 64-bit args)."""
    data = struct.pack("<iIQ6Q", nr, audit, 0, *(list(args) + [0] * (6 - len(args))))
    insns = [struct.unpack("=HBBI", code[i:i + 8]) for i in range(0, len(code), 8)]
    pc, acc = 0, 0
    while True:
        op, jt, jf, k = insns[pc]
        pc += 1
        if op == seccomp.LD_W_ABS:
            acc = struct.unpack_from("<I", data, k)[0]
        elif op == seccomp.ALU_AND_K:
            acc &= k
        elif op == seccomp.RET_K:
            return k
        elif op in (seccomp.JEQ_K, seccomp.JGT_K, seccomp.JGE_K, seccomp.JSET_K):
            taken = {seccomp.JEQ_K: acc == k, seccomp.JGT_K: acc > k, seccomp.JGE_K: acc >= k,
                     seccomp.JSET_K: bool(acc & k)}[op]
            pc += jt if taken else jf
        else:
            raise AssertionError(f"opcode {op:#x} not expected in the filter")


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHES))
@pytest.mark.parametrize("no_new_processes", [False, True])
def test_every_architecture_denies_its_list_and_allows_the_rest(machine, no_new_processes):
    table = seccomp.arch(machine)
    code = seccomp.program(no_new_processes, machine)
    call = lambda nr, *args: run(code, nr, table.audit, *args)  # noqa: E731
    assert {name: call(nr) for name, nr in table.denied.items()} == dict.fromkeys(table.denied, EPERM)
    assert [call(nr) for nr in ALLOWED[machine]] == [seccomp.RET_ALLOW] * 4
    assert run(code, ALLOWED[machine][0], 0x40000028) == EPERM  # another ABI (32-bit arm)
    assert call(table.clone3) == ENOSYS
    assert call(table.socket, AF_UNIX, 1) == call(table.socket, AF_NETLINK, 3) == EPERM
    assert call(table.socket, seccomp.AF_INET, 1) == call(table.socket, seccomp.AF_INET6, 2) == seccomp.RET_ALLOW
    assert call(table.socketpair, AF_UNIX, SOCK_DGRAM) == EPERM
    assert call(table.socketpair, AF_UNIX, seccomp.SOCK_STREAM | SOCK_CLOEXEC) == seccomp.RET_ALLOW
    assert call(table.clone, CLONE_NEWNET) == EPERM
    assert call(table.clone, CLONE_THREAD_FLAGS) == seccomp.RET_ALLOW  # a new thread
    new_process = [call(nr) for nr in table.process_calls.values()] + [call(table.clone, 17)]  # fork = clone(SIGCHLD)
    assert new_process == [EPERM if no_new_processes else seccomp.RET_ALLOW] * len(new_process)
    if table.x32:
        assert call(seccomp.X32_SYSCALL_BIT | ALLOWED[machine][0]) == EPERM


def test_the_tables_name_the_same_calls_and_agree_from_424_on():
    x86, arm = seccomp.arch("x86_64"), seccomp.arch("aarch64")
    assert set(x86.denied) == set(arm.denied)
    assert {name: nr for name, nr in x86.denied.items() if nr >= 424} == \
        {name: nr for name, nr in arm.denied.items() if nr >= 424}
    assert seccomp.arch("riscv64") is None
    with pytest.raises(KeyError):
        seccomp.program(False, "riscv64")


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHES))
def test_a_pinned_descriptor_cannot_be_replaced_or_closed_and_every_other_one_can(machine):
    """The worker's report pipe (``pinned_fd``): dup2/dup3 onto it, close of it and a
    close_range covering it are refused; the same calls on any other descriptor, and a
    close_range that stops short of it or starts past it, are allowed."""
    table, fd = seccomp.arch(machine), 5
    code = seccomp.program(True, machine, pinned_fd=fd)
    call = lambda nr, *args: run(code, nr, table.audit, *args)  # noqa: E731
    calls = table.fd_calls
    onto = [call(calls[name], 9, target, 0) for name in ("dup2", "dup3") if calls[name] is not None
            for target in (fd, fd + (1 << 32))]
    assert onto == [EPERM] * len(onto)
    assert call(calls["close"], fd) == EPERM
    assert [call(calls["close_range"], first, last) for first, last in ((3, 255), (5, 5), (0, 5), (5, 9))] == [EPERM] * 4
    others = [call(calls[name], 9, 6, 0) for name in ("dup2", "dup3") if calls[name] is not None]
    assert others == [seccomp.RET_ALLOW] * len(others)
    assert call(calls["close"], 6) == call(calls["close"], 4) == seccomp.RET_ALLOW
    assert [call(calls["close_range"], first, last) for first, last in ((6, 255), (0, 4))] == [seccomp.RET_ALLOW] * 2
    assert seccomp.program(True, machine).count(struct.pack("=HBBI", seccomp.JGT_K, 3, 0, fd)) == 0


@pytest.mark.parametrize("machine", sorted(seccomp.ARCHES))
def test_the_pinned_descriptor_stays_blocking_and_only_the_callers_scheduling_can_change(machine):
    """fcntl(F_SETFL) and ioctl(FIONBIO) on the pinned descriptor are refused (not on others, and
    other commands on it are allowed); the scheduling, affinity, priority and limits calls are
    allowed on 0 and the worker's own pid only (setpriority: PRIO_PROCESS only)."""
    table, fd, pid = seccomp.arch(machine), 5, 2
    code = seccomp.program(True, machine, pinned_fd=fd, own_pid=pid)
    call = lambda nr, *args: run(code, nr, table.audit, *args)  # noqa: E731
    fcntl, ioctl = table.fd_calls["fcntl"], table.fd_calls["ioctl"]
    assert call(fcntl, fd, seccomp.F_SETFL, 0x800) == call(ioctl, fd, seccomp.FIONBIO) == EPERM
    assert call(fcntl, fd, 3) == call(fcntl, 6, seccomp.F_SETFL, 0x800) == call(ioctl, 6, seccomp.FIONBIO) \
        == seccomp.RET_ALLOW
    for name, number in table.targeted.items():
        if name == "setpriority":
            assert call(number, 0, 0, 5) == call(number, 0, pid, 5) == seccomp.RET_ALLOW, name
            assert call(number, 0, 1, 5) == call(number, 2, 0, 5) == call(number, 1, 0, 5) == EPERM, name
        else:
            assert call(number, 0) == call(number, pid) == seccomp.RET_ALLOW, name
            assert call(number, 1) == call(number, 7) == EPERM, name
