"""What a denial names: the guard reports what was tried (a host and port, a command) and
where in the submission (file:line), reading only exact str/bytes/int; the supervisor and the
grader accept that field and nothing else; a prompt's results list its denials, and the
sandbox check's evidence points at the submission's line."""

from __future__ import annotations

import json
import os

from benchmark.engine.grading import _denial
from benchmark.harness import guard
from benchmark.harness.child import _denied_attempt
from benchmark.prompts.base import SANDBOX_EVENTS, SANDBOX_UNLISTED, CheckContext, sandbox_violations
from benchmark.sandbox.result_record import _event_ok


def _report(tmp_path, source: str, *, filename: str) -> dict:
    """Run ``source`` (compiled as ``filename``) with a hook of the guard's: its one report line."""
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    hook = guard._make_hook((str(tmp_path),), (str(tmp_path), "/usr"), False, write_fd, os.getpid(),
                            (str(tmp_path) + "/",))
    try:
        exec(compile(source, filename, "exec"), {"hook": hook})
    except PermissionError:
        pass
    else:
        raise AssertionError("the hook let it through")
    data = os.read(read_fd, 65536).decode("ascii")
    os.close(read_fd)
    os.close(write_fd)
    (line,) = [line for line in data.split("\n") if line]
    return json.loads(line)


def test_a_denied_connect_names_its_host_port_and_the_submissions_line(tmp_path):
    report = _report(tmp_path, "x = 1\nhook('socket.connect', (None, ('203.0.113.9', 443)))\n",
                     filename=str(tmp_path / "prompt_3_transform.py"))
    assert report == {"blocked": "network", "event": "socket.connect", "detail": "203.0.113.9:443",
                      "where": "prompt_3_transform.py:2"}
    looked_up = _report(tmp_path, "hook('socket.getaddrinfo', (b'evil.example', 80, 0, 0, 0))\n",
                        filename=str(tmp_path / "a.py"))
    assert looked_up["detail"] == "evil.example:80" and looked_up["where"] == "a.py:1"


def test_a_denied_command_is_named_and_code_outside_the_sandbox_has_no_where(tmp_path):
    report = _report(tmp_path, "hook('subprocess.Popen', (None, ['rm', '-rf', '/'], None, None))\n",
                     filename="/usr/lib/python3/somewhere.py")
    assert report == {"blocked": "process", "event": "subprocess.Popen", "detail": "rm -rf /"}


def test_an_address_of_the_submissions_own_type_is_never_read(tmp_path):
    calls = []

    class Sly(str):
        def __str__(self):
            calls.append("str")
            return "sly"

    source = "hook('socket.connect', (None, (Sly('10.0.0.1'), 80)))\n"
    read_fd, write_fd = os.pipe()
    hook = guard._make_hook((str(tmp_path),), ("/usr",), False, write_fd, os.getpid(), ())
    try:
        exec(compile(source, "x.py", "exec"), {"hook": hook, "Sly": Sly})
    except PermissionError:
        pass
    line = os.read(read_fd, 65536).decode("ascii").strip()
    os.close(read_fd)
    os.close(write_fd)
    assert json.loads(line)["detail"] == "80" and calls == []  # (the str subclass is skipped, unread)


def test_the_supervisor_and_the_grader_accept_where_and_nothing_else():
    base = {"blocked": "network", "event": "socket.connect", "detail": "h:1"}
    assert _denied_attempt(base) == ("network", "socket.connect", "h:1", "")
    assert _denied_attempt({**base, "where": "a.py:3"}) == ("network", "socket.connect", "h:1", "a.py:3")
    assert _denied_attempt({**base, "where": ""}) is None
    assert _denied_attempt({**base, "other": "a.py:3"}) is None
    assert _denied_attempt({**base, "where": 3}) is None
    assert _event_ok({**base, "count": 1}) and _event_ok({**base, "count": 1, "where": "a.py:3"})
    assert not _event_ok({**base, "count": 1, "where": ""})
    assert not _event_ok({**base, "count": 1, "where": "x" * 5000})


def test_a_prompt_lists_its_denials_and_the_check_points_at_the_line():
    event = {"blocked": "filesystem", "event": "open", "detail": "read /etc/passwd\x1b[2J", "count": 2,
             "where": "prompt_1_solution.py:12", "file": "prompt_1_solution.py"}
    denial = _denial(event)
    assert denial["where"] == "prompt_1_solution.py:12" and denial["count"] == 2
    assert denial["kind"] == "filesystem" and "\x1b" not in denial["target"]  # (the text boundary)
    assert _denial({**event, "where": None})["where"] == "prompt_1_solution.py"
    outcome = sandbox_violations(CheckContext(files={}, facts={SANDBOX_EVENTS: [event], SANDBOX_UNLISTED: 0},
                                              task=None))
    (evidence,) = outcome.evidence
    assert (evidence.file, evidence.line) == ("prompt_1_solution.py", 12) and outcome.fraction == 0
