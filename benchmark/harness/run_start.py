"""How the zygote starts one run's process (runs INSIDE the zygote, then in the forked child
before any submission code; ctypes and the standard library only, loaded by path like the
other harness modules): ``_clone`` forks straight into new namespaces, ``_child_main`` makes
the forked child what ``python -I -B child.py`` was (session, descriptors 0-3, folder,
environment, limits), confines it and hands it to ``child.serve``.

The zygote loads this module once, after ``child.py`` and ``confine.py``: the two it takes
through the loader are the zygote's own copies, every binding made here at load.
"""

import ctypes
import os
import signal
import sys
import tempfile

from _rubricbench_loader import load_by_path

HERE = os.path.dirname(os.path.abspath(__file__))
_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1
CHANNEL_FD = 3
child, confine = load_by_path("child"), load_by_path("confine")

_pydll = ctypes.PyDLL(None, use_errno=True)  # keeps the GIL through the call, as os.fork does
_pydll.syscall.restype = ctypes.c_long
for _hook in ("PyOS_BeforeFork", "PyOS_AfterFork_Parent", "PyOS_AfterFork_Child"):
    getattr(_pydll, _hook).restype = None
SYS_CLONE = {"x86_64": 56, "aarch64": 220}.get(os.uname().machine)
IDS = (os.getuid(), os.getgid())


def _clone(flags):
    """``os.fork`` into new namespaces (``flags``): the raw clone system call between
    Python's own before/after-fork steps. The zygote is single-threaded, so no lock of the
    C library can be held across it. Returns 0 in the child, its pid in the parent."""
    _pydll.PyOS_BeforeFork()
    pid = _pydll.syscall(ctypes.c_long(SYS_CLONE), ctypes.c_ulong(flags | signal.SIGCHLD),
                         None, None, None, None)
    if pid == 0:
        _pydll.PyOS_AfterFork_Child()
        return 0
    err = ctypes.get_errno()
    _pydll.PyOS_AfterFork_Parent()
    if pid < 0:
        raise OSError(err, f"clone: {os.strerror(err)}")
    return pid


def _parent_pid():
    """The parent's pid as this process's /proc sees it (the outer namespace's): inside a
    new pid namespace ``getppid()`` is 0 whoever the parent is."""
    with open("/proc/self/stat", encoding="ascii") as handle:
        return int(handle.read().rsplit(")", 1)[1].split()[1])


def _child_main(message, fds, sockets, zygote_pid, cloned):
    """In the forked child: become what ``python -I -B child.py`` was, confine, serve.
    ``sockets``: the zygote's own (closed below with every other descriptor); ``cloned``:
    it was created in its namespaces already (see ``_clone``)."""
    try:
        # a run dies with its zygote (its pid 1, if any, already dies with it)
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if (_parent_pid() if cloned else os.getppid()) != zygote_pid:
            os._exit(72)  # the zygote died before the line above
        for sock in sockets:
            if sock is not None:
                sock.detach()
        out, err, channel = fds
        os.setsid()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        if channel != CHANNEL_FD:
            os.dup2(channel, CHANNEL_FD)
        os.closerange(CHANNEL_FD + 1, 65536)
        os.chdir(message["cwd"])
        os.environ.clear()
        os.environ.update(message["env"])
        tempfile.tempdir = None
        sys.argv = [os.path.join(HERE, "child.py"), message["request"]]
        confine.apply_limits({int(k): v for k, v in message["limits"].items()})
        if message["policy"]:
            confine.apply(message["policy"], IDS if cloned else None)
    except BaseException as exc:  # report and die; the grader sees no result record
        os.write(2, f"sandbox set-up failed: {type(exc).__name__}: {exc}\n".encode()[:2000])
        os._exit(71)
    try:  # serve never returns; an exception must not unwind into the zygote's own code here
        child.serve(message["request"], CHANNEL_FD)
    except BaseException:
        pass
    os._exit(70)
