"""The harness's result record, read in the parent (``SecureRunner.run_harness``).

The child's supervisor writes exactly one JSON record, with the run's nonce, on the private
result channel; ``validated`` turns the channel's raw bytes into ``ExecResult.observation``
or says in ``channel_error`` why there is none: a time-out, no record, not one valid JSON
document, a wrong nonce or mode, an integrity violation or harness error the supervisor
reported, an ``output_file`` entry of any shape but the two the harness writes, results past
the channel's cap, or a worker ended before it reported. Integers longer than ``int()`` reads
are read by halves (``benchmark.bigint``), up to ``MAX_INT_DIGITS``.

The record's denied attempts (``ExecResult.blocked_events``, each with its ``count``, and
``blocked_unlisted``) are kept whatever else it says; a run with no valid record gets the one
``record lost`` event instead, which fails the prompt's ``sandbox_violations``.
"""

from __future__ import annotations

import json
from typing import Any

from .. import bigint
from ..harness.guard_events import EVENT_KINDS, EVENT_NAME_CAP, LOST_EVENT, REPORT_DETAIL_CAP
from ..harness.guard_events import MAX_EVENTS as LISTED
from ..types import ExecResult

MAX_INT_DIGITS = 21_500  # the longest JSON integer read from a child (harness: MAX_INT_BITS)


def _json_int(text: str) -> int:
    """A JSON integer (``-?digits``) of up to MAX_INT_DIGITS digits: ``int()`` alone stops at
    ``sys.get_int_max_str_digits()`` (4300), a process-wide limit the grader leaves alone."""
    if len(text) > MAX_INT_DIGITS:
        raise ValueError(f"a JSON integer of {len(text)} characters")
    try:
        return bigint.signed_value(text, signs="-")
    except ValueError:
        raise ValueError(f"not a JSON integer: {text[:20]!r}") from None


def _load_record(text: str) -> Any:
    """``json.loads``; a record holding a longer integer than ``int()`` takes is read again
    with ``_json_int`` (the slower path only for those)."""
    try:
        return json.loads(text)
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            raise
    return json.loads(text, parse_int=_json_int)


