"""Honest code runs unchanged: everyday idioms print the same inside the sandbox (every layer
on, and the kernel layer alone) as in a plain interpreter, and nothing is denied.

Each idiom is a small deterministic script in ``tests/idioms/<name>.py`` (see the README there)
that prints only stable facts. The test runs it three times: ``python -I idiom.py`` in a fresh
temporary folder (stdin at end of file), and ``run_harness`` in script mode with the guard and
without it, and compares exit status, stdout and the sandbox's evidence (no blocked attempt).

``RULE_NEIGHBOURS`` names, for every audit event the guard watches (``guard_events``), the
idioms that show the honest code nearest to that rule still working; a watched event with no
neighbour fails ``test_every_guard_rule_has_an_honest_neighbour``, and a neighbour of a rule
that lets some uses through must really raise its event outside the sandbox.

``BY_DESIGN`` lists what is denied on purpose (processes, network, native libraries, files
outside the run folder): never run outside, each must be refused with its named event when
every layer is on, and the kernel layer alone must give the outcome stated. ``KERNEL_ONLY``
lists what the kernel layer refuses with no event for the guard to report.

Differences that are no denial, and so no idiom here: the machine's configuration files are
not in the sandbox (``/etc/mime.types``: ``mimetypes.guess_type("x.md")`` knows only Python's
own table; ``/etc/passwd``: ``pwd`` and ``getpass.getuser()`` answer from the C library's
fallback, the same here for uid 0, not for others; ``/proc``: no process listing); HOME and
TMPDIR are the run's own folders; the hash seed is fixed; a runner calls the script, so the
frames above it differ; stdin is at end of file.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from benchmark.harness import guard_events
from benchmark.secure_runner import SecureRunner

IDIOMS_DIR = Path(__file__).parent / "idioms"
IDIOMS = sorted(path.stem for path in IDIOMS_DIR.glob("*.py"))
LAYERS = pytest.mark.parametrize("guard", [True, False], ids=["all-layers", "kernel-alone"])


# Every event the guard watches -> idioms showing the nearest honest code still works. Where
# the rule lets some uses through (a path inside, the run's own pid, ...) the idiom raises the
# event itself (checked below); where it lets none through (processes, network, native
# libraries) the idiom is the honest way to the same end (threads, a socket pair, ctypes'
# own types).
RULE_NEIGHBOURS = {
    # files: reads, writes and listings inside the run folder, the interpreter and libraries
    "open": ("files_open_and_pathlib", "tempfile_everyday", "logging_file_handler_dictconfig"),
    "os.remove": ("files_folders_shutil", "tempfile_everyday"),
    "os.rmdir": ("files_folders_shutil", "dir_fd_inside_run_folder"),
    "os.mkdir": ("files_folders_shutil", "dir_fd_inside_run_folder"),
    "os.rename": ("files_folders_shutil", "dir_fd_inside_run_folder"),
    "os.symlink": ("symlink_inside_run_folder", "dir_fd_inside_run_folder"),
    "os.link": ("files_folders_shutil",),
    "os.chmod": ("files_folders_shutil", "dir_fd_inside_run_folder"),
    "os.chown": ("file_metadata_inside_run_folder",),
    "os.truncate": ("files_folders_shutil",),
    "os.utime": ("files_folders_shutil",),
    "os.setxattr": ("file_metadata_inside_run_folder",),
    "os.removexattr": ("file_metadata_inside_run_folder",),
    "os.mkfifo": ("file_metadata_inside_run_folder",),
    "os.mknod": ("file_metadata_inside_run_folder",),
    "shutil.rmtree": ("files_folders_shutil", "tempfile_everyday", "shutil_with_pathlib_paths"),
    "shutil.copyfile": ("files_folders_shutil", "shutil_with_pathlib_paths"),
    "shutil.copymode": ("files_folders_shutil", "shutil_with_pathlib_paths"),
    "shutil.copystat": ("files_folders_shutil", "shutil_with_pathlib_paths"),
    "shutil.move": ("files_folders_shutil", "shutil_with_pathlib_paths"),
    "shutil.unpack_archive": ("archives_in_run_folder", "shutil_with_pathlib_paths"),
    "os.listdir": ("listing_the_run_folder", "files_folders_shutil"),
    "os.scandir": ("listing_the_run_folder", "dir_fd_inside_run_folder"),
    "sqlite3.connect": ("sqlite3_database_file_inside", "sqlite3_in_memory"),
    # native code: the interpreter's and the installed libraries' extension modules
    "import": ("stdlib_extension_modules", "orjson_and_site_packages_extensions"),
    "ctypes.dlopen": ("stdlib_extension_modules",),
    "ctypes.dlsym": ("stdlib_extension_modules",),
    "ctypes.dlsym/handle": ("stdlib_extension_modules",),
    "ctypes.call_function": ("stdlib_extension_modules",),
    "ctypes.addressof": ("stdlib_extension_modules",),
    # a function's code and defaults: denied only on the guard's own functions
    "object.__setattr__": ("assign_own_function_defaults", "namedtuple_with_defaults",
                           "typing_namedtuple_with_defaults", "asyncio_run"),
    "object.__delattr__": ("assign_own_function_defaults",),
    # processes: threads, thread pools, signals to the run's own process
    "os.kill": ("signal_handlers_main_thread",),
    "os.killpg": ("signal_handlers_main_thread",),
    "subprocess.Popen": ("thread_pool_executor", "threading_basics"),
    "rubricbench.fork_exec": ("thread_pool_executor",),
    "os.system": ("thread_pool_executor",),
    "os.exec": ("importlib_run_folder_module",),
    "os.posix_spawn": ("thread_pool_executor",),
    "os.spawn": ("thread_pool_executor",),
    "os.fork": ("threading_basics", "queues_between_threads", "multiprocessing_thread_pool"),
    "os.forkpty": ("threading_basics",),
    "os.startfile": ("threading_basics",),
    # network: a connected socket pair (asyncio's own wake-up pipe), mocked HTTP
    "socket.connect": ("socketpair_and_selectors", "asyncio_primitives"),
    "socket.bind": ("socketpair_and_selectors",),
    "socket.sendto": ("socketpair_and_selectors",),
    "socket.sendmsg": ("socketpair_and_selectors",),
    "socket.getaddrinfo": ("requests_session_with_requests_mock", "web_text_helpers"),
    "socket.gethostbyname": ("requests_session_with_requests_mock",),
    "socket.gethostbyaddr": ("requests_session_with_requests_mock",),
    "socket.getnameinfo": ("requests_session_with_requests_mock",),
    # POSIX shared memory and named semaphores (files in the machine's /dev/shm): memory
    # shared between the run's threads
    "rubricbench.shm_open": ("mmap_file_inside",),
    "rubricbench.shm_unlink": ("mmap_file_inside",),
    "rubricbench.sem_unlink": ("multiprocessing_thread_pool",),
}
# the rules that let some uses through: their neighbours raise the event, outside too (but
# for the events the guard watches should an interpreter raise them: CPython raises none for
# mkfifo and mknod, whose neighbour shows the call working)
ALLOWED_USES = ("open", "import", "sqlite3.connect", "object.__setattr__", "object.__delattr__",
                "os.kill", "os.killpg", "socket.sendmsg", *guard_events.LISTING_EVENTS,
                *guard_events.PATH_EVENT_NAMES - {"socket.bind", "os.mkfifo", "os.mknod"})

# Denied on purpose: (script, (kind, event) reported with every layer on, stdout of the
# kernel layer alone). Each script's outcome is printed by ``_by_design_script``. Never run
# outside the sandbox.
BY_DESIGN = {
    # processes: the guard denies every way to start one; the kernel's filter refuses fork and exec
    "subprocess_run": ('import subprocess\nsubprocess.run(["true"], check=True)',
                       ("process", "subprocess.Popen"), "refused PermissionError"),
    "os_system": ('import os\nprint("failed", os.system("true") != 0)',
                  ("process", "os.system"), "failed True\ndone"),
    "os_fork": ("import os\npid = os.fork()\nif pid == 0:\n    os._exit(0)\nos.waitpid(pid, 0)",
                ("process", "os.fork"), "refused PermissionError"),
    "multiprocessing_process": ("import multiprocessing\nmultiprocessing.Process(target=print).start()",
                                ("process", "os.fork"), "refused PermissionError"),
    "process_pool_executor": ("import concurrent.futures\n"
                              "with concurrent.futures.ProcessPoolExecutor(1) as pool:\n"
                              "    pool.submit(abs, -1).result(timeout=10)",
                              ("process", "os.fork"), "refused PermissionError"),
    # platform's answers that it gets from a program (`file`, `uname -p`): the same fallback
    # answer inside, but the attempt is a process, reported
    "platform_architecture": ("import platform\nprint(platform.architecture()[0])",
                              ("process", "subprocess.Popen"), "64bit\ndone"),
    # a signal to a process other than the run's own (the kernel's pid namespace holds the
    # run's processes only, which the guard does not tell apart)
    "signal_the_parent": ("import os\nos.kill(os.getppid(), 0)", ("process", "os.kill"), "done"),
    # network: no connection, no name resolution; loopback and unix sockets included
    "tcp_connect": ('import socket\nsocket.socket().connect(("192.0.2.1", 80))',
                    ("network", "socket.connect"), "refused PermissionError"),
    "udp_sendto": ('import socket\nudp = socket.socket(type=socket.SOCK_DGRAM)\n'
                   'udp.sendto(b"x", ("192.0.2.1", 9))',
                   ("network", "socket.sendto"), "refused OSError"),
    "udp_sendmsg_with_an_address": ('import socket\nudp = socket.socket(type=socket.SOCK_DGRAM)\n'
                                    'udp.sendmsg([b"x"], [], 0, ("192.0.2.1", 9))',
                                    ("network", "socket.sendmsg"), "refused OSError"),
    "create_connection_outside": ('import socket\n'
                                  'socket.create_connection(("192.0.2.1", 80), timeout=2)',
                                  ("network", "socket.getaddrinfo"), "refused PermissionError"),
    "dns_lookup": ('import socket\nsocket.gethostbyname("localhost")',
                   ("network", "socket.gethostbyname"), "refused gaierror"),
    "requests_without_a_mock": ('import requests\nrequests.get("http://example.com/", timeout=2)',
                                ("network", "socket.getaddrinfo"), "refused ConnectionError"),
    "getfqdn": ("import socket\nprint(bool(socket.getfqdn()))",
                ("network", "socket.gethostbyaddr"), "True\ndone"),
    # native code: ctypes' libraries and an extension module the run could have written
    # (the kernel layer contains what native code does; it does not refuse loading it)
    "ctypes_cdll": ('import ctypes\nprint(ctypes.CDLL("libc.so.6").getpid() > 0)',
                    ("native", "ctypes.dlopen"), "True\ndone"),
    "extension_module_from_the_run_folder": (
        'import importlib.util, shutil, _bz2\nshutil.copy(_bz2.__file__, "copied_bz2.so")\n'
        'spec = importlib.util.spec_from_file_location("_bz2", "copied_bz2.so")\n'
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))",
        ("native", "import"), "done"),
    # files outside the run folder, the interpreter and the system libraries
    "write_outside": ('open("/etc/hostname", "a")', ("filesystem", "open"), "refused OSError"),
    "read_outside": ('open("/etc/passwd").read()', ("filesystem", "open"),
                     "refused FileNotFoundError"),
    "list_outside": ('import os\nos.listdir("/etc")', ("filesystem", "os.listdir"),
                     "refused PermissionError"),
    "sqlite_outside": ('import sqlite3\nsqlite3.connect("/tmp/rubricbench-idioms.db")',
                       ("filesystem", "sqlite3.connect"), "refused OperationalError"),
    "sqlite_outside_by_path": ('import pathlib, sqlite3\n'
                               'sqlite3.connect(pathlib.Path("/tmp/rubricbench-idioms.db"))',
                               ("filesystem", "sqlite3.connect"), "refused OperationalError"),
    "symlink_to_outside": ('import os\nos.symlink("/etc/passwd", "passwd")\nopen("passwd").read()',
                           ("filesystem", "os.symlink"), "refused FileNotFoundError"),
    # psutil reads the machine's /proc, which no run is shown (and /etc/os-release likewise:
    # platform then reads /usr/lib/os-release, the same answer)
    "psutil_process": ("import psutil\npsutil.Process().memory_info()",
                       ("filesystem", "open"), "refused NoSuchProcess"),
    "platform_os_release": ('import platform\nprint(platform.freedesktop_os_release()["ID"] != "")',
                            ("filesystem", "open"), "True\ndone"),
    # POSIX shared memory and multiprocessing's shared values: files the run makes in
    # /dev/shm, which the guard cannot tell from the machine's (with the private root the
    # kernel layer gives the run a small /dev/shm of its own: the value works there, and
    # SharedMemory is made, then its resource tracker, a process, is refused)
    "shared_memory": ("from multiprocessing import shared_memory\n"
                      "shared_memory.SharedMemory(create=True, size=64).unlink()",
                      ("filesystem", "rubricbench.shm_open"), "refused PermissionError"),
    "multiprocessing_value": ('import multiprocessing\nprint(multiprocessing.Value("i", 5).value)',
                              ("filesystem", "open"), "5\ndone"),
}
# Refused by the kernel layer alone, which raises no audit event (seccomp: no socket family
# but IPv4 and IPv6, no socket pair but a stream; Landlock: no TCP bind or connect).
KERNEL_ONLY = {
    "tcp_bind_loopback": 'import socket\nsocket.socket().bind(("127.0.0.1", 0))',
    "unix_socket": "import socket\nsocket.socket(socket.AF_UNIX)",
    "socketpair_dgram": "import socket\nsocket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)",
}


@functools.cache
def _outside(name: str) -> tuple[int, str]:
    """Exit status and stdout of ``python -I idiom.py`` in a fresh folder (once per idiom)."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "idiom.py").write_bytes((IDIOMS_DIR / f"{name}.py").read_bytes())
        done = subprocess.run([sys.executable, "-I", "idiom.py"], cwd=folder, capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=60)
    return done.returncode, done.stdout


