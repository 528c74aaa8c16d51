"""Prompt 1, Refactoring & Analysis: rewrite the legacy ``process_records.py`` as a safe CLI.

``observe`` runs ``prompt_1_solution.py <config>`` twice in a child: on the fixture (config
and records from ``test_data/``) and on a seeded perturbed data set with another config and
other file names, and one record per form the contract lists (``p1_refactoring_cases``). Stdout
is parsed in the parent
(``p1_refactoring_judge``) and compared, type-strictly, with the answer key / the oracle.
Source checks read the parsed tree through the shared analyzers; comments, docstrings and
strings never change a result. Most of them (syntax, imports, type hints, logging, bandit,
radon...) and the sandbox check are library check types named in the prompt's ``task.yaml``;
the prompt's own checks (``core.p1.<id>``) are the execution checks of
``p1_refactoring_behaviour`` (each re-exported here) and the source checks no library type
expresses, ``p1_refactoring_source``'s. This module keeps the spec and ``observe``.
"""

from __future__ import annotations

import dataclasses
import json
import marshal
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from ..submission import SourceFile
from ..types import ExecResult
from . import measured
from . import p1_refactoring_cases as cases
from . import p1_refactoring_data as data
from . import p1_refactoring_edges as edges
from . import p1_refactoring_judge as judge
from .base import RunFn
from .p1_refactoring_fixtures import (CONFIG_NAME, CONFIG_TEXT, LEGACY_NAME, LEGACY_SCRIPT,
                                      RECORDS, RECORDS_NAME, records_bytes)
from .p1_refactoring_source import CHECKS
from .p1_refactoring_behaviour import (FORM_COST, correct_filtering, correct_values,  # noqa: F401 (re-exported)
                                       json_output_validation, measured_performance,
                                       perturbed_dataset, runs_without_error)

PROMPT_ID = "prompt_1"
TITLE = "Refactoring & Analysis"
FILES = ("prompt_1_solution.py",)
PYTHON_FILES = frozenset(FILES)
MAIN = FILES[0]
ANSWER_KEY = "prompt_1_expected.json"
SCALE_BASE = 16  # measured performance: one run on 16x this many generated records
SCALED = measured.LABELS[16]
HAZARDS: dict[str, str] = {
    "unsafe_yaml_load": "process_records.py loads its config with yaml.load(..., "
                        "Loader=yaml.Loader), which can build arbitrary Python objects",
    "builtin_shadowing": "process_records.py binds list, id, filter and type as variables",
    "swallowed_exceptions": "process_records.py wraps each record in a bare `except: pass`, "
                            "so string ages, missing keys and bad entries vanish silently",
    "naive_datetimes": "process_records.py cuts the UTC offset off signup times ([:19]) and "
                       "subtracts them from a naive datetime.now()",
    "string_age_type_bug": "records.json has ages such as \"42\" and \" 27 \" (strings) and "
                           "30.5 (a float), and ids such as \"8\"; the legacy script compares "
                           "raw values with integer bounds",
    "hardcoded_country_filter": "process_records.py says 'filter by configured countries' but "
                                "keeps only country == \"US\", ignoring allowed_countries",
    "stdout_pollution": "process_records.py prints a progress line on stdout before the JSON",
    "unmanaged_opens": "process_records.py opens files without `with` or an encoding, and "
                       "opens data_source relative to the working directory",
    "mixed_utc_offsets": "records.json signup times use Z, +02:00, -05:00, +05:30 and one "
                         "naive time; some cross midnight when converted to UTC",
    "messy_records": "records.json has lowercase/padded countries, a duplicate id, a null "
                     "email, a non-object entry and an impossible date (2024-02-30)",
}

GENERATED_BY = "`p1_refactoring_cases.perturbed_case`, judged by `perturbed_dataset`"
GENERATED_CASES: dict[str, str] = {kind: ("kept: " if kept else "dropped: ") + text
                                   for kind, (text, kept) in cases.FORMS.items()}


def fixture_files() -> dict[str, bytes]:
    return {LEGACY_NAME: LEGACY_SCRIPT.encode("utf-8"), CONFIG_NAME: CONFIG_TEXT.encode("utf-8"),
            RECORDS_NAME: records_bytes(RECORDS)}


def fixture_expected() -> list[dict[str, Any]]:
    return data.expected_output(yaml.safe_load(CONFIG_TEXT), RECORDS)


def answer_keys() -> dict[str, bytes]:
    return {ANSWER_KEY: records_bytes(fixture_expected())}


@lru_cache(maxsize=4)
def _perturbed(seed: int) -> tuple[cases.PerturbedCase, bytes]:
    case = cases.perturbed_case(seed)
    return case, marshal.dumps(case.expected)


def perturbed_case(seed: int) -> cases.PerturbedCase:
    """``cases.perturbed_case(seed)``, built once per process (the same for every model); each
    grading gets its own copy of the expected records (bytes and tuples are immutable). The
    expected output is plain JSON-like data, which ``marshal`` copies exactly; the bytes are
    the grader's own, never a submission's."""
    case, expected = _perturbed(seed)
    return dataclasses.replace(case, expected=marshal.loads(expected))


def _request(argv: list[str], label: str) -> dict[str, Any]:
    return {"mode": "script", "module": MAIN, "argv": argv, "label": label, "record_sleep": True}


