"""What a task manifest must mean beyond its schema (A.8), each problem on its node's line.

Every function here takes a schema-valid task ``Document`` and returns Problems: the points
add up (per category to ``maxima``, in total to the task's points); check ids and case labels
are unique; every ``use:``, generator and ``observe:`` name resolves, and each ``with:`` fits
its type's schema; run files are submitted files; a task that runs code checks the sandbox.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from . import registry
from .local_plugins import resolve_check, resolve_generator, resolve_observer
from .problems import Problem
from .schema_check import case_validator, params_validator, validate
from .yamlpos import Document
from ..untrusted import UNSAFE, escape

CATEGORIES = ("syntax", "structure", "execution", "quality", "security", "performance", "maintainability")
EXECUTING_MODES = ("script", "call", "http")  # a custom observe function decides for itself
SANDBOX_CHECK = "exec.sandbox_violations"
RESERVED_LABEL = re.compile(r"^perturbed_[0-9]+$")


def number(value: float) -> str:
    """``25.0`` -> ``25``, ``2.5`` -> ``2.5``."""
    return f"{round(value, 6):g}"


def category_sums(checks: list[dict[str, Any]]) -> dict[str, float]:
    """Points per category, for all seven categories (0 where no check is)."""
    sums = dict.fromkeys(CATEGORIES, 0.0)
    for check in checks:
        sums[check["category"]] += float(check["points"])
    return sums


def check_sums(doc: Document, points: float) -> list[Problem]:
    """Per-category sums equal ``maxima`` (when given), and the total equals ``points``."""
    task, problems = doc.data, []
    sums = category_sums(task["checks"])
    for category, maximum in task.get("maxima", {}).items():
        if abs(sums[category] - maximum) > 1e-9:
            problems.append(doc.problem(("maxima", category), f"checks in {category} add up to "
                                        f"{number(sums[category])}, maxima says {number(maximum)}"))
    for category in sorted(set(CATEGORIES) - set(task.get("maxima", {}))):
        if "maxima" in task and sums[category]:
            problems.append(doc.problem(("maxima",), f"checks in {category} add up to "
                                        f"{number(sums[category])}, maxima has no {category}"))
    total = sum(sums.values())
    if abs(total - points) > 1e-9:
        parts = ", ".join(f"{c} {number(s)}" for c, s in sums.items() if s)
        where = ("points",) if "points" in task else ("checks",)
        problems.append(doc.problem(where, f"checks add up to {number(total)}, the task's points are "
                                           f"{number(points)} ({parts})"))
    return problems


def check_title(doc: Document) -> list[Problem]:
    """A pack's or task's title is one line of plain text: it reaches every report and the
    terminal as written (a newline would start a heading in ``pack docs``)."""
    found = UNSAFE.search(doc.data["title"])
    if found is None:
        return []
    return [doc.problem(("title",), f"a title is one line of plain text: '{escape(found.group())}' at "
                                    f"character {found.start() + 1} (no control, bidirectional or "
                                    "surrogate characters)")]


def check_unique_ids(doc: Document) -> list[Problem]:
    seen: dict[str, int] = {}
    problems = []
    for index, check in enumerate(doc.data["checks"]):
        if check["id"] in seen:
            problems.append(doc.problem(("checks", index, "id"),
                                        f"check id {check['id']!r} repeats checks/{seen[check['id']]}"))
        seen.setdefault(check["id"], index)
    return problems


def _unknown(kind: str, name: str, known: list[str], group: str, error: Exception) -> str:
    if "unknown name" not in str(error) and "no built-in named" not in str(error):
        return str(error)
    near = registry.closest(name, known)
    try:
        seen = registry.plugin_names(group)
    except Exception as exc:  # a broken metadata scan is reported, not raised
        seen, near = [f"(scan failed: {exc})"], near
    hint = f"; closest: {', '.join(near)}" if near else ""
    if name in seen:  # offered by a plugin, under a name only built-ins may have
        hint += "; a plugin offers it, but that prefix is reserved for built-ins (rename the entry point)"
    return f"unknown {kind} {name!r}{hint}; entry points seen in {group}: {', '.join(seen) or 'none'}"


def _check_with(doc: Document, where: tuple, schema: dict[str, Any], params: Any) -> list[Problem]:
    if params is None:
        params = {}
        if not schema.get("required"):
            return []
        return [doc.problem(where[:-1], f"'with' needs {', '.join(schema['required'])}")]
    return validate(doc, params_validator(schema), where)


def check_uses(doc: Document, pack_id: str) -> tuple[list[Problem], dict[int, registry.CheckType]]:
    """Each ``use:`` resolves (else the closest names and the entry points seen), and its
    ``with:`` fits that type's schema. Returns (problems, check index -> check type)."""
    problems, resolved = [], {}
    for index, check in enumerate(doc.data["checks"]):
        try:
            kind = resolve_check(pack_id, check["use"])
        except registry.RegistryError as exc:
            message = _unknown("check type", check["use"], sorted(registry.CHECK_TYPES), registry.CHECK_GROUP, exc)
            problems.append(doc.problem(("checks", index, "use"), message))
            continue
        if kind.name.startswith("core.") and pack_id != "core":
            problems.append(doc.problem(("checks", index, "use"), f"{kind.name} judges what the core "
                                        "prompt's own observe function reports; it is not for other packs"))
            continue
        resolved[index] = kind
        if "method" in check and check["method"] != kind.method:
            problems.append(doc.problem(("checks", index, "method"), f"{kind.name} judges by "
                                        f"{kind.method}, not {check['method']} (method may be left out)"))
        problems += _check_with(doc, ("checks", index, "with"), kind.schema(), check.get("with"))
    return problems, resolved


