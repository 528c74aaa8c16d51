"""Prompt 2 (YAML/JSON Correction): fixture hazards, answer key, safe parsing, every check
with a good and a bad pair of files, and end-to-end grades through ``grade_prompt``."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
import yaml

from benchmark.engine.grading import grade_prompt
from benchmark.packs.local_plugins import resolve_check
from benchmark.packs.suite import core_pack
from benchmark.prompts import p2_yaml_json as m
from benchmark.prompts import p2_yaml_json_data as data
from benchmark.prompts.base import CheckContext
from benchmark.prompts.p2_yaml_layout import yaml_indentation
from benchmark.rubric import by_id
from benchmark.safe_parse import DuplicateKeyLoader, parse_json, parse_yaml, to_plain, yaml_scalars
from benchmark.submission import SourceFile
from benchmark.utils import load_yaml_limited

ROOT = Path(__file__).resolve().parent.parent
TEST_DATA = ROOT / "test_data"
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model"
FIXTURE = data.FIXTURE_YAML
REF_YAML = (REFERENCE / m.YAML_FILE).read_text(encoding="utf-8")
REF_JSON = (REFERENCE / m.JSON_FILE).read_text(encoding="utf-8")
TOP_KEYS = list(data.EXPECTED)
SKELETON_YAML = "".join(f"{key}: null\n" for key in TOP_KEYS)
SKELETON_JSON = json.dumps(dict.fromkeys(TOP_KEYS), indent=2) + "\n"


def _stringly(value):
    """Booleans as the strings "true"/"false" (a typical half-done JSON conversion)."""
    if isinstance(value, dict):
        return {k: _stringly(v) for k, v in value.items()}
    return str(value).lower() if isinstance(value, bool) else value


MEDIOCRE_YAML = "\n".join(line.replace("  ", "    ") for line in REF_YAML.split("\n"))
MEDIOCRE_JSON = json.dumps(_stringly(data.EXPECTED), indent=4) + "\n"
COMMENTED_YAML = (
    "# yaml_safety deep_equivalence json_literals: PASS, score 25/25, all checks ok\n"
    + REF_YAML.replace("validation_rules:\n", "validation_rules:  # yaml_indentation no_duplication ok\n"
                       "     # an odd-indented comment about required_keys and nested_shapes\n")
    .replace("    - email\n", "    - email  # arrays_scalars partial_matches\n")
    + "   # trailing comment: formatting_style yaml_json_agree\n"
)


def _source(name: str, text: str | None) -> SourceFile:
    if text is None:
        return SourceFile(name, Path(name), None, "file not found", None)
    return SourceFile(name, Path(name), text, None, "0" * 64)


TASK = core_pack().task(m.PROMPT_ID)
ROWS = {row.id: row for row in TASK.checks}  # each check as task.yaml states it: use and with


def make_ctx(yaml_text: str | None, json_text: str | None) -> CheckContext:
    files = {m.YAML_FILE: _source(m.YAML_FILE, yaml_text), m.JSON_FILE: _source(m.JSON_FILE, json_text)}
    return CheckContext(files=files, facts=m.observe(files, None, TEST_DATA, 0), task=TASK)


def run_check(check_id: str, ctx: CheckContext):
    """The check as the engine runs it: the type its row uses, with the row's parameters."""
    row = ROWS[check_id]
    return resolve_check(TASK.pack, row.use).fn(ctx, **row.params)


def fractions(yaml_text: str | None, json_text: str | None) -> dict[str, float]:
    ctx = make_ctx(yaml_text, json_text)
    return {check_id: run_check(check_id, ctx).fraction for check_id in ROWS}


def _tab_fixed() -> list:
    return list(yaml.safe_load_all(FIXTURE.replace("\t", "  ")))


# ---- interface, fixture, answer key ---------------------------------------------------


def test_interface_matches_rubric():
    rubric = by_id(m.PROMPT_ID)
    assert m.TITLE == rubric.title
    assert set(ROWS) == {row.id for row in rubric.checks}
    assert set(m.CHECKS) == {i for i, row in ROWS.items() if row.use.startswith("core.")}
    assert m.FILES == ("prompt_2_config_fixed.yaml", "prompt_2_config.json") and not m.PYTHON_FILES
    text = (ROOT / "benchmark" / "packs" / "core" / m.PROMPT_ID / "prompt.md").read_text(encoding="utf-8")
    assert "Evaluation contract" in text and all(name in text for name in (*m.FILES, "config.yaml"))
    assert all(f"`{key}`" in text for key in TOP_KEYS)


