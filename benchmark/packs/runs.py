"""A child run's record turned into a pack's facts, in the parent, type-strictly.

The harness record reaches the parent as plain JSON, but its content is the child's word:
every field is checked for its exact type here, and anything else is dropped (None) rather
than trusted. Script runs become ``facts["runs"][label]``, call/http results
``facts["cases"][label]`` (the shapes in ``docs/packs.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..secure_runner import STDOUT_CAP
from ..types import ExecResult
from .outputs import parse_text

DEFAULT_OUTPUT = {"from": "stdout", "parse": "text"}


def exception_info(value: Any) -> dict[str, Any] | None:
    """{"type", "message"} (and ``builtin``, the names of the built-in classes it derives
    from, when the harness gave them) when ``value`` is that shape with str fields, else None."""
    if type(value) is dict and type(value.get("type")) is str and type(value.get("message")) is str:
        info: dict[str, Any] = {"type": value["type"], "message": value["message"]}
        builtin = value.get("builtin")
        if type(builtin) is list and all(type(name) is str for name in builtin):
            info["builtin"] = list(builtin)
        if type(value.get("where")) is str:
            info["where"] = value["where"]
        return info
    return None


def run_problem(result: ExecResult) -> str | None:
    """Why a run gave no record (None when it did)."""
    if result.observation is not None:
        return None
    if result.killed_by == "skipped":
        return result.channel_error or "skipped"
    if result.timed_out:
        return "the child was killed at the wall-clock timeout"
    return f"the child run failed ({result.channel_error or 'no record'})"


def _stdout_cut(result: ExecResult) -> bool:
    return result.output_truncated and len(result.stdout.encode("utf-8", "replace")) >= STDOUT_CAP - 3


def output_text(result: ExecResult, output: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """(the text to parse, None) or (None, why there is none) for a run with a record."""
    if output.get("from", "stdout") == "stdout":
        if _stdout_cut(result):
            return None, f"stdout was cut at the {STDOUT_CAP}-byte cap"
        return result.stdout, None
    path = output.get("path", "")
    entry = result.observation.get("output_file") if result.observation else None
    if entry is None:
        return None, f"output file {path}: not reported (the program ended its worker early)"
    if "error" in entry:
        return None, f"output file {path}: {entry['error']}"
    if entry["truncated"]:
        return None, f"output file {path}: larger than the harness's cap, cut"
    if entry["decode_error"]:
        return None, f"output file {path}: {entry['decode_error']}"
    return entry["text"], None


def script_run(label: str, result: ExecResult, output: Mapping[str, Any] | None) -> dict[str, Any]:
    """``facts["runs"][label]``: exit status, exception, streams and the parsed output."""
    output = output or DEFAULT_OUTPUT
    skipped = result.killed_by == "skipped"
    facts: dict[str, Any] = {
        "label": label, "exit_code": None, "timed_out": bool(result.timed_out) and not skipped,
        "skipped": skipped, "exception": None, "stdout": result.stdout, "stderr": result.stderr,
        "output": None, "output_error": None, "output_text": None, "problem": run_problem(result)}
    record = result.observation
    if record is None:
        facts["output_error"] = "the run produced no record"
        return facts
    code = record.get("exit_code")
    facts["exit_code"] = code if type(code) is int else None
    facts["exception"] = exception_info(record.get("exception"))
    text, error = output_text(result, output)
    if text is None:
        facts["output_error"] = error
        return facts
    facts["output_text"] = text
    facts["output"], facts["output_error"] = parse_text(text, output.get("parse", "text"))
    return facts


def _typed(value: Any, *kinds: type, default: Any = None) -> Any:
    return value if type(value) in kinds else default


def _case(item: Mapping[str, Any], raw: Any, http: bool) -> dict[str, Any]:
    raw = raw if type(raw) is dict else {}
    returned = raw.get("returned") is True
    case = {"label": item["label"], "args": item["args"], "kwargs": item.get("kwargs", {}),
            "returned": returned, "value": raw.get("value") if returned else None,
            "value_type": _typed(raw.get("value_type"), str),
            "unserializable": _typed(raw.get("unserializable"), str),
            "exception": exception_info(raw.get("exception")),
            "mutated": _typed(raw.get("mutated"), bool), "output": _typed(raw.get("output"), str, default="")}
    if http:
        requests = raw.get("requests")
        case["requests"] = [r for r in requests if type(r) is dict] if type(requests) is list else []
        case["sleep_total"] = float(_typed(raw.get("sleep_total"), int, float, default=0.0))
    return case


def cases(items: list[Mapping[str, Any]], record: Mapping[str, Any], http: bool) -> dict[str, dict[str, Any]]:
    """``facts["cases"]``: one entry per requested item the child reported, by label (a result
    whose label was not asked for, or comes twice, is ignored: the first one counts)."""
    reported: dict[str, Any] = {}
    results = record.get("results")
    for raw in results if type(results) is list else []:
        label = raw.get("label") if type(raw) is dict else None
        if type(label) is str and label not in reported:
            reported[label] = raw
    return {item["label"]: _case(item, reported[item["label"]], http)
            for item in items if item["label"] in reported}


def timed_out_case(item: Mapping[str, Any], timeout_s: float, http: bool) -> dict[str, Any]:
    """``facts["cases"]`` entry of a call that ran in its own child (its case's ``timeout_s``) and
    was killed at that time-out: it did not return, and says so as its exception."""
    case = _case(item, {}, http)
    case["exception"] = {"type": "TimeoutError", "message": f"the call did not return within its {timeout_s:g} s"}
    return case


def load_facts(record: Mapping[str, Any]) -> dict[str, Any]:
    """import_error, function_found and signature from a call/http record."""
    signature = record.get("signature")
    return {"import_error": exception_info(record.get("import_error")),
            "function_found": _typed(record.get("function_found"), bool),
            "signature": signature if type(signature) is dict else None}
