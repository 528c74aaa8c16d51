"""Prompt 1 (Refactoring & Analysis): fixtures, oracle, judging helpers, every check, grading.

Check tests build a ``CheckContext`` by hand (source text and/or behaviour facts), so no
child process is needed; the integration tests at the end grade whole submissions through
``grade_prompt`` (reference, trivial, mediocre, canned, commented reference).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from benchmark.engine.grading import GradeOptions, as_task, grade_prompt
from benchmark.packs.local_plugins import resolve_check
from benchmark.prompts import p1_refactoring as p1
from benchmark.prompts import p1_refactoring_cases as cases
from benchmark.prompts import p1_refactoring_data as data
from benchmark.prompts import p1_refactoring_edges as edges
from benchmark.prompts.p1_refactoring_fixtures import RECORDS
from benchmark.prompts import p1_refactoring_judge as judge
from benchmark.prompts.base import SANDBOX_EVENTS, SANDBOX_UNLISTED, CheckContext, strict_equal
from benchmark.rubric import by_id
from benchmark.submission import SourceFile
from benchmark.types import ExecResult

ROOT = Path(__file__).resolve().parent.parent
TEST_DATA = ROOT / "test_data"
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model" / p1.MAIN
EXPECTED = json.loads((TEST_DATA / "answer_keys" / p1.ANSWER_KEY).read_text(encoding="utf-8"))


# ---- helpers ------------------------------------------------------------------------------


TASK = as_task(p1)


def ctx_for(text: str = "x = 1\n", facts: dict[str, Any] | None = None) -> CheckContext:
    source = SourceFile(p1.MAIN, Path(p1.MAIN), text, None, "0" * 64, ast.parse(text))
    return CheckContext(files={p1.MAIN: source}, facts=facts or {}, task=TASK)


def verdict_of(check_id: str, ctx: CheckContext):
    """The verdict of the task's check ``check_id`` as grading reaches it: the check type its
    ``use:`` names (the prompt's own function or a library type) with its ``with:``."""
    row = next(row for row in TASK.checks if row.id == check_id)
    return resolve_check(TASK.pack, row.use).fn(ctx, **row.params)


def outcome(check_id: str, text: str = "x = 1\n", facts: dict[str, Any] | None = None):
    return verdict_of(check_id, ctx_for(text, facts))


def fraction(check_id: str, text: str = "x = 1\n", facts: dict[str, Any] | None = None) -> float:
    return outcome(check_id, text, facts).fraction


def run_fact(output: Any, expected: list[dict[str, Any]] | None = None, *, label: str = "fixture",
             exit_code: int | None = 0, problem: str | None = None) -> dict[str, Any]:
    return {"label": label, "exit_code": exit_code, "exception": None, "problem": problem,
            "output": output, "parse_error": None, "expected": EXPECTED if expected is None else expected,
            "stderr_tail": ""}


def facts_with(fixture_output: Any = None, perturbed_output: Any = None, **fixture_kw) -> dict:
    case = cases.perturbed_case(7)
    perturbed = run_fact(case.expected if perturbed_output is None else perturbed_output,
                         case.expected, label="perturbed")
    perturbed["forms"] = [list(form) for form in case.forms]
    return {"fixture": run_fact(EXPECTED if fixture_output is None else fixture_output, **fixture_kw),
            "perturbed": perturbed}


def legacy_tree() -> ast.Module:
    return ast.parse(p1.fixture_files()[p1.LEGACY_NAME].decode("utf-8"))


def fixture_records() -> list[Any]:
    return json.loads(p1.fixture_files()[p1.RECORDS_NAME])


# ---- registry, fixtures, hazards, oracle -----------------------------------------------------


def test_registry_matches_the_rubric():
    """The prompt's own functions are exactly its core.p1.* rows; the others are library types."""
    rows = by_id("prompt_1").checks
    assert set(p1.CHECKS) == {row.id for row in rows if row.use == f"core.p1.{row.id}"}
    assert all(row.use == f"core.p1.{row.id}" or not row.use.startswith("core.") for row in rows)
    assert p1.FILES == ("prompt_1_solution.py",) and p1.PYTHON_FILES == frozenset(p1.FILES)
    assert (ROOT / "benchmark" / "packs" / "core" / p1.PROMPT_ID / "prompt.md").is_file()


def test_the_execution_checks_are_importable_from_the_prompt_module_as_the_functions_the_registry_holds():
    """They live in ``p1_refactoring_behaviour`` and are re-exported here."""
    from benchmark.prompts import p1_refactoring_behaviour as behaviour

    moved = ("runs_without_error", "json_output_validation", "correct_filtering", "correct_values",
             "measured_performance", "perturbed_dataset")
    assert all(getattr(p1, check_id) is getattr(behaviour, check_id) is p1.CHECKS[check_id]
               for check_id in moved)
    assert p1.FORM_COST is behaviour.FORM_COST


def test_fixtures_are_deterministic_and_committed():
    assert p1.fixture_files() == p1.fixture_files() and p1.answer_keys() == p1.answer_keys()
    for rel, blob in p1.fixture_files().items():
        assert (TEST_DATA / rel).read_bytes() == blob, rel
    for rel, blob in p1.answer_keys().items():
        assert (TEST_DATA / "answer_keys" / rel).read_bytes() == blob, rel


def test_oracle_agrees_with_the_answer_key_and_the_prompt_example():
    files = p1.fixture_files()
    config = yaml.safe_load(files[p1.CONFIG_NAME])
    assert data.expected_output(config, json.loads(files[p1.RECORDS_NAME])) == EXPECTED
    assert [row["id"] for row in EXPECTED] == [1, 2, 7, 8, 16, 18, 19, 22]
    bob = next(row for row in EXPECTED if row["id"] == 2)
    text = (ROOT / "benchmark" / "packs" / "core" / p1.PROMPT_ID / "prompt.md").read_text(encoding="utf-8")
    assert json.dumps(bob, ensure_ascii=False) in text


def _calls(tree: ast.Module, attr: str) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and getattr(n.func, "attr", getattr(n.func, "id", None)) == attr]


