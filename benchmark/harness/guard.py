"""In-child guard: an audit hook installed before the submission loads (runs INSIDE the child).

It denies, and reports at once on the harness's private pipe, network use, process creation,
native-library loading (ctypes, and an extension module from anywhere but the interpreter's
and the installed libraries' folders), replacing the code or defaults of the guard's own
functions, and file writes, deletions, renames and links outside the sandbox (a SQLite database
too, which SQLite opens with no ``open`` event, and POSIX shared memory and a named
semaphore's removal, files in the machine's /dev/shm); reads and folder listings outside the allowed roots are denied and
reported too. C functions that raise no audit event of their own (``STAND_INS``) are replaced
in the worker by stand-ins that raise one, and a fresh copy of their module is refused;
``sqlite3.connect``, whose event carries its database as given, is wrapped to turn a path-like
(``pathlib.Path``) into its str first (``FSPATH_FIRST``), so the hook reads a str. A path
relative to a directory descriptor is relative to a folder the event does not name (``open``
from ``os.open`` does not even say whether it had one), so the guard also refuses what could
make such a path lead outside unseen: a descriptor of a folder outside the sandbox, ``..`` in a
path that may be relative to a descriptor, and a link whose target is outside the sandbox or
climbs out by ``..``. Ordinary code (json, yaml, logging, dataclasses, pathlib, requests) is
untouched. The guard adds depth and evidence: the kernel layer contains every attack on its
own.

Hardening, because the submission shares this process:
- the hook never lets an exception of its own escape: any input it does not expect (an
  argument of an unknown type, a path with a NUL byte, a path it cannot resolve) is denied
  and reported as such;
- it never calls code the submission could have defined (no ``repr``, ``str`` or
  ``__fspath__`` of a submission's object: only exact ``str``, ``bytes`` and ``int`` are read);
- everything it uses is bound as a default argument: immutable tuples, frozensets and
  strings (the tables of ``guard_events.py``, bound here when the guard loads) and built-in
  (C) functions, plus ``_resolve``, whose own defaults are the same kind. Neither looks
  anything up in globals or builtins, and no container it reads can be changed (a
  module-level name rebound afterwards, here or in ``guard_events``, is not what the hook
  holds), so a traceback that exposes the hook's frame exposes nothing that changes its
  behaviour; replacing either's ``__code__`` or defaults is itself an audited event, which
  the hook denies.
- each report is one write of ``"\\n" + record + "\\n"`` (at most ``RECORD_CAP`` bytes, under
  the pipe's atomic size): a partial line the submission writes to the same pipe cannot
  merge with it, and the supervisor counts any line that is not a record as a violation.
Audit hooks cannot be removed.
"""

import os
import stat
import sys

from _json import encode_basestring_ascii as _quote

try:
    from _rubricbench_loader import load_by_path  # child.py registers it before any harness module
except ImportError:  # imported as benchmark.harness.guard, or on its own from this folder
    if __package__:  # (tests/test_kernel_layer.py's probe): the loader is the same either way
        from .loader import load_by_path
    else:
        from loader import load_by_path

load_by_path("guard_events")  # the tables, by path under their private name: bound here, at load
from _rubricbench_guard_events import (  # noqa: E402,F401 (the report shape: the supervisor's)
    CHANGED_EVENT, CODE_ATTRIBUTES, DEFERRED_EVENTS, DETAIL_CAP, DIR_FD_EVENTS, EVENT_KINDS,
    EVENT_NAME_CAP, FSPATH_FIRST, LISTING_EVENTS, LOOPBACK, LOST_EVENT, MAX_EVENTS, MAX_LINKS,
    REPORT_DETAIL_CAP, NATIVE_EVENTS, NETWORK_EVENTS, NO_DIR_FD, PATH_EVENT_NAMES, PATH_EVENTS,
    PROCESS_EVENTS, RECORD_CAP, ADDRESSED_EVENTS, MAX_FRAMES, REPLACED_MODULES, SETATTR_EVENTS,
    SHARED_MEMORY_EVENTS, STAND_INS, WATCHED_EVENTS, WRITE_FLAGS)


