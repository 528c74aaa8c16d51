"""The run modes (runs INSIDE the child, in the worker, alongside submission code):
``script`` (run a file as ``__main__`` with argv), ``call`` (import a module and call one
function on JSON arguments), ``http`` (like ``call`` with requests-mock intercepting HTTP
at the transport adapter, and ``time.sleep`` recorded instead of slept). Each fills the
record the worker reports; ``MODES`` maps a request's mode to its function.

What the modes call to encode, capture and time is bound when the harness loads, before
any submission code runs.
"""

import hashlib
import importlib.util
import json
import os
import resource
import signal
import sys
import time
import traceback

from _rubricbench_loader import load_by_path

_strict_json, _worker_io = load_by_path("strict_json"), load_by_path("worker_io")
_encode, _decoded_text, _plain = _strict_json._encode, _strict_json._decoded_text, _strict_json._plain
_decode = _strict_json._decode
_Capture, _exc_info, _feed_stdin = _worker_io._Capture, _worker_io._exc_info, _worker_io._feed_stdin
_MESSAGE_CAP, _OUTPUT_CAP = _worker_io.MESSAGE_CAP, _worker_io.OUTPUT_CAP
_loads = json.loads
_monotonic = time.monotonic
_getrusage, _RUSAGE_SELF = resource.getrusage, resource.RUSAGE_SELF