def _inside(code: str, *, guard: bool) -> tuple[int, str, tuple]:
    result = SecureRunner("idioms").run_harness({"mode": "script", "module": "idiom.py"},
                                                {"idiom.py": code.encode()}, guard=guard)
    return result.returncode, result.stdout, result.blocked_events


@pytest.mark.parametrize("name", IDIOMS)
@LAYERS
def test_idiom_behaves_inside_the_sandbox_as_outside(name, guard):
    returncode, stdout = _outside(name)
    assert stdout, f"{name} printed nothing outside (exit status {returncode})"
    code = (IDIOMS_DIR / f"{name}.py").read_text(encoding="utf-8")
    assert _inside(code, guard=guard) == (returncode, stdout, ())


def test_every_guard_rule_has_an_honest_neighbour():
    assert sorted(guard_events.WATCHED_EVENTS - set(RULE_NEIGHBOURS)) == []
    assert sorted(set(RULE_NEIGHBOURS) - guard_events.WATCHED_EVENTS) == []
    assert sorted({n for names in RULE_NEIGHBOURS.values() for n in names} - set(IDIOMS)) == []


_RECORDER = """
import json, runpy, sys
seen = set()
watched, events = frozenset(json.loads(sys.argv[1])), sys.argv[2]
sys.addaudithook(lambda event, args: seen.add(event) if event in watched else None)
sys.argv = ["idiom.py"]
try:
    runpy.run_path("idiom.py", run_name="__main__")
except SystemExit:
    pass
with open(events, "w") as handle:
    handle.write(json.dumps(sorted(seen)))
"""