def _resolve(path, cwd, lstat=os.lstat, readlink=os.readlink, is_link=stat.S_ISLNK,
             reversed=reversed, oserror=OSError, valueerror=ValueError, max_links=MAX_LINKS):
    """``os.path.realpath`` of an exact ``str`` from built-in calls only (a component that does
    not exist is kept as written); raises ValueError on a link loop."""
    if not path.startswith("/"):
        path = cwd + "/" + path
    todo = path.split("/")[::-1]
    parts = []
    links = 0
    while todo:
        part = todo.pop()
        if part == "" or part == ".":
            continue
        if part == "..":
            parts = parts[:-1]
            continue
        candidate = "/" + "/".join(parts + [part])
        try:
            linked = is_link(lstat(candidate).st_mode)
        except oserror:
            linked = False
        if not linked:
            parts.append(part)
            continue
        links += 1
        if links > max_links:
            raise valueerror("too many levels of symbolic links")
        target = readlink(candidate)
        if target.startswith("/"):
            parts = []
        todo.extend(reversed(target.split("/")))
    return "/" + "/".join(parts)


def _own_codes():
    """The code objects of the guard's own functions: the hook, ``_resolve`` and the stand-ins
    (the two inner ones are constants of the functions that make them). Called once, in
    ``install``, before any submission code runs."""
    inner = []
    for maker, name in ((_make_hook, "hook"), (_stand_in, "stand_in")):
        inner += [c for c in maker.__code__.co_consts if type(c) is type(_resolve.__code__)
                  and c.co_name == name]
    return (_resolve.__code__, *inner)