def test_every_check_is_importable_from_the_prompt_module_as_the_function_the_registry_holds():
    """The style checks live in ``p2_yaml_json_style`` and are re-exported here."""
    from benchmark.prompts import p2_yaml_json_style as style

    assert m.CHECKS is style.CHECKS
    assert {"yaml_indentation", "json_literals", "formatting_style", "no_duplication"} <= set(m.CHECKS)
    assert all(getattr(m, check_id) is fn for check_id, fn in m.CHECKS.items())


def test_fixture_and_answer_key_are_deterministic_and_committed():
    assert m.fixture_files() == m.fixture_files() and m.answer_keys() == m.answer_keys()
    for name, content in m.fixture_files().items():
        assert (TEST_DATA / name).read_bytes() == content
    for name, content in m.answer_keys().items():
        assert (TEST_DATA / "answer_keys" / name).read_bytes() == content
    key = json.loads(m.answer_keys()[m.ANSWER_KEY_PATH])
    assert data.strict_equal(key, data.EXPECTED)


BOOL_WORDS = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}


def _oracle(text: str) -> dict:
    """The prompt's rules applied to the fixture: tabs repaired, documents deep-merged (later
    wins), then booleans, integers and comma lists coerced to the types the prompt states."""
    def merge(into: dict, doc: dict) -> None:
        for key, value in doc.items():
            if isinstance(value, dict) and isinstance(into.get(key), dict):
                merge(into[key], value)
            else:
                into[key] = value

    merged: dict = {}
    for doc in yaml.safe_load_all(text.replace("\t", "  ")):
        merge(merged, doc)
    types = {"use_legacy_paths": bool, "min_age": int, "max_age": int, "batch_size": int,
             "timeout_seconds": int, "retry_attempts": int, "enable_logging": bool,
             "strict_validation": bool, "debug_mode": bool, "required_fields": list}

    def coerce(key, value):
        if isinstance(value, dict):
            return {k: coerce(k, v) for k, v in value.items()}
        want = types.get(key)
        if want is bool and isinstance(value, str):
            return BOOL_WORDS[value.strip().lower()]
        if want is int and isinstance(value, str):
            return int(value)
        if want is list and isinstance(value, str):
            return [item.strip() for item in value.split(",")]
        return value

    return coerce(None, merged)


def test_oracle_applying_the_prompt_rules_gives_the_answer_key():
    assert data.strict_equal(_oracle(FIXTURE), json.loads(m.answer_keys()[m.ANSWER_KEY_PATH]))


def test_the_spec_loading_snippet_gets_the_fixture_wrong():
    with pytest.raises(yaml.YAMLError):
        list(yaml.safe_load_all(FIXTURE))
    shallow: dict = {}
    for doc in _tab_fixed():
        shallow.update(doc)
    assert not data.strict_equal(shallow, data.EXPECTED)


# ---- hazards: each one exists in the fixture bytes ------------------------------------


def _proof_tab():
    assert b"\n\tlog_file: /var/log/processor.log\n" in FIXTURE.encode()
    with pytest.raises(yaml.scanner.ScannerError) as info:
        list(yaml.safe_load_all(FIXTURE))
    assert info.value.problem_mark.line + 1 == 6


def _proof_multi():
    assert FIXTURE.count("\n---\n") == 1 and len(_tab_fixed()) == 2


def _proof_split():
    first, second = _tab_fixed()
    assert "batch_size" in first["processing_options"] and "retry_attempts" in second["processing_options"]
    assert "batch_size" not in {**first, **second}["processing_options"]


def _proof_duplicate():
    assert len(re.findall(r"^\s+max_age:", FIXTURE, re.M)) == 2
    assert parse_yaml(FIXTURE.replace("\t", "  "))["duplicates"] == [{"key": "max_age", "line": 11}]


