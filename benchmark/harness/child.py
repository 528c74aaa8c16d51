"""Child-side harness: runs INSIDE the sandboxed child process, never in the grader.

Usage: ``python -I -B child.py <request.json>`` with the result pipe's descriptor in the
environment variable ``RUBRICBENCH_CHANNEL_FD``; or ``serve(request_path, channel_fd)``, called
by the zygote (``zygote.py``) in a forked, confined child. It imports nothing from the grader.

Two processes: the *supervisor* (this process; pid 1 of the child's pid namespace where the
kernel layer is on) reads and deletes the request, then forks a *worker*, which closes the
result channel, installs the guard, loads the submission and performs the mode. The worker
reports, over a pipe of its own, one JSON line per blocked attempt and a final result line;
the supervisor, which never runs submission code, checks those lines, adds the worker's
real exit status and writes exactly one record, with the nonce, to the result channel.
The parent then validates the record and does all judging.

Modes: ``script`` (run a file as ``__main__`` with argv), ``call`` (import a module and call
one function on JSON arguments), ``http`` (like ``call`` with requests-mock intercepting HTTP
at the transport adapter, and ``time.sleep`` recorded instead of slept).
"""

import errno
import importlib.util
import json
import os
import signal
import stat
import sys
import tempfile
import time
import traceback

from _json import encode_basestring_ascii as _quote
from _json import make_encoder as _make_encoder

_loads = json.loads
_write, _read, _close, _exit = os.write, os.read, os.close, os._exit
_float_repr, _int_repr = float.__repr__, int.__repr__
_thread_time = time.thread_time
_setitimer, _ITIMER_REAL = signal.setitimer, signal.ITIMER_REAL
_type, _len, _sorted, _int, _range = type, len, sorted, int, range
_get_digits, _set_digits = sys.get_int_max_str_digits, sys.set_int_max_str_digits
OUTPUT_CAP = 64 * 1024
# int.__repr__ refuses ints longer than sys.get_int_max_str_digits() (4300 digits); longer ones
# (a 5,000-digit id converted as a contract says) are written 1000 digits at a time, up to
# about 21,000 digits (the parent reads as many: secure_runner.MAX_INT_DIGITS)
_INT_CHUNK_DIGITS = 1000
_INT_CHUNK = 10 ** _INT_CHUNK_DIGITS
MAX_INT_BITS = 70_000
MESSAGE_CAP = 500
WORKER_CAP = 16 * 1024 * 1024
HERE = os.path.dirname(os.path.abspath(__file__))


# ---- strict JSON: exact built-in types only, so nothing a submission defines can cross ----

MAX_DEPTH = 200
FAST_NODES = 200_000  # past this the checked encoder writes it (the C one keeps a str per token)
FAST_INT_BITS = 14_000  # ints the C encoder may print: below the default 4300-digit limit
_INF, _NINF, _Error = float("inf"), float("-inf"), Exception


def _refuse(value):
    raise TypeError("not plain JSON")


# The C encoder of the json module (captured here, as _quote is: nothing a submission
# patches reaches it), with the checked encoder's format: sorted keys, no spaces, ASCII.
_c_encode = _make_encoder(None, _refuse, _quote, None, ":", ",", True, False, False)


def _encode(value, depth=0):
    """``value`` as strict JSON text (see ``_encode_checked``; ``depth``: the level it will
    stand at in the record). Plain values, the usual case, are first walked level by level
    (exact built-in types, str keys, finite floats, ints of at most MAX_INT_BITS, depth and
    size bounded) and then written by the C encoder: the same text, about 2.5 times faster.
    Anything else, and any error, goes to the checked encoder, which gives the text, or the
    error, it always gave."""
    text = _fast_encode(value, depth)
    return _encode_checked(value, depth) if text is None else text


