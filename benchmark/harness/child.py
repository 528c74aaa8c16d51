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
import sys

_loads = json.loads
_read, _close, _exit = os.read, os.close, os._exit
_type, _len, _sorted = type, len, sorted
WORKER_CAP = 16 * 1024 * 1024
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