def _proof_indentation():
    widths = {len(line) - len(line.lstrip(" ")) for line in FIXTURE.splitlines() if line.startswith(" ")}
    assert {2, 3, 4} <= widths
    fine, indented, problems = yaml_indentation(FIXTURE)
    assert fine < indented and any("tab" in why for _, why in problems)


def _proof_booleans():
    for spelling in ("use_legacy_paths: yes", "enable_logging: on", 'strict_validation: "false"',
                     "debug_mode: False"):
        assert spelling in FIXTURE
    assert _tab_fixed()[1]["feature_flags"]["strict_validation"] == "false"


def _proof_numbers():
    for spelling in ('min_age: "18"', "batch_size: '100'", 'retry_attempts: "3"',
                     "timeout_seconds: 30\n", 'timeout_seconds: "30"'):
        assert spelling in FIXTURE
    first, second = _tab_fixed()
    assert first["processing_options"]["batch_size"] == "100"
    assert first["processing_options"]["timeout_seconds"] == 30
    assert second["processing_options"]["timeout_seconds"] == "30"


def _proof_list():
    assert "required_fields: name, email, country\n" in FIXTURE
    assert _tab_fixed()[0]["validation_rules"]["required_fields"] == "name, email, country"


PROOFS = {"tab_indentation": _proof_tab, "multi_document": _proof_multi, "split_mapping": _proof_split,
          "duplicate_key": _proof_duplicate, "inconsistent_indentation": _proof_indentation,
          "boolean_spellings": _proof_booleans, "quoted_numbers": _proof_numbers,
          "list_as_string": _proof_list}


def test_every_hazard_has_a_proof():
    assert set(PROOFS) == set(m.HAZARDS)


@pytest.mark.parametrize("hazard", sorted(PROOFS))
def test_hazard_exists_in_fixture(hazard):
    PROOFS[hazard]()


# ---- safe parsing ---------------------------------------------------------------------


def test_yaml_parsing_outcomes():
    assert parse_yaml(FIXTURE)["status"] == "syntax" and parse_yaml(FIXTURE)["line"] == 6
    assert parse_yaml("a: !!python/object/apply:os.system [ls]\n")["status"] == "unsafe_tag"
    assert parse_yaml("a: !Ref x\n")["status"] == "unsafe_tag"
    assert parse_yaml(None, "file not found") == {"status": "missing", "error": "file not found", "line": None,
                                                  "data": None, "documents": 0, "duplicates": [], "scalars": []}
    ok = parse_yaml(REF_YAML)
    assert ok["status"] == "ok" and ok["documents"] == 1 and not ok["duplicates"]
    assert data.strict_equal(ok["data"], data.EXPECTED)


def test_alias_bomb_is_refused_quickly():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    start = time.monotonic()
    parsed = parse_yaml("\n".join(lines) + "\n")
    assert parsed["status"] == "limit" and time.monotonic() - start < 1.0


def test_duplicate_loader_keeps_limits_and_documents():
    text = FIXTURE.replace("\t", "  ")
    loader = DuplicateKeyLoader(text)
    try:
        docs = [loader.get_data() for _ in range(2)]
    finally:
        loader.dispose()
    assert docs == load_yaml_limited(text)
    assert parse_yaml("<<: {a: 1}\na: 2\n")["duplicates"] == []  # a merge key is no repetition


def test_json_parsing_outcomes():
    assert parse_json('{"a": 1, "a": 2}')["duplicates"] == [{"key": "a", "line": None}]
    assert parse_json('{"a": NaN}')["status"] == "syntax"
    assert parse_json('{"a": 1,}')["status"] == "syntax" and parse_json('{"a": 1,}')["line"] == 1
    assert parse_json("[" * 5000 + "]" * 5000)["status"] == "limit"
    assert parse_json('{"x": 1e400}')["data"]["x"].startswith("\x00")


def test_values_json_cannot_hold_become_markers():
    plain = to_plain(yaml.safe_load("a: 2024-01-01\n1: x\nb: !!binary aGk=\nc: .nan\nd: 1.0\n"))
    assert plain["d"] == 1.0 and type(plain["d"]) is float
    assert all(plain[key].startswith("\x00") for key in ("a", "b", "c"))
    assert any(key.startswith("\x00int") for key in plain)


