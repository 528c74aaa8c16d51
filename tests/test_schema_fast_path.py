"""The fast schema check (fastjsonschema) must give jsonschema's verdict on every document.

``validate_results`` asks the compiled fast check first and runs jsonschema only on a
document it rejects. These tests hold the schema to keywords both validators read the same
way and compare their verdicts on a valid document and on hundreds of broken copies of it.
"""

import json
from pathlib import Path
from typing import Any

import pytest

from benchmark.reporting import results_json
from benchmark.reporting.results_json import ResultsSchemaError, load_schema, run_to_dict, validate_results
from benchmark.runner import LINKED, RejectedModel
from result_fakes import make_model, make_run

# Keywords whose meaning draft-07 (the code fastjsonschema generates) and draft 2020-12 (the
# schema's dialect) share. A keyword outside this list needs a look before it is allowed.
SHARED_KEYWORDS = {
    "$schema", "$id", "$defs", "$ref", "title", "description", "type", "properties",
    "additionalProperties", "required", "items", "enum", "const", "minimum", "maximum",
    "exclusiveMinimum", "minLength", "maxLength", "pattern", "propertyNames", "oneOf", "not",
    "minItems", "maxItems",
}
SUBSCHEMA_MAPS = ("properties", "$defs")  # keys are names, values are schemas
SUBSCHEMAS = ("items", "additionalProperties", "propertyNames", "not")
SUBSCHEMA_LISTS = ("oneOf",)


def _schema_problems(schema: Any, where: str = "#") -> list[str]:
    if not isinstance(schema, dict):
        return [] if isinstance(schema, bool) else [f"{where}: not a schema"]
    problems = [f"{where}: keyword {key!r}" for key in schema if key not in SHARED_KEYWORDS]
    if "$ref" in schema and len(schema) > 1:  # draft-07 ignores a $ref's siblings
        problems.append(f"{where}: $ref beside {sorted(set(schema) - {'$ref'})}")
    for key in SUBSCHEMA_MAPS:
        for name, sub in schema.get(key, {}).items():
            problems += _schema_problems(sub, f"{where}/{key}/{name}")
    for key in SUBSCHEMAS:
        if key in schema:
            problems += _schema_problems(schema[key], f"{where}/{key}")
    for key in SUBSCHEMA_LISTS:
        for i, sub in enumerate(schema.get(key, [])):
            problems += _schema_problems(sub, f"{where}/{key}/{i}")
    return problems


def test_schema_keeps_to_keywords_both_validators_share():
    assert _schema_problems(load_schema()) == []


def test_the_keyword_walk_sees_nested_keywords():
    broken = {"$defs": {"a": {"properties": {"b": {"prefixItems": []}}}},
              "oneOf": [{"$ref": "#/$defs/a", "type": "object"}]}
    assert _schema_problems(broken) == [
        "#/$defs/a/properties/b: keyword 'prefixItems'",
        "#/oneOf/0: $ref beside ['type']",
    ]


@pytest.fixture(scope="module")
def doc():
    doc = run_to_dict(make_run(make_model("beta", 0.5, fractions={"security": 0.0})),
                      cached_models={"beta"}, model_timestamps={"beta": "2025-01-01T00:00:30"},
                      skipped=[RejectedModel("<b>&\u202e", "user_submissions", Path("x"), LINKED)])
    for prompt in doc["models"]["beta"]["prompts"].values():
        del prompt["checks"][2:]  # checks all have one shape; fewer make each walk shorter
    # An excerpt, as the writer adds them: checked on its own by the fast path (conformance).
    doc["models"]["beta"]["prompts"]["prompt_1"]["checks"][0]["evidence"][0]["excerpt"] = {
        "start": 2, "lines": ["def f():", "    return 1"]}
    return doc


