"""Expected outputs computed by running a task's reference solution in the sandbox.

``run(request, stage, reference=True)`` runs the reference: the engine stages only ``stage``
(here the reference's own files plus the inputs), does not count the run's blocked attempts
against the model and does not spend the model's time budget. The expected value is the
reference's parsed output (script mode) or, per case, its return value or the name of the
exception it raised (call/http mode). A reference that fails is the pack's fault: its
reason, prefixed "reference solution:", is recorded for each label it leaves without an
expected value (``facts["expected_problem"]``), and whether the failure may be the machine's
(timed out, skipped, killed, no record) in ``facts["reference_problem"]``; a check that needs
such a label is then ``error`` (``failure_message``), never a verdict on the model.

Results are memoised in this process under sha256(reference bytes, request with inputs,
seed), in a bounded dict, so grading many models runs the reference once per input. A run
that failed in a way the machine may have caused is not memoised (nor cached: see
``benchmark.engine.options.cacheable``).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..types import CAUSE_REFERENCE, CAUSE_REFERENCE_UNFINISHED, REFERENCE_FAILED, REFERENCE_UNFINISHED
from .runs import load_facts, run_problem, script_run

PREFIX = "reference solution: "
MEMO_SIZE = 512
_MEMO: OrderedDict[str, Any] = OrderedDict()
_LOCK = threading.Lock()
STATS = {"hits": 0, "misses": 0}


def reference_files(folder: Path, manifest: Mapping[str, Any]) -> dict[str, bytes] | None:
    """Every ``files`` path's gold copy under the task's ``reference`` folder, as bytes (None
    when the task has no reference). A missing copy raises: the pack is broken."""
    where = manifest.get("reference")
    if not where:
        return None
    return {spec["path"]: (folder / where / spec["path"]).read_bytes() for spec in manifest["files"]}


def _key(files: Mapping[str, bytes], request: Mapping[str, Any], stage: Mapping[str, bytes],
         seed: int, extra: Any) -> str:
    digest = lambda data: hashlib.sha256(data).hexdigest()  # noqa: E731
    material = {"reference": {name: digest(data) for name, data in sorted(files.items())},
                "request": request, "stage": {name: digest(data) for name, data in sorted(stage.items())},
                "seed": seed, "extra": extra}
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode("utf-8")).hexdigest()


def _memoised(key: str, compute: Callable[[], tuple[Any, bool]]) -> Any:
    with _LOCK:
        if key in _MEMO:
            _MEMO.move_to_end(key)
            STATS["hits"] += 1
            return json.loads(_MEMO[key])  # a fresh copy: facts are never shared between models
        STATS["misses"] += 1
    value, keep = compute()
    if keep:
        with _LOCK:
            _MEMO[key] = json.dumps(value)
            while len(_MEMO) > MEMO_SIZE:
                _MEMO.popitem(last=False)
    return value


def clear() -> None:
    with _LOCK:
        _MEMO.clear()
        STATS.update(hits=0, misses=0)


def expected_output(run: Callable[..., Any], request: Mapping[str, Any], stage: Mapping[str, bytes],
                    files: Mapping[str, bytes], seed: int,
                    output: Mapping[str, Any] | None) -> dict[str, Any]:
    """{"value": parsed output} or {"problem": "reference solution: ...", "transient": bool}
    for a script run (transient: it timed out, was skipped or gave no record)."""
    def compute() -> tuple[dict[str, Any], bool]:
        result = run(dict(request), {**files, **stage}, reference=True)
        facts = script_run(str(request.get("label", "")), result, output)
        if facts["timed_out"] or facts["skipped"] or facts["problem"]:
            why = facts["problem"] or ("was skipped" if facts["skipped"] else "timed out")
            return {"problem": PREFIX + why, "transient": True}, False
        if facts["exception"]:
            exc = facts["exception"]
            return _broken(f"raised {exc['type']}: {exc['message']}"), True
        if facts["exit_code"] != 0:
            return _broken(f"exited with status {facts['exit_code']}"), True
        if facts["output_error"]:
            return _broken(facts["output_error"]), True
        return {"value": facts["output"]}, True

    return _memoised(_key(files, request, stage, seed, output), compute)


def _broken(why: str) -> dict[str, Any]:
    """A reference failure that is the reference's own doing (it raised, exited non-zero,
    printed what does not parse): the same on every run of the same pack."""
    return {"problem": PREFIX + why, "transient": False}


def _expectation(raw: Any) -> dict[str, Any]:
    """One case's expectation from the reference's result: value, raised name, or problem."""
    if type(raw) is not dict:
        return _broken("reported no result for this case")
    exc = raw.get("exception")
    if type(exc) is dict and type(exc.get("type")) is str:
        return {"raises": [exc["type"]]}
    if raw.get("returned") is not True:
        return _broken("did not return")
    if raw.get("unserializable"):
        return _broken(f"returned a value that is not plain JSON ({raw['unserializable']})")
    return {"value": raw.get("value")}


def expected_cases(run: Callable[..., Any], request: Mapping[str, Any], files: Mapping[str, bytes],
                   seed: int) -> dict[str, dict[str, Any]]:
    """Per label of ``request``'s calls/scenarios: {"value": v}, {"raises": [name]} or
    {"problem": "reference solution: ...", "transient": bool}."""
    items = request.get("calls") or request.get("scenarios") or []
    labels = [item["label"] for item in items]

    def compute() -> tuple[dict[str, dict[str, Any]], bool]:
        result = run(dict(request), dict(files), reference=True)
        problem = run_problem(result)  # no record: timed out, skipped or killed
        if problem:
            return {label: {"problem": PREFIX + problem, "transient": True} for label in labels}, False
        loaded = load_facts(result.observation)
        if loaded["import_error"]:
            problem = "import failed: {type}: {message}".format(**loaded["import_error"])
        elif not loaded["function_found"]:
            problem = f"defines no function {request.get('function')}"
        if problem:
            return {label: _broken(problem) for label in labels}, True
        results = result.observation.get("results")
        by_label = {r.get("label"): r for r in results if type(r) is dict} if type(results) is list else {}
        return {label: _expectation(by_label.get(label)) for label in labels}, True

    return _memoised(_key(files, request, {}, seed, None), compute)


def memoised(files: Mapping[str, bytes], request: Mapping[str, Any], stage: Mapping[str, bytes],
             seed: int, compute: Callable[[], tuple[Any, bool]]) -> Any:
    """``compute() -> (value, keep)`` once per process per (reference bytes, request, stage,
    seed): for facts about a reference run other than its output, such as its timings. The
    value must be plain JSON; a fresh copy is returned each time."""
    return _memoised(_key(files, request, stage, seed, "measured"), compute)


def failure_cause(transient: bool) -> str:
    """The typed cause of a check not judged because the reference failed (``types.CAUSES``)."""
    return CAUSE_REFERENCE_UNFINISHED if transient else CAUSE_REFERENCE


def failure_message(task: Any, name: str, reasons: Mapping[str, str], transient: bool) -> str:
    """The rationale of a check not judged because the reference failed: what failed (the
    task, by its key, and its reference's copy of ``name``, relative to the pack's folder;
    ``?`` where there is no task), why, and on which labels (``reasons``: label -> why). Begins
    ``REFERENCE_UNFINISHED`` when the machine may have caused it, else ``REFERENCE_FAILED``
    (see ``benchmark.types``)."""
    manifest = getattr(task, "manifest", None) or {}
    path = f"{getattr(task, 'id', '?')}/{manifest.get('reference') or 'reference'}/{name}"
    by_reason: dict[str, list[str]] = {}
    for label, why in reasons.items():
        by_reason.setdefault(why.removeprefix(PREFIX), []).append(label)
    shown = [f"{why} (on {', '.join(labels[:4])}{f' and {len(labels) - 4} more' if len(labels) > 4 else ''})"
             for why, labels in list(by_reason.items())[:3]]
    if len(by_reason) > 3:
        shown.append(f"and {len(by_reason) - 3} other reason(s)")
    head = REFERENCE_UNFINISHED if transient else REFERENCE_FAILED
    return (f"{head}: task {getattr(task, 'key', '?')} ({path}): {'; '.join(shown)}; "
            "the check was not judged (the pack's fault, not the model's)")
