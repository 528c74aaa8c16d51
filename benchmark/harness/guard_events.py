"""The guard's tables (runs INSIDE the child; standard library only): which audit events the
hook watches and what each kind of event is, where an event's written paths and directory
descriptors are among its arguments, the C functions the guard replaces with stand-ins, and
the caps on what it reports.

``guard.py`` loads this module by path (``loader.py``) and binds every name it uses when it
loads, once, in the zygote; the hook holds them as default arguments. Every value is
immutable (tuples, frozensets, strings, ints), so nothing a submission rebinds or changes here
afterwards reaches what the guard holds.
"""

import os

LOOPBACK = ("127.0.0.1", "::1", "localhost")
NETWORK_EVENTS = frozenset({
    "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo",
    "socket.gethostbyname", "socket.gethostbyaddr", "socket.getnameinfo",
})
# (signal.pthread_kill is not among them: it signals a thread of the calling process only,
# which os.kill of the run's own pid, allowed below, does as well; the standard idiom that
# wakes the main thread from another one)
# the network events whose address is their second argument (the first is the socket): the
# host and port a denial names; the others name theirs first (getaddrinfo's host and port)
ADDRESSED_EVENTS = frozenset({"socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg"})
MAX_FRAMES = 200  # frames a denial looks back through for the submission's own line
PROCESS_EVENTS = frozenset({
    "rubricbench.fork_exec", "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn",
    "os.spawn", "os.fork", "os.forkpty", "os.startfile", "os.kill", "os.killpg",
})
NATIVE_EVENTS = frozenset({"ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle",
                           "ctypes.call_function", "ctypes.addressof"})
# a function's code and defaults: replacing them is denied only on the guard's own functions
# (the hook, ``_resolve``, the stand-ins). Everywhere else it is ordinary Python
# (``collections.namedtuple`` and ``typing.NamedTuple`` with defaults, ``types.coroutine``,
# which asyncio uses at import, ``functools``-style wrappers), and a submission that rewrites
# its own functions gains nothing the kernel layer does not already contain
CODE_ATTRIBUTES = frozenset({"__code__", "__defaults__", "__kwdefaults__"})
PATH_EVENTS = (  # (event, indexes of the path arguments that are written): a tuple, immutable
    ("os.remove", (0,)), ("os.rmdir", (0,)), ("os.mkdir", (0,)), ("os.rename", (0, 1)),
    ("os.symlink", (1,)), ("os.link", (0, 1)), ("os.chmod", (0,)), ("os.chown", (0,)),
    ("os.truncate", (0,)), ("os.utime", (0,)), ("os.setxattr", (0,)), ("os.removexattr", (0,)),
    ("os.mkfifo", (0,)), ("os.mknod", (0,)), ("shutil.rmtree", (0,)), ("shutil.copyfile", (1,)),
    ("shutil.copymode", (1,)), ("shutil.copystat", (1,)), ("shutil.move", (0, 1)),
    ("shutil.unpack_archive", (1,)), ("socket.bind", (1,)),
)
PATH_EVENT_NAMES = frozenset(name for name, _ in PATH_EVENTS)
# shutil's own events (Python functions) carry their path arguments as they were given, a
# ``pathlib.Path`` included, which the hook never reads; everything such a function does to a
# file it does through ``open`` and ``os`` calls whose events carry the str they made of it
# (checked each in turn), so an argument of another type there is left to those events
# (``shutil.copyfile(Path(...), ...)``, ``shutil.rmtree(Path(...))`` run as outside)
DEFERRED_EVENTS = frozenset(name for name in PATH_EVENT_NAMES if name.startswith("shutil."))
LISTING_EVENTS = frozenset({"os.listdir", "os.scandir"})  # a folder's names (os.walk, glob, pathlib)
# (event, indexes of its dir_fd arguments: -1 when none was given): a path relative to a
# directory descriptor is relative to a folder the event does not name, and ``open`` from
# os.open does not say whether it got one at all
DIR_FD_EVENTS = (
    ("os.remove", (1,)), ("os.rmdir", (1,)), ("os.mkdir", (2,)), ("os.rename", (2, 3)),
    ("os.link", (2, 3)), ("os.symlink", (2,)), ("os.chmod", (2,)), ("os.chown", (3,)),
    ("os.utime", (3,)), ("os.mkfifo", (2,)), ("os.mknod", (3,)),
)
NO_DIR_FD = (-1, getattr(os, "AT_FDCWD", -100))
SETATTR_EVENTS = frozenset({"object.__setattr__", "object.__delattr__"})
# C functions that act with no audit event: in the worker, the guard replaces each with a
# stand-in that raises an event of the guard's own, (module, function, event). A fresh copy of
# such a module (its extension loaded again from its file, under any name ending in the
# module's: the copy has the real functions) is refused at its import
STAND_INS = (
    ("_posixsubprocess", "fork_exec", "rubricbench.fork_exec"),  # multiprocessing's spawn
    ("_posixshmem", "shm_open", "rubricbench.shm_open"),  # a file in the machine's /dev/shm
    ("_posixshmem", "shm_unlink", "rubricbench.shm_unlink"),
    # a named semaphore's file there (its creation cannot be seen: SemLock is a static type,
    # reached through object.__subclasses__() whatever the module names; the kernel contains it)
    ("_multiprocessing", "sem_unlink", "rubricbench.sem_unlink"),
)
REPLACED_MODULES = frozenset(module for module, _, _ in STAND_INS)
# C functions whose audit event carries a path argument as it was given (``sqlite3.connect``
# alone among them: ``os`` and ``open`` give their events the str or bytes they made of it),
# so a ``pathlib.Path`` would reach the hook as an object it never reads (and denies): in the
# worker each is wrapped to turn that argument into its str or bytes (``os.fspath``) first,
# and the hook checks the very value the function then opens. (module, function, the
# argument's keyword name; it is the first positional one)
FSPATH_FIRST = (("sqlite3", "connect", "database"), ("sqlite3.dbapi2", "connect", "database"))
SHARED_MEMORY_EVENTS = frozenset({"rubricbench.shm_open", "rubricbench.shm_unlink",
                                  "rubricbench.sem_unlink"})
# every event the hook may deny: any other (str) event is let through at once, which is what
# the full check concludes for it (builtins.id, object.__getattr__, sys._getframe, exec, ...
# come by the thousand in a run)
WATCHED_EVENTS = (frozenset({"open", "import", "sqlite3.connect"}) | PATH_EVENT_NAMES
                  | LISTING_EVENTS | NETWORK_EVENTS | PROCESS_EVENTS | NATIVE_EVENTS
                  | SETATTR_EVENTS | SHARED_MEMORY_EVENTS)
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
DETAIL_CAP = 300
RECORD_CAP = 4000
# The one shape of a report line the supervisor (``child.py``) accepts as a denied attempt:
# exactly {"blocked": one of EVENT_KINDS, "event": str of at most EVENT_NAME_CAP characters,
# "detail": str of at most REPORT_DETAIL_CAP (the guard's DETAIL_CAP plus its longest prefix)}.
EVENT_KINDS = frozenset({"filesystem", "integrity", "introspection", "native", "network", "process"})
EVENT_NAME_CAP = 64
REPORT_DETAIL_CAP = DETAIL_CAP + 64
MAX_EVENTS = 64  # distinct denied attempts a record lists; any others are only counted
# The harness's own integrity events: a run whose evidence could not be read (the supervisor's
# or the grader's), and a change to the harness while the submission ran (the worker's seal)
LOST_EVENT = "record lost"
CHANGED_EVENT = "harness changed"
MAX_LINKS = 40