def _cpu_time():
    """The process's CPU seconds so far, every thread's (live or ended), from the kernel, to
    the microsecond: ``getrusage``. (``time.process_time`` is counted in 4 ms ticks in a run,
    whose CPU limit arms the process's CPU timer; ``time.thread_time`` misses work handed to
    other threads.)"""
    usage = _getrusage(_RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
_enumerate, _len = enumerate, len
_setitimer, _ITIMER_REAL = signal.setitimer, signal.ITIMER_REAL
_type, _issubclass, _int_value = type, issubclass, int.__int__
_sha256 = hashlib.sha256
MAX_DIGESTS = 10_000  # items of a measure call's list that get a digest (the rest: None)


_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made at run time, not one built into Python
_mro_of, _name_of, _flags_of = (type.__dict__["__mro__"].__get__, type.__dict__["__name__"].__get__,
                                type.__dict__["__flags__"].__get__)


def _raised(exc):
    """An exception a call or script raised: its type's name and message, and ``builtin``,
    the names of the built-in exception classes it really derives from (read through
    ``type``'s own descriptors, and only classes built into Python: a class named
    ``ValueError`` made with ``type()``, or one that claims ``__module__ = "builtins"``, is no
    ValueError, and ``except ValueError`` would not catch it)."""
    info = _exc_info(exc)
    try:
        info["builtin"] = [_name_of(c) for c in _mro_of(_type(exc)) if not _flags_of(c) & _HEAP_TYPE]
    except Exception:
        info["builtin"] = []
    where = _raised_where(exc)
    if where:
        info["where"] = where
    return info


def _raised_where(exc, limit=200):
    """``name.py:line`` of the innermost traceback frame in a file of the run's folder (the
    submission's own line the exception came through), else ''. Reads the traceback's own
    slots only: an exact str file name, an exact int line."""
    folder = os.getcwd().rstrip("/") + "/"
    where = ""
    try:
        tb = exc.__traceback__
        for _ in range(limit):
            if _type(tb) is not _TRACEBACK:
                break
            filename, line = tb.tb_frame.f_code.co_filename, tb.tb_lineno
            if _type(filename) is str and filename.startswith(folder) and _type(line) is int:
                where = filename[len(folder):][:300] + ":" + str(line)
            tb = tb.tb_next
    except Exception:
        return ""
    return where


try:  # (the traceback type, bound when the harness loads)
    raise ValueError
except ValueError as _probe:
    _TRACEBACK = type(_probe.__traceback__)
    del _probe


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


class TimingBudgetExceeded(BaseException):
    """A ``measure`` call ran past its ``budget_s`` (wall seconds) and was stopped, so the
    results of the calls the run made before it are still reported."""


def _over_budget(signum, frame):
    raise TimingBudgetExceeded("the call ran past its timing budget and was stopped")


def _digests(value):
    """A ``measure`` call's answer, for the grader to check without its bulk: for an exact
    list, each item's digest (the first 16 hex digits of the SHA-256 of its strict JSON
    text, the text the parent's oracle answer is digested from; None for an item that is not
    plain JSON, or past MAX_DIGESTS items); None for any other value."""
    if _type(value) is not list:
        return None
    digests = []
    for index, item in _enumerate(value):
        if index >= MAX_DIGESTS:
            digests.append(None)
            continue
        try:
            digests.append(_sha256(_encode(item, VALUE_DEPTH + 1).encode("ascii")).hexdigest()[:16])
        except (TypeError, ValueError, RecursionError):
            digests.append(None)
    return digests


def _invoke(function, args, kwargs, measure=False, budget=None, before=None, cpu_time=_cpu_time):
    """Call function(*args, **kwargs) with its output captured; ``mutated`` compares the
    arguments' encoding before and after. Returns (result, the value's JSON text or None):
    the text, taken at once (a later call may change the object), is written into the
    record's line as it is (``_record_line``), never decoded and encoded again. ``cpu_s`` is
    the CPU time of the process from the call to its value's text or digests, every thread's,
    from the kernel (``_cpu_time``, bound as a default when the harness loads: work a call
    hands to threads of its own is counted, and so is work it leaves to run inside the
    harness's encoding, a gc callback's say: tests/hostile/p3_gc_deferred_work). A ``measure``
    call (timed on a large input) reports the value's type and the digests of its items
    (``_digests``) instead of the value, and no mutation check, so the harness's own work
    stays small beside the call. With
    ``budget`` (seconds), a timer stops the call there (``TimingBudgetExceeded``, reported as
    the call's exception): a call that is merely slow on a large input must not take the
    run's deadline, and with it the results of every call before it. ``before``: the
    arguments' text, when the caller took it already."""
    if before is None and not measure:
        before = _decoded_text([args, kwargs])
    result = {"returned": False, "value_type": None, "unserializable": None,
              "exception": None}
    text = None
    capture = _Capture()
    capture.__enter__()
    started = cpu_time()
    try:
        if budget:
            _setitimer(_ITIMER_REAL, budget)
        value = function(*args, **kwargs)
        if budget:
            _setitimer(_ITIMER_REAL, 0)
        result["returned"] = True
        result["value_type"] = _type(value).__name__
        if _type(value) is list:
            result["length"] = _len(value)
        if measure:
            result["digests"] = _digests(value)
        else:
            try:
                text = _encode(value, VALUE_DEPTH)
            except (TypeError, ValueError, RecursionError) as exc:
                result["unserializable"] = f"{_type(value).__name__}: {exc}"
        result["cpu_s"] = cpu_time() - started
    except BaseException as exc:  # SystemExit included: the function must not exit
        if budget:
            _setitimer(_ITIMER_REAL, 0)
        result["cpu_s"] = cpu_time() - started
        result["exception"] = _raised(exc)
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


def _with_value(text, value_text):
    """A result's JSON object text with ``"value"`` added (null when there is no text)."""
    member = '"value":' + ("null" if value_text is None else value_text)
    return "{" + member + "}" if text == "{}" else text[:-1] + "," + member + "}"


class _Results:
    """The results of a call or http run, each sent to the supervisor the moment it is taken,
    as a line ``{"call": {...}}`` (its fields, with its value's JSON text as it was taken):
    what submission code runs later (the next call, an exit handler) cannot change it. The
    worker's final line says how many it sent (``count``, written as ``calls``)."""

    def __init__(self, send):
        self.send, self.count = send, 0

    def add(self, result, text):
        self.count += 1
        self.send('\n{"call": ' + _with_value(_encode(result, 2), text) + "}\n")


def mode_call(request, record, seal, send):
    calls = _prepared(request["calls"])
    if request.get("record_sleep") is True:  # time.sleep is recorded per call, not slept
        time.sleep = _record_sleep
    function = _load(request, record)
    seal()
    record["results"] = _Results(send)
    if function is None:
        return
    for call, (args, kwargs) in calls:
        _SLEPT[0] = 0.0
        measure = call.get("measure") is True
        budget = call.get("budget_s") if measure and _type(call.get("budget_s")) in (int, float) else None
        split = _split_budget(call, args) if not measure else None
        if budget or split:
            signal.signal(signal.SIGALRM, _over_budget)
        before = _decoded_text([args, kwargs]) if split else None
        result, text = _invoke(function, args, kwargs, measure, budget, before)
        seal()
        _add(record, request, call["label"], result, text)
        if split and not _whole(result, call.get("split_unless_len")):
            _each_item(function, call["label"], before, split, record, request)
            seal()


def _whole(result, length):
    """A ``split_budget_s`` call came back whole: it returned a list, of ``split_unless_len``
    items when the request names that count (a list one record short is made again item by
    item too, so the record that went missing is the one found)."""
    if not (result["returned"] and result["value_type"] == "list"):
        return False
    return _type(length) is not int or result.get("length") == length


def _add(record, request, label, result, text):
    if request.get("record_sleep") is True:
        result["sleep_total"] = _SLEPT[0]
    result["label"] = label
    record["results"].add(result, text)


def _split_budget(call, args):
    """A call's ``split_budget_s`` (wall seconds, > 0) when its first argument is a list."""
    budget = call.get("split_budget_s")
    ok = _type(budget) in (int, float) and budget > 0 and args and _type(args[0]) is list
    return budget if ok else None


def _each_item(function, label, before, budget, record, request):
    """A ``split_budget_s`` call that raised, returned no list, or returned a list of other
    than ``split_unless_len`` items when the request names that count, made again once per item
    of its first argument, that item alone in a one-item list, so one item that raises costs
    that item only. Every argument is a fresh copy decoded from the call's text taken before
    it ran (the failed call cannot have changed them); results are labelled
    ``<label>/<index>``, their captured output cut to MESSAGE_CAP characters. Within ``budget``
    wall seconds in all: a timer stops the item that runs past it (``TimingBudgetExceeded``)
    and later items are not run, so a slow function cannot take the run's deadline."""
    (items, *rest), kwargs = _decode(before)
    rest_text = _decoded_text([rest, kwargs])
    deadline = _monotonic() + budget
    for index, item in _enumerate(items):
        left = deadline - _monotonic()
        if left <= 0:
            return
        _SLEPT[0] = 0.0
        more, extra = _decode(rest_text)
        result, text = _invoke(function, [[item], *more], extra, budget=left)
        result["output"] = result["output"][:_MESSAGE_CAP]
        _add(record, request, f"{label}/{index}", result, text)


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


LOG_LINES = 2000  # log records of one call sent to the supervisor (the rest are not)


def _operator_logging(send, label):
    """Logging as the operator's application configures it before it calls the function.
    When the module configured no handler on the root logger: one that writes WARNING and
    above to stderr (Python's last-resort handler's level and target, in its basic format),
    so a module that logs through a library-style logger (a ``NullHandler`` of its own, as
    the logging HOWTO advises for libraries) is heard as an operator would hear it, and the
    root level DEBUG, so that every record is made. A module's own ``basicConfig`` at
    import, or a handler of its own on the root logger, is left as it is. Either way a
    handler that writes nothing collects every record the root logger gets, at any level
    (each sent to the supervisor at once as ``{"log": {"label", "line"}}``, the label
    ``label[0]``'s, up to LOG_LINES a call; returned: ``[how many were sent]``), so a secret logged at INFO or DEBUG is found too: an operator who turns the level
    down must not read the token."""
    import logging

    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler()
        handler.setLevel(logging.WARNING)
        handler.setFormatter(logging.Formatter(logging.BASIC_FORMAT))
        root.addHandler(handler)
        root.setLevel(logging.DEBUG)
    heard = [0]

    class Heard(logging.Handler):
        def emit(self, log_record, heard=heard, send=send, label=label, encode=_encode,
                 cap=_OUTPUT_CAP, most=LOG_LINES, str=str):
            try:
                line = f"{log_record.levelname}:{log_record.name}:{log_record.getMessage()}"
            except Exception:  # a message whose arguments do not format: nothing was said
                return
            if heard[0] < most:
                heard[0] += 1
                send('\n{"log": ' + encode({"label": label[0], "line": str(line)[:cap]}) + "}\n")

    listener = Heard(logging.DEBUG)
    root.addHandler(listener)
    return heard, listener


def _reattach(listener, made):
    """Put the log listener back as it was made when the submission changed it: back on the
    root logger when taken off (as ``logging.basicConfig(force=True)`` does, or code that
    means to log unheard), its level DEBUG, no filter, its class's ``emit`` and ``handle``
    its own and nothing of the instance's standing in for them. True when anything was put
    back: what was logged meanwhile is unknown."""
    import logging

    kind, changed = type(listener), False
    emit, handle = made  # (the class's own emit and Handler.handle, taken when it was made)
    if kind.__dict__.get("emit") is not emit or kind.handle is not handle:
        kind.emit, changed = emit, True
        if kind.handle is not handle:
            kind.handle = handle
    own = vars(listener)
    for name in ("emit", "handle", "filter", "handleError"):
        if name in own:
            del own[name]
            changed = True
    if listener.level != logging.DEBUG or listener.filters:
        listener.setLevel(logging.DEBUG)
        listener.filters.clear()
        changed = True
    root = logging.getLogger()
    if listener not in root.handlers:
        root.addHandler(listener)
        changed = True
    return changed


def mode_http(request, record, seal, send):
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
    seal()
    record["results"] = _Results(send)
    if function is None:
        return
    label = [None]  # the scenario whose call is running (the log listener's)
    heard, listener = _operator_logging(send, label)
    import logging

    made = (type(listener).__dict__["emit"], logging.Handler.handle)  # (before any call runs)
    view, encode = _request_view, _encode  # (bound before any call runs)
    for (scenario, (args, kwargs)), plan in zip(scenarios, plans):
        _SLEPT[0] = 0.0
        heard[0] = 0
        label[0] = scenario["label"]
        detached, sent_views = [], [0]

        def checkpoint(sent, seal=seal, listener=listener, made=made, detached=detached, views=sent_views,
                       send=send, name=scenario["label"], view=view, encode=encode):
            """At each request: its view, taken as it is sent (and sent to the supervisor at
            once, so nothing the call does later changes it); the seal; and the log listener
            still on the root logger (put back when it is not, and said: what was logged
            meanwhile is unknown)."""
            views[0] += 1
            send('\n{"request": ' + encode({"label": name, "view": view(sent)}) + "}\n")
            seal()
            if _reattach(listener, made):
                detached.append(True)
            return True

        with requests_mock.Mocker(real_http=False) as mocker:
            mocker.register_uri(requests_mock.ANY, requests_mock.ANY, response_list=plan,
                                additional_matcher=checkpoint)
            result, text = _invoke(function, args, kwargs)
            seal()
        # the supervisor has them: the counts let it tell its lines from forged ones
        result["request_count"], result["log_count"] = sent_views[0], heard[0]
        if _reattach(listener, made) or detached:
            result["log_detached"] = True
        result["sleep_total"] = _SLEPT[0]
        result["label"] = scenario["label"]
        record["results"].add(result, text)


def _exit_status(code):
    """The exit status Python gives ``sys.exit(code)``: 0 for None, an int's value (a bool
    or an IntEnum too: ``unittest.main()`` ends with ``sys.exit(False)``), else 1 with the
    value printed to stderr. An int's value is read by int's own method, never a subclass's."""
    if code is None:
        return 0
    if _issubclass(_type(code), int):
        return _int_value(code)
    print(code, file=sys.stderr)
    return 1


def mode_script(request, record, seal, send):
    import runpy

    if request.get("stdin") is not None:
        _feed_stdin(request["stdin"])
    if request.get("record_sleep") is True:  # time.sleep is recorded, not slept
        time.sleep = _record_sleep
    path = os.path.abspath(request["module"])
    sys.argv = [path, *request.get("argv", [])]
    sys.path.insert(0, os.path.dirname(path))
    code = 0
    clock = _cpu_time  # taken before the script runs: a replaced global is not this
    started = clock()  # the script's own CPU time (imports included), from the kernel
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        code = _exit_status(exc.code)
    except BaseException as exc:
        record["exception"] = _raised(exc)
        traceback.print_exc()
        code = 1
    record["cpu_s"] = clock() - started
    seal()
    record["exit_code"] = code
    if request.get("record_sleep") is True:
        record["sleep_total"] = _SLEPT[0]


MODES = {"call": mode_call, "http": mode_http, "script": mode_script}