def test_the_neighbours_of_rules_that_let_uses_through_raise_their_event():
    """A neighbour of a rule with allowed uses really exercises it: run outside under an audit
    hook, it raises the event (so inside, the guard checked it and let it through)."""
    missing = {}
    names = sorted({name for event in ALLOWED_USES for name in RULE_NEIGHBOURS[event]})
    for name in names:
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / "idiom.py").write_bytes((IDIOMS_DIR / f"{name}.py").read_bytes())
            events = Path(folder).parent / (Path(folder).name + ".events")
            subprocess.run([sys.executable, "-I", "-c", _RECORDER, json.dumps(sorted(ALLOWED_USES)),
                            str(events)], cwd=folder, capture_output=True, stdin=subprocess.DEVNULL,
                           timeout=60)
            seen = set(json.loads(events.read_text()))
            events.unlink()
        for event in ALLOWED_USES:
            if name in RULE_NEIGHBOURS[event] and event not in seen:
                missing.setdefault(event, []).append(name)
    assert missing == {}


def _by_design_script(body: str) -> str:
    return ("try:\n" + textwrap.indent(body, "    ") + "\nexcept BaseException as exc:\n"
            "    print('refused', type(exc).__name__)\nelse:\n    print('done')\n")


@pytest.mark.parametrize("name", sorted(BY_DESIGN))
@LAYERS
def test_what_is_denied_by_design_is_denied_with_a_named_event(name, guard):
    body, (kind, event), kernel_alone = BY_DESIGN[name]
    returncode, stdout, blocked = _inside(_by_design_script(body), guard=guard)
    assert returncode == 0, stdout
    if guard:
        assert (kind, event) in {(e["blocked"], e["event"]) for e in blocked}, blocked
        assert {e["blocked"] for e in blocked} == {kind}, blocked
    else:
        assert (stdout.strip(), blocked) == (kernel_alone, ())