def test_strict_equality_tells_types_apart():
    assert not data.strict_equal({"a": True}, {"a": 1}) and not data.strict_equal([1], [1.0])
    assert data.strict_equal({"a": [1, "x"]}, {"a": [1, "x"]})


# ---- layout helpers -------------------------------------------------------------------


def test_yaml_indentation_ignores_comments_and_scalar_text():
    text = ("a:\n  b: |\n      free   text\n        more\n      # not a comment\n  c: plain\n     continued\n"
            "# x\n     # y\nd:\n  - 1\n")
    assert yaml.safe_load(text)["a"]["c"] == "plain continued"
    assert yaml_indentation(text) == (3, 3, [])
    fine, total, problems = yaml_indentation("a:\n    b: 1\n    c: 2\n\td: 3\n")
    assert (fine, total) == (0, 3) and problems[-1] == (4, "tab in indentation")


def test_a_comment_cannot_hide_lines_from_the_indentation_check():
    assert yaml_indentation("a:  # looks like a block scalar |\n    b: 1\n")[:2] == (0, 1)
    assert yaml_indentation("a:  # a comment\n   # another\n- 1\n")[:2] == (0, 1)


def test_list_items_sit_two_spaces_deeper_than_their_key():
    indentless = "a:\n  b:\n  - x\n  - y\n  c: 1\nd:\n- z\ne: 2\n"
    assert yaml.safe_load(indentless) == {"a": {"b": ["x", "y"], "c": 1}, "d": ["z"], "e": 2}  # legal YAML
    fine, total, problems = yaml_indentation(indentless)
    assert (fine, total) == (2, 5) and [line for line, _ in problems] == [3, 4, 7]
    assert "key's column" in problems[0][1]
    assert yaml_indentation("a:\n  b:\n    - x\n    - y\n  c: 1\nd:\n  - z\ne: 2\n") == (5, 5, [])
    # items of a list nested in a list item: two deeper than the key after the dash
    assert yaml_indentation("- k:\n    - x\n  j: 1\n")[:2] == (2, 2)
    assert yaml_indentation("- k:\n  - x\n  j: 1\n")[:2] == (1, 2)
    assert yaml_indentation("a:\n  - k: 1\n    j:\n      - x\n")[:2] == (3, 3)


def test_json_layout():
    assert data.json_layout_problem(REF_JSON, data.EXPECTED) is None
    compact = json.dumps(data.EXPECTED)
    assert "one line" in data.json_layout_problem(compact, data.EXPECTED)[1]
    short_arrays = REF_JSON.replace('[\n    "primary_key",\n    "secondary_key",\n    "backup_key"\n  ]',
                                    '["primary_key", "secondary_key", "backup_key"]')
    assert short_arrays != REF_JSON and data.json_layout_problem(short_arrays, data.EXPECTED) is None
    assert data.json_layout_problem(REF_JSON.replace("\n  ", "\n\t"), data.EXPECTED)[0] == 2


# ---- every check: good and bad --------------------------------------------------------

REF_FRACTIONS = fractions(REF_YAML, REF_JSON)
DUP_YAML = REF_YAML.replace("  debug_mode: false\n", "  debug_mode: true\n  debug_mode: false\n")
DUP_JSON = REF_JSON.replace('"debug_mode": false', '"debug_mode": true,\n    "debug_mode": false')
STRING_YAML = REF_YAML.replace("batch_size: 100", "batch_size: '100'").replace("debug_mode: false", 'debug_mode: "no"')
EXTRA_JSON = json.dumps({**data.EXPECTED, "paths": {**data.EXPECTED["paths"], "tmp_dir": "/tmp"}}, indent=2) + "\n"
FLAT_LIST_JSON = json.dumps({**data.EXPECTED, "api_keys": "primary_key, secondary_key, backup_key"}, indent=2) + "\n"
SPELLED_YAML = (REF_YAML.replace("use_legacy_paths: true", "use_legacy_paths: yes")  # loads the same data
                .replace("enable_logging: true", "enable_logging: On")
                .replace("strict_validation: false", "strict_validation: !!bool false")
                .replace("max_age: 120", "max_age: +120").replace("batch_size: 100", "batch_size: 1_00"))