def check_generators(doc: Document, pack_id: str) -> tuple[list[Problem], list[registry.Generator]]:
    """Every perturb generator resolves, is of the right kind (file for inputs, cases for
    call/http), and its ``with:`` fits its schema."""
    perturb, problems, used = doc.data.get("perturb"), [], []
    if not perturb:
        return [], []
    wanted = [(("perturb", "inputs", n), s, "file") for n, s in perturb.get("inputs", {}).items()]
    if "generator" in perturb:
        wanted.append((("perturb",), perturb, "cases"))
    for where, spec, kind in wanted:
        try:
            generator = resolve_generator(pack_id, spec["generator"])
        except registry.RegistryError as exc:
            message = _unknown("generator", spec["generator"], sorted(registry.GENERATORS),
                               registry.GENERATOR_GROUP, exc)
            problems.append(doc.problem(where + ("generator",), message))
            continue
        used.append(generator)
        if generator.kind != kind:
            problems.append(doc.problem(where + ("generator",), f"{generator.name} makes {generator.kind} "
                                        f"inputs; {kind} inputs are needed here"))
        problems += _check_with(doc, where + ("with",), generator.schema(), spec.get("with"))
    return problems, used


def check_perturb_targets(doc: Document) -> list[Problem]:
    """Script-mode perturbed inputs regenerate staged files; call/http ones make cases."""
    perturb, run = doc.data.get("perturb"), doc.data["run"]
    if not perturb:
        return []
    if "inputs" in perturb:
        if run["mode"] != "script":
            return [doc.problem(("perturb", "inputs"), "perturbed input files need run mode script")]
        return [doc.problem(("perturb", "inputs", name), f"{name} is not a staged name in run.stage", key=True)
                for name in perturb["inputs"] if name not in run.get("stage", {})]
    if run["mode"] not in ("call", "http"):
        return [doc.problem(("perturb", "generator"), "generated cases need run mode call or http")]
    return []


def check_observer(doc: Document, pack_id: str) -> tuple[list[Problem], Any]:
    """For run mode custom: (problems, (observe function, source) or None)."""
    run = doc.data["run"]
    if run["mode"] != "custom":
        return [], None
    try:
        return [], resolve_observer(pack_id, run["observe"])
    except registry.RegistryError as exc:
        message = _unknown("observe function", run["observe"], sorted(registry.OBSERVERS), registry.CHECK_GROUP, exc)
        return [doc.problem(("run", "observe"), message)], None


def _case_problems(case: dict[str, Any], seen: dict[str, str], name: str) -> list[tuple[str, str]]:
    """(json key, message) of what is wrong with one case: its label and its expectation."""
    label, problems = case["label"], []
    if RESERVED_LABEL.match(label):
        problems.append(("label", f"{label!r}: perturbed_<n> labels are reserved for generated cases"))
    if label in seen:
        problems.append(("label", f"label {label!r} repeats {seen[label]}"))
    seen.setdefault(label, name)
    if ("expect" in case) == ("raises" in case):
        problems.append(("", "a case needs exactly one of expect and raises"))
    return problems