def _scaled(seed: int, label: str) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The timed run on 16x SCALE_BASE generated records (a repeat's label ends in ``_again``):
    it repeats code the prompt already ran, so only new blocked attempts count."""
    case = _scaled_case(seed)
    return ({**_request([case.config_name], label), "timeout_s": measured.TIMEOUT_S, "repeat": True},
            {case.config_name: case.config, case.data_name: case.records})


@lru_cache(maxsize=4)
def _scaled_case(seed: int) -> cases.ScaledCase:
    return cases.scaled_case(seed, 16 * SCALE_BASE, SCALED)


def _reference_costs(run: RunFn, seed: int, fresh: bool = False) -> dict[str, Any]:
    """The reference solution's cost, measured as the answer's (the scaled run), once per
    process, or ``fresh`` beside an answer's repeat (``measured.best_pair``)."""
    files = measured.reference_files(PROMPT_ID, FILES)
    request, inputs = _scaled(seed, SCALED)

    def measure() -> tuple[list[float] | None, str | None, bool, float | None]:
        timed = {SCALED: run(request, {**files, **inputs}, reference=True)}
        costs, problem = measured.script_costs(timed, (SCALED,))
        return costs, problem, measured.finished(timed[SCALED]), measured.script_outside(timed)

    key = {"requests": [request], "inputs": [sorted(inputs)], "base": SCALE_BASE}
    return measured.reference_costs(PROMPT_ID, files, key, seed, measure, fresh=fresh)


def _measured(run: RunFn, seed: int, done: dict[str, ExecResult]) -> dict[str, Any]:
    """``facts["measured"]``: the scaled run's cost; when it falls short of full credit against
    the reference, the run is made again and the reference timed again beside it, and the
    better comparison counts (``measured.best_pair``); sleeps of every run."""
    request, inputs = _scaled(seed, SCALED)
    timed = {SCALED: run(request, inputs)}
    costs, problem = measured.script_costs(timed, (SCALED,))
    outside = measured.script_outside(timed)
    slept = {label: measured.sleep_of(r.observation) for label, r in {**done, **timed}.items()}
    gold = lambda: _reference_costs(run, seed)  # noqa: E731
    if costs is not None and not any(slept.values()):
        reference = gold()
        if "costs" in reference and measured.verdict(costs, outside, reference)[0] < 1:
            request, inputs = _scaled(seed, SCALED + measured.AGAIN)
            repeat = {SCALED: run({**request, "retime": True}, inputs)}
            timed[SCALED + measured.AGAIN] = repeat[SCALED]
            again, _ = measured.script_costs(repeat, (SCALED,))
            if again is not None:
                beside = _reference_costs(run, seed, fresh=True)
                extra = measured.script_outside(repeat)
                costs, outside, reference = measured.best_pair(
                    [(costs, outside, reference), (again, extra, reference), (again, extra, beside)])
        gold = lambda: reference  # noqa: E731
    unit = f"{16 * SCALE_BASE} generated records"
    return {**measured.facts(costs, problem, gold, slept, unit, outside),
            "share": _timed_share(seed, timed)}


def _timed_share(seed: int, timed: dict[str, ExecResult]) -> list[int] | None:
    """(right, counted) of the timed run(s)' output against the oracle's answer for the scaled
    records (``judge.record_share``), the lowest of the runs; a run that printed no JSON array
    gets nothing right. None when no timed run gave a record."""
    expected = list(_scaled_case(seed).expected)
    shares = []
    for result in timed.values():
        if result.observation is None:
            continue
        output, problem = judge.parse_output(result.stdout, result.output_truncated)
        ok = problem is None and isinstance(output, list) and result.observation.get("exit_code") == 0
        shares.append((judge.record_share(expected, output) if ok else (0, max(1, len(expected))), ""))
    share, _ = measured.weakest(shares)
    return list(share) if share else None


def observe(files: Mapping[str, SourceFile], run: RunFn, test_data: Path,
            seed: int) -> dict[str, Any]:
    """Run the CLI on the fixture, on the seeded perturbed data set and on the fixture with
    edge records appended (``p1_refactoring_edges``), then once on 16x
    SCALE_BASE generated records for ``measured_performance`` (last: a time-out there costs
    no correctness run). ``runs`` holds the first three runs' records again, by label: where
    the library's ``exec.sandbox_violations`` sees that the sandbox watched runs."""
    test_data = Path(test_data)
    stage = {name: (test_data / name).read_bytes() for name in (CONFIG_NAME, RECORDS_NAME)}
    expected = json.loads((test_data / "answer_keys" / ANSWER_KEY).read_text(encoding="utf-8"))
    case = perturbed_case(seed)
    small = {"fixture": (_request([CONFIG_NAME], "fixture"), stage),
             "perturbed": (_request([case.config_name], "perturbed"),
                           {case.config_name: case.config, case.data_name: case.records}),
             edges.LABEL: (_request([edges.CONFIG], edges.LABEL), edges.files())}
    done = {label: run(request, inputs) for label, (request, inputs) in small.items()}
    fixture = judge.summarise_run("fixture", done["fixture"], expected)
    perturbed = judge.summarise_run("perturbed", done["perturbed"], case.expected)
    perturbed["forms"] = [list(form) for form in case.forms]
    edge = judge.summarise_run(edges.LABEL, done[edges.LABEL], expected, edges.parse_int)
    return {"seed": seed, "fixture": fixture, "perturbed": perturbed, edges.LABEL: edge,
            "runs": {"fixture": fixture, "perturbed": perturbed, edges.LABEL: edge},
            "measured": _measured(run, seed, done)}
