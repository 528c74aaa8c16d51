"""Child-side harness: runs INSIDE the sandboxed child process, never in the grader.

Usage: ``python -I -B child.py <request.json>`` with the result pipe's descriptor in the
environment variable ``RUBRICBENCH_CHANNEL_FD``; or ``serve(request_path, channel_fd)``, called
by the zygote (``zygote.py``) in a forked, confined child. It imports nothing from the grader.

Two processes: the *supervisor* (this process; pid 1 of the child's pid namespace where the
kernel layer is on) reads and deletes the request, then forks a *worker* (``worker.py``),
which closes the result channel, installs the guard, loads the submission and performs the
mode (``modes.py``). The worker reports, over a pipe of its own, one JSON line per blocked
attempt and a final result line; the supervisor, which never runs submission code, checks
those lines, adds the worker's real exit status and writes exactly one record, with the
nonce, to the result channel. The parent then validates the record and does all judging.

The other harness modules are loaded by path under private names (``loader.py``), this
module's first: ``strict_json.py`` (the encoder and decoder of every line and record),
``worker_io.py`` (captured output, stdin, the output file, one-line writes), ``modes.py``
and ``worker.py``. The zygote loads this module, and with it all of them, once.
"""

import importlib.util
import json
import os
import signal
import sys
import time

_loads = json.loads
_read, _close, _exit = os.read, os.close, os._exit
_type, _len, _sorted = type, len, sorted
_monotonic = time.monotonic
WORKER_CAP = 16 * 1024 * 1024
RECORD_LIMIT = WORKER_CAP - 256 * 1024  # a record this long fits the grader's channel cap (16 MiB)
OVERFLOW = b"\x00overflow"  # the last line of a report past WORKER_CAP (no line of JSON starts so)
# How every line the harness writes begins (the guard's, the seal's, the worker's): a line
# that begins otherwise is malformed without being decoded, one of at most MAX_LINES read.
RECORD_PREFIXES = ('{"blocked": ', '{"result": ', '{"harness_error": ', '{"call": ', '{"request": ',
                   '{"log": ')
OUTPUT_CAP = 64 * 1024  # one call's log, joined (worker_io.OUTPUT_CAP)
MAX_LINES = 100_000
REPORT_LINE_CAP = 4000  # a denied attempt's line (guard_events.RECORD_CAP)
# What the supervisor ignores while it supervises (the worker gets back what it had): every
# signal but the ones it cannot ignore, SIGCHLD (it waits for the worker) and the ones the
# kernel raises for a fault of its own. As pid 1 of a pid namespace, an ignored signal sent
# from inside it is dropped by the kernel, SIGKILL and SIGSTOP included; without one, a signal
# the guard let through still cannot end the supervisor before it writes its record.
_SHIELDED = tuple(sig for sig in signal.valid_signals() if sig not in (
    signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD, signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE,
    signal.SIGILL, signal.SIGTRAP, signal.SIGSYS, signal.SIGABRT))
HERE = os.path.dirname(os.path.abspath(__file__))