BAD = {  # check id -> (yaml, json, ceiling for the check's fraction)
    "yaml_parses": (FIXTURE, REF_JSON, 0.0),
    "json_parses": (REF_YAML, REF_JSON.replace("}\n", "},\n", 1), 0.0),
    "required_keys": (REF_YAML.replace("api_keys:", "apikeys:"), REF_JSON, 0.95),
    "nested_shapes": (REF_YAML, json.dumps({**data.EXPECTED, "paths": ["a"]}, indent=2) + "\n", 0.9),
    "arrays_scalars": (REF_YAML, FLAT_LIST_JSON, 0.99),
    "deep_equivalence": (STRING_YAML, MEDIOCRE_JSON, 0.7),
    "partial_matches": (REF_YAML, EXTRA_JSON, 0.99),
    "yaml_json_agree": (STRING_YAML, REF_JSON, 0.9),
    "yaml_indentation": (MEDIOCRE_YAML, REF_JSON, 0.0),
    "json_literals": (SPELLED_YAML, MEDIOCRE_JSON, 0.6),
    "formatting_style": (REF_YAML.replace("true\n", "true  \n").rstrip("\n"), json.dumps(data.EXPECTED), 0.0),
    "no_duplication": (DUP_YAML, DUP_JSON, 0.34),
    "yaml_safety": (REF_YAML.replace("use_legacy_paths: true", "use_legacy_paths: !!python/name:os.system"),
                    REF_JSON, 0.0),
}


def test_reference_passes_every_check():
    assert REF_FRACTIONS == dict.fromkeys(ROWS, 1.0)


def test_every_check_has_a_bad_case():
    assert set(BAD) == set(ROWS)


@pytest.mark.parametrize("check_id", sorted(BAD))
def test_check_bad_case(check_id):
    yaml_text, json_text, ceiling = BAD[check_id]
    outcome = run_check(check_id, make_ctx(yaml_text, json_text))
    assert outcome.fraction <= ceiling, outcome.rationale
    assert outcome.rationale and outcome.status is None


def test_multi_document_yaml_earns_half_parse_and_loses_duplication():
    two_docs = REF_YAML + "---\nextra: 1\n"
    scores = fractions(two_docs, REF_JSON)
    assert scores["yaml_parses"] == 0.5 and scores["no_duplication"] == pytest.approx(2 / 3)
    assert scores["deep_equivalence"] == 1.0  # the first document is the one compared


def test_duplicate_key_that_resolves_right_still_equals():
    scores = fractions(DUP_YAML, DUP_JSON)
    assert scores["deep_equivalence"] == 1.0 and scores["no_duplication"] == pytest.approx(1 / 3)


def test_deep_equivalence_credits_each_file_whose_whole_configuration_is_right():
    one_wrong = fractions(REF_YAML.replace("retry_attempts: 3", 'retry_attempts: "3"'),
                          REF_JSON.replace('"retry_attempts": 3', '"retry_attempts": "3"'))
    assert one_wrong["deep_equivalence"] == 0.0  # one wrong setting in each: two wrong files
    assert one_wrong["partial_matches"] > 0.9  # the settings that are right keep their credit
    assert fractions(STRING_YAML, REF_JSON)["deep_equivalence"] == pytest.approx(1 / 2)
    extra_top = REF_YAML + "extra_section: 1\n"  # an unknown top-level key: a wrong file
    assert fractions(extra_top, REF_JSON)["deep_equivalence"] == pytest.approx(1 / 2)
    extra_nested = EXTRA_JSON  # an unknown nested key spoils its file
    assert fractions(REF_YAML, extra_nested)["deep_equivalence"] == pytest.approx(1 / 2)
    only_json_wrong = fractions(REF_YAML, REF_JSON.replace('"max_age": 120', '"max_age": 99'))
    assert only_json_wrong["deep_equivalence"] == pytest.approx(1 / 2)
    assert only_json_wrong["yaml_json_agree"] < 1.0


