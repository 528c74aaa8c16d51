"""Prompt 2, YAML/JSON Correction: repair ``test_data/config.yaml`` and give it again as JSON.

No submission code runs. ``observe`` parses both submitted files in the parent with the
limited safe loaders of ``benchmark.safe_parse`` and adds the answer key; checks compare
type-strictly (``true`` is not ``1``, ``1`` is not ``1.0``) and read raw lines only for
layout, skipping comment-only lines, so comments never change a score.

Scoring choices, so that a key skeleton (six top-level keys with null values) earns ~0 of
execution: a leaf counts as matched or agreed only with a non-null value at its exact
path; unknown extra leaves dilute ``partial_matches``; ``deep_equivalence`` credits each
file whose whole configuration is exactly right: one wrong value makes a wrong
configuration (``partial_matches`` keeps the credit for the settings that are right, and
``yaml_json_agree`` the share of leaf paths on which the two files agree). YAML literal spellings
come from parser events (``yes`` and ``true`` load alike). When the YAML holds several
documents the first one is compared (what a reader taking one document sees). The style
checks (indentation, literals, formatting, duplication: ``p2_yaml_json_style``, whose
registry this module shares) earn nothing while either file does not load: the layout of
text that is not YAML/JSON is no style.
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
from .base import CheckContext, Outcome, RunFn
from .p2_yaml_json_style import (CHECKS, JSON_FILE, KINDS, YAML_FILE, check, expected_tree,
                                 failure_evidence, loaded_tree, no_configuration, parsed_facts)
# Every check lives in this module's namespace too (library users import them from here).
from .p2_yaml_json_style import (formatting_style, json_literals, no_duplication,  # noqa: F401
                                 style_blocker, yaml_indentation)

PROMPT_ID = "prompt_2"
TITLE = "YAML/JSON Correction"
FILES = (YAML_FILE, JSON_FILE)
PYTHON_FILES: frozenset[str] = frozenset()
FIXTURE_PATH = "config.yaml"
ANSWER_KEY_PATH = "prompt_2_expected.json"
HAZARDS = data.HAZARDS


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


def _share(done: int, total: int) -> float:
    return done / total if total else 1.0


def _per_file(ctx: CheckContext, measure, credit=_share) -> tuple[float, list[str], list[Evidence]]:
    """Average ``credit(done, total)`` (by default the share done) over the two files, with
    ``measure(tree) -> (done, total, missing paths)``; the notes say ``done/total`` per file."""
    fractions, notes, evidence = [], [], []
    for kind, name in KINDS.items():
        loaded, tree = loaded_tree(ctx, kind)
        if not loaded:
            fractions.append(0.0)
            notes.append(f"{kind.upper()} did not load")
            continue
        done, total, missing = measure(tree)
        fractions.append(credit(done, total))
        notes.append(f"{kind.upper()} {done}/{total}")
        if missing:
            evidence.append(Evidence(name, None, "wrong or missing: " + ", ".join(missing[:4])))
    return sum(fractions) / len(fractions), notes, evidence

# ---- syntax ---------------------------------------------------------------------------


def _parses(ctx: CheckContext, kind: str) -> Outcome:
    parsed, name = parsed_facts(ctx, kind), KINDS[kind]
    if parsed["status"] != "ok":
        return Outcome.fail(f"{name} does not load safely ({parsed['status']}): {parsed['error']}",
                            failure_evidence(ctx, kind))
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
    top = [(key,) for key in expected_tree(ctx)]
    fraction, notes, evidence = _per_file(ctx, lambda tree: data.count_paths(tree, top, lambda p, v: True))
    return Outcome.ratio(fraction, 1, f"top-level keys present: {', '.join(notes)}", evidence)


@check("nested_shapes")
def nested_shapes(ctx: CheckContext) -> Outcome:
    expected = expected_tree(ctx)
    nested = sorted(p for p in data.node_paths(expected) if len(p) == 2)
    fraction, notes, evidence = _per_file(ctx, lambda tree: data.count_paths(tree, nested, lambda p, v: True))
    return Outcome.ratio(fraction, 1, f"nested keys at their intended mapping paths: {', '.join(notes)}",
                         evidence)


@check("arrays_scalars")
def arrays_scalars(ctx: CheckContext) -> Outcome:
    wanted = data.leaves(expected_tree(ctx))
    same_kind = lambda p, v: data.kind(v) == data.kind(wanted[p])  # noqa: E731
    fraction, notes, evidence = _per_file(ctx, lambda tree: data.count_paths(tree, list(wanted), same_kind))
    return Outcome.ratio(fraction, 1, f"leaves of the intended kind (list or scalar): {', '.join(notes)}",
                         evidence)


# ---- execution ------------------------------------------------------------------------


@check("deep_equivalence")
def deep_equivalence(ctx: CheckContext) -> Outcome:
    """Each file whose whole configuration equals the intended one (type-strictly) earns half
    the points: a configuration with one wrong or missing setting is a wrong configuration
    (the service reads every value), so its file earns none of them (``partial_matches``
    credits the settings that are right). The note counts the top-level sections equal; an
    unknown extra top-level key counts as one more wrong section."""
    fraction, notes, evidence = _per_file(ctx, lambda tree: data.sections_equal(tree, expected_tree(ctx)),
                                          credit=lambda equal, total: float(equal == total))
    return Outcome.ratio(fraction, 1, f"files whose whole configuration is the intended one "
                                      f"(type-strict; top-level sections equal: {', '.join(notes)})",
                         evidence)


@check("partial_matches")
def partial_matches(ctx: CheckContext) -> Outcome:
    expected = expected_tree(ctx)
    fraction, notes, evidence = _per_file(ctx, lambda tree: data.leaves_matched(tree, expected))
    return Outcome.ratio(fraction, 1, f"intended leaves matched type-strictly (extras count against): "
                                      f"{', '.join(notes)}", evidence)


@check("yaml_json_agree")
def yaml_json_agree(ctx: CheckContext) -> Outcome:
    (y_ok, y_tree), (j_ok, j_tree) = loaded_tree(ctx, "yaml"), loaded_tree(ctx, "json")
    if not (y_ok and j_ok):
        missing = "yaml" if not y_ok else "json"
        return Outcome.fail("both files must load to compare them", failure_evidence(ctx, missing))
    y_leaves, j_leaves = data.leaves(y_tree), data.leaves(j_tree)
    paths = set(data.leaves(expected_tree(ctx))) | set(y_leaves) | set(j_leaves)
    agree = [p for p in paths if p in y_leaves and p in j_leaves and y_leaves[p] is not None
             and data.strict_equal(y_leaves[p], j_leaves[p])]
    differ = sorted({data.dotted(p) for p in paths} - {data.dotted(p) for p in agree})
    note = "differs from the YAML at: " + ", ".join(differ[:4])
    evidence = [Evidence(JSON_FILE, None, note)] if differ else []
    return Outcome.ratio(len(agree), len(paths), f"YAML and JSON agree type-strictly on "
                         f"{len(agree)}/{len(paths)} leaf paths (null never counts)", evidence)


# ---- security -------------------------------------------------------------------------


@check("yaml_safety")
def yaml_safety(ctx: CheckContext) -> Outcome:
    """The YAML loads with the limited safe loader (no language tags, aliases within limits) to a mapping of settings.

    A YAML that loads to no configuration (only comments, ``---`` alone, ``null``, a list, a
    scalar) earns nothing, as for style: nothing was loaded, safely or not."""
    parsed = parsed_facts(ctx, "yaml")
    status = parsed["status"]
    empty = no_configuration(parsed, "yaml") if status == "ok" else None
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
    return Outcome.fail(f"{YAML_FILE} {why}: {parsed['error']}", failure_evidence(ctx, "yaml"))
