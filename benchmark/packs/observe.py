"""The generic observe for task packs: run modes script, call, http and parse.

``make_observe(manifest, folder, pack_id)`` returns ``observe(files, run, test_data, seed)``
for the engine (``benchmark.engine.grading``). Submission code runs only in children, through
``run(request, stage)``; the reference solution through ``run(..., reference=True)``
(``benchmark.packs.reference``). Fixtures, answer keys, cases files and the reference are read
as bytes in the parent from the task folder; only the fixtures a run stages (and inputs
generated from them) ever reach a child. What comes back is checked type-strictly
(``benchmark.packs.runs``) and parsed here (``benchmark.packs.outputs``). The facts'
shapes are the packs contract (``docs/packs.md``): ``runs``/``expected``/``inputs`` for
script, ``cases``/``expect`` for call and http, ``documents``/``expected`` for parse, with
``mode``, ``seed``, ``problem``, ``expected_problem`` and ``reference_problem`` in every mode.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from . import generators  # noqa: F401  (registers the built-in generators)
from . import reference as ref
from .outputs import document, load_answer
from .local_plugins import resolve_generator
from .registry import RegistryError
from .runs import DEFAULT_OUTPUT, cases, load_facts, run_problem, script_run, timed_out_case

Observe = Callable[[Mapping[str, Any], Callable[..., Any], Path, int], dict[str, Any]]


def task_seed(perturb: Mapping[str, Any] | None, seed: int, pack_id: str, task_id: str) -> int:
    """``seed: run`` (the default): the first 12 hex digits of sha256("{seed}:{pack}:{task}")
    as an int; an integer seed is used as given."""
    given = (perturb or {}).get("seed", "run")
    if type(given) is int:
        return given
    return int(hashlib.sha256(f"{seed}:{pack_id}:{task_id}".encode()).hexdigest()[:12], 16)


def _rng(seed: int, *parts: str) -> random.Random:
    """The generator's own Random, one per (label, input): inputs are independent draws."""
    return random.Random(int(hashlib.sha256(":".join([str(seed), *parts]).encode()).hexdigest()[:12], 16))


def _generator(name: str, kind: str, pack_id: str):
    gen = resolve_generator(pack_id, name)
    if gen.kind != kind:
        raise RegistryError(f"generator {name} makes {gen.kind} inputs, not {kind}")
    return gen


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _answers(manifest: Mapping[str, Any], folder: Path, facts: dict[str, Any]) -> dict[str, Any]:
    """Answer keys by label (parent only); a key that does not load goes to expected_problem."""
    expected: dict[str, Any] = {}
    for label, relative in (manifest.get("answers") or {}).items():
        value, problem = load_answer(folder, relative)
        if problem is None:
            expected[label] = value
        else:
            facts["expected_problem"][label] = problem
    return expected


# ---- script ---------------------------------------------------------------------------------


def _script_plans(manifest: Mapping[str, Any], folder: Path, seed: int,
                 pack_id: str) -> list[tuple[str, dict[str, bytes]]]:
    """(label, staged files) for the fixture run, each named run and each perturbed run."""
    stage = {name: (folder / path).read_bytes() for name, path in (manifest["run"].get("stage") or {}).items()}
    plans = [("fixture", stage)]
    for named in manifest["run"].get("runs") or ():  # each with its own staged files over the task's
        staged = dict(stage)
        for name, path in (named.get("stage") or {}).items():
            if path is None:
                staged.pop(name, None)
            else:
                staged[name] = (folder / path).read_bytes()
        plans.append((named["label"], staged))
    perturb = manifest.get("perturb") or {}
    for n in range(1, int(perturb.get("count", 0)) + 1):
        label, staged = f"perturbed_{n}", dict(stage)
        for name, spec in sorted((perturb.get("inputs") or {}).items()):
            gen = _generator(spec["generator"], "file", pack_id)
            source = (folder / spec["from"]).read_bytes()
            staged[name] = gen.fn(_rng(seed, label, name), source=source, **(spec.get("with") or {}))
        plans.append((label, staged))
    return plans