def _locations(value: Any, path: tuple = ()):
    """Every (path, value) in a JSON document, parents before children."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _locations(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _locations(item, (*path, i))


def _shape(path: tuple, doc: dict) -> tuple:
    """A path with list indices and model names folded, so one mutation per schema location."""
    shaped = []
    for i, part in enumerate(path):
        if isinstance(part, int) or (i == 1 and path[0] == "models"):
            shaped.append("*")
        elif i > 0 and path[i - 1] in ("prompts", "detailed_scoring", "prompt_performance"):
            shaped.append("*")
        else:
            shaped.append(part)
    return tuple(shaped)


def _copy(doc: dict) -> dict:
    return json.loads(json.dumps(doc))


def _set(doc: dict, path: tuple, value: Any) -> dict:
    copied = _copy(doc)
    target = copied
    for part in path[:-1]:
        target = target[part]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return copied


_DELETE = object()


def _mutations(doc: dict):
    seen = set()
    for path, value in _locations(doc):
        shape = _shape(path, doc)
        if shape in seen:
            continue
        seen.add(shape)
        if isinstance(value, dict):
            extra = _copy(doc)
            target = extra
            for part in path:
                target = target[part]
            target["unexpected_key"] = 1
            yield (*path, "+unexpected_key"), extra
        if not path:
            continue
        if isinstance(path[-1], str):
            yield (*path, "-deleted"), _set(doc, path, _DELETE)
        for replacement in _replacements(value):
            yield (*path, f"={json.dumps(replacement)}"), _set(doc, path, replacement)


def _replacements(value: Any) -> tuple:
    """A wrong type, null, and the edge values the schema's bounds and patterns are about."""
    if isinstance(value, bool):
        return (None, "yes", 1)
    if isinstance(value, (int, float)):
        return (None, str(value), -1, 10**6, 0.5)
    if isinstance(value, str):
        return (None, 1, "", "x", value + " !")
    if isinstance(value, list):
        return (None, {}, [], [None])
    return (None, [], {})


def _jsonschema_accepts(doc: Any) -> bool:
    return results_json._validator().is_valid(doc)


def test_fast_check_and_jsonschema_agree_on_every_mutation(doc):
    assert results_json._conforms(doc) and _jsonschema_accepts(doc)
    disagreements, verdicts = [], {True: 0, False: 0}
    for label, mutated in _mutations(doc):
        fast, slow = results_json._conforms(mutated), _jsonschema_accepts(mutated)
        verdicts[slow] += 1
        if fast != slow:
            disagreements.append(f"{label}: fastjsonschema {fast}, jsonschema {slow}")
    assert disagreements == []
    # Both kinds of verdict occur: the mutations really exercise the schema.
    assert verdicts[False] > 300 and verdicts[True] > 20, verdicts


def test_the_fast_check_never_changes_the_document(doc):
    before = json.dumps(doc, sort_keys=True)
    validate_results(doc)
    assert json.dumps(doc, sort_keys=True) == before


def test_a_rejected_document_is_explained_by_jsonschema(doc):
    broken = _set(doc, ("models", "beta", "prompts", "prompt_2", "max_score"), "25")
    assert not results_json._conforms(broken)
    with pytest.raises(ResultsSchemaError) as caught:
        validate_results(broken)
    assert caught.value.path == "$.models.beta.prompts.prompt_2.max_score"
    assert "'25' is not of type 'number'" in str(caught.value)


def test_the_shipped_schema_check_is_current():
    """benchmark/reporting/schema_check.py is what scripts/gen_schema_check.py writes today (a
    schema change needs the script run again), and it is the check in use."""
    from pathlib import Path

    from benchmark.reporting import schema_check

    assert Path(schema_check.__file__).read_text(encoding="utf-8") == results_json.generated_schema_check()
    assert results_json._fast_check() is schema_check.validate


def test_generating_the_check_leaves_the_schema_alone():
    before = json.dumps(load_schema(), sort_keys=True)
    results_json.generated_schema_check()
    assert json.dumps(load_schema(), sort_keys=True) == before