def _fast_encode(value, depth=0):
    """The text of a value that is plain JSON throughout, or None (let the checked encoder
    decide). Breadth first, so no recursion; a cycle ends at the depth limit. Ints past the
    int-to-str digit limit are printed by the C encoder with the limit lifted for the call
    (the digits are the checked encoder's), unless the limit was lowered below the checked
    encoder's chunk (then that encoder decides, as it always did)."""
    level, seen, long_ints = [value], 0, False
    while level:
        seen += _len(level)
        if depth > MAX_DEPTH or seen > FAST_NODES:
            return None
        below = []
        for item in level:
            kind = _type(item)
            if kind is str or kind is bool or item is None:
                continue
            if kind is int:
                bits = item.bit_length()
                if bits > FAST_INT_BITS:
                    if bits > MAX_INT_BITS:
                        return None
                    long_ints = True
            elif kind is float:
                if item != item or item == _INF or item == _NINF:
                    return None
            elif kind is dict:
                for key in item:
                    if _type(key) is not str:
                        return None
                below.extend(item.values())
            elif kind is list or kind is tuple:
                below.extend(item)
            else:
                return None
        level, depth = below, depth + 1
    if long_ints:
        return _c_encode_long(value)
    try:
        return "".join(_c_encode(value, 0))
    except _Error:  # e.g. a lowered int-to-str digit limit: the checked encoder chunks
        return None


def _c_encode_long(value):
    """The C encoder's text of a plain value holding ints past the digit limit (each of at
    most MAX_INT_BITS), the limit lifted for the call and put back; None where the checked
    encoder must decide (a limit lowered below its chunk, any error)."""
    try:
        limit = _get_digits()
        if limit and limit < _INT_CHUNK_DIGITS:
            return None
        _set_digits(0)
        try:
            return "".join(_c_encode(value, 0))
        finally:
            _set_digits(limit)
    except _Error:
        return None


def _encode_checked(value, depth=0):
    """Exact built-in types only (no subclass), str keys, finite floats, ints of any length
    up to MAX_INT_BITS, at most MAX_DEPTH levels; keys sorted; raises TypeError otherwise."""
    kind = _type(value)
    if depth > MAX_DEPTH:
        raise TypeError("nesting too deep")
    if value is None or value is True or value is False:
        return "null" if value is None else ("true" if value else "false")
    if kind is str:
        return _quote(value)
    if kind is int:
        return _int_text(value)
    if kind is float:
        if value != value or value in (float("inf"), float("-inf")):
            raise TypeError("non-finite float")
        return _float_repr(value)
    if kind is list or kind is tuple:
        return "[" + ",".join(_encode_checked(v, depth + 1) for v in value) + "]"
    if kind is dict:
        if any(_type(k) is not str for k in value):
            raise TypeError("non-string key")
        items = [_quote(k) + ":" + _encode_checked(value[k], depth + 1) for k in _sorted(value)]
        return "{" + ",".join(items) + "}"
    raise TypeError(f"{kind.__name__} is not plain JSON")


def _int_text(value):
    """The decimal text of an exact int, also past Python's digit limit; only operators and
    methods of the built-in types, which a submission cannot replace."""
    try:
        return _int_repr(value)
    except ValueError:  # longer than the int-to-str digit limit
        pass
    if value.bit_length() > MAX_INT_BITS:
        raise TypeError(f"int of {value.bit_length()} bits is too long to report")
    sign, value, chunks = ("-" if value < 0 else ""), abs(value), []
    while value:
        chunks.append(value % _INT_CHUNK)
        value = value // _INT_CHUNK
    head, rest = chunks[-1], chunks[-2::-1]
    return sign + _int_repr(head) + "".join(_int_repr(c).rjust(_INT_CHUNK_DIGITS, "0") for c in rest)


def _long_int(text):
    """A JSON integer's text as an int, 1000 digits at a time past ``int()``'s digit limit."""
    if _len(text) <= _INT_CHUNK_DIGITS:
        return _int(text)
    sign, digits = (-1, text[1:]) if text[0] == "-" else (1, text)
    value = 0
    for start in _range(0, _len(digits), _INT_CHUNK_DIGITS):
        chunk = digits[start:start + _INT_CHUNK_DIGITS]
        value = value * 10 ** _len(chunk) + _int(chunk)
    return sign * value


def _decode(text):
    """``json.loads``, with integers past the digit limit read by ``_long_int``."""
    try:
        return _loads(text)
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            raise
    return _loads(text, parse_int=_long_int)


