"""Prompt 2, YAML/JSON Correction: repair ``test_data/config.yaml`` and give it again as JSON.

No submission code runs. ``observe`` parses both submitted files in the parent with the
limited safe loaders of ``benchmark.safe_parse`` and adds the answer key. Its facts are parse
mode's (``documents``, ``expected`` by label: ``config``), which the task's library checks
read (``parse.loads`` for loading, safely, to one mapping; ``parse.keys`` for the top-level and
nested keys; ``parse.equivalent`` for the whole configuration and for each setting), plus
what only the core checks here read: each file's parse (``yaml``/``json``: status, document
count, repeated keys and the YAML scalars' spellings). Checks compare type-strictly
(``true`` is not ``1``, ``1`` is not ``1.0``) and read raw lines only for layout, skipping
comment-only lines, so comments never change a score.

Scoring choices, so that a key skeleton (six top-level keys with null values) earns ~0 of
execution: ``deep_equivalence`` credits each file whose whole configuration is exactly right
(one wrong value makes a wrong configuration), ``partial_matches`` each setting right at its
path, an unknown extra leaf diluting it; a leaf counts as agreed (``yaml_json_agree``) only
with a non-null value at its exact path, over the intended leaf paths as well as the files'
own; ``arrays_scalars`` wants each intended leaf's kind (list or scalar, never null). YAML literal spellings come from
parser events (``yes`` and ``true`` load alike). When the YAML holds several documents the
first one is compared (what a reader taking one document sees). The style checks
(indentation, literals, formatting, duplication: ``p2_yaml_json_style``, whose registry this
module shares) earn nothing while either file does not load: the layout of text that is not
YAML/JSON is no style.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..packs.outputs import document_record
from ..safe_parse import parse_file
from ..submission import SourceFile
from ..types import Evidence
from . import p2_yaml_json_data as data
from .base import CheckContext, Outcome, RunFn
from .p2_yaml_json_style import (ANSWER, CHECKS, JSON_FILE, KINDS, YAML_FILE, check, expected_tree,
                                 failure_evidence, loaded_tree)
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
    """Parse both files (no child run is needed: nothing in this prompt is executed): parse
    mode's facts for the library checks, and each file's whole parse for the core ones."""
    del run, seed  # nothing runs; there is no perturbed data for a configuration file
    expected = json.loads((test_data / "answer_keys" / ANSWER_KEY_PATH).read_text(encoding="utf-8"))
    parsed = {kind: parse_file(kind, _text(files.get(name)), _reason(files.get(name)))
              for kind, name in KINDS.items()}
    return {
        "expected": {ANSWER: expected},
        "documents": {name: document_record(parsed[kind], kind) for kind, name in KINDS.items()},
        **parsed,
    }


def _text(source: SourceFile | None) -> str | None:
    return source.text if source is not None and source.usable else None


def _reason(source: SourceFile | None) -> str | None:
    return "file not submitted" if source is None else source.error


# ---- shared judging helpers -----------------------------------------------------------


def _share(done: int, total: int) -> float:
    return done / total if total else 1.0


def _per_file(ctx: CheckContext, measure) -> tuple[float, list[str], list[Evidence]]:
    """Average the share done over the two files, with ``measure(tree) -> (done, total,
    missing paths)``; the notes say ``done/total`` per file."""
    fractions, notes, evidence = [], [], []
    for kind, name in KINDS.items():
        loaded, tree = loaded_tree(ctx, kind)
        if not loaded:
            fractions.append(0.0)
            notes.append(f"{kind.upper()} did not load")
            continue
        done, total, missing = measure(tree)
        fractions.append(_share(done, total))
        notes.append(f"{kind.upper()} {done}/{total}")
        if missing:
            evidence.append(Evidence(name, None, "wrong or missing: " + ", ".join(missing[:4])))
    return sum(fractions) / len(fractions), notes, evidence

# ---- structure ------------------------------------------------------------------------


@check("arrays_scalars")
def arrays_scalars(ctx: CheckContext) -> Outcome:
    """Each intended setting holds a value of its intended kind in both files: a list where a
    list is meant (``api_keys``, ``required_fields``), a scalar (not null) elsewhere.

    The share of the intended leaf paths per file, averaged; a file that does not load earns
    none. No library type judges the kind of the value at a key path (``parse.keys`` asks only
    that the key exists, ``parse.equivalent`` that the value is equal)."""
    wanted = data.leaves(expected_tree(ctx))
    same_kind = lambda p, v: data.kind(v) == data.kind(wanted[p])  # noqa: E731
    fraction, notes, evidence = _per_file(ctx, lambda tree: data.count_paths(tree, list(wanted), same_kind))
    return Outcome.ratio(fraction, 1, f"leaves of the intended kind (list or scalar): {', '.join(notes)}",
                         evidence)


# ---- execution ------------------------------------------------------------------------


@check("yaml_json_agree")
def yaml_json_agree(ctx: CheckContext) -> Outcome:
    """The YAML and the JSON say the same thing: the share of leaf paths (the intended ones and
    each file's own) holding a non-null value equal, type-strictly, in both files.

    Both files must load. Two files that agree on nothing but nulls, or on an empty mapping,
    earn nothing (the intended paths count). No library type compares two submitted files
    with each other (``parse.equivalent`` compares one with an answer key)."""
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
