"""In-child guard: an audit hook installed before the submission loads (runs INSIDE the child).

It denies, and reports at once on the harness's private pipe, network use, process creation,
native-library loading, heap walking, and file writes, deletions, renames and links outside
the sandbox; reads outside the allowed roots are denied and reported too. Ordinary code
(json, yaml, logging, dataclasses, pathlib, requests) is untouched. Audit hooks cannot be
removed; the kernel layer stands behind this one in any case.
"""

import os
import sys

from _json import encode_basestring_ascii as _quote

LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})
NETWORK_EVENTS = frozenset({
    "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo",
    "socket.gethostbyname", "socket.gethostbyaddr", "socket.getnameinfo",
})
PROCESS_EVENTS = frozenset({
    "rubricbench.fork_exec", "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
    "os.forkpty", "os.startfile", "os.kill", "os.killpg", "signal.pthread_kill",
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
MAX_REPORTS = 200


class Guard:
    def __init__(self, sandbox, read_roots, allow_network, report_fd):
        real = os.path.realpath
        self.write_roots = (real(sandbox), "/dev/null")
        self.read_roots = tuple(real(p) for p in read_roots) + self.write_roots
        self.allow_network = allow_network
        self.report_fd = report_fd
        self.reports = 0
        self.busy = False
        self.realpath = real
        self.write = os.write
        self.pid = os.getpid()

    def _inside(self, path, roots):
        if isinstance(path, bytes):
            path = path.decode("utf-8", "surrogateescape")
        if not isinstance(path, str):
            return True  # a file descriptor: already open
        full = self.realpath(path)
        return any(full == root or full.startswith(root.rstrip("/") + "/") for root in roots)

    def _report(self, kind, event, detail):
        if self.reports < MAX_REPORTS:
            self.reports += 1
            line = ('{"blocked": ' + _quote(kind) + ', "event": ' + _quote(event) +
                    ', "detail": ' + _quote(detail[:300]) + "}\n")
            try:
                self.write(self.report_fd, line.encode("ascii"))
            except OSError:
                pass
        raise PermissionError(f"RubricBench sandbox: {event} denied ({kind})")

    def _harmless_bind(self, args):
        """Binding to loopback (urllib3 probes IPv6 that way at import) reaches nothing."""
        address = args[1] if len(args) > 1 else None
        if isinstance(address, tuple) and address and address[0] in LOOPBACK:
            return True
        return isinstance(address, (str, bytes)) and self._inside(address, self.write_roots)

    def _open(self, args):
        path, mode, flags = (tuple(args) + (None, None, None))[:3]
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
            (isinstance(flags, int) and flags & WRITE_FLAGS)
        if writing and not self._inside(path, self.write_roots):
            self._report("filesystem", "open", f"write {path!r}")
        if not writing and not self._inside(path, self.read_roots):
            self._report("filesystem", "open", f"read {path!r}")

    def __call__(self, event, args):
        if self.busy:
            return
        self.busy = True
        try:
            self._check(event, args)
        finally:
            self.busy = False

    def _check(self, event, args):
        if event == "open":
            self._open(args)
        elif event in PATH_EVENTS:
            for index in PATH_EVENTS[event]:
                if index < len(args) and not self._inside(args[index], self.write_roots):
                    self._report("filesystem", event, repr(args[index]))
        elif event == "socket.bind" and self._harmless_bind(args):
            return
        elif event in NETWORK_EVENTS and not self.allow_network:
            self._report("network", event, repr(args[1:] if event.startswith("socket.c") else args))
        elif event in PROCESS_EVENTS:
            if event in ("os.kill", "os.killpg") and args and args[0] in (0, self.pid):
                return
            self._report("process", event, repr(args)[:200])
        elif event in NATIVE_EVENTS:
            self._report("native", event, repr(args)[:200])
        elif event in HEAP_EVENTS:
            self._report("introspection", event, "")


def _fork_exec(*args, **kwargs):
    """Stands in for _posixsubprocess.fork_exec, which raises no audit event of its own
    (multiprocessing's spawn and forkserver call it directly)."""
    sys.audit("rubricbench.fork_exec", repr(args[0])[:200] if args else "")
    raise PermissionError("RubricBench sandbox: process creation denied")


def install(sandbox, read_roots, allow_network, report_fd):
    sys.addaudithook(Guard(sandbox, read_roots, allow_network, report_fd))
    import _posixsubprocess

    _posixsubprocess.fork_exec = _fork_exec