def _hazard_proofs() -> dict[str, bool]:
    tree, records = legacy_tree(), fixture_records()
    objects = [r for r in records if isinstance(r, dict)]
    stores = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    handlers = [n for n in ast.walk(tree) if isinstance(n, ast.ExceptHandler)]
    compares = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Compare)]
    offsets = {re.sub(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", "", r["signup"]) for r in objects}
    return {
        "unsafe_yaml_load": any(ast.unparse(kw.value) == "yaml.Loader"
                                for call in _calls(tree, "load") for kw in call.keywords),
        "builtin_shadowing": {"list", "id", "filter", "type"} <= stores,
        "swallowed_exceptions": any(h.type is None and isinstance(h.body[0], ast.Pass) for h in handlers),
        "naive_datetimes": bool(_calls(tree, "now")) and not _calls(tree, "now")[0].args
                           and any(isinstance(n, ast.Slice) for n in ast.walk(tree)),
        "string_age_type_bug": {"42", " 27 "} <= {r["age"] for r in objects if isinstance(r["age"], str)}
                               and 30.5 in [r["age"] for r in objects] and "8" in [r["id"] for r in objects]
                               and "type < rules['min_age']" in " ".join(compares),
        "hardcoded_country_filter": "r['country'] != 'US'" in compares
                                    and "allowed_countries" not in ast.unparse(tree),
        "stdout_pollution": len(_calls(tree, "print")) == 2,
        "unmanaged_opens": len(_calls(tree, "open")) == 2 and not any(
            isinstance(n, ast.With) for n in ast.walk(tree)),
        "mixed_utc_offsets": {"Z", "+02:00", "-05:00", "+05:30", ""} <= offsets,
        "messy_records": {" us ", "ca", "De"} <= {r.get("country") for r in objects}
                         and None in records and [r["id"] for r in objects].count(1) == 2
                         and any(r["email"] is None for r in objects)
                         and any(r["signup"].startswith("2024-02-30") for r in objects),
    }


@pytest.mark.parametrize("hazard", sorted(p1.HAZARDS))
def test_each_hazard_really_exists_in_the_fixtures(hazard):
    assert _hazard_proofs()[hazard], hazard


def test_legacy_script_gets_the_fixture_wrong():
    assert not judge.same_json(data.expected_output(yaml.safe_load(p1.CONFIG_TEXT), [
        {**r, "country": "US"} for r in fixture_records() if isinstance(r, dict)]), EXPECTED)


def test_the_once_per_process_case_is_a_fresh_one_and_each_grading_owns_its_expected_records():
    fresh = cases.perturbed_case(31)
    first = p1.perturbed_case(31)
    assert first == fresh and strict_equal(first.expected, fresh.expected)
    first.expected[0]["changed"] = True
    first.expected.append({})
    second = p1.perturbed_case(31)
    assert second == fresh and second.expected is not first.expected


def test_perturbed_cases_are_seeded_and_differ_from_the_fixture():
    first, again, other = cases.perturbed_case(11), cases.perturbed_case(11), cases.perturbed_case(12)
    assert first == again and first.records != other.records
    config = yaml.safe_load(first.config)
    rules = config["validation_rules"]
    assert (rules["min_age"], rules["max_age"]) != (18, 65) and rules["required_fields"][-1] in (
        "plan", "consent")
    assert first.config_name != p1.CONFIG_NAME and config["data_source"] == first.data_name
    assert first.data_name != p1.RECORDS_NAME and len(first.expected) >= 8
    assert first.expected == data.expected_output(config, json.loads(first.records))


@pytest.mark.parametrize(("value", "expected"), [
    ("2024-06-01T23:30:00-05:00", "2024-06-02T04:30:00Z"), ("2024-02-29T00:15:00+01:00",
                                                           "2024-02-28T23:15:00Z"),
    ("2024-05-10T12:00:00", None), ("2024-02-30T10:00:00Z", None), ("yesterday", None),
    (20240101, None), ("2024-05-10 12:00:00Z", None), ("2024-05-10T12:00:00+24:00", None),
    ("2024-05-10T12:00:00Z\n", None), (" 2024-05-10T12:00:00Z", None), ("2024-05-10", None),
    ("2024-05-10T12:00:00.123456", None), ("2024-05-10T12:00:00.5Z", None),
    ("２０２４-05-10T12:00:00Z", None)])
def test_oracle_timestamps(value, expected):
    parsed = data.parse_timestamp(value)
    assert (parsed.strftime("%Y-%m-%dT%H:%M:%SZ") if parsed else None) == expected


def _kept(record: dict[str, Any], config: dict[str, Any], **fix: Any) -> bool:
    reference = data.parse_timestamp(config["reference_date"])
    return data.normalise({**record, **fix}, config["validation_rules"], reference) is not None


# Each form of the contract of prompt_1/prompt.md, line by line, and the generated kind of
# record that covers it (cases.FORMS holds every kind with its description):
#
# | contract line                                              | kind(s)                               |
# | ---------------------------------------------------------- | ------------------------------------- |
# | entries that are not objects are dropped                   | junk_number, junk_text (fixture: null) |
# | 1 six fields present, not null                             | missing_core, null_email               |
# | 1 strings not empty or only whitespace                     | blank_name, blank_extra                |
# | 1 required_fields naming other fields: presence only       | missing_extra, ok_falsy_extra          |
# | 2 id a JSON integer, not true/false                        | ok, bool_id, float_id                  |
# | 2 id string of ASCII digits, optionally spaces             | ok_strings, ok_padded_id, signed_id, bad_id |
# | 2 id at least 1                                            | zero_id, negative_id                   |
# | 2 digits outside ASCII make the id invalid                 | unicode_id (full-width)                |
# | 3 name a string, output stripped                           | ok_strings, number_name                |
# | 4 email: one @, text before it, a . after it               | bad_email, two_at_email, no_local_email, no_dot_email |
# | 4 email stripped and lower-cased                           | ok_strings                             |
# | 5 age int (not bool) or ASCII digit string, padded         | ok_strings, bool_age, bad_age, unicode_age |
# | 5 floats 30.5 and 30.0 are invalid                         | float_age, integral_float_age          |
# | 5 min_age <= age <= max_age, inclusive                     | ok_min_age, ok_max_age, too_young, too_old |
# | 6 country stripped/upper-cased, one of allowed_countries   | ok_strings, bad_country                |
# | 6 the config's codes stripped and upper-cased too          | ok_config_lower, ok_config_padded      |
# | 7 Z or +HH:MM/-HH:MM offset                                | ok (all offsets), compact_offset, lower_z |
# | 7 not stripped: surrounding whitespace, trailing newline   | padded_signup, newline_signup          |
# | 7 no offset: plain, with microseconds, date only           | naive_time, naive_micro, naive_date    |
# | 7 fractional seconds (with an offset or Z)                 | fraction_offset, fraction_z            |
# | 7 a space instead of T                                     | space_signup                           |
# | 7 ASCII digits                                             | unicode_signup                         |
# | 7 impossible dates                                         | impossible_date                        |
# | 8 duplicates: the first valid record, 8 and "8" the same   | duplicate, duplicate_string, ok_after_invalid |
# | output days_since_signup rounded down (timedelta.days)     | future_signup (negative days)          |
# | another config: countries, bounds, date, extra field       | every seed (_config)                   |
FORM_TABLE = {
    "junk_number", "junk_text", "missing_core", "null_email", "blank_name", "blank_extra",
    "missing_extra", "ok_falsy_extra", "ok", "bool_id", "float_id", "ok_strings", "ok_padded_id",
    "signed_id", "bad_id", "zero_id", "negative_id", "unicode_id", "number_name", "bad_email",
    "two_at_email", "no_local_email", "no_dot_email", "bool_age", "bad_age", "unicode_age",
    "float_age", "integral_float_age", "ok_min_age", "ok_max_age", "too_young", "too_old",
    "bad_country", "ok_config_lower", "ok_config_padded", "compact_offset", "lower_z",
    "padded_signup", "newline_signup", "naive_time", "naive_micro", "naive_date",
    "fraction_offset", "fraction_z", "space_signup", "unicode_signup", "impossible_date",
    "duplicate", "duplicate_string", "ok_after_invalid", "future_signup"}


def test_the_form_table_lists_every_generated_kind():
    assert FORM_TABLE == set(cases.FORMS) == set(p1.GENERATED_CASES)  # docs/prompts.md


_BROKEN_FIELD = {
    "too_young": "age", "too_old": "age", "float_age": "age", "integral_float_age": "age",
    "bool_age": "age", "bad_age": "age", "unicode_age": "age", "bad_country": "country",
    "null_email": "email", "bad_email": "email", "two_at_email": "email",
    "no_local_email": "email", "no_dot_email": "email", "blank_name": "name",
    "number_name": "name", "missing_extra": "extra", "blank_extra": "extra", "bad_id": "id",
    "bool_id": "id", "zero_id": "id", "negative_id": "id", "float_id": "id", "signed_id": "id",
    "unicode_id": "id", **{kind: "signup" for kind in (
        "naive_time", "naive_micro", "naive_date", "fraction_offset", "fraction_z",
        "space_signup", "padded_signup", "newline_signup", "compact_offset", "lower_z",
        "unicode_signup", "impossible_date")}}


def _repair(kind: str, record: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """The record with the one value its kind broke set right."""
    rules = config["validation_rules"]
    extra = rules["required_fields"][-1]
    good = {"id": 5000, "name": "Fixed", "email": "fixed@example.com", "age": rules["min_age"],
            "signup": "2024-01-01T00:00:00Z", "country": cases.canonical_countries(config)[2],
            extra: "pro"}
    if kind == "missing_core":
        return {**good, **record}
    field = _BROKEN_FIELD[kind].replace("extra", extra)
    return {**record, field: good[field]}


@pytest.mark.parametrize("seed", [7, 11, 20261121])
def test_each_dropped_form_breaks_only_its_own_rule(seed):
    """Every kind is generated; each dropped kind is dropped, and kept once the one value it
    broke is repaired; each kept kind is in the expected output under its id."""
    case = cases.perturbed_case(seed)
    config, records = yaml.safe_load(case.config), json.loads(case.records)
    assert {kind for kind, _ in case.forms} == set(cases.FORMS)
    expected_ids = {row["id"] for row in case.expected}
    for (kind, key), record in zip(case.forms, records):
        described, kept = cases.FORMS[kind]
        if kind.startswith("junk"):
            assert not isinstance(record, dict) and record is not None
        elif kept:
            assert _kept(record, config) and key in expected_ids, kind
        elif kind in ("duplicate", "duplicate_string"):
            assert _kept(record, config) and key in expected_ids
            first = next(r for r in records if isinstance(r, dict) and data.lenient_id(r["id"]) == key)
            assert first is not record
        else:
            assert not _kept(record, config), kind
            assert _kept(_repair(kind, record, config), config), (kind, record)


def test_the_config_lists_countries_lower_case_and_padded():
    config = yaml.safe_load(cases.perturbed_case(7).config)
    codes = config["validation_rules"]["allowed_countries"]
    assert codes[0] == codes[0].lower() and codes[1] == f" {codes[1].strip()} "
    assert cases.canonical_countries(config) == [c.strip().upper() for c in codes]


def test_perturbed_signups_hold_the_forms_lenient_parsers_accept():
    """fromisoformat takes fractional seconds, a space for T and +HHMM; strptime's %Y takes
    Arabic-Indic digits: the contract takes none of them."""
    from datetime import datetime
    case = cases.perturbed_case(11)
    records = json.loads(case.records)
    by_kind = {kind: r for (kind, _), r in zip(case.forms, records)}
    for kind in ("fraction_offset", "space_signup", "compact_offset"):
        assert datetime.fromisoformat(by_kind[kind]["signup"]).tzinfo is not None, kind
        assert data.parse_timestamp(by_kind[kind]["signup"]) is None
    year = by_kind["unicode_signup"]["signup"][:4]
    assert not year.isascii() and datetime.strptime(year, "%Y").year > 2000


# ---- judging helpers ----------------------------------------------------------------------------


def test_same_json_is_type_strict():
    assert judge.same_json({"a": [1, "x"]}, {"a": [1, "x"]})
    assert not judge.same_json(1, True) and not judge.same_json(1, 1.0)
    assert not judge.same_json({"a": 1}, {"a": 1, "b": 2}) and not judge.same_json([1], [1, 1])


def test_parse_output_guards():
    assert judge.parse_output('[{"a": "[[[["}]', False) == ([{"a": "[[[["}], None)
    assert judge.parse_output("[" * 60 + "]" * 60, False)[1].startswith("stdout nests deeper")
    assert judge.parse_output("[NaN]", False)[0] is None
    assert judge.parse_output("processed 3\n[]", False)[0] is None
    assert judge.parse_output("[]", True)[1] == "stdout exceeded the capture limit"
    assert judge.nesting_depth('["\\"[", [[]]]') == 3


def test_an_output_id_of_more_digits_than_int_converts_is_a_surplus_item_not_a_grader_error():
    """A printed id string past int()'s 4300-digit limit matches no input id: the judge counts
    it as a surplus item (it used to raise ValueError, and every check on the run was error)."""
    row = p1.fixture_expected()[0]
    output = [{**row, "id": "9" * 5000}, dict(row)]
    assert judge.id_key("9" * 4300) == 10 ** 4300 - 1 and judge.id_key("9" * 4301) is None
    assert judge.filtering([row], output) == {"common": 1, "union": 2, "missing": [], "extra": [],
                                              "surplus": 1}
    assert judge.values([row], output) == (1, 1, [])


def test_observe_stages_both_runs_then_one_timed_run_and_keeps_only_json(tmp_path):
    from benchmark.packs import reference

    seen: list[tuple[dict, set, bool]] = []

    def fake_run(request, stage, reference=False):
        seen.append((request, set(stage), reference))
        record = {"mode": "script", "exit_code": 0, "exception": None, "sleep_total": 0.0, "cpu_s": 0.01}
        return ExecResult(0, "[]", "log line\n", False, None, 0.1, 0.1, 10.0, (), record)

    reference.clear()
    facts = p1.observe({}, fake_run, TEST_DATA, 5)
    case = cases.perturbed_case(5)
    scaled = cases.scaled_case(5, 16 * p1.SCALE_BASE, p1.SCALED)
    assert seen[0] == ({"mode": "script", "module": p1.MAIN, "argv": [p1.CONFIG_NAME],
                        "label": "fixture", "record_sleep": True},
                       {p1.CONFIG_NAME, p1.RECORDS_NAME}, False)
    assert seen[1][0]["argv"] == [case.config_name] and seen[1][1] == {case.config_name, case.data_name}
    assert seen[2][0]["argv"] == [edges.CONFIG] and seen[2][1] == {edges.CONFIG, edges.DATA}
    timed = seen[3]
    assert timed[0]["argv"] == [scaled.config_name] and timed[0]["repeat"] is True and not timed[2]
    assert timed[1] == {scaled.config_name, scaled.data_name}
    assert all(ref for _, _, ref in seen[4:]) and len(seen) == 4 + 1  # the reference: its timed run
    assert seen[4][0] == timed[0] and seen[4][1] >= timed[1] | {p1.MAIN}  # the same run, its own files
    assert facts["measured"]["costs"] == [0.01]  # the whole script's CPU time in the timed run
    assert facts["measured"]["reference"] == {"costs": [0.01], "outside": pytest.approx(0.09)}
    assert facts["measured"]["outside"] == pytest.approx(0.09)  # the kernel's 0.1 s less the script's 0.01
    assert facts["fixture"]["output"] == [] and facts["perturbed"]["expected"] == case.expected
    assert facts["runs"] == {label: facts[label] for label in ("fixture", "perturbed", edges.LABEL)}
    assert json.loads(json.dumps(facts)) == facts
    # the runs are what exec.sandbox_violations reads to know the sandbox watched something
    watched = {**facts, SANDBOX_EVENTS: [], SANDBOX_UNLISTED: 0}
    assert fraction("sandbox_violations", facts=watched) == 1
    unwatched = {key: value for key, value in watched.items() if key != "runs"}
    assert outcome("sandbox_violations", facts=unwatched).rationale.startswith("the sandbox watched nothing")
    denied = {"blocked": "network", "event": "socket.connect", "detail": "x", "count": 1, "file": p1.MAIN}
    assert fraction("sandbox_violations", facts={**watched, SANDBOX_EVENTS: [denied]}) == 0.5
    seen.clear()
    p1.observe({}, fake_run, TEST_DATA, 5)
    assert len(seen) == 4  # the reference's timing is memoised per process
    reference.clear()


def test_the_scaled_data_set_is_seeded_and_sized():
    first, again = cases.scaled_case(5, 512, "scale_16x"), cases.scaled_case(5, 512, "scale_16x")
    assert first == again and len(json.loads(first.records)) == 512
    assert cases.scaled_case(6, 512, "scale_16x").records != first.records


# ---- syntax and structure checks ------------------------------------------------------------------


def test_valid_syntax():
    assert fraction("valid_syntax") == 1
    broken = SourceFile(p1.MAIN, Path(p1.MAIN), "def f(:\n", None, "0", None, "syntax error", 1)
    assert verdict_of("valid_syntax", CheckContext(files={p1.MAIN: broken}, task=TASK)).fraction == 0


@pytest.mark.parametrize(("check_id", "good", "bad"), [
    ("yaml_import", "import yaml\n", "import json\n"),
    ("json_import", "from json import loads\n", "import yaml\n"),
])
def test_imports(check_id, good, bad):
    assert fraction(check_id, good) == 1 and fraction(check_id, bad) == 0


GUARDED = """
import json
def read(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError) as exc:
        raise SystemExit(str(exc))
"""


def test_error_handling():
    assert fraction("error_handling", GUARDED) == 1
    assert fraction("error_handling", GUARDED.replace("except (OSError, ValueError) as exc:", "except:")
                    .replace("str(exc)", "1")) == 0.5
    assert fraction("error_handling", GUARDED.replace("(OSError, ValueError)", "Exception")) == 0.5
    assert fraction("error_handling", "import json\nprint(json.load(open('x')))\n") == 0


def test_type_hints():
    assert fraction("type_hints", "def f(a: int, b: str) -> None:\n    pass\n") == 1
    assert fraction("type_hints", "def f(a, b: str):\n    pass\n") == pytest.approx(1 / 3)
    assert fraction("type_hints", "x = 1\n") == 0


@pytest.mark.parametrize(("text", "expected"), [
    ("import logging\nLOG = logging.getLogger(__name__)\n", 1),
    # the contract asks for diagnostics "with the `logging` module": stderr by hand is not it
    ("import sys\nprint('dropped', file=sys.stderr)\n", 0),
    ("from sys import stderr\nstderr.write('x')\n", 0),
    ("import logging\n", 0),
    ("print('dropped')\n", 0),
    # ... and "never print anything but the JSON array to stdout": an error printed there costs half
    ("import logging\nLOG = logging.getLogger(__name__)\ntry:\n    pass\nexcept OSError:\n    print('x')\n", 0.5),
])
def test_logging(text, expected):
    assert fraction("logging", text) == expected


# ---- execution checks -------------------------------------------------------------------------------


def test_runs_without_error():
    assert fraction("runs_without_error", facts=facts_with()) == 1
    # half for the fixture, half for the perturbed data (these facts hold no edge run)
    assert fraction("runs_without_error", facts=facts_with(exit_code=1)) == 0.5
    assert fraction("runs_without_error", facts=facts_with(exit_code=None, problem="timed out")) == 0.5
    assert fraction("runs_without_error", facts=facts_with(fixture_output=[])) == 0.5
    assert fraction("runs_without_error", facts=facts_with(perturbed_output=[])) == 0.5
    both = facts_with(exit_code=1)
    both["perturbed"]["exit_code"] = 1
    assert fraction("runs_without_error", facts=both) == 0
    assert outcome("runs_without_error", facts={}).status == "error"


def test_json_output_validation():
    assert fraction("json_output_validation", facts=facts_with()) == 1
    broken = [dict(row) for row in EXPECTED]
    broken[0]["id"] = str(broken[0]["id"])
    broken[1]["extra"] = 1
    broken[2]["age"] = True
    assert fraction("json_output_validation", facts=facts_with(broken)) == pytest.approx((5 / 8 + 1) / 2)
    assert fraction("json_output_validation", facts=facts_with({"records": EXPECTED})) == 0.5
    assert fraction("json_output_validation", facts=facts_with(perturbed_output=[])) == 0.5


def test_correct_filtering():
    """Pooled over both data sets: n = the perturbed set's expected records, all right here."""
    n = len(cases.perturbed_case(7).expected)
    assert fraction("correct_filtering", facts=facts_with()) == 1
    fewer_plus_extra = EXPECTED[1:] + [dict(EXPECTED[0], id=99)]
    assert fraction("correct_filtering", facts=facts_with(fewer_plus_extra)) == pytest.approx((7 + n) / (9 + n))
    stringly = [dict(row, id=str(row["id"])) for row in EXPECTED]
    assert fraction("correct_filtering", facts=facts_with(stringly)) == 1
    assert fraction("correct_filtering", facts=facts_with(EXPECTED + EXPECTED[:1])) == pytest.approx((8 + n) / (9 + n))
    # the fixture's output printed again for other data: hard-coded, neither run is judged
    canned = facts_with(perturbed_output=EXPECTED)
    assert fraction("correct_filtering", facts=canned) == 0
    verdict = outcome("correct_filtering", facts=canned)
    assert verdict.rationale.startswith("hard-coded: on other data it printed exactly its fixture output (8 records)")
    assert fraction("correct_values", facts=canned) == 0
    # not the fixture's output, but none of the records the other data keeps: fitted to the
    # fixture (a list of its ids, say), neither run is judged either
    almost = facts_with(perturbed_output=EXPECTED[:-1] + [dict(EXPECTED[-1], age=EXPECTED[-1]["age"] + 1)])
    assert fraction("correct_filtering", facts=almost) == 0
    assert outcome("correct_filtering", facts=almost).rationale.startswith("fitted to the fixture")
    # one of the other data's records missing: judged as usual
    short = facts_with(perturbed_output=cases.perturbed_case(7).expected[1:])
    assert 0 < fraction("correct_filtering", facts=short) < 1


def test_correct_values():
    n = len(cases.perturbed_case(7).expected)
    assert fraction("correct_values", facts=facts_with()) == 1
    typed = [dict(row, age=str(row["age"])) for row in EXPECTED]
    # a record with one wrong field is a wrong record: every fixture record has its age wrong
    assert fraction("correct_values", facts=facts_with(typed)) == pytest.approx(n / (8 + n))
    assert fraction("correct_values", facts=facts_with([{"id": 999}], perturbed_output=[{"id": 999}])) == 0
    assert fraction("correct_values", facts=facts_with(EXPECTED[:1])) == 1


def test_perturbed_dataset():
    case = cases.perturbed_case(7)
    expected = case.expected
    assert fraction("perturbed_dataset", facts=facts_with()) == 1
    extra = expected + [dict(expected[0], id=5000)]
    assert fraction("perturbed_dataset", facts=facts_with(perturbed_output=extra)) == pytest.approx(5 / 6)
    assert fraction("perturbed_dataset", facts=facts_with(perturbed_output=EXPECTED)) == 0
    assert fraction("perturbed_dataset", facts=facts_with(perturbed_output=[])) == 0
    failed = facts_with()
    failed["perturbed"]["exit_code"] = 1
    assert fraction("perturbed_dataset", facts=failed) == 0
    no_forms = facts_with()
    no_forms["perturbed"]["forms"] = []
    assert outcome("perturbed_dataset", facts=no_forms).status == "error"


def _flip(kind: str, case) -> list[dict[str, Any]]:
    """The expected output with every record of ``kind`` judged the other way: a kept one
    left out, a dropped one kept (with the values a lenient reader would print)."""
    records = json.loads(case.records)
    config = yaml.safe_load(case.config)
    keys = {key for (k, key), r in zip(case.forms, records) if k == kind}
    output = [row for row in case.expected if row["id"] not in keys]
    if cases.FORMS[kind][1]:
        return output
    wrongly_kept = [dict(case.expected[0], id=key) for key in keys]
    return sorted(output + wrongly_kept, key=lambda row: row["id"])


@pytest.mark.parametrize("kind", sorted(k for k in cases.FORMS if not k.startswith("junk")
                                        and k not in ("bad_id",)))
def test_each_form_judged_wrongly_costs_a_sixth_of_perturbed_dataset(kind):
    """Accepting a form the contract rejects, or rejecting one it accepts, costs real points;
    the rationale names the form (or the duplicate form that reuses its id: one charge)."""
    case = cases.perturbed_case(7)
    result = outcome("perturbed_dataset", facts=facts_with(perturbed_output=_flip(kind, case)))
    shared = {key for k, key in case.forms if k in cases.REUSING}
    keys = {key for k, key in case.forms if k == kind}
    named = kind if kind in cases.REUSING or not keys <= shared else "ok_after_invalid"
    assert result.fraction <= 5 / 6 + 1e-9 and named in result.rationale, result.rationale


# ---- quality, security, performance, maintainability ----------------------------------------------


def test_has_main_guard():
    assert fraction("has_main_guard", "def main():\n    pass\nif __name__ == '__main__':\n    main()\n") == 1
    assert fraction("has_main_guard", "def main():\n    pass\nmain()\n") == 0


@pytest.mark.parametrize(("text", "expected"), [
    ("with open('a', encoding='utf-8') as f:\n    f.read()\n", 1),
    ("from pathlib import Path\nPath('a').read_text(encoding='utf-8')\n", 1),
    ("with open('a', 'rb') as f:\n    f.read()\nf2 = open('b', encoding='utf-8')\n", 0.5),
    ("import json\njson.load(open('a'))\n", 0),
    ("x = 1\n", 0),
    # a file function handed to a call that makes it: its encoding is the forwarded keyword
    ("import asyncio\nasync def f(p):\n    return await asyncio.to_thread(p.read_text, encoding='utf-8')\n", 1),
    ("import asyncio\nasync def f(p):\n    return await asyncio.to_thread(p.read_text)\n", 0),
    ("import functools\nread = functools.partial(open, 'a', encoding='utf-8')\n", 1),
    ("def f(loop, p):\n    return loop.run_in_executor(None, p.read_bytes)\n", 1),
])
def test_proper_file_handling(text, expected):
    assert fraction("proper_file_handling", text) == expected


def test_no_builtin_shadowing():
    assert fraction("no_builtin_shadowing", "items = []\n") == 1
    assert fraction("no_builtin_shadowing", "list = []\n") == 0.75
    assert fraction("no_builtin_shadowing", p1.LEGACY_SCRIPT) == 0


def test_specific_exceptions():
    assert fraction("specific_exceptions", GUARDED) == 1
    assert fraction("specific_exceptions", "try:\n    pass\nexcept:\n    pass\n") == 0
    assert fraction("specific_exceptions", "try:\n    pass\nexcept Exception:\n    pass\n") == 0
    handled = "import logging\ntry:\n    pass\nexcept Exception:\n    logging.exception('x')\n    raise\n"
    assert fraction("specific_exceptions", handled) == 1
    assert fraction("specific_exceptions", "x = 1\n") == 0


@pytest.mark.parametrize(("text", "expected"), [
    ("import yaml\nyaml.safe_load('a: 1')\n", 1),
    ("import yaml\nyaml.load('a: 1', Loader=yaml.SafeLoader)\n", 1),
    ("from yaml import load, CSafeLoader\nload('a', CSafeLoader)\n", 1),
    ("import yaml\nclass Strict(yaml.SafeLoader):\n    pass\nyaml.load('a', Loader=Strict)\n", 1),
    ("import yaml\nyaml.load('a: 1', Loader=yaml.Loader)\n", 0),
    ("import yaml\nyaml.load('a: 1')\n", 0),
    ("import yaml\nyaml.full_load('a')\n", 0),
    ("from yaml import unsafe_load as ld\nld('a')\n", 0),
    ("import yaml\nclass SafeLoader(yaml.Loader):\n    pass\nyaml.load('a', Loader=SafeLoader)\n", 0),
    ("import yaml\nyaml.safe_load('a')\nyaml.load('b')\n", 0),
    ("import json\n", 0),
    # a loader handed over as a function loads as it does called
    ("import yaml\ndef read(p, parse):\n    return parse(p)\nread('a', yaml.safe_load)\n", 1),
    ("from yaml import safe_load as sl\nparsers = {'yaml': sl}\n", 1),
    ("import yaml\ndef read(p, parse):\n    return parse(p)\nread('a', yaml.unsafe_load)\n", 0),
    ("import yaml\nloader = yaml.load\nloader('a', Loader=yaml.SafeLoader)\n", 0),  # not seen where named
])
def test_safe_yaml_loading(text, expected):
    assert fraction("safe_yaml_loading", text) == expected


def test_no_security_issues():
    assert fraction("no_security_issues", "import json\nprint(json.dumps([]))\n") == 1
    assert fraction("no_security_issues", "import subprocess\nsubprocess.call('ls', shell=True)\n"
                    "eval(input())\n") < 0.5


def test_a_bandit_rationale_lists_ten_findings_then_counts_the_rest():
    text = "".join(f"eval(input())  # {n}\n" for n in range(12))
    result = outcome("no_security_issues", text)
    assert result.fraction == 0 and "12 issue(s)" in result.rationale
    assert result.rationale.count("B307 line") == 10 and result.rationale.endswith("... and 2 more")
    assert "B307 line 10" in result.rationale and "B307 line 11" not in result.rationale
    seven = outcome("no_security_issues", "".join("eval(input())\n" for _ in range(7))).rationale
    assert "7 issue(s)" in seven and seven.count("B307 line") == 7 and "more" not in seven


@pytest.mark.parametrize(("check_id", "bad"), [
    ("no_nested_loops", "for a in 'xy':\n    for b in 'zw':\n        print(a, b)\n"),
    ("no_nested_loops", "for a in 'xy':\n    print([b for b in a])\n"),
    ("no_io_in_loops", "for name in ['a']:\n    with open(name, encoding='utf-8') as f:\n        f.read()\n"),
])
def test_performance_checks(check_id, bad):
    assert fraction(check_id, "rows = [x for x in 'ab']\n") == 1
    assert fraction(check_id, bad) == 0.75


def test_function_size_and_complexity():
    short = "def f(value: int) -> int:\n    return value + 1\n"
    long = "def g(v):\n" + "".join(f"    v = v + {i}\n" for i in range(45)) + "    return v\n"
    branchy = "def h(v):\n" + "".join(f"    if v == {i}:\n        return {i}\n" for i in range(12)) + "    return v\n"
    assert fraction("no_long_functions", short) == 1 and fraction("no_long_functions", long) == 0
    assert fraction("no_long_functions", short + long) == 0.5
    assert fraction("low_complexity", short) == 1 and fraction("low_complexity", branchy) == 0
    assert fraction("no_long_functions", "x = 1\n") == 0 and fraction("low_complexity", "x = 1\n") == 0


def test_maintainability_index():
    assert fraction("maintainability_index", "def f(value: int) -> int:\n    return value + 1\n") == 1
    sprawling = "".join(f"def f{i}(a, b, c):\n    if a > b * {i} and c:\n        return a ** b - c / {i + 1}"
                        f" + (a % {i + 2})\n    return c * {i} - b\n" for i in range(60))
    assert fraction("maintainability_index", sprawling) < 0.3


def test_good_naming():
    assert fraction("good_naming", "def load_rules(path: str) -> None:\n    rules = path\n") == 1
    assert fraction("good_naming", "def LoadRules(p):\n    q = p\n") == 0.25


# ---- integration through grade_prompt ----------------------------------------------------------------

TRIVIAL = 'print("[]")\n'
CANNED = (f"import json\nimport sys\n\nANSWER = {EXPECTED!r}\n\n\ndef main() -> int:\n"
          "    sys.stdout.write(json.dumps(ANSWER))\n    return 0\n\n\n"
          "if __name__ == '__main__':\n    sys.exit(main())\n")
MEDIOCRE = '''\
import json
import os
import sys
from datetime import datetime, timezone

import yaml


def load(path):
    with open(path) as handle:
        return yaml.safe_load(handle)


def clean(record, rules, reference):
    for field in rules["required_fields"] + ["id", "age", "signup"]:
        if record.get(field) is None:
            return None
    age = int(record["age"])
    country = record["country"].upper()
    if age < rules["min_age"] or age > rules["max_age"] or country not in rules["allowed_countries"]:
        return None
    signup = datetime.fromisoformat(record["signup"].replace("Z", "+00:00")).astimezone(timezone.utc)
    return {"id": int(record["id"]), "name": record["name"].strip(), "email": record["email"].lower(),
            "age": age, "country": country, "signup": signup.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "days_since_signup": (reference - signup).days}


def main():
    config = load(sys.argv[1])
    reference = datetime.fromisoformat(config["reference_date"].replace("Z", "+00:00"))
    with open(os.path.join(os.path.dirname(sys.argv[1]), config["data_source"])) as handle:
        records = json.load(handle)
    result = []
    for record in records:
        try:
            row = clean(record, config["validation_rules"], reference)
        except Exception:
            continue
        if row:
            result.append(row)
    print(json.dumps(sorted(result, key=lambda row: row["id"])))


if __name__ == "__main__":
    main()
'''
COMMENTS = ("# yaml.safe_load(handle)  logging.getLogger(__name__)  except (OSError, ValueError):"
            "  with open(path, encoding='utf-8')  if __name__ == '__main__':  -> None: str int\n"
            "# yaml.load(f, Loader=yaml.Loader)  eval(data)  except: pass  list = []  for x in y: for\n")


def _grade(tmp_path: Path, text: str):
    model = tmp_path / "model"
    model.mkdir(parents=True, exist_ok=True)
    (model / p1.MAIN).write_text(text, encoding="utf-8")
    return grade_prompt(p1, model, test_data=TEST_DATA, options=GradeOptions(timeout_s=20))


def _earned(result) -> dict[str, float]:
    return {c.id: c.earned for cat in result.categories for c in cat.checks}


def _commented(text: str) -> str:
    lines = []
    for line in text.splitlines(keepends=True):
        if re.match(r"(def |class |@|if __name__)", line):
            lines.append(COMMENTS)
        lines.append(line)
        signature = re.match(r"(\s*)def .*\) -> .*:\s*$", line)
        if signature:
            indent = signature.group(1) + "    "
            lines.append(f'{indent}"""Safe: yaml.safe_load, logging, except ValueError, '
                         f'with open(encoding=...); never eval or except: pass."""\n')
    return "".join(lines)


def test_reference_scores_high(tmp_path):
    result = _grade(tmp_path, REFERENCE.read_text(encoding="utf-8"))
    earned = _earned(result)
    assert result.passed and result.score >= 23, earned
    for check_id in ("runs_without_error", "json_output_validation", "correct_filtering",
                     "correct_values", "perturbed_dataset", "safe_yaml_loading", "sandbox_violations"):
        assert earned[check_id] == by_id("prompt_1").checks[
            [r.id for r in by_id("prompt_1").checks].index(check_id)].points


def test_comments_and_docstrings_change_no_score(tmp_path):
    text = REFERENCE.read_text(encoding="utf-8")
    commented = _commented(text)
    assert commented.count("yaml.load(f, Loader") > 5 and ast.parse(commented)
    plain, noisy = _grade(tmp_path / "a", text), _grade(tmp_path / "b", commented)
    assert _earned(plain) == _earned(noisy) and plain.score == noisy.score


@pytest.mark.parametrize("text", [TRIVIAL, "pass\n", p1.LEGACY_SCRIPT])
def test_trivial_and_legacy_submissions_fail(tmp_path, text):
    result = _grade(tmp_path, text)
    assert not result.passed and result.score <= 3.75, _earned(result)


def test_mediocre_lands_in_between(tmp_path):
    result = _grade(tmp_path, MEDIOCRE)
    earned = _earned(result)
    assert 8 < result.score < 21, earned
    assert 0 < earned["correct_filtering"] < 2 and earned["specific_exceptions"] == 0


def _lenient_reference() -> str:
    """The reference with `\\d` for its digit pattern and naive signups taken as UTC."""
    text = REFERENCE.read_text(encoding="utf-8")
    strict_digits = 'DIGITS_PATTERN = re.compile(r"[0-9]+")'
    strict_time = 'if not isinstance(value, str) or not TIMESTAMP_PATTERN.fullmatch(value):'
    assert strict_digits in text and strict_time in text
    lenient_time = ('if isinstance(value, str) and re.fullmatch(r"[0-9T:-]{19}", value):\n'
                    '        value += "Z"\n    ' + strict_time)
    return text.replace(strict_digits, 'DIGITS_PATTERN = re.compile(r"\\d+")').replace(
        strict_time, lenient_time)


def test_lenient_digits_and_naive_times_cost_filtering(tmp_path):
    reference = _earned(_grade(tmp_path / "a", REFERENCE.read_text(encoding="utf-8")))
    lenient = _earned(_grade(tmp_path / "b", _lenient_reference()))
    for check_id in ("correct_filtering", "perturbed_dataset"):
        assert lenient[check_id] < reference[check_id], (check_id, lenient[check_id])
    assert lenient["runs_without_error"] == reference["runs_without_error"]


def test_canned_output_fails_the_perturbed_data(tmp_path):
    earned = _earned(_grade(tmp_path, CANNED))
    assert earned["correct_filtering"] < 1 and earned["perturbed_dataset"] == 0
    assert not _grade(tmp_path, CANNED).passed
    assert earned["safe_yaml_loading"] == 0 and earned["proper_file_handling"] == 0


def _variant(old: str, new: str) -> str:
    text = REFERENCE.read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new)


# The reference with one contract form mishandled each: a one-line slip a strong model makes.
VARIANTS = {
    # fromisoformat: takes fractional seconds (with an offset or Z), a space for T and +HHMM
    "fromisoformat": ('    if not isinstance(value, str) or not TIMESTAMP_PATTERN.fullmatch(value):\n'
                      '        return None\n    try:\n'
                      '        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S%z").astimezone(timezone.utc)',
                      '    if not isinstance(value, str) or not value.endswith(("Z", "0")):\n'
                      '        return None\n    try:\n'
                      '        parsed = datetime.fromisoformat(value)\n'
                      '        return None if parsed.tzinfo is None else parsed.astimezone(timezone.utc)'),
    # the config's codes compared as written
    "raw_config_codes": ("frozenset(code.strip().upper() for code in countries)",
                         "frozenset(countries)"),
    # str.isdigit() and int(): non-ASCII digits, in ids and ages
    "isdigit": ("DIGITS_PATTERN.fullmatch(value.strip())", "value.strip().isdigit()"),
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_mishandled_contract_form_loses_real_points(tmp_path, name):
    reference = _grade(tmp_path / "a", REFERENCE.read_text(encoding="utf-8"))
    variant = _grade(tmp_path / "b", _variant(*VARIANTS[name]))
    assert _earned(reference)["perturbed_dataset"] == 1.5
    lost = reference.score - variant.score
    assert lost >= 0.4, (name, lost, _earned(variant))
    assert _earned(variant)["perturbed_dataset"] <= 1.25, _earned(variant)


def test_the_edge_run_keeps_the_fixture_records_whatever_the_edges_do():
    """p1_refactoring_edges: the fixture's records with four edge records appended; each edge
    record may be kept or dropped, a huge id printed as an int of 5,000 digits included."""
    assert edges.parse_int("9" * 5000) == edges.HUGE_INT and edges.parse_int("-12") == -12
    assert edges.allowed_extra({"id": edges.HUGE_INT}) and edges.allowed_extra({"id": 9002})
    assert not edges.allowed_extra({"id": 1}) and not edges.allowed_extra({"id": True})
    config = yaml.safe_load(edges.files()[edges.CONFIG])
    assert config["data_source"] == edges.DATA
    records = json.loads(edges.files()[edges.DATA])
    assert records[-len(edges.EDGES):] == edges.EDGES and len(records[0:-4]) == len(RECORDS)


@pytest.mark.parametrize("old, new, what", [
    ("        try:\n            return int(value.strip())\n        except ValueError:  # more digits than int() takes (sys.get_int_max_str_digits())\n            return None",
     "        return int(value.strip())", "Exceeds the limit"),
    ("    except (ValueError, OverflowError):", "    except ValueError:", "OverflowError"),
])
def test_a_crash_on_an_edge_record_costs_a_third_of_runs_without_error(tmp_path, old, new, what):
    result = _grade(tmp_path, _variant(old, new))
    earned = _earned(result)
    assert earned["runs_without_error"] == pytest.approx(2 / 3, abs=1e-3)
    assert earned["perturbed_dataset"] == 1.5 and earned["correct_values"] == 1.0
    rationale = next(c.rationale for cat in result.categories for c in cat.checks if c.id == "runs_without_error")
    assert "edge records appended" in rationale and what in rationale