def _plain(value):
    """(a plain copy of value, None) or (None, why it is not plain JSON)."""
    try:
        return _decode(_encode(value)), None
    except (TypeError, ValueError, RecursionError) as exc:
        return None, f"{_type(value).__name__}: {exc}"


def _exc_info(exc):
    try:
        message = str(exc)[:MESSAGE_CAP]
    except Exception:  # a hostile __str__
        message = "<unprintable>"
    return {"type": _type(exc).__name__, "message": message}


class _Capture:
    """Redirects fd 1 and 2 (so print and logging both land here) into a temp file."""

    def __enter__(self):
        self._flush()
        self._saved = (os.dup(1), os.dup(2))
        self._file = tempfile.TemporaryFile()
        os.dup2(self._file.fileno(), 1)
        os.dup2(self._file.fileno(), 2)
        return self

    @staticmethod
    def _flush():
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # a submission may have replaced the stream
                pass

    def __exit__(self, *exc):
        self._flush()
        os.dup2(self._saved[0], 1)
        os.dup2(self._saved[1], 2)
        for fd in self._saved:
            os.close(fd)
        self._file.seek(0)
        self.text = self._file.read(OUTPUT_CAP).decode("utf-8", "replace")
        self._file.close()
        return False


# ---- worker side: everything here may run alongside submission code ----------------------


def _import_submission(module_file):
    name = os.path.splitext(os.path.basename(module_file))[0]
    spec = importlib.util.spec_from_file_location(name, os.path.abspath(module_file))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _signature(function):
    import inspect

    try:
        params = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    return {"params": [{"name": p.name, "kind": p.kind.name,
                        "has_default": p.default is not p.empty} for p in params]}


def _load(request, record):
    """Import the module and find the function; fills record; returns the function or None."""
    capture = _Capture()
    capture.__enter__()
    try:
        module = _import_submission(request["module"])
    except BaseException as exc:  # SystemExit and KeyboardInterrupt included: a defined outcome
        record["import_error"] = _exc_info(exc)
        return None
    finally:
        capture.__exit__(None, None, None)
    record["import_output"] = capture.text
    function = getattr(module, request["function"], None)
    record["function_found"] = callable(function)
    if not callable(function):
        return None
    record["signature"] = _signature(function)
    return function


VALUE_DEPTH = 3  # record -> "results" -> one result -> "value"


def _decoded_text(value):
    """``_encode`` of a value just decoded from the request: the decoder makes only exact
    built-in types with str keys and ints the C encoder prints, so the C encoder writes it
    without the type walk; a non-finite float or any other refusal goes to ``_encode``."""
    try:
        return "".join(_c_encode(value, 0))
    except _Error:
        return _encode(value)


class TimingBudgetExceeded(BaseException):
    """A ``measure`` call ran past its ``budget_s`` (wall seconds) and was stopped, so the
    results of the calls the run made before it are still reported."""


def _over_budget(signum, frame):
    raise TimingBudgetExceeded("the call ran past its timing budget and was stopped")


def _invoke(function, args, kwargs, measure=False, budget=None):
    """Call function(*args, **kwargs) with its output captured; ``mutated`` compares the
    arguments' encoding before and after. Returns (result, the value's JSON text or None):
    the text, taken at once (a later call may change the object), is written into the
    record's line as it is (``_record_line``), never decoded and encoded again. ``cpu_s`` is
    the CPU time of this thread in the call, from the kernel (``time.thread_time``, bound at
    load). A ``measure`` call (timed on a large input) reports the value's type only: no value
    and no mutation check, so the harness's own work stays small beside the call. With
    ``budget`` (seconds), a timer stops the call there (``TimingBudgetExceeded``, reported as
    the call's exception): a call that is merely slow on a large input must not take the
    run's deadline, and with it the results of every call before it."""
    before = None if measure else _decoded_text([args, kwargs])
    result = {"returned": False, "value_type": None, "unserializable": None,
              "exception": None}
    text = None
    capture = _Capture()
    capture.__enter__()
    started = _thread_time()
    try:
        if budget:
            _setitimer(_ITIMER_REAL, budget)
        value = function(*args, **kwargs)
        if budget:
            _setitimer(_ITIMER_REAL, 0)
        result["cpu_s"] = _thread_time() - started
        result["returned"] = True
        result["value_type"] = _type(value).__name__
        if not measure:
            try:
                text = _encode(value, VALUE_DEPTH)
            except (TypeError, ValueError, RecursionError) as exc:
                result["unserializable"] = f"{_type(value).__name__}: {exc}"
    except BaseException as exc:  # SystemExit included: the function must not exit
        if budget:
            _setitimer(_ITIMER_REAL, 0)
        result["cpu_s"] = _thread_time() - started
        result["exception"] = _exc_info(exc)
    finally:
        capture.__exit__(None, None, None)
    if not measure:
        try:
            result["mutated"] = _encode([args, kwargs]) != before
        except (TypeError, RecursionError):
            result["mutated"] = True
    result["output"] = capture.text
    return result, text


