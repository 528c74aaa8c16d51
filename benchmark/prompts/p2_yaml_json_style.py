"""Prompt 2's quality checks: the layout and spelling of the two files (indentation, native
and canonical literals, formatting, duplication), read from raw lines and parser events, and
worth nothing while either file holds no configuration (``style_blocker``).

The registry created here is shared, and so are the readers of the observed facts
(``parsed_facts``, ``loaded_tree``, ``expected_tree``, ``failure_evidence``):
``p2_yaml_json`` (which re-exports the registry and every check here) adds the two structure
and execution checks no library type expresses; the task's other checks are library types.
"""

from __future__ import annotations

from typing import Any

from ..types import Evidence
from . import p2_yaml_json_data as data
from .base import CheckContext, Outcome, make_registry
from .p2_yaml_layout import yaml_indentation as yaml_layout

YAML_FILE = "prompt_2_config_fixed.yaml"
JSON_FILE = "prompt_2_config.json"
KINDS = {"yaml": YAML_FILE, "json": JSON_FILE}
ANSWER = "config"  # the answer key's label in the facts (parse.equivalent's against)
CHECKS, check = make_registry()


# ---- reading the facts ---------------------------------------------------------------


def parsed_facts(ctx: CheckContext, kind: str) -> dict[str, Any]:
    return ctx.facts.get(kind) or {"status": "missing", "error": "not parsed", "data": None,
                                   "documents": 0, "duplicates": [], "line": None}


def loaded_tree(ctx: CheckContext, kind: str) -> tuple[bool, Any]:
    parsed = parsed_facts(ctx, kind)
    return parsed["status"] == "ok", parsed["data"]


def expected_tree(ctx: CheckContext) -> dict[str, Any]:
    return (ctx.facts.get("expected") or {}).get(ANSWER) or data.EXPECTED


def failure_evidence(ctx: CheckContext, kind: str) -> tuple[Evidence, ...]:
    parsed = parsed_facts(ctx, kind)
    return (Evidence(KINDS[kind], parsed.get("line"), str(parsed.get("error"))[:200]),)


# ---- quality --------------------------------------------------------------------------


def _raw(ctx: CheckContext, name: str) -> str | None:
    source = ctx.files.get(name)
    return source.text if source is not None and source.usable else None


def _unstyled(ctx: CheckContext, kind: str) -> tuple[str, tuple[Evidence, ...]] | None:
    """Why ``kind``'s file earns no style credit, with its evidence (it does not load, or loads
    to nothing or to something other than a mapping: a configuration with no settings), or None."""
    parsed = parsed_facts(ctx, kind)
    if parsed["status"] != "ok":
        return (f"{KINDS[kind]} does not load ({parsed['status']}): {parsed['error']}",
                failure_evidence(ctx, kind))
    empty = no_configuration(parsed, kind)
    return (empty, (Evidence(KINDS[kind]),)) if empty else None


def no_configuration(parsed: dict[str, Any], kind: str) -> str | None:
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
    state = ("does not load" if all(parsed_facts(ctx, kind)["status"] != "ok" for kind in why)
             else "holds no configuration")
    return Outcome.fail(f"no style credit while a file {state}: "
                        + "; ".join(reason for reason, _ in why.values()),
                        [item for _, evidence in why.values() for item in evidence])


@check("yaml_indentation")
def yaml_indentation(ctx: CheckContext) -> Outcome:
    """YAML indented with spaces, two per nesting level, list items two deeper than their key.

    Credit is the share of the lines inside a block indented so, read from raw lines (comment-only
    lines and the text of multi-line scalars skipped). No library type reads a file's layout
    (``parse.*`` see only the loaded data)."""
    blocked = style_blocker(ctx)
    if blocked:
        return blocked
    text = _raw(ctx, YAML_FILE)
    if text is None:
        return Outcome.fail(f"{YAML_FILE} is not usable", failure_evidence(ctx, "yaml"))
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
    loads like `true` but fails); JSON: native booleans and integers. Half the points per file.
    No library type sees how a value is spelled (``parse.*`` compare loaded values, where `yes`
    is `true`)."""
    blocked = style_blocker(ctx)
    if blocked:
        return blocked
    typed = {p: v for p, v in data.leaves(expected_tree(ctx)).items() if isinstance(v, (bool, int))}
    (y_loaded, _), (j_loaded, tree) = loaded_tree(ctx, "yaml"), loaded_tree(ctx, "json")
    spellings = {tuple(s["path"]): s for s in parsed_facts(ctx, "yaml").get("scalars") or []} if y_loaded else {}
    wrong = {"yaml": [f"{data.dotted(p)} ({data.written(spellings.get(p))})" for p in typed
                      if not data.canonical_literal(spellings.get(p), typed[p])],
             "json": data.count_paths(tree, list(typed), lambda p, v: type(v) is type(typed[p]))[2]}
    notes, evidence = [], []
    for kind, loaded, why in (("yaml", y_loaded, "not canonical"), ("json", j_loaded, "not native")):
        notes.append(f"{kind.upper()} {len(typed) - len(wrong[kind])}/{len(typed)}" if loaded
                     else f"{kind.upper()} did not load")
        if not loaded:
            evidence += failure_evidence(ctx, kind)
        elif wrong[kind]:
            evidence.append(Evidence(KINDS[kind], None, f"{why}: " + ", ".join(wrong[kind])))
    done = 2 * len(typed) - len(wrong["yaml"]) - len(wrong["json"])
    return Outcome.ratio(done, 2 * len(typed), "boolean and integer settings written as native, "
                         f"canonical literals: {', '.join(notes)}", evidence)


@check("formatting_style")
def formatting_style(ctx: CheckContext) -> Outcome:
    """Both files laid out as a maintained configuration is: the JSON pretty-printed in 2-space
    steps and ending in a newline, the YAML free of trailing whitespace and ending in one.

    A quarter of the points per property. No library type reads a file's raw text."""
    blocked = style_blocker(ctx)
    if blocked:
        return blocked
    loaded, tree = loaded_tree(ctx, "json")
    properties = data.style_properties(_raw(ctx, YAML_FILE), _raw(ctx, JSON_FILE), tree, loaded)
    held = [name for name, value in properties.items() if value is True]
    failed = [f"{name}: {value}" for name, value in properties.items() if value is not True]
    evidence = [Evidence(JSON_FILE if note.startswith("JSON") else YAML_FILE, None, note) for note in failed]
    summary = f"{len(held)}/{len(properties)} formatting properties hold"
    summary += f" (not: {'; '.join(failed)})" if failed else ""
    return Outcome.ratio(len(held), len(properties), summary, evidence)


@check("no_duplication")
def no_duplication(ctx: CheckContext) -> Outcome:
    """The YAML is one document, and no mapping of either file repeats a key (loaders keep the
    last silently, so a repeated key hides a setting).

    A third of the points per property. No library type sees a repeated key: the loaded
    document holds only the last one."""
    blocked = style_blocker(ctx)
    if blocked:
        return blocked
    y, j = parsed_facts(ctx, "yaml"), parsed_facts(ctx, "json")
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