def _make_hook(write_roots, read_roots, allow_network, report_fd, pid, sources=()):
    own_codes = _own_codes()

    def hook(event, args, resolve=_resolve, write_roots=write_roots, read_roots=read_roots,
             allow_network=allow_network, report_fd=report_fd, pid=pid,
             network=NETWORK_EVENTS, process=PROCESS_EVENTS, native=NATIVE_EVENTS,
             guarded_codes=own_codes, function=type(_resolve), code_of=type(_resolve).__code__.__get__,
             code_attributes=CODE_ATTRIBUTES, path_events=PATH_EVENTS,
             path_event_names=PATH_EVENT_NAMES, listing=LISTING_EVENTS,
             deferred=DEFERRED_EVENTS,
             write_flags=WRITE_FLAGS, loopback=LOOPBACK, type=type, str=str, bytes=bytes,
             int=int, tuple=tuple, len=len, decode=bytes.decode, getcwd=os.getcwd,
             dir_fd_events=DIR_FD_EVENTS, no_dir_fd=NO_DIR_FD, stat_of=os.stat, isdir=stat.S_ISDIR,
             write=os.write, quote=_quote, error=PermissionError, cap=DETAIL_CAP,
             record_cap=RECORD_CAP, base=BaseException, setattr_events=SETATTR_EVENTS,
             replaced=REPLACED_MODULES, shared_memory=SHARED_MEMORY_EVENTS,
             sources=sources, getframe=sys._getframe, starts=str.startswith, join=str.join,
             int_repr=int.__repr__, list=list, addressed=ADDRESSED_EVENTS, max_frames=MAX_FRAMES,
             watched=WATCHED_EVENTS):
        # an exact str outside every set below: nothing to deny (hashed by str's own code)
        if type(event) is str and event not in watched:
            return
        verdict = None
        try:
            if type(event) is not str:
                verdict = ("integrity", "audit", "an event name that is not a string")
            elif event == "open" or event in path_event_names or event in listing:
                # paths: exact str/bytes are resolved against the roots; a descriptor (int)
                # is already open; anything else is an argument of a kind never expected
                indexes = (0,)
                for name, written in path_events:
                    if name == event:
                        indexes = written
                mode = args[1] if event == "open" and len(args) > 1 else None
                flags = args[2] if event == "open" and len(args) > 2 else 0
                writing = (event not in listing and event != "open") or (type(mode) is str and (
                    "w" in mode or "a" in mode or "x" in mode or "+" in mode)) or (
                    type(flags) is int and flags & write_flags)
                # relative to a directory descriptor (or, for os.open, perhaps): the base is
                # not the working folder the path is resolved against
                os_open = event == "open" and mode is None
                based = os_open
                for name, fd_indexes in dir_fd_events:
                    if name == event:
                        for index in fd_indexes:
                            if (index < len(args) and type(args[index]) is int
                                    and args[index] not in no_dir_fd):
                                based = True
                if event == "os.symlink" and len(args) > 0:  # the link's target: it must stay inside
                    target = args[0]
                    if type(target) is bytes:
                        target = decode(target, "utf-8", "surrogateescape")
                    if type(target) is not str:
                        verdict = ("filesystem", event, "a link target of an unexpected type")
                    elif target.startswith("/"):
                        full = resolve(target, "/")
                        inside = False
                        for root in write_roots:
                            inside = inside or full == root or full.startswith(root + "/")
                        if not inside:
                            verdict = ("filesystem", event, "a link to " + target[:cap])
                    elif ".." in target.split("/"):
                        verdict = ("filesystem", event, "a link climbing out by .. to " + target[:cap])
                for index in (() if verdict else indexes):
                    value = args[index] if index < len(args) else None
                    if event == "socket.bind" and type(value) is tuple:
                        host = value[0] if len(value) > 0 else None
                        if allow_network or (type(host) is str and host in loopback):
                            continue
                        verdict = ("network", event, "a non-loopback address")
                        break
                    if value is None and event in listing:  # the working folder
                        value = "."
                    if type(value) is int or value is None:
                        continue
                    if type(value) is bytes:
                        value = decode(value, "utf-8", "surrogateescape")
                    if type(value) is not str:
                        if event in deferred:  # its open/os events carry the str: checked there
                            continue
                        verdict = ("filesystem", event, "a path argument of an unexpected type")
                        break
                    shown = ("write " if writing else "read ") + value[:cap]
                    if based and not value.startswith("/") and ".." in value.split("/"):
                        verdict = ("filesystem", event, shown + " (.. from a folder the event "
                                   "does not name: a directory descriptor's)")
                        break
                    try:
                        full = resolve(value, getcwd())
                    except base:
                        verdict = ("filesystem", event, shown + " (cannot be resolved)")
                        break
                    inside = False
                    for root in (write_roots if writing else read_roots):
                        inside = inside or full == root or full.startswith(root + "/")
                    if not inside:
                        verdict = ("network" if event == "socket.bind" else "filesystem",
                                   event, shown)
                        break
                    if os_open and not writing:  # a descriptor of a folder outside the sandbox
                        inside = False           # would be the base of paths never seen here
                        for root in write_roots:
                            inside = inside or full == root or full.startswith(root + "/")
                        if not inside:
                            try:
                                folder = isdir(stat_of(full).st_mode)
                            except base:
                                folder = False
                            if folder:
                                verdict = ("filesystem", event, shown + " (a directory descriptor "
                                           "outside the sandbox)")
                                break
            elif event == "sqlite3.connect":
                # SQLite opens the database file itself, with no ``open`` event: its name is
                # checked as a file written (a journal is written beside it); a ``file:`` URI
                # (SQLite reads one as such with ``uri=True``, or built to read them always)
                # by the path it names. ``:memory:`` and ``""`` (a temporary database) open
                # nothing outside. SQL run later (``ATTACH``, ``VACUUM INTO``) opens files with
                # no event at all: the kernel layer contains those
                value = args[0] if len(args) > 0 else None
                if type(value) is bytes:
                    value = decode(value, "utf-8", "surrogateescape")
                if type(value) is not str:
                    verdict = ("filesystem", event, "a database name of an unexpected type")
                else:
                    path = value
                    if path[:5].lower() == "file:":
                        path = path[5:].partition("?")[0].partition("#")[0]
                        if path.startswith("//"):
                            authority, _, rest = path[2:].partition("/")
                            if authority != "" and authority.lower() != "localhost":
                                verdict = ("filesystem", event, "a URI naming a host: " + value[:cap])
                            path = "/" + rest
                        if "%" in path:  # an escape could spell anything, "/" and ".." included
                            verdict = ("filesystem", event, "a URI with escapes: " + value[:cap])
                    if verdict is None and path != ":memory:" and path != "":
                        try:
                            full = resolve(path, getcwd())
                        except base:
                            full = None
                        inside = False
                        for root in write_roots:
                            inside = inside or (full is not None and (
                                full == root or full.startswith(root + "/")))
                        if not inside:
                            verdict = ("filesystem", event, "write " + value[:cap])
            elif event == "import":
                # with a file name: an extension module (native code) about to be loaded;
                # only the interpreter's and the installed libraries' (the read roots), never
                # one the run could have written (a module's source import has no file name),
                # and never a fresh copy of a module whose functions the guard replaced
                filename = args[1] if len(args) > 1 else None
                module = args[0] if len(args) > 0 else None
                if type(filename) is bytes:
                    filename = decode(filename, "utf-8", "surrogateescape")
                if filename is not None and type(filename) is not str:
                    verdict = ("native", event, "an extension module path of an unexpected type")
                elif filename is not None and type(module) is not str:
                    verdict = ("native", event, "an extension module name of an unexpected type")
                elif filename is not None and module.rpartition(".")[2] in replaced:
                    verdict = ("native", event, "a fresh copy of " + module.rpartition(".")[2]
                               + ", whose functions the guard replaced (as " + module[:cap] + ")")
                elif filename is not None:
                    shown = "an extension module the run could have written: " + filename[:cap]
                    try:
                        full = resolve(filename, getcwd())
                    except base:
                        full = None
                    written, installed = full is None, False
                    for root in write_roots:
                        written = written or full == root or full.startswith(root + "/")
                    for root in read_roots:
                        installed = installed or (full is not None and full.startswith(root + "/"))
                    if written or not installed:
                        verdict = ("native", event, shown)
            elif event in network:
                # sendmsg with no address sends on a connected socket (a socket pair's, or one
                # whose connect was checked here): no more than send(), which raises no event
                if not allow_network and not (event == "socket.sendmsg" and len(args) > 1
                                              and args[1] is None):
                    verdict = ("network", event, "")
            elif event in process:
                if not ((event == "os.kill" or event == "os.killpg") and len(args) > 0
                        and type(args[0]) is int and (args[0] == 0 or args[0] == pid)):
                    verdict = ("process", event, "")
            elif event in native:
                verdict = ("native", event, "")
            elif event in shared_memory:
                verdict = ("filesystem", event, "POSIX shared memory or a named semaphore: a "
                           "file in the machine's /dev/shm, outside the sandbox")
            elif (event in setattr_events and len(args) > 1 and type(args[1]) is str
                  and args[1] in code_attributes and type(args[0]) is function):
                # only the guard's own functions (their code objects, by identity)
                code = code_of(args[0])
                for own in guarded_codes:
                    if own is code:
                        verdict = ("introspection", event, "replacing the guard's " + args[1])
        except base:
            verdict = ("integrity", "audit", "an argument the guard could not read")
        if verdict is None:
            return
        kind, name, detail = verdict
        # What was tried (the host and port, the command) when the verdict says no more, and
        # where: the innermost frame of a file of the sandbox's, as "file:line". Only exact
        # str, bytes and int are read (a frame's f_code is audited, by an event let through)
        where = ""
        try:
            if detail == "" and (kind == "network" or kind == "process"):
                shown = []
                for value in (args[1:2] if event in addressed else args[:2]):
                    for item in (value[:8] if type(value) is tuple or type(value) is list else (value,)):
                        if type(item) is bytes:
                            item = decode(item, "utf-8", "replace")
                        if type(item) is int:
                            item = int_repr(item)
                        if type(item) is str:
                            shown.append(item[:cap])
                detail = join(" " if kind == "process" else ":", shown)
            frame, steps = getframe(1), 0
            while frame is not None and steps < max_frames:
                filename = frame.f_code.co_filename
                if type(filename) is str:
                    for prefix in sources:
                        if where == "" and starts(filename, prefix):
                            number = frame.f_lineno  # (None in a frame with no line yet)
                            where = (filename[len(prefix):][:cap] + ":"
                                     + (int_repr(number) if type(number) is int else "?"))
                if where != "":
                    break
                frame, steps = frame.f_back, steps + 1
        except base:
            pass
        line = ('\n{"blocked": ' + quote(kind) + ', "event": ' + quote(name) +
                ', "detail": ' + quote(detail[:cap]) +
                (', "where": ' + quote(where) if where != "" else "") + '}\n').encode("ascii")
        try:
            write(report_fd, line[:record_cap])
        except base:
            pass
        raise error("RubricBench sandbox: " + name + " denied (" + kind + ")")

    return hook