def _loader():
    """``loader.py``, loaded by path under its private name as it loads the others (it
    cannot load itself), once per process."""
    loaded = sys.modules.get("_rubricbench_loader")
    if loaded is not None:
        return loaded
    spec = importlib.util.spec_from_file_location("_rubricbench_loader", os.path.join(HERE, "loader.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


_load_by_path = _loader().load_by_path  # the zygote loads the harness modules it uses with it
_strict_json = _load_by_path("strict_json")
_encode, _decode = _strict_json._encode, _strict_json._decode
_send_line = _load_by_path("worker_io")._send_line
worker = _load_by_path("worker").worker
_events = _load_by_path("guard_events")
EVENT_KINDS, EVENT_NAME_CAP, REPORT_DETAIL_CAP = (_events.EVENT_KINDS, _events.EVENT_NAME_CAP,
                                                  _events.REPORT_DETAIL_CAP)
MAX_EVENTS, LOST_EVENT, CHANGED_EVENT = _events.MAX_EVENTS, _events.LOST_EVENT, _events.CHANGED_EVENT
_signal, _SIG_IGN, _SIG_DFL, _SIGKILL = signal.signal, signal.SIG_IGN, signal.SIG_DFL, signal.SIGKILL


def _shield():
    """Ignore every ``_SHIELDED`` signal; returns what to give the worker back."""
    saved = []
    for sig in _SHIELDED:
        try:
            saved.append((sig, _signal(sig, _SIG_IGN)))
        except (OSError, ValueError):  # the C library's own (32, 33)
            pass
    return saved


def _unshield(saved):
    """In the worker: the dispositions the process had before ``_shield`` (honest code sees
    Python's own: SIGINT raising KeyboardInterrupt, SIGPIPE and SIGXFSZ ignored)."""
    for sig, handler in saved:
        _signal(sig, _SIG_DFL if handler is None else handler)


def _end_worker(pid):
    """SIGKILL the worker, its process group and, as pid 1 of the run's pid namespace,
    every other process in it."""
    for target in (-pid, pid, *((-1,) if os.getpid() == 1 else ())):
        try:
            os.kill(target, _SIGKILL)
        except OSError:
            pass


def _drain(fd, chunks, size):
    """Read what the pipe holds now, keeping WORKER_CAP bytes at most (one byte more is kept
    as the mark that the cap was passed: ``_compose`` then reports the rest as unread);
    returns (size, whether it reached end of file)."""
    while True:
        try:
            chunk = _read(fd, 65536)
        except BlockingIOError:
            return size, False
        if not chunk:
            return size, True
        if size <= WORKER_CAP:
            chunk = chunk[:WORKER_CAP + 1 - size]
            chunks.append(chunk)
            size += _len(chunk)


def _collect(fd, pid, deadline=None):
    """Read the worker's lines until the worker has exited (not until EOF: a process the
    submission forked may hold the pipe open), or until ``deadline`` (``time.monotonic()``),
    when the worker's whole group is killed and what it wrote is read. Returns (text, wait
    status, whether the deadline ended it). The worker's exit is watched through a pidfd
    where there is one (no polling: its exit unmaps its memory after closing its files, and a
    poll would spin through that); otherwise in slices of at most 50 ms."""
    import select

    os.set_blocking(fd, False)
    try:
        exited = os.pidfd_open(pid)  # readable once the worker has exited
    except (AttributeError, OSError):
        exited = None
    chunks, size, status, timed_out, ended = [], 0, None, False, False
    while status is None:
        left = None if deadline is None else max(0.0, deadline - _monotonic())
        if ended and exited is None and left is None:
            status = os.waitpid(pid, 0)[1]
            break
        watched = ([] if ended else [fd]) + ([] if exited is None else [exited])
        wait = left if exited is not None else min(0.005 if ended else 0.05, 1e9 if left is None else left)
        ready = select.select(watched, [], [], wait)[0]
        if fd in ready:
            size, ended = _drain(fd, chunks, size)
        done, wait_status = os.waitpid(pid, os.WNOHANG)
        if done:
            status = wait_status
        elif deadline is not None and _monotonic() >= deadline:
            _end_worker(pid)
            status, timed_out = os.waitpid(pid, 0)[1], True
    if not ended:  # what it wrote last (a process it left holding the pipe cannot stall this)
        size, _ = _drain(fd, chunks, size)
    if exited is not None:
        _close(exited)
    _close(fd)
    data = b"".join(chunks)
    if _len(data) > WORKER_CAP:  # what came after the cap was not read: marked for _compose
        data = data[:WORKER_CAP].rpartition(b"\n")[0] + b"\n" + OVERFLOW
    return data.decode("utf-8", "replace"), status, timed_out


# What the supervisor alone writes in a record (the worker's result line is merged around them).
SUPERVISOR_KEYS = frozenset(("mode", "blocked_events", "blocked_unlisted", "reported", "harness_error",
                             "malformed_lines", "integrity", "worker_exit", "worker_timed_out",
                             "exit_code", "nonce"))


def _denied_attempt(item):
    """The (kind, event, detail, where) of a report line of the one shape the guard writes
    (``where``, the submission's file:line, only when the guard found one), else None."""
    if _type(item) is not dict or _len(item) not in (3, 4):
        return None
    kind, event, detail, where = item.get("blocked"), item.get("event"), item.get("detail"), item.get("where", "")
    if (_type(kind) is str and kind in EVENT_KINDS and _type(event) is str
            and _len(event) <= EVENT_NAME_CAP and _type(detail) is str
            and _len(detail) <= REPORT_DETAIL_CAP and _type(where) is str and _len(where) <= REPORT_DETAIL_CAP
            and (_len(item) == 3 or ("where" in item and where != ""))):
        return kind, event, detail, where
    return None


def _one_key(item, key):
    """Whether a decoded line is exactly ``{key: <object>}``."""
    return _type(item) is dict and _len(item) == 1 and _type(item.get(key)) is dict


def _labelled(item, key, field, kind):
    """Whether a decoded line is exactly ``{key: {"label": str, field: <kind>}}``."""
    if not _one_key(item, key):
        return False
    inner = item[key]
    return _len(inner) == 2 and _type(inner.get("label")) is str and _type(inner.get(field)) is kind


def _assemble(result, calls, requests, logs):
    """Put the streamed lines into the worker's result: ``results`` from the call lines, each
    http call's ``requests`` and ``log`` from the lines of its label. Each count the worker
    gave must match what arrived, every label be a call's and no call appear twice: a line
    the submission wrote itself shows as a mismatch. Returns the problem, or None."""
    expected = result.pop("calls")
    if _type(expected) is not int or expected != _len(calls):
        return f"{_len(calls)} call lines reached the supervisor, the worker sent {expected} (a forgery)"
    labels = [call.get("label") if _type(call) is dict else None for call in calls]
    if any(_type(label) is not str for label in labels) or _len(set(labels)) != _len(labels):
        return "the call lines' labels are missing or repeated (a forgery)"
    if not set(requests) <= set(labels) or not set(logs) <= set(labels):
        return "request or log lines name no call (a forgery)"
    for call in calls:
        for count, key, lines in (("request_count", "requests", requests), ("log_count", "log", logs)):
            if count not in call:
                continue
            mine = lines.get(call["label"], [])
            if call.pop(count) != _len(mine):
                return f"the {key} lines of call {call['label'][:50]!r} do not match its count (a forgery)"
            call[key] = mine if key == "requests" else "\n".join(mine)[:OUTPUT_CAP]
    result["results"] = calls
    return None


def _error_shaped(value):
    """A harness error as the worker writes it (``worker_io._exc_info``): {type, message}, str."""
    return (_len(value) == 2 and _type(value.get("type")) is str and _type(value.get("message")) is str
            and _len(value["type"]) <= 200 and _len(value["message"]) <= 1000)


def _lost(detail):
    """The event that fails the prompt's ``sandbox_violations``: what the sandbox denied in
    this run cannot be known (``result_record.LOST_EVENT`` in the grader)."""
    return {"blocked": "integrity", "event": LOST_EVENT, "count": 1, "detail": detail}


def _compose(request, text, status, timed_out=False):
    """The record: the worker's one result line, the denied attempts (the first MAX_EVENTS
    distinct ones, each with how often it was made, and how many attempts beyond them), and
    the worker's real exit status. A line of any other shape is counted as malformed (an
    integrity violation); two result lines mean one was forged: no result. Linear in the
    text, which ``_collect`` caps at WORKER_CAP."""
    record = {"mode": request["mode"], "blocked_events": [], "blocked_unlisted": 0, "reported": False,
              "harness_error": None, "malformed_lines": 0, "integrity": None,
              "worker_timed_out": timed_out}
    counts, results, overflow, read = {}, [], False, 0
    calls, requests, logs = [], {}, {}  # streamed by the worker (modes._Results), in order
    for line in text.split("\n"):
        if not line:
            continue  # every record is written between newlines
        if line[0] != "{" or not line.startswith(RECORD_PREFIXES):  # (no decoding, no calls:
            if line == "\x00overflow":  # a flood of such lines costs the supervisor little)
                overflow = True
            else:
                record["malformed_lines"] += 1
            continue
        if read >= MAX_LINES:
            overflow = True  # past what the supervisor reads: the rest is unknown
            continue
        item = None
        if _len(line) <= REPORT_LINE_CAP or not line.startswith('{"blocked": '):
            read += 1
            try:
                item = _decode(line)
            except Exception:  # (RecursionError, MemoryError, ...): a line no record is
                item = None
        attempt = _denied_attempt(item)
        if attempt is not None:
            if attempt in counts:
                counts[attempt] += 1
            elif _len(counts) < MAX_EVENTS:
                counts[attempt] = 1
            else:
                record["blocked_unlisted"] += 1
        elif _one_key(item, "result"):
            results.append(item["result"])
        elif _one_key(item, "call"):
            calls.append(item["call"])
        elif _labelled(item, "request", "view", dict):
            requests.setdefault(item["request"]["label"], []).append(item["request"]["view"])
        elif _labelled(item, "log", "line", str):
            logs.setdefault(item["log"]["label"], []).append(item["log"]["line"])
        elif _one_key(item, "harness_error") and _error_shaped(item["harness_error"]):
            record["harness_error"] = item["harness_error"]
        else:
            record["malformed_lines"] += 1
    record["blocked_events"] = [{"blocked": kind, "event": event, "detail": detail, "count": count,
                                 **({"where": where} if where else {})}
                                for (kind, event, detail, where), count in counts.items()]
    changed = next((detail for (kind, event, detail, _) in counts
                    if kind == "integrity" and event == CHANGED_EVENT), None)
    if changed is not None:  # the worker's seal saw the harness changed: its observations are not
        record["integrity"] = "the harness was changed while the submission ran: " + changed[:200]
    if overflow:  # the worker (or the submission) wrote past the cap: the rest is unknown
        record["blocked_events"].insert(0, _lost(
            f"the report pipe carried more than {WORKER_CAP} bytes or {MAX_LINES} records; what "
            "came after was not read"))
        record["integrity"] = f"the report pipe carried more than {WORKER_CAP} bytes or {MAX_LINES} records"
    if record["malformed_lines"]:  # something else wrote to the report pipe: a violation
        record["blocked_events"].append({
            "blocked": "integrity", "event": "report channel", "count": 1,
            "detail": f"{record['malformed_lines']} line(s) on the report pipe were not records"})
    if _len(results) == 1 and "calls" in results[0]:
        problem = _assemble(results[0], calls, requests, logs)
        if problem:
            record["integrity"] = problem
            results = []
    elif results and (calls or requests or logs):  # (with no result line: the worker died)
        record["integrity"] = "call lines reached the supervisor without the worker's count (a forgery)"
        results = []
    if _len(results) == 1:
        # The worker's result never holds a key the supervisor owns: one that does was written
        # by the submission (its own line, the only one when it exits before the harness
        # writes), and would replace the evidence gathered above. Dropped, and reported.
        forged = _sorted(key for key in results[0] if key in SUPERVISOR_KEYS)
        if forged:
            record["blocked_events"].append({
                "blocked": "integrity", "event": "report channel", "count": 1,
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


def _record_text(record):
    """The record's one line. One the worker's results keep from fitting the channel (past
    RECORD_LIMIT), or from being written at all (a value only a forged line holds), keeps the
    supervisor's own keys, with ``oversized`` or ``integrity`` saying why: the evidence always
    arrives."""
    own = {key: value for key, value in record.items() if key in SUPERVISOR_KEYS}
    try:
        line = _encode(record)
    except Exception:
        return _encode({**own, "reported": False,
                        "integrity": "the result line held a value no record can carry (a forgery)"})
    if _len(line) > RECORD_LIMIT:
        return _encode({**own, "reported": False, "oversized": _len(line)})
    return line


def serve(request_path, channel):
    """Supervise one run: read and delete the request, fork the worker, write the record to
    ``channel`` and exit (never returns). The zygote's children call this after confinement.

    The supervisor ignores every signal it can (``_shield``) and the worker leads a process
    group of its own, so nothing the submission signals reaches it; at the request's
    ``deadline_s`` (seconds from now; the zygote's own deadline is later) it kills the worker
    and still writes its record, marked ``worker_timed_out``, with every denied attempt."""
    started = _monotonic()
    saved = _shield()
    with open(request_path, encoding="utf-8") as handle:
        request = _loads(handle.read())
    os.remove(request_path)
    nonce = request.pop("nonce")
    seconds = request.get("deadline_s")
    deadline = started + seconds if _type(seconds) in (int, float) and seconds > 0 else None
    read_fd, write_fd = os.pipe()
    supervisor = os.getpid()
    pid = os.fork()
    if pid == 0:
        _die_with_parent()
        if os.getppid() != supervisor:  # the supervisor died before the line above
            _exit(1)
        os.setpgid(0, 0)
        _unshield(saved)
        _close(read_fd)
        _close(channel)
        nonce = None
        worker(request, write_fd)
    try:
        os.setpgid(pid, pid)  # (as the worker does: whichever runs first)
    except OSError:
        pass
    _close(write_fd)
    text, status, timed_out = _collect(read_fd, pid, deadline)
    record = _compose(request, text, status, timed_out)
    record["nonce"] = nonce
    _send_line(channel, _record_text(record))
    _close(channel)
    _exit(record.get("exit_code", 0) if request["mode"] == "script" else 0)


if __name__ == "__main__":
    main()