@pytest.mark.parametrize("name", sorted(KERNEL_ONLY))
@LAYERS
def test_what_the_kernel_layer_denies_by_design_is_refused(name, guard):
    returncode, stdout, blocked = _inside(_by_design_script(KERNEL_ONLY[name]), guard=guard)
    assert (returncode, stdout, blocked) == (0, "refused PermissionError\n", ())


def test_the_guards_own_functions_stay_protected_while_ordinary_ones_may_change():
    """The rule nearest to ``assign_own_function_defaults``: replacing the code or defaults of
    the guard's own functions (reached through ``sys.modules``) is still denied and reported."""
    code = textwrap.dedent("""
        import sys
        guard = sys.modules["_rubricbench_guard"]
        outcomes = []
        for target, attribute, value in ((guard._resolve, "__defaults__", None),
                                         (guard._resolve, "__code__", (lambda: 0).__code__)):
            try:
                setattr(target, attribute, value)
                outcomes.append("allowed")
            except PermissionError:
                outcomes.append("denied")
        def mine(a=1):
            return a
        mine.__defaults__ = (2,)
        print(outcomes, mine())
    """)
    returncode, stdout, blocked = _inside(code, guard=True)
    assert (returncode, stdout) == (0, "['denied', 'denied'] 2\n")
    assert [event["blocked"] for event in blocked] == ["introspection", "introspection"]