def _script_request(spec: Mapping[str, Any], folder: Path) -> dict[str, Any]:
    request: dict[str, Any] = {"mode": "script", "module": spec["entry"], "argv": list(spec.get("argv") or [])}
    if spec.get("stdin"):
        request["stdin"] = (folder / spec["stdin"]).read_bytes().decode("utf-8-sig")
    output = spec.get("output") or DEFAULT_OUTPUT
    if output.get("from") == "file":
        request["output_file"] = output["path"]
    if spec.get("timeout_s"):
        request["timeout_s"] = spec["timeout_s"]
    return request


def _named_request(named: Mapping[str, Any] | None, folder: Path) -> dict[str, Any]:
    """What a named run changes in the task's request: its argv, its stdin."""
    if not named:
        return {}
    changed: dict[str, Any] = {}
    if "argv" in named:
        changed["argv"] = list(named["argv"])
    if "stdin" in named:
        changed["stdin"] = (folder / named["stdin"]).read_bytes().decode("utf-8-sig")
    return changed


def _observe_script(manifest, folder, run, seed, facts, pack_id: str) -> None:
    spec = manifest["run"]
    output = spec.get("output") or DEFAULT_OUTPUT
    base = _script_request(spec, folder)
    expected = _answers(manifest, folder, facts)
    gold = ref.reference_files(folder, manifest)
    from_reference = (manifest.get("perturb") or {}).get("expected") == "reference"
    facts.update(runs={}, inputs={}, expected={})
    named = {spec_["label"]: spec_ for spec_ in spec.get("runs") or ()}
    facts["exits"] = {label: named[label].get("exit", 0) for label in named}
    for label, staged in _script_plans(manifest, folder, seed, pack_id):
        request = {**base, "label": label, **_named_request(named.get(label), folder)}
        mine = (named.get(label) or {}).get("output") or output  # (a named run may read another file)
        request.pop("output_file", None)
        if mine.get("from") == "file":
            request["output_file"] = mine["path"]
        facts["runs"][label] = script_run(label, run(request, staged), mine)
        facts["inputs"][label] = {name: _sha(data) for name, data in sorted(staged.items())}
        if label in expected:
            facts["expected"][label] = expected[label]
        elif label in facts["expected_problem"]:
            continue
        elif label in named and named[label].get("exit", 0) != 0:
            facts["expected_problem"][label] = "a run expected to fail has no expected output"
        elif gold is not None and (label == "fixture" or label in named or from_reference):
            answer = ref.expected_output(run, request, staged, gold, seed, mine)
            if "value" in answer:
                facts["expected"][label] = answer["value"]
            else:
                _reference_failed(facts, label, answer)
        else:
            facts["expected_problem"][label] = "no answer key and no reference solution for this run"


# ---- call and http --------------------------------------------------------------------------


def _expectation(case: Mapping[str, Any]) -> dict[str, Any]:
    if "raises" in case:
        names = case["raises"]
        return {"raises": [names] if isinstance(names, str) else list(names)}
    return {"value": case["expect"]}


def _item(case: Mapping[str, Any], http: bool) -> dict[str, Any]:
    item = {"label": case["label"], "args": list(case.get("args") or []), "kwargs": dict(case.get("kwargs") or {})}
    if http:
        item["responses"] = list(case.get("responses") or [{"status": 200, "text": ""}])
    return json.loads(json.dumps(item))  # plain data, nothing shared with the manifest


def _given_cases(manifest: Mapping[str, Any], folder: Path, http: bool) -> list[dict[str, Any]]:
    spec = manifest["run"]
    given = list(spec.get("scenarios" if http else "cases") or [])
    if spec.get("cases_file"):
        given += json.loads((folder / spec["cases_file"]).read_bytes().decode("utf-8-sig"))
    return given


def _perturbed_items(manifest: Mapping[str, Any], seed: int, http: bool, pack_id: str) -> list[dict[str, Any]]:
    perturb = manifest.get("perturb") or {}
    if not perturb.get("count"):
        return []
    gen = _generator(perturb["generator"], "cases", pack_id)
    made = gen.fn(_rng(seed, "cases"), count=int(perturb["count"]), **(perturb.get("with") or {}))
    return [_item({**case, "label": f"perturbed_{n}"}, http) for n, case in enumerate(made, 1)]