def _cases_file_problems(doc: Document, folder: Path, seen: dict[str, str]) -> list[Problem]:
    """A ``cases_file`` holds a JSON list of cases shaped like the manifest's own; each problem
    is reported on the ``cases_file`` line, naming the case by its index in the file."""
    relative, where = doc.data["run"]["cases_file"], ("run", "cases_file")
    try:
        cases = json.loads((folder / relative).read_bytes().decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        return [doc.problem(where, f"{relative} is not a readable JSON file: {exc}")]
    if not isinstance(cases, list):
        return [doc.problem(where, f"{relative} must hold a JSON list of cases")]
    validator, problems = case_validator(), []
    for index, case in enumerate(cases):
        errors = sorted(validator.iter_errors(case), key=lambda e: list(e.absolute_path))
        if errors:
            problems += [doc.problem(where, f"{relative} case {index}: {e.message}") for e in errors[:3]]
            continue
        problems += [doc.problem(where, f"{relative} case {index}: {message}")
                     for _, message in _case_problems(case, seen, f"{relative} case {index}")]
    return problems


def check_cases(doc: Document, folder: Path | None = None) -> list[Problem]:
    """Case and scenario labels are unique (across ``cases`` and ``cases_file``) and not
    ``perturbed_<n>``; each case has exactly one of ``expect`` and ``raises``; a ``cases_file``
    holds cases of the manifest's own shape."""
    run, problems, seen = doc.data["run"], [], {}
    key = "scenarios" if run["mode"] == "http" else "cases"
    for index, case in enumerate(run.get(key, [])):
        where = ("run", key, index)
        for part, message in _case_problems(case, seen, f"{key}/{index}"):
            problems.append(doc.problem(where + ((part,) if part else ()), message))
    if folder is not None and "cases_file" in run and (folder / run["cases_file"]).is_file():
        problems += _cases_file_problems(doc, folder, seen)
    return problems


def check_named_runs(doc: Document) -> list[Problem]:
    """A script task's named runs have labels of their own: unique, not ``fixture``, not
    ``perturbed_<n>``."""
    seen, problems = {"fixture": "the fixture run"}, []
    for index, named in enumerate(doc.data["run"].get("runs", [])):
        label, where = named["label"], ("run", "runs", index, "label")
        if RESERVED_LABEL.match(label):
            problems.append(doc.problem(where, f"{label!r}: perturbed_<n> labels are reserved for generated runs"))
        elif label in seen:
            problems.append(doc.problem(where, f"label {label!r} repeats {seen[label]}"))
        seen.setdefault(label, f"runs/{index}")
    return problems


def check_run_files(doc: Document) -> list[Problem]:
    """``entry``/``module`` name a submitted file and no staged name is one; a task that runs
    code checks the sandbox."""
    task, run, problems = doc.data, doc.data["run"], []
    names = [f["path"] for f in task["files"]]
    for key in ("entry", "module"):
        if key in run and run[key] not in names:
            problems.append(doc.problem(("run", key), f"{run[key]} is not one of files ({', '.join(names)})"))
    for name in run.get("stage", {}):
        if name in names:
            problems.append(doc.problem(("run", "stage", name), "the staged file would replace the "
                                        f"submitted file {name} in the run's folder: give it another name"))
    if run["mode"] in EXECUTING_MODES and not any(c["use"] == SANDBOX_CHECK for c in task["checks"]):
        problems.append(doc.problem(("checks",), f"run mode {run['mode']} runs code: add a check with "
                                                 f"use: {SANDBOX_CHECK}"))
    return problems


def check_yaml11_booleans(doc: Document) -> list[Problem]:
    """A warning for every unquoted YAML 1.1 boolean (``on``, ``off``, ``yes``, ``no``, ``y``,
    ``n``) still read as a boolean once the schemas put back the text where one was wanted (those
    were warned about there): YAML 1.2 reads the same word as a string, and an ``args: [no]``
    meant as text would silently pass ``False`` to the function."""
    problems = []
    for path, written in sorted(doc.yaml11_booleans.items(), key=lambda item: doc.position(item[0])):
        value = doc.data
        try:
            for part in path:
                value = value[part]
        except (KeyError, IndexError, TypeError):
            continue
        if isinstance(value, bool):
            problems.append(doc.problem(path, f"unquoted {written} is read as the boolean {str(value).lower()} "
                                              f"(YAML 1.1; YAML 1.2 reads it as text): write {str(value).lower()} "
                                              f"for the boolean, or '{written}' in quotes for the text",
                                        severity="warning"))
    return problems


def _library_type(use: str) -> bool:
    """Whether a check type is the library's, whose parameters these checks know how to read:
    built in, and not one of the core prompts' own (``core.*``), which read their own facts."""
    return registry.is_builtin_name(use) and not use.startswith("core.")


CASE_JUDGES = {"cases.equal": "expect", "cases.raises": "raises"}  # built-in types that read an expectation


def check_judged_cases(doc: Document) -> list[Problem]:
    """A warning for each case of a ``call`` task whose expectation no check reads (no
    ``cases.equal`` selects a case that ``expect``s a value, no ``cases.raises`` one that expects
    an exception), and for generated cases no ``cases.equal`` selects: such a case is run and
    never graded. A task using a plugin's check type is not judged here (its type may read any
    case; nor are the core prompts' own types)."""
    task, run = doc.data, doc.data["run"]
    if run["mode"] != "call" or not all(_library_type(c["use"]) for c in task["checks"]):
        return []
    judged: dict[str, set[str] | None] = {"expect": set(), "raises": set()}  # None: every case of that kind
    for check in task["checks"]:
        kind = CASE_JUDGES.get(check["use"])
        if kind is None:
            continue
        labels = (check.get("with") or {}).get("labels")
        if labels is None:
            judged[kind] = None
        elif judged[kind] is not None:
            judged[kind] |= {str(label) for label in labels}
    problems = []
    for index, case in enumerate(run.get("cases", [])):
        kind = "expect" if "expect" in case else "raises"
        if judged[kind] is not None and case["label"] not in judged[kind]:
            use = "cases.equal" if kind == "expect" else "cases.raises"
            problems.append(doc.problem(("run", "cases", index, "label"), (
                f"case {case['label']!r} is judged by no check: add its label to a {use} check's labels, "
                f"or drop the case"), severity="warning"))
    if "perturb" in task and "inputs" not in task["perturb"] and judged["expect"] is not None \
            and not judged["expect"] & ({"perturbed"} | {f"perturbed_{n}" for n in range(1, 51)}):
        problems.append(doc.problem(("perturb",), "the generated cases are judged by no check: add "
                                                  "'perturbed' to a cases.equal check's labels", severity="warning"))
    return problems


def _known_labels(doc: Document, folder: Path | None) -> set[str] | None:
    """The labels a check may select in this task: its cases (call, http) or its runs
    (script: ``fixture`` and the named runs), the perturbed ones by number, and ``perturbed``;
    None for a mode without labels."""
    task, run = doc.data, doc.data["run"]
    count = int((task.get("perturb") or {}).get("count", 0))
    perturbed = {f"perturbed_{n}" for n in range(1, count + 1)} | ({"perturbed"} if count else set())
    if run["mode"] == "script":
        return {"fixture", *(r["label"] for r in run.get("runs", [])), *perturbed}
    if run["mode"] not in ("call", "http"):
        return None
    labels = {case["label"] for case in run.get("scenarios" if run["mode"] == "http" else "cases", [])}
    if folder is not None and "cases_file" in run:
        try:
            more = json.loads((folder / run["cases_file"]).read_bytes().decode("utf-8-sig"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):
            return None  # (check_cases reports the file)
        labels |= {case["label"] for case in more if isinstance(case, dict) and isinstance(case.get("label"), str)}
    return labels | perturbed


def check_selected_labels(doc: Document, folder: Path | None = None) -> list[Problem]:
    """Each label a built-in check selects (``with: {labels}`` or ``with: {runs}``) names a
    case or run of the task: a typo would otherwise select nothing and fail every answer, which
    only the behaviour gates would show."""
    known = _known_labels(doc, folder)
    if known is None:
        return []
    what = "run" if doc.data["run"]["mode"] == "script" else "case"
    problems = []
    for index, check in enumerate(doc.data["checks"]):
        if not _library_type(check["use"]):
            continue
        for key in ("labels", "runs"):
            for at, label in enumerate((check.get("with") or {}).get(key) or ()):
                if isinstance(label, str) and label not in known:
                    shown = ", ".join(sorted(known)[:12]) or "none"
                    problems.append(doc.problem(("checks", index, "with", key, at), (
                        f"{label!r} names no {what} of this task (its {what}s: {shown})")))
    return problems