def _prepared(items):
    """Every argument list and keyword mapping, checked before any submission code runs.
    The request was decoded from its file a moment ago, so each is a private plain copy
    already, used by one call."""
    prepared = []
    for item in items:
        kwargs = item.get("kwargs", {})
        if _type(kwargs) is not dict:
            raise TypeError("kwargs must be an object")
        prepared.append((item, (item["args"], kwargs)))
    return prepared


class _Results:
    """The results of a call or http run: each result's fields and its value's JSON text,
    kept apart until ``_record_line`` writes them."""

    def __init__(self):
        self.items = []

    def add(self, result, text):
        self.items.append((result, text))


def _with_value(text, value_text):
    """A result's JSON object text with ``"value"`` added (null when there is no text)."""
    member = '"value":' + ("null" if value_text is None else value_text)
    return "{" + member + "}" if text == "{}" else text[:-1] + "," + member + "}"


def _record_line(record):
    """The worker's result line. A record's results are written with each value's text as
    it was taken; the supervisor decodes the line, so the order of keys is free."""
    results = record.get("results")
    if _type(results) is not _Results:
        return '{"result": ' + _encode(record) + "}\n"
    rest = {key: value for key, value in record.items() if key != "results"}
    items = ",".join(_with_value(_encode(result, 2), text) for result, text in results.items)
    head = _encode(rest)
    head = "{" if head == "{}" else head[:-1] + ","
    return '{"result": ' + head + '"results":[' + items + "]}}\n"


def mode_call(request, record):
    calls = _prepared(request["calls"])
    if request.get("record_sleep") is True:  # time.sleep is recorded per call, not slept
        time.sleep = _record_sleep
    function = _load(request, record)
    record["results"] = _Results()
    if function is None:
        return
    for call, (args, kwargs) in calls:
        _SLEPT[0] = 0.0
        measure = call.get("measure") is True
        budget = call.get("budget_s") if measure and _type(call.get("budget_s")) in (int, float) else None
        if budget:
            signal.signal(signal.SIGALRM, _over_budget)
        result, text = _invoke(function, args, kwargs, measure, budget)
        if request.get("record_sleep") is True:
            result["sleep_total"] = _SLEPT[0]
        result["label"] = call["label"]
        record["results"].add(result, text)


_SLEPT = [0.0]


def _record_sleep(seconds=0):
    try:
        _SLEPT[0] += max(0.0, float(seconds))
    except (TypeError, ValueError):
        pass


def _mock_responses(items):
    import requests

    responses = []
    for item in items:
        if "exc" in item:
            responses.append({"exc": getattr(requests.exceptions, item["exc"])})
        elif "json" in item:
            responses.append({"status_code": item["status"], "json": item["json"]})
        else:
            responses.append({"status_code": item["status"], "text": item.get("text", "")})
    return responses


def _request_view(req):
    body = req.body
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    try:
        json_body = _loads(body) if isinstance(body, str) and body else None
    except (ValueError, TypeError):
        json_body = None
    timeout = req.timeout
    timeout, _ = _plain(list(timeout) if isinstance(timeout, tuple) else timeout)
    headers = {str(k): str(v) for k, v in req.headers.items()}
    return {"method": str(req.method), "url": str(req.url), "headers": headers,
            "body": body if isinstance(body, str) else None, "json_body": json_body,
            "timeout": timeout, "verify": _verify_view(getattr(req, "verify", None))}


