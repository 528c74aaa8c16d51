"""In-child guard: an audit hook installed before the submission loads (runs INSIDE the child).

It denies, and reports at once on the harness's private pipe, network use (connecting a
unix-domain socket included; creating one is refused by the seccomp layer), process creation,
native-library loading, heap walking, and file writes, deletions, renames and links outside
the sandbox; reads outside the allowed roots are denied and reported too. Ordinary code
(json, yaml, logging, dataclasses, pathlib, requests) is untouched.

The hook is one function whose whole policy is bound as default arguments: immutable
tuples and the callables it uses. It keeps no object, flag or counter a submission could
reach from a traceback and change, and looks nothing up in globals or builtins at call
time. Audit hooks cannot be removed; the kernel layer stands behind this one in any case.
"""

import os
import sys

from _json import encode_basestring_ascii as _quote

LOOPBACK = ("127.0.0.1", "::1", "localhost")
NETWORK_EVENTS = frozenset({
    "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo",
    "socket.gethostbyname", "socket.gethostbyaddr", "socket.getnameinfo",
})
PROCESS_EVENTS = frozenset({
    "rubricbench.fork_exec", "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn",
    "os.spawn", "os.fork", "os.forkpty", "os.startfile", "os.kill", "os.killpg",
    "signal.pthread_kill",
})
NATIVE_EVENTS = frozenset({"ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle",
                           "ctypes.call_function", "ctypes.addressof"})
HEAP_EVENTS = frozenset({"gc.get_objects", "gc.get_referrers", "gc.get_referents"})
PATH_EVENTS = {  # event -> indexes of the path arguments that are written
    "os.remove": (0,), "os.rmdir": (0,), "os.mkdir": (0,), "os.rename": (0, 1),
    "os.symlink": (1,), "os.link": (0, 1), "os.chmod": (0,), "os.chown": (0,),
    "os.truncate": (0,), "os.utime": (0,), "os.setxattr": (0,), "os.removexattr": (0,),
    "os.mkfifo": (0,), "os.mknod": (0,), "shutil.rmtree": (0,), "shutil.copyfile": (1,),
    "shutil.copymode": (1,), "shutil.copystat": (1,), "shutil.move": (0, 1),
    "shutil.unpack_archive": (1,),
}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _make_hook(write_roots, read_roots, allow_network, report_fd, pid):
    def inside(path, roots, realpath=os.path.realpath, fsdecode=os.fsdecode,
               isinstance=isinstance, str=str, bytes=bytes, any=any):
        if not isinstance(path, (str, bytes)):
            return True  # a file descriptor: already open
        full = realpath(fsdecode(path))
        return any(full == root or full.startswith(root + "/") for root in roots)

    def deny(kind, event, detail, write=os.write, quote=_quote, error=PermissionError, str=str):
        line = ('{"blocked": ' + quote(kind) + ', "event": ' + quote(event) +
                ', "detail": ' + quote(str(detail)[:300]) + "}\n")
        try:
            write(report_fd, line.encode("ascii"))
        except OSError:
            pass
        raise error(f"RubricBench sandbox: {event} denied ({kind})")

    def hook(event, args, inside=inside, deny=deny, write_roots=write_roots,
             read_roots=read_roots, allow_network=allow_network, pid=pid,
             network=NETWORK_EVENTS, process=PROCESS_EVENTS, native=NATIVE_EVENTS,
             heap=HEAP_EVENTS, path_events=PATH_EVENTS, write_flags=WRITE_FLAGS,
             loopback=LOOPBACK, isinstance=isinstance, len=len, repr=repr, tuple=tuple,
             str=str, int=int, any=any):
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
                (isinstance(flags, int) and flags & write_flags)
            if writing and not inside(path, write_roots):
                deny("filesystem", event, f"write {path!r}")
            if not writing and not inside(path, read_roots):
                deny("filesystem", event, f"read {path!r}")
        elif event in path_events:
            for index in path_events[event]:
                if index < len(args) and not inside(args[index], write_roots):
                    deny("filesystem", event, repr(args[index]))
        elif event == "socket.bind":
            address = args[1] if len(args) > 1 else None
            harmless = (isinstance(address, tuple) and address and address[0] in loopback) or \
                (isinstance(address, (str, bytes)) and inside(address, write_roots))
            if not harmless and not allow_network:
                deny("network", event, repr(address))
        elif event in network and not allow_network:
            deny("network", event, repr(args[1:] if event.startswith("socket.c") else args))
        elif event in process:
            if event in ("os.kill", "os.killpg") and args and args[0] in (0, pid):
                return
            deny("process", event, repr(args)[:200])
        elif event in native:
            deny("native", event, repr(args)[:200])
        elif event in heap:
            deny("introspection", event, "")

    return hook


def _fork_exec(*args, **kwargs):
    """Stands in for _posixsubprocess.fork_exec, which raises no audit event of its own
    (multiprocessing's spawn and forkserver call it directly)."""
    sys.audit("rubricbench.fork_exec", repr(args[0])[:200] if args else "")
    raise PermissionError("RubricBench sandbox: process creation denied")


def install(sandbox, read_roots, allow_network, report_fd):
    real = os.path.realpath
    write_roots = (real(sandbox).rstrip("/"), "/dev/null")
    reads = tuple(real(p).rstrip("/") for p in read_roots) + write_roots
    sys.addaudithook(_make_hook(write_roots, reads, bool(allow_network), report_fd, os.getpid()))
    import _posixsubprocess

    _posixsubprocess.fork_exec = _fork_exec