def _observe_cases(manifest, folder, run, seed, facts, http: bool, pack_id: str) -> None:
    spec = manifest["run"]
    given = _given_cases(manifest, folder, http)
    items = [_item(case, http) for case in given] + _perturbed_items(manifest, seed, http, pack_id)
    facts.update(import_error=None, function_found=None, signature=None, cases={},
                 expect={case["label"]: _expectation(case) for case in given})
    for label, value in _answers(manifest, folder, facts).items():
        facts["expect"].setdefault(label, {"value": value})
    key = "scenarios" if http else "calls"
    base = {"mode": "http" if http else "call", "module": spec["module"], "function": spec["function"]}
    if spec.get("timeout_s"):
        base["timeout_s"] = spec["timeout_s"]
    own = {case["label"]: float(case["timeout_s"]) for case in given if case.get("timeout_s")}
    shared = [item for item in items if item["label"] not in own]
    result = run({**base, key: shared}, {})
    problem = run_problem(result)
    if problem:
        facts["problem"] = problem
    else:
        facts.update(load_facts(result.observation))
        facts["cases"] = cases(shared, result.observation, http)
    for item in (item for item in items if item["label"] in own):  # each in a child of its own
        alone = run({**base, "timeout_s": own[item["label"]], key: [item]}, {})
        if run_problem(alone) is None:
            facts["cases"].update(cases([item], alone.observation, http))
        elif alone.timed_out:
            facts["cases"][item["label"]] = timed_out_case(item, own[item["label"]], http)
    _reference_cases(manifest, folder, run, seed, facts, {**base, key: [i for i in items if i["label"] not in facts["expect"]]})


def _reference_cases(manifest, folder, run, seed, facts, request) -> None:
    items = request.get("calls") or request.get("scenarios") or []
    if not items:
        return
    gold = ref.reference_files(folder, manifest)
    if gold is None or (manifest.get("perturb") or {}).get("expected") != "reference":
        for item in items:
            facts["expected_problem"][item["label"]] = "no expected value and no reference solution for this case"
        return
    for label, answer in ref.expected_cases(run, request, gold, seed).items():
        if "problem" in answer:
            _reference_failed(facts, label, answer)
        else:
            facts["expect"][label] = answer


def _reference_failed(facts: dict[str, Any], label: str, answer: Mapping[str, Any]) -> None:
    """The reference gave ``label`` no expected value: why (``expected_problem``, as every
    check type reads it) and whether the machine may have caused it (``reference_problem``)."""
    facts["expected_problem"][label] = answer["problem"]
    facts["reference_problem"][label] = {"reason": answer["problem"], "transient": answer["transient"]}


# ---- parse ----------------------------------------------------------------------------------


def _observe_parse(manifest, folder, files, facts) -> None:
    facts.update(documents={}, expected=_answers(manifest, folder, facts))
    for spec in manifest["files"]:
        if spec["kind"] not in ("yaml", "json"):
            continue
        source = files.get(spec["path"])
        if source is None:
            facts["documents"][spec["path"]] = document(None, spec["kind"], "not submitted")
        else:
            text = source.text if source.usable else None
            facts["documents"][spec["path"]] = document(text, spec["kind"], source.error)


def make_observe(manifest: Mapping[str, Any], folder: Path, pack_id: str) -> Observe:
    """The observe function of one task (run modes script, call, http, parse)."""
    mode = manifest["run"]["mode"]
    if mode not in ("script", "call", "http", "parse"):
        raise ValueError(f"make_observe does not handle run mode {mode!r}")
    folder = Path(folder)

    def observe(files: Mapping[str, Any], run: Callable[..., Any], test_data: Path, seed: int) -> dict[str, Any]:
        derived = task_seed(manifest.get("perturb"), seed, pack_id, manifest["id"])
        facts: dict[str, Any] = {"mode": mode, "seed": derived, "problem": "", "expected_problem": {},
                                 "reference_problem": {}}
        if mode == "script":
            _observe_script(manifest, folder, run, derived, facts, pack_id)
        elif mode == "parse":
            _observe_parse(manifest, folder, files, facts)
        else:
            _observe_cases(manifest, folder, run, derived, facts, http=mode == "http", pack_id=pack_id)
        return facts

    return observe