def _parse_record(raw: bytes, mode: str, nonce: str) -> tuple[dict[str, Any] | None, str | None]:
    try:
        record = _load_record(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None, "the result record was not valid JSON (more than one record, or a forgery)"
    if not (isinstance(record, dict) and record.get("nonce") == nonce and record.get("mode") == mode):
        return None, "the result record failed validation (nonce or mode)"
    record.pop("nonce")
    return record, None


def _output_file_ok(value: Any) -> bool:
    """The script-mode ``output_file`` entry: exactly {"error": str}, or {"text": str,
    "truncated": bool, "decode_error": str | None} (exact types: no subclass, no bool for str)."""
    if type(value) is not dict:
        return False
    if set(value) == {"error"}:
        return type(value["error"]) is str
    return (set(value) == {"text", "truncated", "decode_error"} and type(value["text"]) is str
            and type(value["truncated"]) is bool
            and (value["decode_error"] is None or type(value["decode_error"]) is str))


MAX_EVENTS = LISTED + 2  # the supervisor lists at most LISTED distinct attempts, plus its own two
EVENT_KEYS = frozenset(("blocked", "event", "detail", "count"))


def _event_ok(event: Any) -> bool:
    """A listed denied attempt of the one shape the supervisor writes (exact types)."""
    return (type(event) is dict and (event.keys() == EVENT_KEYS or (
                event.keys() == EVENT_KEYS | {"where"} and type(event["where"]) is str
                and 0 < len(event["where"]) <= REPORT_DETAIL_CAP))
            and type(event["blocked"]) is str and event["blocked"] in EVENT_KINDS
            and type(event["event"]) is str and len(event["event"]) <= EVENT_NAME_CAP
            and type(event["detail"]) is str and len(event["detail"]) <= REPORT_DETAIL_CAP
            and type(event["count"]) is int and event["count"] >= 1)


def _evidence(record: dict[str, Any]) -> tuple[tuple[dict[str, Any], ...], int]:
    """(the listed denied attempts, how many more were made) from a record; an entry of any
    other shape, or one past the supervisor's cap, is an attempt the grader cannot read and is
    counted as one unlisted."""
    raw = record.pop("blocked_events", [])
    unlisted = record.pop("blocked_unlisted", 0)
    unlisted = unlisted if type(unlisted) is int and unlisted >= 0 else 1
    if type(raw) is not list:
        return (), unlisted + 1
    listed = tuple(e for e in raw[:MAX_EVENTS] if _event_ok(e))
    return listed, unlisted + len(raw) - len(listed)


def lost(problem: str) -> dict[str, Any]:
    """The event standing for the evidence of a run whose record did not arrive: what its
    sandbox denied is unknown, which ``sandbox_violations`` fails."""
    return {"blocked": "integrity", "event": LOST_EVENT, "detail": problem[:REPORT_DETAIL_CAP], "count": 1}


_NUMBER = (int, float)
_ERROR = "error"  # {"type": str, "message": str, "builtin"?: [str]}: an exception as the harness writes it
# The worker-owned keys a record may hold, each with the exact types its value may have (None
# only where listed); a record that breaks one was forged, and is refused as a whole.
RECORD_TYPES: dict[str, tuple[Any, ...]] = {
    "exit_code": (int,), "exception": (_ERROR, None), "cpu_s": _NUMBER, "sleep_total": _NUMBER,
    "import_error": (_ERROR, None), "function_found": (bool, None), "signature": (dict, None),
    "import_output": (str,), "import_requests": (int,), "results": (list,),
}
RESULT_TYPES: dict[str, tuple[Any, ...]] = {
    "label": (str,), "returned": (bool,), "value_type": (str, None), "unserializable": (str, None),
    "exception": (_ERROR, None), "mutated": (bool,), "output": (str,), "cpu_s": _NUMBER,
    "sleep_total": _NUMBER, "length": (int,), "requests": (list,), "log": (str,),
    "digests": (list, None), "log_detached": (bool,),
}


REQUEST_TYPES: dict[str, tuple[Any, ...]] = {  # one request as the harness's _request_view writes it
    "method": (str,), "url": (str,), "headers": (dict,), "body": (str, None),
    "timeout": (int, float, list, None), "verify": (bool, str, None),
}


def _request_problem(request: Any) -> str | None:
    if type(request) is not dict:
        return "results.requests"
    for key, kinds in REQUEST_TYPES.items():
        if key in request and not _typed(request[key], kinds):
            return f"results.requests.{key}"
    headers = request.get("headers", {})
    if type(headers) is dict and not all(type(k) is str and type(v) is str for k, v in headers.items()):
        return "results.requests.headers"
    if type(request.get("timeout")) is list and not all(
            type(t) in (int, float) or t is None for t in request["timeout"]):
        return "results.requests.timeout"
    return None


def _typed(value: Any, kinds: tuple[Any, ...]) -> bool:
    for kind in kinds:
        if kind is None and value is None:
            return True
        if kind == _ERROR and (type(value) is dict and {"type", "message"} <= value.keys()
                               and value.keys() <= {"type", "message", "builtin", "where"}
                               and (type(value.get("where", "x")) is str and 0 < len(value.get("where", "x")) <= 400)
                               and type(value["type"]) is str and type(value["message"]) is str
                               and (type(value.get("builtin", [])) is list
                                    and all(type(n) is str for n in value.get("builtin", [])))):
            return True
        if kind not in (None, _ERROR) and type(value) is kind:
            return True
    return False


def shape_problem(record: dict[str, Any]) -> str | None:
    """The first worker-owned key of a record whose value has a type the harness never
    writes (``results`` item by item), or None: the prompts' observe steps read these keys
    without checking them again."""
    for key, kinds in RECORD_TYPES.items():
        if key in record and not _typed(record[key], kinds):
            return key
    for item in record.get("results", ()):
        if type(item) is not dict or "label" not in item:
            return "results"
        for key, kinds in RESULT_TYPES.items():
            if key in item and not _typed(item[key], kinds):
                return f"results.{key}"
        for request in item.get("requests", ()) if type(item.get("requests")) is list else ():
            if (bad := _request_problem(request)) is not None:
                return bad
        digests = item.get("digests")  # (an exception's builtin list: checked with the exception)
        if type(digests) is list and not all(d is None or type(d) is str for d in digests):
            return "results.digests"
    signature = record.get("signature")
    if type(signature) is dict and not (type(signature.get("params")) is list and all(
            type(p) is dict and type(p.get("name")) is str and type(p.get("kind")) is str
            and type(p.get("has_default")) is bool for p in signature["params"])):
        return "signature"
    return None


def validated(result: ExecResult, mode: str, nonce: str) -> ExecResult:
    """Replace the raw channel bytes with the parsed record, or say why there is none. The
    record's denied attempts are kept whatever else it says (a time-out the supervisor ended,
    a harness error, a forgery); a run with no valid record at all gets the ``lost`` event."""
    raw = (result.observation or {}).get("_raw", b"")
    record, problem, blocked, unlisted = None, None, (), 0
    timed_out, killed_by = result.timed_out, result.killed_by
    if result.timed_out:
        problem = ("the child was killed at the wall-clock timeout, and its supervisor's record "
                   "was lost")
    elif not raw:
        problem = "the child sent no result record (it died before the harness finished)"
    else:
        record, problem = _parse_record(raw, mode, nonce)
    if record is not None:
        blocked, unlisted = _evidence(record)
        if record.get("worker_timed_out") is True:
            record, problem = None, "the child was killed at the wall-clock timeout"
            timed_out, killed_by = True, "timeout"
        elif record.get("integrity"):
            record, problem = None, f"integrity: {record['integrity']}"
        elif record.get("harness_error"):
            record, problem = None, f"harness error: {record['harness_error']}"
        elif type(record.get("oversized")) is int:
            record, problem = None, (f"the run's results ({record['oversized']} bytes) were past the "
                                     f"result channel's cap")
        elif "output_file" in record and not _output_file_ok(record["output_file"]):
            record, problem = None, "the result record failed validation (output_file)"
        elif (bad := shape_problem(record)) is not None:
            record, problem = None, f"the result record failed validation ({bad})"
        elif mode != "script" and not record.get("reported"):
            problem = (f"the submission ended the worker before it reported "
                       f"(exit status {record.get('worker_exit')})")
            record = None
    else:
        blocked = (lost(problem),)
    return ExecResult(**{**result.__dict__, "observation": record, "channel_error": problem,
                         "blocked_events": blocked, "blocked_unlisted": unlisted,
                         "timed_out": timed_out, "killed_by": killed_by})