def _stand_in(event, name, audit=sys.audit, error=PermissionError):
    """A function standing in for the C function ``name``, which raises no audit event of its
    own: it raises ``event`` (the hook denies and reports it) and refuses in any case."""
    def stand_in(*args, **kwargs):
        audit(event, "")
        raise error("RubricBench sandbox: " + name + " denied")

    return stand_in


def _fspath_first(function, keyword, fspath=os.fspath):
    """``function`` with its path argument (the first positional one, or ``keyword``) turned
    into its str or bytes before the call (``FSPATH_FIRST``): ``sqlite3.connect(Path(...))``
    runs as outside, and the hook checks the str the C function gets. Nothing here needs
    protecting: whatever this wrapper does, the hook checks the argument the call raises."""
    def fspath_first(*args, **kwargs):
        if args:
            args = (fspath(args[0]), *args[1:])
        elif keyword in kwargs:
            kwargs[keyword] = fspath(kwargs[keyword])
        return function(*args, **kwargs)

    fspath_first.__name__ = fspath_first.__qualname__ = function.__name__
    fspath_first.__doc__, fspath_first.__wrapped__ = function.__doc__, function
    return fspath_first


def install(sandbox, read_roots, allow_network, report_fd):
    real = os.path.realpath
    write_roots = (real(sandbox).rstrip("/"), "/dev/null")
    reads = tuple(real(p).rstrip("/") for p in read_roots) + write_roots
    replaced = []
    for module_name, function, event in STAND_INS:  # imported before the hook: extension
        try:                                          # modules of the interpreter's
            module = __import__(module_name)
        except ImportError:  # not built here: nothing to replace
            continue
        replaced.append((module, function, _stand_in(event, module_name + "." + function)))

    wrapped = {}
    for module_name, function, keyword in FSPATH_FIRST:
        try:
            module = __import__(module_name, fromlist=["_"])
        except ImportError:  # not built here: nothing to wrap
            continue
        original = getattr(module, function)
        if id(original) not in wrapped:  # (sqlite3 and sqlite3.dbapi2 share one function)
            wrapped[id(original)] = _fspath_first(original, keyword)
        replaced.append((module, function, wrapped[id(original)]))

    # Registered through its method-wrapper: Python traces inside an audit hook only when the
    # registered object has a ``__cantrace__`` attribute, and a function takes any attribute
    # (a submission that found the hook with gc.get_objects() set one, then rewrote the hook's
    # report_fd from a sys.settrace tracer, so every denial went unreported:
    # tests/hostile/guard_traced). A method-wrapper takes none.
    # where a denial came from is named relative to the run's folder (the submission's files
    # are there), else to the sandbox: the longest prefix first
    sources = tuple(sorted({os.path.abspath(p).rstrip("/") + "/" for p in (os.getcwd(), sandbox)}
                           | {real(os.getcwd()).rstrip("/") + "/", write_roots[0] + "/"}, key=len, reverse=True))
    sys.addaudithook(_make_hook(write_roots, reads, bool(allow_network), report_fd, os.getpid(),
                                sources).__call__)
    for module, function, stand_in in replaced:
        setattr(module, function, stand_in)