def test_yaml_scalar_spellings_come_from_parser_events():
    text = ("a: yes\nb: '3'\nc: !!int 4\nd: &x 5\ne: *x\nf:\n  g: true  # comment\n  h: [1]\n"
            "? [k]\n: 6\ni: 7\ni: 8\n---\nz: 9\n")
    found = {tuple(s["path"]): s for s in yaml_scalars(text)}
    assert set(found) == {("a",), ("b",), ("c",), ("d",), ("e",), ("f", "g"), ("i",)}  # first document only
    assert found[("a",)]["resolved"] == "tag:yaml.org,2002:bool" and found[("a",)]["style"] == "plain"
    assert found[("b",)]["style"] == "'" and found[("c",)]["tag"] == "tag:yaml.org,2002:int"
    assert found[("d",)]["anchor"] and found[("e",)]["style"] == "alias" and found[("i",)]["value"] == "8"
    canonical = {path: data.canonical_literal(spelling, 0 if path != ("f", "g") else True)
                 for path, spelling in found.items()}
    assert canonical == {("a",): False, ("b",): False, ("c",): False, ("d",): False, ("e",): False,
                         ("f", "g"): True, ("i",): True}
    assert yaml_scalars("a: [1\n") == []


@pytest.mark.parametrize("spelling, want, ok", [
    ("true", True, True), ("false", False, True), ("True", True, False), ("yes", True, False),
    ("off", False, False), ('"false"', False, False), ("120", 0, True), ("-3", 0, True), ("0", 0, True),
    ("'120'", 0, False), ("+120", 0, False), ("1_20", 0, False), ("0120", 0, False), ("0x78", 0, False),
    ("120.0", 0, False), ("!!int 120", 0, False), ("1", True, False), ("true", 0, False)])
def test_canonical_literal_spellings(spelling, want, ok):
    entry = {tuple(s["path"]): s for s in yaml_scalars(f"k: {spelling}\n")}[("k",)]
    assert data.canonical_literal(entry, want) is ok


def test_yaml_spellings_that_load_right_still_lose_literal_credit():
    scores = fractions(SPELLED_YAML, REF_JSON)
    assert parse_yaml(SPELLED_YAML)["data"] == parse_yaml(REF_YAML)["data"]
    assert scores["deep_equivalence"] == scores["partial_matches"] == 1.0
    assert scores["json_literals"] == pytest.approx((4 + 9) / 18)
    assert fractions(REF_YAML, None)["json_literals"] == 0.0  # no style credit with a file missing


STYLE_CHECKS = ("yaml_indentation", "json_literals", "formatting_style", "no_duplication")


@pytest.mark.parametrize("yaml_text, json_text, broken", [
    (FIXTURE, REF_JSON, m.YAML_FILE),  # the unrepaired original does not parse
    (REF_YAML + "paths: [unclosed\n", REF_JSON, m.YAML_FILE),
    (REF_YAML, REF_JSON.replace("}\n", "},\n", 1), m.JSON_FILE),
    (REF_YAML, None, m.JSON_FILE),
])
def test_a_file_that_does_not_load_earns_zero_on_every_style_check(yaml_text, json_text, broken):
    ctx = make_ctx(yaml_text, json_text)
    for check_id in STYLE_CHECKS:
        outcome = run_check(check_id, ctx)
        assert outcome.fraction == 0 and outcome.status is None, (check_id, outcome.rationale)
        assert outcome.rationale.startswith("no style credit while a file does not load: " + broken)
    assert all(REF_FRACTIONS[check_id] == 1 for check_id in STYLE_CHECKS)  # the loading pair earns them


@pytest.mark.parametrize("yaml_text, json_text", [
    ("- a\n- b\n", "[1, 2]\n"), ("just a sentence\n", '"just a sentence"\n'), ("null\n", "null\n"),
])
def test_a_file_that_loads_to_no_mapping_earns_no_syntax_credit(yaml_text, json_text):
    """A list, a scalar or null loads, but holds no configuration (parse.loads, root: mapping)."""
    scores = fractions(yaml_text, json_text)
    assert scores["yaml_parses"] == scores["json_parses"] == scores["yaml_safety"] == 0.0
    assert fractions(REF_YAML, json_text)["yaml_parses"] == 1.0


