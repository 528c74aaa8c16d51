"""Child-side harness: runs INSIDE the sandboxed child process, never in the grader.

Usage: ``python -I -B child.py <request.json>`` with the result pipe's descriptor in the
environment variable ``RUBRICBENCH_CHANNEL_FD``. The harness reads and deletes the request,
loads the submission from the working directory, performs the requested mode and writes
exactly one JSON record to the pipe. It imports nothing from the grader, so no grader state
is reachable from here. The parent validates the record and does all judging.

Modes: ``script`` (run a file as ``__main__`` with argv), ``call`` (import a module and call
one function on JSON arguments), ``http`` (like ``call`` with requests-mock intercepting HTTP
at the transport adapter, and ``time.sleep`` recorded instead of slept).
"""

import importlib.util
import json
import os
import sys
import tempfile
import time
import traceback

_dumps = json.dumps
_loads = json.loads
_write = os.write
_close = os.close
OUTPUT_CAP = 64 * 1024
MESSAGE_CAP = 500


def _exc_info(exc):
    return {"type": type(exc).__name__, "message": str(exc)[:MESSAGE_CAP]}


def _jsonable(value):
    """(value after a JSON round trip, reason it could not be serialised or None)."""
    try:
        text = _dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError, OverflowError) as exc:
        return None, f"{type(value).__name__}: {type(exc).__name__}"
    return _loads(text), None


def _type_name(value):
    return type(value).__name__


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
    try:
        with _Capture() as cap:
            module = _import_submission(request["module"])
    except BaseException as exc:  # SystemExit and KeyboardInterrupt included: a defined outcome
        record["import_error"] = _exc_info(exc)
        return None
    record["import_output"] = cap.text
    function = getattr(module, request["function"], None)
    record["function_found"] = callable(function)
    if not callable(function):
        return None
    record["signature"] = _signature(function)
    return function


def _invoke_captured(function, args):
    capture = _Capture()
    capture.__enter__()
    try:
        result = _invoke_inner(function, args)
    finally:
        capture.__exit__(None, None, None)
    result["output"] = capture.text
    return result


def _invoke_inner(function, args):
    before = _dumps(args, sort_keys=True)
    result = {"returned": False, "value": None, "value_type": None,
              "unserializable": None, "exception": None}
    try:
        value = function(*args)
        result["returned"] = True
        result["value_type"] = _type_name(value)
        result["value"], result["unserializable"] = _jsonable(value)
    except BaseException as exc:  # SystemExit included: the function must not exit
        result["exception"] = _exc_info(exc)
    try:
        result["mutated"] = _dumps(args, sort_keys=True) != before
    except (TypeError, ValueError, RecursionError):
        result["mutated"] = True
    return result


def mode_call(request, record):
    function = _load(request, record)
    record["results"] = []
    if function is None:
        return
    for call in request["calls"]:
        args = _loads(_dumps(call["args"]))  # a fresh copy per call
        result = _invoke_captured(function, args)
        result["label"] = call["label"]
        record["results"].append(result)


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
        json_body = _loads(body) if body else None
    except (ValueError, TypeError):
        json_body = None
    timeout = req.timeout
    timeout, _ = _jsonable(list(timeout) if isinstance(timeout, tuple) else timeout)
    return {"method": req.method, "url": req.url, "headers": dict(req.headers),
            "body": body, "json_body": json_body, "timeout": timeout}


def mode_http(request, record):
    import requests_mock

    time.sleep = _record_sleep
    with requests_mock.Mocker(real_http=False) as mocker:
        mocker.register_uri(requests_mock.ANY, requests_mock.ANY,
                            exc=__import__("requests").exceptions.ConnectionError)
        function = _load(request, record)
        record["import_requests"] = len(mocker.request_history)
    record["results"] = []
    if function is None:
        return
    for scenario in request["scenarios"]:
        _SLEPT[0] = 0.0
        with requests_mock.Mocker(real_http=False) as mocker:
            mocker.register_uri(requests_mock.ANY, requests_mock.ANY,
                                response_list=_mock_responses(scenario["responses"]))
            result = _invoke_captured(function, _loads(_dumps(scenario["args"])))
            result["requests"] = [_request_view(r) for r in mocker.request_history]
        result["sleep_total"] = _SLEPT[0]
        result["label"] = scenario["label"]
        record["results"].append(result)


def mode_script(request, record):
    import runpy

    path = os.path.abspath(request["module"])
    sys.argv = [path, *request.get("argv", [])]
    sys.path.insert(0, os.path.dirname(path))
    code = 0
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, int) and exc.code is not None:
            print(exc.code, file=sys.stderr)
    except BaseException as exc:
        record["exception"] = _exc_info(exc)
        traceback.print_exc()
        code = 1
    record["exit_code"] = code


MODES = {"call": mode_call, "http": mode_http, "script": mode_script}


def _send(fd, record):
    data = _dumps(record, allow_nan=False).encode("utf-8")
    view = memoryview(data)
    while view:
        written = _write(fd, view)
        view = view[written:]
    _close(fd)


def main():
    fd = int(os.environ.pop("RUBRICBENCH_CHANNEL_FD"))
    request_path = sys.argv[1]
    with open(request_path, encoding="utf-8") as handle:
        request = _loads(handle.read())
    os.remove(request_path)
    sys.argv = [request["module"]]
    sys.path.insert(0, os.getcwd())
    record = {"mode": request["mode"], "nonce": request["nonce"], "import_error": None,
              "function_found": None, "signature": None}
    MODES[request["mode"]](request, record)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    _send(fd, record)
    return record.get("exit_code", 0)


if __name__ == "__main__":
    sys.exit(main())