def _verify_view(verify):
    """requests' ``verify`` as sent: False when certificate checks were off (False, 0, ""),
    "ca_bundle" for a CA bundle path, True; None for anything else (never evaluated)."""
    if type(verify) not in (bool, int, str):
        return None
    if not verify:
        return False
    return "ca_bundle" if type(verify) is str else True


def mode_http(request, record):
    import requests
    import requests_mock

    scenarios = _prepared(request["scenarios"])
    plans = [_mock_responses(s["responses"]) for s, _ in scenarios]
    time.sleep = _record_sleep
    with requests_mock.Mocker(real_http=False) as mocker:
        mocker.register_uri(requests_mock.ANY, requests_mock.ANY,
                            exc=requests.exceptions.ConnectionError)
        function = _load(request, record)
        record["import_requests"] = len(mocker.request_history)
    record["results"] = _Results()
    if function is None:
        return
    for (scenario, (args, kwargs)), plan in zip(scenarios, plans):
        _SLEPT[0] = 0.0
        with requests_mock.Mocker(real_http=False) as mocker:
            mocker.register_uri(requests_mock.ANY, requests_mock.ANY, response_list=plan)
            result, text = _invoke(function, args, kwargs)
            result["requests"] = [_request_view(r) for r in mocker.request_history]
        result["sleep_total"] = _SLEPT[0]
        result["label"] = scenario["label"]
        record["results"].add(result, text)


def _feed_stdin(text):
    """fd 0 (and so ``sys.stdin`` and ``input()``) reads ``text``, from an unlinked temporary
    file, so input of any size is there at once and nothing blocks."""
    handle = tempfile.TemporaryFile()
    handle.write(text.encode("utf-8"))
    handle.seek(0)
    os.dup2(handle.fileno(), 0)
    handle.close()
    sys.stdin = open(0, encoding="utf-8", closefd=False)


def _lstat_is_link(name, dir_fd):
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def _open_output(dir_fd, relative):
    """A descriptor for ``relative`` under ``dir_fd`` (every component opened with
    O_NOFOLLOW, so no symbolic link is followed), or a str saying why not."""
    parts = relative.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return "not a plain relative path"
    opened = []
    try:
        current = dir_fd
        for index, part in enumerate(parts):
            last = index == _len(parts) - 1
            if _lstat_is_link(part, current):  # before open: the guard never sees a link
                return "is a symbolic link (not followed)"
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
            flags |= (os.O_NONBLOCK | os.O_NOCTTY) if last else os.O_DIRECTORY
            current = os.open(part, flags, dir_fd=current)
            opened.append(current)
        return opened.pop()
    except FileNotFoundError:
        return "no such file"
    except OSError as exc:
        return "is a symbolic link (not followed)" if exc.errno == errno.ELOOP else f"cannot be opened: {exc.strerror}"
    finally:
        for fd in opened:
            _close(fd)