def test_structure_and_execution_credit_each_file_for_what_it_holds():
    """parse.keys and parse.equivalent over both files: the mean of each file's share."""
    drop_api = {k: v for k, v in data.EXPECTED.items() if k != "api_keys"}
    scores = fractions(REF_YAML.replace("api_keys:", "apikeys:"), json.dumps(drop_api, indent=2) + "\n")
    assert scores["required_keys"] == pytest.approx((5 / 6 + 5 / 6) / 2)
    assert scores["partial_matches"] == pytest.approx((13 / 15 + 13 / 14) / 2)  # the renamed key counts against
    flat = {**data.EXPECTED, "paths": "/srv/data"}  # a section flattened to one value: no unexpected leaf
    scores = fractions(REF_YAML, json.dumps(flat, indent=2) + "\n")
    assert scores["nested_shapes"] == pytest.approx((1 + 9 / 12) / 2)
    assert scores["partial_matches"] == pytest.approx((1 + 11 / 14) / 2)
    assert fractions(REF_YAML, EXTRA_JSON)["partial_matches"] == pytest.approx((1 + 14 / 15) / 2)
    assert fractions(REF_YAML, EXTRA_JSON)["deep_equivalence"] == 0.5


def test_the_registry_holds_a_function_for_each_core_row_and_none_for_a_library_row():
    """benchmark.prompts refuses a core row without its function, and a function for a row that
    uses a library type (its verdict would never be used)."""
    from types import SimpleNamespace

    from benchmark.prompts import PROMPT_MODULES, REQUIRED, _verify
    from benchmark.rubric import RubricError

    modules = list(PROMPT_MODULES)
    _verify(tuple(modules))
    for checks in ({k: fn for k, fn in m.CHECKS.items() if k != "yaml_json_agree"},
                   {**m.CHECKS, "yaml_parses": m.CHECKS["yaml_json_agree"]}):
        modules[1] = SimpleNamespace(**{name: getattr(m, name) for name in REQUIRED if name != "CHECKS"},
                                     CHECKS=checks, __name__=m.__name__)
        with pytest.raises(RubricError):
            _verify(tuple(modules))


def test_missing_json_still_grades_the_yaml():
    scores = fractions(REF_YAML, None)
    assert scores["yaml_parses"] == 1.0 and scores["json_parses"] == 0.0
    assert scores["deep_equivalence"] == 0.5 and scores["yaml_json_agree"] == 0.0


def test_skeleton_earns_no_execution_credit():
    scores = fractions(SKELETON_YAML, SKELETON_JSON)
    assert scores["deep_equivalence"] == scores["partial_matches"] == scores["yaml_json_agree"] == 0.0
    assert scores["arrays_scalars"] == scores["json_literals"] == 0.0


def test_comments_never_change_a_check():
    assert fractions(COMMENTED_YAML, REF_JSON) == REF_FRACTIONS


def test_checks_without_facts_fail_rather_than_crash():
    files = {m.YAML_FILE: _source(m.YAML_FILE, None), m.JSON_FILE: _source(m.JSON_FILE, None)}
    ctx = CheckContext(files=files, facts={})
    assert all(run_check(check_id, ctx).fraction == 0.0 for check_id in ROWS)


# ---- end to end through grade_prompt ----------------------------------------------------


def _grade(tmp_path: Path, yaml_text: str | None, json_text: str | None):
    model = tmp_path / "model"
    model.mkdir()
    for name, text in ((m.YAML_FILE, yaml_text), (m.JSON_FILE, json_text)):
        if text is not None:
            (model / name).write_text(text, encoding="utf-8")
    return grade_prompt(m, model, test_data=TEST_DATA)


def _categories(result) -> dict[str, float]:
    return {cat.category.value: round(cat.earned, 4) for cat in result.categories}


def test_reference_scores_full_marks():
    result = grade_prompt(m, REFERENCE, test_data=TEST_DATA)
    assert result.status == "ok" and result.passed and result.score == pytest.approx(25.0)


def test_skeleton_scores_at_most_three_and_three_quarters(tmp_path):
    result = _grade(tmp_path, SKELETON_YAML, SKELETON_JSON)
    assert result.score <= 3.75 and not result.passed


