"""Expected outputs computed by running a task's reference solution in the sandbox.

``run(request, stage, reference=True)`` runs the reference: the engine stages only ``stage``
(here the reference's own files plus the inputs), does not count the run's blocked attempts
against the model and does not spend the model's time budget. The expected value is the
reference's parsed output (script mode) or, per case, its return value or the name of the
exception it raised (call/http mode). A reference that fails is the pack's fault: its
reason, prefixed "reference solution:", is recorded for each label it leaves without an
expected value (``facts["expected_problem"]``), and checks then fail that label.

Results are memoised in this process under sha256(reference bytes, request with inputs,
seed), in a bounded dict, so grading many models runs the reference once per input. A run
that timed out or was skipped is not memoised (it may be the machine's load, not the pack).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

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
    """{"value": parsed output} or {"problem": "reference solution: ..."} for a script run."""
    def compute() -> tuple[dict[str, Any], bool]:
        result = run(dict(request), {**files, **stage}, reference=True)
        facts = script_run(str(request.get("label", "")), result, output)
        keep = not (facts["timed_out"] or facts["skipped"])
        if facts["problem"]:
            return {"problem": PREFIX + facts["problem"]}, keep
        if facts["exception"]:
            exc = facts["exception"]
            return {"problem": f"{PREFIX}raised {exc['type']}: {exc['message']}"}, keep
        if facts["exit_code"] != 0:
            return {"problem": f"{PREFIX}exited with status {facts['exit_code']}"}, keep
        if facts["output_error"]:
            return {"problem": PREFIX + facts["output_error"]}, keep
        return {"value": facts["output"]}, keep

    return _memoised(_key(files, request, stage, seed, output), compute)


def _expectation(raw: Any) -> dict[str, Any]:
    """One case's expectation from the reference's result: value, raised name, or problem."""
    if type(raw) is not dict:
        return {"problem": PREFIX + "reported no result for this case"}
    exc = raw.get("exception")
    if type(exc) is dict and type(exc.get("type")) is str:
        return {"raises": [exc["type"]]}
    if raw.get("returned") is not True:
        return {"problem": PREFIX + "did not return"}
    if raw.get("unserializable"):
        return {"problem": f"{PREFIX}returned a value that is not plain JSON ({raw['unserializable']})"}
    return {"value": raw.get("value")}


def expected_cases(run: Callable[..., Any], request: Mapping[str, Any], files: Mapping[str, bytes],
                   seed: int) -> dict[str, dict[str, Any]]:
    """Per label of ``request``'s calls/scenarios: {"value": v}, {"raises": [name]} or
    {"problem": "reference solution: ..."}."""
    items = request.get("calls") or request.get("scenarios") or []
    labels = [item["label"] for item in items]

    def compute() -> tuple[dict[str, dict[str, Any]], bool]:
        result = run(dict(request), dict(files), reference=True)
        keep = not result.timed_out
        problem = run_problem(result)
        if problem is None:
            loaded = load_facts(result.observation)
            if loaded["import_error"]:
                problem = "import failed: {type}: {message}".format(**loaded["import_error"])
            elif not loaded["function_found"]:
                problem = f"defines no function {request.get('function')}"
        if problem:
            return {label: {"problem": PREFIX + problem} for label in labels}, keep
        results = result.observation.get("results")
        by_label = {r.get("label"): r for r in results if type(r) is dict} if type(results) is list else {}
        return {label: _expectation(by_label.get(label)) for label in labels}, keep

    return _memoised(_key(files, request, {}, seed, None), compute)


def memoised(files: Mapping[str, bytes], request: Mapping[str, Any], stage: Mapping[str, bytes],
             seed: int, compute: Callable[[], tuple[Any, bool]]) -> Any:
    """``compute() -> (value, keep)`` once per process per (reference bytes, request, stage,
    seed): for facts about a reference run other than its output, such as its timings. The
    value must be plain JSON; a fresh copy is returned each time."""
    return _memoised(_key(files, request, stage, seed, "measured"), compute)