def read_output_file(dir_fd, relative):
    """{"text", "truncated", "decode_error"} or {"error"}: the regular file ``relative`` under
    ``dir_fd``, read without following links, capped at OUTPUT_CAP bytes, decoded as UTF-8
    (invalid bytes replaced and the first one noted in ``decode_error``)."""
    import codecs

    fd = _open_output(dir_fd, relative)
    if _type(fd) is str:
        return {"error": fd}
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return {"error": "not a regular file"}
        chunks, size = [], 0
        while size <= OUTPUT_CAP:
            chunk = _read(fd, OUTPUT_CAP + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += _len(chunk)
    except OSError as exc:
        return {"error": f"cannot be read: {exc.strerror}"}
    finally:
        _close(fd)
    data = b"".join(chunks)
    truncated = _len(data) > OUTPUT_CAP
    data = data[:OUTPUT_CAP]
    problem = None
    try:  # a character cut at the cap is dropped, not an error
        text = codecs.getincrementaldecoder("utf-8")("strict").decode(data, final=not truncated)
    except UnicodeDecodeError as exc:
        problem = f"not valid UTF-8 at byte {exc.start}"
        text = data.decode("utf-8", "replace")
    return {"text": text, "truncated": truncated, "decode_error": problem}


def _output_record(home, relative):
    try:
        os.fchdir(home)  # the guard resolves names against the working dir
        return read_output_file(home, relative)
    except OSError as exc:  # the program closed or replaced the descriptor
        return {"error": f"the working folder could not be reopened: {exc.strerror}"}


def mode_script(request, record):
    import runpy

    if request.get("stdin") is not None:
        _feed_stdin(request["stdin"])
    if request.get("record_sleep") is True:  # time.sleep is recorded, not slept
        time.sleep = _record_sleep
    path = os.path.abspath(request["module"])
    sys.argv = [path, *request.get("argv", [])]
    sys.path.insert(0, os.path.dirname(path))
    code = 0
    started = _thread_time()  # the script's own CPU time (imports included), from the kernel
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        code = exc.code if _type(exc.code) is int else (0 if exc.code is None else 1)
        if exc.code is not None and _type(exc.code) is not int:
            print(exc.code, file=sys.stderr)
    except BaseException as exc:
        record["exception"] = _exc_info(exc)
        traceback.print_exc()
        code = 1
    record["cpu_s"] = _thread_time() - started
    record["exit_code"] = code
    if request.get("record_sleep") is True:
        record["sleep_total"] = _SLEPT[0]


MODES = {"call": mode_call, "http": mode_http, "script": mode_script}


def _load_by_path(name):
    """A harness module by path, once per process, under a private name (a submission's own
    ``guard.py`` must not resolve to it); the zygote preloads them with this too."""
    loaded = sys.modules.get(f"_rubricbench_{name}")
    if loaded is not None:
        return loaded
    spec = importlib.util.spec_from_file_location(f"_rubricbench_{name}", os.path.join(HERE, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _arm(request, report_fd):
    """Install the no-new-process seccomp filter (kernel layer), then the guard (the audit
    hook). The harness's own libraries are imported first, so their set-up is never reported."""
    if request["mode"] == "http":
        import requests  # noqa: F401
        import requests_mock  # noqa: F401
    if request.get("no_new_processes"):  # kernel layer: holds with the guard off too
        _load_by_path("seccomp").install_deny_list(no_new_processes=True)
    guard = request.get("guard")
    if guard:
        _load_by_path("guard").install(guard["sandbox"], guard["read_roots"],
                                       guard["allow_network"], report_fd)


def _run_exit_handlers():
    """What the submission registered with atexit runs now, as at a normal exit (its output
    goes to the real streams); it cannot touch the record, which the supervisor writes."""
    import atexit

    try:
        atexit._run_exitfuncs()
    except BaseException:
        pass


def _send_line(fd, text):
    data = text.encode("utf-8")
    while data:
        data = data[_write(fd, data):]


def worker(request, report_fd):
    """Runs the submission; never returns."""
    record = {"import_error": None, "function_found": None, "signature": None}
    sys.argv = [request["module"]]
    sys.path.insert(0, os.getcwd())
    code = 0
    output_file = request.get("output_file") if request["mode"] == "script" else None
    try:
        home = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC) if output_file else None
        _arm(request, report_fd)
        MODES[request["mode"]](request, record)
        code = record.pop("exit_code", 0)
        _run_exit_handlers()
        if output_file:  # read here, in the sandbox, after the program and its exit handlers
            record["output_file"] = _output_record(home, output_file)
        line = _record_line(record)
    except BaseException as exc:  # our own failure: reported, never a pass
        line = '{"harness_error": ' + _encode(_exc_info(exc)) + "}\n"
        code = 70
    _Capture._flush()
    try:
        _send_line(report_fd, "\n" + line)
    except OSError:
        pass
    _exit(code if _type(code) is int and 0 <= code < 256 else 1)


# ---- supervisor side: never runs submission code ------------------------------------------


def _collect(fd, pid):
    """Read the worker's lines until the worker has exited (not until EOF: a process the
    submission forked may hold the pipe open). Returns (text, wait status).

    At end of file nothing more can arrive, so the worker is waited for without polling (it
    closed the pipe, or is exiting: its exit unmaps its memory after closing its files, and
    a poll would spin through that)."""
    import select

    os.set_blocking(fd, False)
    chunks, size, status = [], 0, None
    while True:
        ready, _, _ = select.select([fd], [], [], 0.05)
        ended = False
        while ready:
            try:
                chunk = _read(fd, 65536)
            except BlockingIOError:
                break
            if not chunk:
                ended = True
                break
            if size < WORKER_CAP:
                chunks.append(chunk)
                size += _len(chunk)
        if status is not None:
            break
        if ended:  # the run's deadline still holds: the zygote kills the whole run
            status = os.waitpid(pid, 0)[1]
            break
        done, wait_status = os.waitpid(pid, os.WNOHANG)
        if done:
            status = wait_status  # one more pass drains what it wrote last
            ready = [fd]
    _close(fd)
    return b"".join(chunks).decode("utf-8", "replace"), status


# What the supervisor alone writes in a record (the worker's result line is merged around them).
SUPERVISOR_KEYS = frozenset(("mode", "blocked_events", "reported", "harness_error", "malformed_lines",
                             "integrity", "worker_exit", "exit_code", "nonce"))


def _compose(request, text, status):
    """The record: the worker's one result line, every blocked attempt (wherever it stands),
    and the worker's real exit status. Two result lines mean one was forged: no result."""
    record = {"mode": request["mode"], "blocked_events": [], "reported": False,
              "harness_error": None, "malformed_lines": 0, "integrity": None}
    results = []
    for line in text.split("\n"):
        if not line:
            continue  # every record is written between newlines
        try:
            item = _decode(line)
        except ValueError:
            item = None
        if _type(item) is dict and "blocked" in item:
            record["blocked_events"].append(item)
        elif _type(item) is dict and _type(item.get("result")) is dict:
            results.append(item["result"])
        elif _type(item) is dict and "harness_error" in item:
            record["harness_error"] = item["harness_error"]
        else:
            record["malformed_lines"] += 1
    if record["malformed_lines"]:  # something else wrote to the report pipe: a violation
        record["blocked_events"].append({
            "blocked": "integrity", "event": "report channel",
            "detail": f"{record['malformed_lines']} line(s) on the report pipe were not records"})
    if _len(results) == 1:
        # The worker's result never holds a key the supervisor owns: one that does was written
        # by the submission (its own line, the only one when it exits before the harness
        # writes), and would replace the evidence gathered above. Dropped, and reported.
        forged = _sorted(key for key in results[0] if key in SUPERVISOR_KEYS)
        if forged:
            record["blocked_events"].append({
                "blocked": "integrity", "event": "report channel",
                "detail": "a result line set keys only the supervisor writes: " + ", ".join(forged)[:200]})
        record.update((key, value) for key, value in results[0].items() if key not in SUPERVISOR_KEYS)
        record["reported"] = True
    elif results:
        record["integrity"] = f"{_len(results)} result lines reached the supervisor (a forgery)"
    if os.WIFSIGNALED(status):
        record["worker_exit"] = -os.WTERMSIG(status)
    else:
        record["worker_exit"] = os.WEXITSTATUS(status)
    if request["mode"] == "script":
        record["exit_code"] = record["worker_exit"]
    return record


def _die_with_parent():
    """The worker gets SIGKILL when the supervisor dies (where no pid namespace does it)."""
    import ctypes
    import signal

    ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG


def main():
    serve(sys.argv[1], int(os.environ.pop("RUBRICBENCH_CHANNEL_FD")))


def serve(request_path, channel):
    """Supervise one run: read and delete the request, fork the worker, write the record to
    ``channel`` and exit (never returns). The zygote's children call this after confinement."""
    with open(request_path, encoding="utf-8") as handle:
        request = _loads(handle.read())
    os.remove(request_path)
    nonce = request.pop("nonce")
    read_fd, write_fd = os.pipe()
    supervisor = os.getpid()
    pid = os.fork()
    if pid == 0:
        _die_with_parent()
        if os.getppid() != supervisor:  # the supervisor died before the line above
            _exit(1)
        _close(read_fd)
        _close(channel)
        nonce = None
        worker(request, write_fd)
    _close(write_fd)
    text, status = _collect(read_fd, pid)
    record = _compose(request, text, status)
    record["nonce"] = nonce
    _send_line(channel, _encode(record))
    _close(channel)
    _exit(record.get("exit_code", 0) if request["mode"] == "script" else 0)


if __name__ == "__main__":
    main()