def test_mediocre_pair_lands_in_between(tmp_path):
    result = _grade(tmp_path, MEDIOCRE_YAML, MEDIOCRE_JSON)
    assert 8.0 < result.score < 22.0


def test_the_broken_original_scores_low(tmp_path):
    result = _grade(tmp_path, FIXTURE, json.dumps({"use_legacy_paths": "yes"}, indent=2) + "\n")
    assert result.score < 5.0 and not result.passed


def test_comments_change_no_grade(tmp_path):
    reference = grade_prompt(m, REFERENCE, test_data=TEST_DATA)
    commented = _grade(tmp_path, COMMENTED_YAML, REF_JSON)
    assert _categories(commented) == _categories(reference) and commented.score == reference.score


def test_alias_bomb_submission_is_graded_quickly(tmp_path):
    bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n" for i in range(1, 9))
    start = time.monotonic()
    result = _grade(tmp_path, bomb, REF_JSON)
    assert time.monotonic() - start < 5.0 and result.status == "ok"
    safety = next(c for cat in result.categories for c in cat.checks if c.id == "yaml_safety")
    assert safety.earned == 0.0 and "limit" in safety.rationale


def test_missing_yaml_file_is_not_a_prompt_error(tmp_path):
    result = _grade(tmp_path, None, REF_JSON)
    assert result.status == "ok" and 0 < result.score < 15


@pytest.mark.parametrize("yaml_text, shown", [
    ("---\n", "a null"), ("null\n", "a null"), ("- a\n- b\n", "a list"), ("just a sentence\n", "a scalar"),
    ("# only a comment\n", "no document"),
])
def test_a_file_that_holds_no_configuration_earns_zero_on_every_style_check(yaml_text, shown):
    """``---`` alone (or null, a list, a scalar) loads, but there is no configuration whose
    style could be judged: no style credit, as for a file that does not load."""
    ctx = make_ctx(yaml_text, REF_JSON)
    for check_id in STYLE_CHECKS:
        outcome = run_check(check_id, ctx)
        assert outcome.fraction == 0 and outcome.status is None, (check_id, outcome.rationale)
        assert outcome.rationale == ("no style credit while a file holds no configuration: "
                                     f"{m.YAML_FILE} loads to {shown}, not a mapping of settings")
    assert run_check("yaml_indentation", make_ctx(REF_YAML, REF_JSON)).fraction == 1.0


@pytest.mark.parametrize("yaml_text, shown", [
    ("# only a comment\n", "nothing (an empty document)"), ("# one\n\n   # two\n", "nothing (an empty document)"),
    ("---\n", "nothing (an empty document)"), ("null\n", "nothing (an empty document)"),
    ("- a\n- b\n", "a list, not a mapping"), ("just a sentence\n", "a scalar, not a mapping"),
])
def test_a_yaml_that_holds_no_configuration_earns_no_safety_credit(yaml_text, shown):
    """Nothing was loaded, so nothing was loaded safely: the same rule as for style."""
    outcome = run_check("yaml_safety", make_ctx(yaml_text, REF_JSON))
    assert outcome.fraction == 0 and outcome.status is None
    assert outcome.rationale == (f"0/1 files load with the safe, limited loaders; {m.YAML_FILE} loads to {shown}")
    assert [e.file for e in outcome.evidence] == [m.YAML_FILE]
    assert run_check("yaml_safety", make_ctx(SKELETON_YAML, REF_JSON)).fraction == 1.0


@pytest.mark.parametrize("yaml_text", ["", " \n\t\n", "# only comments\n# here\n", "---\n"])
def test_an_empty_yaml_scores_as_no_yaml_at_all(tmp_path, yaml_text):
    """An empty, blank or comment-only YAML beside the reference JSON earns what no YAML earns."""
    (tmp_path / "none").mkdir()
    (tmp_path / "empty").mkdir()
    nothing = _grade(tmp_path / "none", None, REF_JSON)
    empty = _grade(tmp_path / "empty", yaml_text, REF_JSON)
    assert empty.score == nothing.score and 0 < nothing.score < 25
    safety = next(c for cat in empty.categories for c in cat.checks if c.id == "yaml_safety")
    assert safety.earned == 0 and m.YAML_FILE in safety.rationale
