"""The worker (runs INSIDE the child; forked by the supervisor, ``child.serve``): installs
the no-new-process filter and the guard, performs the request's mode (``modes.py``) and
reports one result line over its own pipe. Everything here may run alongside submission
code; what it writes with is bound when the harness loads.
"""

import os
import sys

from _rubricbench_loader import load_by_path

_encode = load_by_path("strict_json")._encode
_worker_io, _modes = load_by_path("worker_io"), load_by_path("modes")
_Capture, _exc_info, _output_record = _worker_io._Capture, _worker_io._exc_info, _worker_io._output_record
_send_line = _worker_io._send_line
_make_seal = load_by_path("seal").make  # loaded with the worker (the zygote: before any run forks)
_CHANGED = load_by_path("guard_events").CHANGED_EVENT
_SEAL_BROKEN = ('\n{"blocked": "integrity", "event": "' + _CHANGED + '", "detail": "the seal itself"}\n'
                ).encode("ascii")
MODES, _Results = _modes.MODES, _modes._Results
_exit = os._exit
_type = type


def _record_line(record):
    """The worker's result line. A call or http run's results went to the supervisor call by
    call (``modes._Results``): the line says how many (``calls``). The supervisor decodes the
    line, so the order of keys is free."""
    results = record.get("results")
    if _type(results) is not _Results:
        return '{"result": ' + _encode(record) + "}\n"
    rest = {key: value for key, value in record.items() if key != "results"}
    return '{"result": ' + _encode({**rest, "calls": results.count}) + "}\n"


def _with_output(line, output):
    """The result line with ``output_file`` added (the line's object is never empty: it holds
    ``import_error`` at least)."""
    return line[:-3] + ',"output_file":' + _encode(output) + "}}\n"


_HANDLES = None  # the harness's ctypes library handles, listed once by the zygote (note_handles)


def _harness_handles():
    """Every ctypes library handle (CDLL, PyDLL) held by a module of the harness's own."""
    ctypes = sys.modules.get("ctypes")
    if ctypes is None:
        return ()
    found = []
    for name, module in list(sys.modules.items()):
        if name.startswith("_rubricbench_"):
            found += [value for value in vars(module).values()
                      if isinstance(value, ctypes.CDLL) and value not in found]
    return tuple(found)


def note_handles():
    """Called by the zygote once every harness module is loaded: each run then forgets the
    functions of these handles without walking every module (each object a forked run
    touches is a page it copies: the walk cost about 1 ms a run)."""
    global _HANDLES
    _HANDLES = _harness_handles()


def _forget_native_functions():
    """Drop every C function the harness resolved through ctypes before submission code runs.
    The harness's modules keep libc handles (the zygote's clone, Landlock, seccomp, mounts),
    and a handle keeps each function it resolved as an attribute; calling a resolved function
    raises no audit event, so a submission that reached one through ``sys.modules`` would call
    ``syscall()`` unseen by the guard (the kernel layer still refuses what it does:
    ``tests/hostile/harness_native_handles``). Forgotten, a function must be resolved again,
    which is the ``ctypes.dlsym`` audit event the guard denies. The worker calls none after
    its filters are installed. Outside a zygote (``python child.py``) the handles are found
    here."""
    ctypes = sys.modules.get("ctypes")
    if ctypes is None:
        return
    functions = ctypes._CFuncPtr
    for handle in _HANDLES if _HANDLES is not None else _harness_handles():
        for key, cached in list(vars(handle).items()):
            if isinstance(cached, functions):
                delattr(handle, key)


def _arm(request, report_fd):
    """Install the no-new-process seccomp filter (kernel layer), then the guard (the audit
    hook); return the run's seal (``seal.py``), made last, before any submission code. The
    harness's own libraries are imported first, so their set-up is never reported."""
    if request["mode"] == "http":
        import requests  # noqa: F401
        import requests_mock  # noqa: F401
    if request.get("no_new_processes"):  # kernel layer: holds with the guard off too
        load_by_path("seccomp").install_deny_list(no_new_processes=True, pinned_fd=report_fd,
                                                  own_pid=os.getpid())
    _forget_native_functions()
    guard = request.get("guard")
    if guard:
        load_by_path("guard").install(guard["sandbox"], guard["read_roots"],
                                      guard["allow_network"], report_fd)
    return _make_seal(report_fd, _CHANGED)


def _run_exit_handlers():
    """What the submission registered with atexit runs now, as at a normal exit (its output
    goes to the real streams); it cannot touch the record, which the supervisor writes."""
    import atexit

    try:
        atexit._run_exitfuncs()
    except BaseException:
        pass


def worker(request, report_fd, write=os.write):
    """Runs the submission; never returns."""
    record = {"import_error": None, "function_found": None, "signature": None}
    sys.argv = [request["module"]]
    sys.path.insert(0, os.getcwd())
    code = 0
    output_file = request.get("output_file") if request["mode"] == "script" else None
    try:
        home = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC) if output_file else None
        seal = _arm(request, report_fd)
        sealed = (seal.__code__, seal.__defaults__)  # (a local: the seal is checked in turn)
        MODES[request["mode"]](request, record, seal, lambda text: _send_line(report_fd, text))
        code = record.pop("exit_code", 0)
        line = _record_line(record)  # taken before the exit handlers run (they may not change it)
        _run_exit_handlers()
        if output_file:  # read here, in the sandbox, after the program and its exit handlers
            line = _with_output(line, _output_record(home, output_file))
        seal()  # a change it finds is reported on the pipe: the supervisor refuses the result
        if seal.__code__ is not sealed[0] or seal.__defaults__ is not sealed[1]:
            write(report_fd, _SEAL_BROKEN)
    except BaseException as exc:  # our own failure: reported, never a pass
        line = '{"harness_error": ' + _encode(_exc_info(exc)) + "}\n"
        code = 70
    _Capture._flush()
    try:
        _send_line(report_fd, "\n" + line)
    except OSError:
        pass
    _exit(code if _type(code) is int and 0 <= code < 256 else 1)
