"""Prompt 2, YAML/JSON Correction: repair ``test_data/config.yaml`` and give it again as JSON.

No submission code runs. ``observe`` parses both submitted files in the parent with the
limited safe loaders of ``benchmark.safe_parse`` and adds the answer key; checks compare
type-strictly (``true`` is not ``1``, ``1`` is not ``1.0``) and read raw lines only for
layout, skipping comment-only lines, so comments never change a score.

Scoring choices, so that a key skeleton (six top-level keys with null values) earns ~0 of
execution: a leaf counts as matched or agreed only with a non-null value at its exact
path; unknown extra leaves dilute ``partial_matches``; ``deep_equivalence`` credits each
exactly right top-level section, so one wrong value costs one section. YAML literal spellings
come from parser events (``yes`` and ``true`` load alike). When the YAML holds several
documents the first one is compared (what a reader taking one document sees). The style
checks (indentation, literals, formatting, duplication) earn nothing while either file does
not load: the layout of text that is not YAML/JSON is no style.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..safe_parse import parse_file
from ..submission import SourceFile
from ..types import Evidence
from . import p2_yaml_json_data as data
from .base import CheckContext, Outcome, RunFn, make_registry
from .p2_yaml_layout import yaml_indentation as yaml_layout

PROMPT_ID = "prompt_2"
TITLE = "YAML/JSON Correction"
YAML_FILE = "prompt_2_config_fixed.yaml"
JSON_FILE = "prompt_2_config.json"
FILES = (YAML_FILE, JSON_FILE)
PYTHON_FILES: frozenset[str] = frozenset()
FIXTURE_PATH = "config.yaml"
ANSWER_KEY_PATH = "prompt_2_expected.json"
HAZARDS = data.HAZARDS
KINDS = {"yaml": YAML_FILE, "json": JSON_FILE}
CHECKS, check = make_registry()


def fixture_files() -> dict[str, bytes]:
    return {FIXTURE_PATH: data.FIXTURE_YAML.encode("utf-8")}


def answer_keys() -> dict[str, bytes]:
    return {ANSWER_KEY_PATH: (json.dumps(data.EXPECTED, indent=2) + "\n").encode("utf-8")}


def observe(files: Mapping[str, SourceFile], run: RunFn, test_data: Path, seed: int = 0) -> dict[str, Any]:
    """Parse both files (no child run is needed: nothing in this prompt is executed)."""
    del run, seed  # nothing runs; there is no perturbed data for a configuration file
    expected = json.loads((test_data / "answer_keys" / ANSWER_KEY_PATH).read_text(encoding="utf-8"))
    yaml_file, json_file = files.get(YAML_FILE), files.get(JSON_FILE)
    return {
        "expected": expected,
        "yaml": parse_file("yaml", _text(yaml_file), _reason(yaml_file)),
        "json": parse_file("json", _text(json_file), _reason(json_file)),
    }


def _text(source: SourceFile | None) -> str | None:
    return source.text if source is not None and source.usable else None


def _reason(source: SourceFile | None) -> str | None:
    return "file not submitted" if source is None else source.error


# ---- shared judging helpers -----------------------------------------------------------


def _parsed(ctx: CheckContext, kind: str) -> dict[str, Any]:
    return ctx.facts.get(kind) or {"status": "missing", "error": "not parsed", "data": None,
                                   "documents": 0, "duplicates": [], "line": None}


def _data(ctx: CheckContext, kind: str) -> tuple[bool, Any]:
    parsed = _parsed(ctx, kind)
    return parsed["status"] == "ok", parsed["data"]


def _expected(ctx: CheckContext) -> dict[str, Any]:
    return ctx.facts.get("expected") or data.EXPECTED


def _failure_evidence(ctx: CheckContext, kind: str) -> tuple[Evidence, ...]:
    parsed = _parsed(ctx, kind)
    return (Evidence(KINDS[kind], parsed.get("line"), str(parsed.get("error"))[:200]),)


def _per_file(ctx: CheckContext, measure) -> tuple[float, list[str], list[Evidence]]:
    """Average ``measure(tree) -> (done, total, missing paths)`` over the two files."""
    fractions, notes, evidence = [], [], []
    for kind, name in KINDS.items():
        loaded, tree = _data(ctx, kind)
        if not loaded:
            fractions.append(0.0)
            notes.append(f"{kind.upper()} did not load")
            continue
        done, total, missing = measure(tree)
        fractions.append(done / total if total else 1.0)
        notes.append(f"{kind.upper()} {done}/{total}")
        if missing:
            evidence.append(Evidence(name, None, "wrong or missing: " + ", ".join(missing[:4])))
    return sum(fractions) / len(fractions), notes, evidence


# ---- syntax ---------------------------------------------------------------------------


def _parses(ctx: CheckContext, kind: str) -> Outcome:
    parsed, name = _parsed(ctx, kind), KINDS[kind]
    if parsed["status"] != "ok":
        return Outcome.fail(f"{name} does not load safely ({parsed['status']}): {parsed['error']}",
                            _failure_evidence(ctx, kind))
    tree, count = parsed["data"], parsed["documents"]
    if not isinstance(tree, dict):
        what = "no document" if count == 0 else f"a {data.kind(tree)}"
        return Outcome.fail(f"{name} loads, but to {what} rather than a mapping", (Evidence(name),))
    if count > 1:
        return Outcome(0.5, f"{name} loads, but holds {count} documents where one is required",
                       (Evidence(name, None, f"{count} documents"),))
    return Outcome.ok(f"{name} loads safely to one mapping with {len(tree)} top-level keys")


@check("yaml_parses")
def yaml_parses(ctx: CheckContext) -> Outcome:
    return _parses(ctx, "yaml")


@check("json_parses")
def json_parses(ctx: CheckContext) -> Outcome:
    return _parses(ctx, "json")


# ---- structure ------------------------------------------------------------------------


@check("required_keys")
def required_keys(ctx: CheckContext) -> Outcome:
    top = [(key,) for key in _expected(ctx)]
    fraction, notes, evidence = _per_file(ctx, lambda tree: data.count_paths(tree, top, lambda p, v: True))
    return Outcome.ratio(fraction, 1, f"top-level keys present: {', '.join(notes)}", evidence)


@check("nested_shapes")
def nested_shapes(ctx: CheckContext) -> Outcome:
    expected = _expected(ctx)
    nested = sorted(p for p in data.node_paths(expected) if len(p) == 2)
    fraction, notes, evidence = _per_file(ctx, lambda tree: data.count_paths(tree, nested, lambda p, v: True))
    return Outcome.ratio(fraction, 1, f"nested keys at their intended mapping paths: {', '.join(notes)}",
                         evidence)


@check("arrays_scalars")
def arrays_scalars(ctx: CheckContext) -> Outcome:
    wanted = data.leaves(_expected(ctx))
    same_kind = lambda p, v: data.kind(v) == data.kind(wanted[p])  # noqa: E731
    fraction, notes, evidence = _per_file(ctx, lambda tree: data.count_paths(tree, list(wanted), same_kind))
    return Outcome.ratio(fraction, 1, f"leaves of the intended kind (list or scalar): {', '.join(notes)}",
                         evidence)


# ---- execution ------------------------------------------------------------------------


@check("deep_equivalence")
def deep_equivalence(ctx: CheckContext) -> Outcome:
    """Share of the top-level sections exactly (type-strictly) equal to the intended ones, per file.

    Half the points per file; an unknown extra top-level key counts as one more wrong section."""
    fraction, notes, evidence = _per_file(ctx, lambda tree: data.sections_equal(tree, _expected(ctx)))
    return Outcome.ratio(fraction, 1, f"top-level sections equal to the intended ones (type-strict): "
                                      f"{', '.join(notes)}", evidence)


@check("partial_matches")
def partial_matches(ctx: CheckContext) -> Outcome:
    expected = _expected(ctx)
    fraction, notes, evidence = _per_file(ctx, lambda tree: data.leaves_matched(tree, expected))
    return Outcome.ratio(fraction, 1, f"intended leaves matched type-strictly (extras count against): "
                                      f"{', '.join(notes)}", evidence)


@check("yaml_json_agree")
def yaml_json_agree(ctx: CheckContext) -> Outcome:
    (y_ok, y_tree), (j_ok, j_tree) = _data(ctx, "yaml"), _data(ctx, "json")
    if not (y_ok and j_ok):
        missing = "yaml" if not y_ok else "json"
        return Outcome.fail("both files must load to compare them", _failure_evidence(ctx, missing))
    y_leaves, j_leaves = data.leaves(y_tree), data.leaves(j_tree)
    paths = set(data.leaves(_expected(ctx))) | set(y_leaves) | set(j_leaves)
    agree = [p for p in paths if p in y_leaves and p in j_leaves and y_leaves[p] is not None
             and data.strict_equal(y_leaves[p], j_leaves[p])]
    differ = sorted({data.dotted(p) for p in paths} - {data.dotted(p) for p in agree})
    note = "differs from the YAML at: " + ", ".join(differ[:4])
    evidence = [Evidence(JSON_FILE, None, note)] if differ else []
    return Outcome.ratio(len(agree), len(paths), f"YAML and JSON agree type-strictly on "
                         f"{len(agree)}/{len(paths)} leaf paths (null never counts)", evidence)


# ---- quality --------------------------------------------------------------------------


def _raw(ctx: CheckContext, name: str) -> str | None:
    source = ctx.files.get(name)
    return source.text if source is not None and source.usable else None


def _unstyled(ctx: CheckContext, kind: str) -> tuple[str, tuple[Evidence, ...]] | None:
    """Why ``kind``'s file earns no style credit, with its evidence (it does not load, or loads
    to nothing or to something other than a mapping: a configuration with no settings), or None."""
    parsed = _parsed(ctx, kind)
    if parsed["status"] != "ok":
        return (f"{KINDS[kind]} does not load ({parsed['status']}): {parsed['error']}",
                _failure_evidence(ctx, kind))
    empty = _no_configuration(parsed, kind)
    return (empty, (Evidence(KINDS[kind]),)) if empty else None


def _no_configuration(parsed: dict[str, Any], kind: str) -> str | None:
    """For a file that loads: why it holds no configuration (it loads to no document, ``null``,
    a list or a scalar: not a mapping of settings), or None when it loads to a mapping."""
    if isinstance(parsed["data"], dict):
        return None
    what = "no document" if parsed["documents"] == 0 else f"a {data.kind(parsed['data'])}"
    return f"{KINDS[kind]} loads to {what}, not a mapping of settings"


def style_blocker(ctx: CheckContext) -> Outcome | None:
    """Zero for every style check while either file does not load, or loads to something that
    is not a mapping (``---`` alone, ``null``, a list): the layout of text that holds no
    configuration is no style (no points for nothing). None when both files load to mappings."""
    why = {kind: found for kind in KINDS if (found := _unstyled(ctx, kind))}
    if not why:
        return None
    state = ("does not load" if all(_parsed(ctx, kind)["status"] != "ok" for kind in why)
             else "holds no configuration")
    return Outcome.fail(f"no style credit while a file {state}: "
                        + "; ".join(reason for reason, _ in why.values()),
                        [item for _, evidence in why.values() for item in evidence])


@check("yaml_indentation")
def yaml_indentation(ctx: CheckContext) -> Outcome:
    """YAML indented with spaces, two per nesting level, list items two deeper than their key.

    Read from raw lines; comment-only lines and the text of multi-line scalars are skipped."""
    blocked = style_blocker(ctx)
    if blocked:
        return blocked
    text = _raw(ctx, YAML_FILE)
    if text is None:
        return Outcome.fail(f"{YAML_FILE} is not usable", _failure_evidence(ctx, "yaml"))
    fine, nested, problems = yaml_layout(text)
    if nested == 0:
        return Outcome.ok("no lines inside a block (nothing to get wrong)")
    evidence = [Evidence(YAML_FILE, line, why) for line, why in problems[:5]]
    return Outcome.ratio(fine, nested, f"{fine}/{nested} lines inside a block use spaces in 2-space steps, "
                                       "list items 2 deeper than their key (comments and multi-line scalar "
                                       "text ignored)", evidence)


@check("json_literals")
def json_literals(ctx: CheckContext) -> Outcome:
    """Booleans and integers are native, canonical literals in both files (YAML: `true`/`false`, `100`).

    YAML: plain, untagged `true`/`false` and decimal integers, from yaml's parser events (`yes`
    loads like `true` but fails); JSON: native booleans and integers. Half the points per file."""
    blocked = style_blocker(ctx)
    if blocked:
        return blocked
    typed = {p: v for p, v in data.leaves(_expected(ctx)).items() if isinstance(v, (bool, int))}
    (y_loaded, _), (j_loaded, tree) = _data(ctx, "yaml"), _data(ctx, "json")
    spellings = {tuple(s["path"]): s for s in _parsed(ctx, "yaml").get("scalars") or []} if y_loaded else {}
    wrong = {"yaml": [f"{data.dotted(p)} ({data.written(spellings.get(p))})" for p in typed
                      if not data.canonical_literal(spellings.get(p), typed[p])],
             "json": data.count_paths(tree, list(typed), lambda p, v: type(v) is type(typed[p]))[2]}
    notes, evidence = [], []
    for kind, loaded, why in (("yaml", y_loaded, "not canonical"), ("json", j_loaded, "not native")):
        notes.append(f"{kind.upper()} {len(typed) - len(wrong[kind])}/{len(typed)}" if loaded
                     else f"{kind.upper()} did not load")
        if not loaded:
            evidence += _failure_evidence(ctx, kind)
        elif wrong[kind]:
            evidence.append(Evidence(KINDS[kind], None, f"{why}: " + ", ".join(wrong[kind])))
    done = 2 * len(typed) - len(wrong["yaml"]) - len(wrong["json"])
    return Outcome.ratio(done, 2 * len(typed), "boolean and integer settings written as native, "
                         f"canonical literals: {', '.join(notes)}", evidence)


@check("formatting_style")
def formatting_style(ctx: CheckContext) -> Outcome:
    blocked = style_blocker(ctx)
    if blocked:
        return blocked
    loaded, tree = _data(ctx, "json")
    properties = data.style_properties(_raw(ctx, YAML_FILE), _raw(ctx, JSON_FILE), tree, loaded)
    held = [name for name, value in properties.items() if value is True]
    failed = [f"{name}: {value}" for name, value in properties.items() if value is not True]
    evidence = [Evidence(JSON_FILE if note.startswith("JSON") else YAML_FILE, None, note) for note in failed]
    summary = f"{len(held)}/{len(properties)} formatting properties hold"
    summary += f" (not: {'; '.join(failed)})" if failed else ""
    return Outcome.ratio(len(held), len(properties), summary, evidence)


@check("no_duplication")
def no_duplication(ctx: CheckContext) -> Outcome:
    blocked = style_blocker(ctx)
    if blocked:
        return blocked
    y, j = _parsed(ctx, "yaml"), _parsed(ctx, "json")
    y_ok, j_ok = y["status"] == "ok", j["status"] == "ok"
    properties = {
        "one YAML document": y_ok and y["documents"] == 1,
        "no repeated YAML keys": y_ok and not y["duplicates"],
        "no repeated JSON keys": j_ok and not j["duplicates"],
    }
    evidence = [Evidence(YAML_FILE, d.get("line"), f"key {d['key']!r} repeated") for d in y["duplicates"][:3]]
    evidence += [Evidence(JSON_FILE, None, f"key {d['key']!r} repeated") for d in j["duplicates"][:3]]
    if y_ok and y["documents"] != 1:
        evidence.append(Evidence(YAML_FILE, None, f"{y['documents']} documents"))
    held = sum(properties.values())
    missing = [name for name, ok in properties.items() if not ok]
    return Outcome.ratio(held, len(properties), f"{held}/{len(properties)} hold"
                         + (f"; not verified or violated: {', '.join(missing)}" if missing else ""), evidence)


# ---- security -------------------------------------------------------------------------


@check("yaml_safety")
def yaml_safety(ctx: CheckContext) -> Outcome:
    """The YAML loads with the limited safe loader (no language tags, aliases within limits) to a mapping of settings.

    A YAML that loads to no configuration (only comments, ``---`` alone, ``null``, a list, a
    scalar) earns nothing, as for style: nothing was loaded, safely or not."""
    parsed = _parsed(ctx, "yaml")
    status = parsed["status"]
    empty = _no_configuration(parsed, "yaml") if status == "ok" else None
    if empty:  # nothing was loaded, so nothing was loaded safely (no points for nothing)
        return Outcome.fail(f"no safety credit: {empty} (nothing was loaded safely)",
                            [Evidence(YAML_FILE)])
    if status == "ok":
        return Outcome.ok(f"{YAML_FILE} loads with the limited safe loader "
                          "(no language tags, aliases within limits)")
    why = {
        "unsafe_tag": "uses a tag the safe loader refuses",
        "limit": "exceeds the loader's alias/depth/size limits",
    }.get(status, "does not load, so its safety is unverified")
    return Outcome.fail(f"{YAML_FILE} {why}: {parsed['error']}", _failure_evidence(ctx, "yaml"))
