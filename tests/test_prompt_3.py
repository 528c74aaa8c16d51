"""Prompt 3 (Data Transformation): fixture hazards, the oracle, every check, and end-to-end grading."""

from __future__ import annotations

import ast
import copy
import dataclasses
import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest

from benchmark.engine.grading import GradeOptions, as_task, grade_prompt
from benchmark.packs.registry import check_type_named
from benchmark.prompts import p3_transform as P3
from benchmark.prompts import p3_transform_cases as C
from benchmark.prompts import p3_transform_data as D
from benchmark.prompts import p3_transform_differential as DIFF
from benchmark.prompts import p3_transform_items as ITEMS
from benchmark.prompts import p3_transform_judge as J
from benchmark.prompts.base import CheckContext
from benchmark.rubric import by_id
from benchmark.submission import SourceFile
from benchmark.types import ExecResult

ROOT = Path(__file__).resolve().parent.parent
TEST_DATA = ROOT / "test_data"
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model"
SEED = 4242
MAIN = P3.MAIN
TASK = as_task(P3)

# ---- helpers ------------------------------------------------------------------------


def _source(text: str) -> SourceFile:
    text = textwrap.dedent(text)
    return SourceFile(MAIN, Path(MAIN), text, None, None, ast.parse(text))


def _check(check_id: str, ctx: CheckContext):
    """The check as the core pack's task.yaml sets it: its type (``core.p3.<id>`` or a library
    type) with its ``with:``, on ``ctx`` for the prompt's task."""
    row = next(c for c in TASK.checks if c.id == check_id)
    return check_type_named(row.use).fn(dataclasses.replace(ctx, task=TASK), **row.params)


def _static(text: str, check_id: str) -> float:
    outcome = _check(check_id, CheckContext(files={MAIN: _source(text)}))
    assert outcome.rationale
    return outcome.fraction


def _result(label: str, value: Any, *, mutated: bool = False, exception: str | None = None) -> dict:
    raised = {"type": exception, "message": "boom"} if exception else None
    return {"label": label, "returned": raised is None, "value": None if raised else value,
            "value_type": None if raised else type(value).__name__, "unserializable": None,
            "exception": raised, "mutated": mutated, "output": ""}


def _facts(transform=D.expected_output, **overrides) -> dict[str, Any]:
    """Facts as observe builds them, with each call's value computed by ``transform`` (a deep
    copy stands for the JSON round trip: json.dumps cannot write a 5,000-digit int)."""
    differential, classes = C.differential_case(SEED)
    inputs = {"fixture": D.fixture_users(), "malformed": D.malformed_users(),
              "perturbed": D.perturbed_users(SEED), "differential": differential}
    expected = {label: D.expected_output(users) for label, users in inputs.items()}
    results = {label: _result(label, copy.deepcopy(transform(copy.deepcopy(users))))
               for label, users in inputs.items()}
    results.update(overrides)
    return {"seed": SEED, "inputs": inputs, "expected": expected, "classes": classes,
            "results": results, "problem": "", "import_error": None, "function_found": True}


def _behaviour(check_id: str, facts: dict[str, Any]) -> float:
    outcome = _check(check_id, CheckContext(files={}, facts=facts))
    assert outcome.rationale
    return outcome.fraction


def _identity(users):
    return users


def _half_right(users):
    """Right on the fixture-shaped cases a naive solution handles; wrong on the rest."""
    out = D.expected_output(users)
    for record in out[::2]:
        record["account_tier"] = "Gold"
        record["stats"]["age"] = "?"
        record["contact"]["email_provider"] = "?"
        record["id"] = "?"
    return out


# ---- module interface, fixture and hazards --------------------------------------------


def test_checks_match_the_rubric_rows():
    rows = by_id("prompt_3").checks
    assert set(P3.CHECKS) == {row.id for row in rows if row.use == f"core.p3.{row.id}"}
    library = {row.id: row.use for row in rows if not row.use.startswith("core.")}
    assert library == {
        "file_compiles": "compiles", "function_exists": "ast.defines",
        "correct_signature": "ast.signature", "specific_exceptions": "ast.specific_exceptions",
        "no_unsafe_constructs": "bandit.no_issues", "sandbox_violations": "exec.sandbox_violations",
        "single_pass": "ast.no_nested_loops", "code_organization": "radon.max_complexity",
        "maintainability_index": "radon.maintainability_index"}
    assert all(check_type_named(use).source == "builtin" for use in library.values())
    assert P3.FILES == ("prompt_3_transform.py",) and P3.PYTHON_FILES == frozenset(P3.FILES)
    assert (ROOT / "benchmark" / "packs" / "core" / P3.PROMPT_ID / "prompt.md").is_file()


def _fixture() -> tuple[bytes, list[dict[str, Any]]]:
    raw = P3.fixture_files()[D.FIXTURE_PATH]
    return raw, json.loads(raw.decode("utf-8-sig"))


def _by_id(users, raw_id):
    return next(u for u in users if u.get("id") == raw_id)


HAZARD_PROOFS = {
    "utf8_bom": lambda raw, users: raw[:3] == b"\xef\xbb\xbf",
    "string_ids": lambda raw, users: b'"id": "101"' in raw and b'"id": 102,' in raw,
    "padded_ids": lambda raw, users: b'"id": "103 "' in raw and b'"id": " 104"' in raw,
    "float_id": lambda raw, users: b'"id": 105.0' in raw and isinstance(users[4]["id"], float),
    "string_numbers": lambda raw, users: b'"age": "32"' in raw and b'"total_purchases": "15"' in raw,
    "float_age": lambda raw, users: b'"age": 28.0' in raw,
    "padded_age": lambda raw, users: b'"age": " 61 "' in raw,
    "invalid_ages": lambda raw, users: b'"age": "unknown"' in raw and b'"age": null' in raw,
    "null_email": lambda raw, users: b'"email": null' in raw,
    "missing_email": lambda raw, users: any(
        isinstance(u.get("contact"), dict) and "email" not in u["contact"] for u in users),
    "uppercase_domain": lambda raw, users: b"@Web.DE" in raw and b"@Outlook.COM" in raw,
    "padded_email": lambda raw, users: b'"email": " asa.oberg@Outlook.COM "' in raw,
    "quoted_at_local_part": lambda raw, users: b'"\\"bob@home\\"@Mail.Example.co.uk"' in raw,
    "stale_provider": lambda raw, users: b'"email_provider": "stale.example"' in raw,
    "missing_contact_stats": lambda raw, users: not {"contact", "stats"} & set(_by_id(users, 999)),
    "tier_boundaries": lambda raw, users: all(
        p in raw for p in (b'"total_purchases": 50\n', b'"total_purchases": "100"',
                           b'"total_purchases": 99.99', b'"total_purchases": "49.5"')),
    "non_ascii_names": lambda raw, users: all(
        name.encode("utf-8") in raw for name in ("José Müller", "Zoë 李", "Åsa Öberg")),
}


def test_every_hazard_is_documented_and_present_in_the_fixture_bytes():
    raw, users = _fixture()
    assert set(HAZARD_PROOFS) == set(P3.HAZARDS)
    missing = [hazard for hazard, proof in HAZARD_PROOFS.items() if not proof(raw, users)]
    assert not missing
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw.decode("utf-8"))  # the BOM breaks a plain utf-8 read


def test_fixture_and_answer_key_are_deterministic_and_committed():
    assert P3.fixture_files() == P3.fixture_files() and P3.answer_keys() == P3.answer_keys()
    for name, blob in P3.fixture_files().items():
        assert (TEST_DATA / name).read_bytes() == blob
    for name, blob in P3.answer_keys().items():
        assert (TEST_DATA / "answer_keys" / name).read_bytes() == blob


def test_answer_key_agrees_with_the_oracle_and_the_contract_examples():
    _, users = _fixture()
    key = json.loads(P3.answer_keys()[D.ANSWER_KEY_PATH])
    assert J.strict_equal(key, D.expected_output(users))
    by_id = {r["id"]: r for r in key}
    assert sorted(by_id) == [101, 102, 103, 104, 105, 106, 999]
    assert [by_id[i]["account_tier"] for i in (101, 102, 103, 104, 105, 106, 999)] == [
        "Bronze", "Gold", "Silver", "Bronze", "Gold", "Silver", "Bronze"]
    assert [by_id[i]["contact"]["email_provider"] for i in (101, 102, 103, 104, 105, 106)] == [
        "gmail.com", "web.de", None, "mail.example.co.uk", "outlook.com", None]
    assert [by_id[i]["stats"]["age"] for i in (101, 102, 103, 104, 105, 106, 999)] == [
        32, 45, 28, None, None, 61, None]
    assert by_id[999]["contact"] == {"email_provider": None} and by_id[999]["stats"] == {"age": None}
    assert by_id[101]["stats"]["total_purchases"] == "15"  # other fields keep their type


@pytest.mark.parametrize("value, expected", [
    (7, 7), ("32", 32), (" 104", 104), ("-3", -3), ("+5", 5), (28.0, 28), (True, None),
    (30.5, None), ("32.0", None), ("", None), ("abc", None), (None, None), ([1], None),
    ("٣٢", None), ("３２", None), ("1_000", None),
])
def test_oracle_integer_rule(value, expected):
    assert J.strict_equal(D.as_int(value), expected)


@pytest.mark.parametrize("email, provider", [
    ("a@Web.DE", "web.de"), (' "x@y"@Mail.Example.co.uk ', "mail.example.co.uk"), ("a@", None),
    ("no-at", None), (None, None), (12345, None), ("@", None),
])
def test_oracle_email_rule(email, provider):
    assert D.email_provider(email) == provider


@pytest.mark.parametrize("count, tier", [
    (49.99, "Bronze"), (50, "Silver"), ("50.0", "Silver"), (99.99, "Silver"), (100, "Gold"),
    (" 100 ", "Gold"), ("1e3", "Bronze"), (True, "Bronze"), (None, "Bronze"), ("lots", "Bronze"),
    ("+100", "Gold"), ("100.0", "Gold"), ("inf", "Bronze"), ("Infinity", "Bronze"), ("nan", "Bronze"),
    ("5e1", "Bronze"), ("１５０", "Bronze"), ("1_000", "Bronze"), (".5", "Bronze"), ("50.", "Silver"),
])
def test_oracle_tier_boundaries(count, tier):
    assert D.account_tier({"total_purchases": count}) == tier
    assert D.account_tier("n/a") == "Bronze"


def test_oracle_does_not_mutate_and_skips_non_dicts():
    users = D.malformed_users()
    before = json.dumps(users, sort_keys=True)
    out = D.expected_output(users)
    assert json.dumps(users, sort_keys=True) == before
    assert len(out) == sum(isinstance(u, dict) for u in users) and D.expected_output(None) == []


def test_perturbed_sets_are_seeded_varied_and_cover_every_kind():
    a, b = D.perturbed_users(1), D.perturbed_users(2)
    assert a == D.perturbed_users(1) and a != b
    for users in (a, b, D.perturbed_users(SEED)):
        assert 20 <= len(users) <= 40
        out = D.expected_output(users)
        ids = [r["id"] for r in out]
        assert len({json.dumps(i) for i in ids}) == len(ids)  # unique after conversion
        assert any(isinstance(i, str) for i in ids)  # an unconvertible id is kept
        assert {r["account_tier"] for r in out} == {"Gold", "Silver", "Bronze"}
        assert sum(r["contact"]["email_provider"] is None for r in out) <= len(out) // 3
        counts = [u["stats"]["total_purchases"] for u in users if "total_purchases" in u.get("stats", {})]
        values = [D.as_count(c) for c in counts]
        for limit in (D.SILVER_MIN, D.GOLD_MIN):  # several records on each tier limit, some below
            assert sum(v == limit for v in values) >= 2 and any(limit - 1 <= v < limit for v in values if v)
        assert {"e", "inf", "nan"} <= {k for c in counts if isinstance(c, str)
                                       for k in ("e", "inf", "nan") if k in c.lower()}
        foreign = [v for u in users for v in (u["id"], (u.get("stats") or {}).get("age"))
                   if isinstance(v, str) and v.strip().isdigit() and not v.strip().isascii()]
        assert len(foreign) >= 2 and all(D.as_int(v) is None for v in foreign)


# ---- comparison helpers -------------------------------------------------------------


def test_each_grading_gets_an_exact_private_copy_of_the_generated_cases():
    """The once-per-process cases equal a fresh computation, type for type (bool stays bool,
    float stays float), and what one grading does to its copy never reaches the next."""
    seed = 20240601
    differential, classes = C.differential_case(seed)
    inputs = {"malformed": D.malformed_users(), "perturbed": D.perturbed_users(seed),
              J.DIFFERENTIAL: differential}
    fresh = (inputs, {label: D.expected_output(inputs[label]) for label in P3.LABELS[1:]}, classes)
    first = P3.generated(seed)
    assert J.strict_equal(list(first), list(fresh))
    first[0]["perturbed"].clear()
    first[1][J.DIFFERENTIAL][0]["id"] = "changed"
    first[2].append("changed")
    second = P3.generated(seed)
    assert J.strict_equal(list(second), list(fresh))
    assert second[0] is not first[0] and second[1] is not first[1]


def test_strict_equal_tells_types_apart():
    assert J.strict_equal({"a": [1, None, "x"]}, {"a": [1, None, "x"]})
    assert not J.strict_equal(True, 1) and not J.strict_equal(32, 32.0)
    assert not J.strict_equal({"a": 1}, {"a": 1, "b": 2}) and not J.strict_equal([1], [1, 1])


def test_align_by_position_then_by_id():
    users = [{"id": "1"}, "junk", {"id": "x"}, {"id": 3}]
    expected = D.expected_output(users)
    same_count = [{"id": 9}, {"id": 8}, {"id": 7}]
    assert J.align(users, expected, same_count) == same_count
    assert J.align(users, expected, [{"id": 3}, {"id": 1}]) == [{"id": 1}, None, {"id": 3}]
    assert J.align(users, expected, [{"id": "x"}, "junk"]) == [None, {"id": "x"}, None]
    assert J.align(users, expected, None) == [None, None, None]


# ---- syntax and structure checks ----------------------------------------------------

GOOD = """
    def _one(user):
        return dict(user)

    def transform_and_enrich_users(user_list, *, strict=False):
        return [_one(u) for u in user_list if isinstance(u, dict)]
"""


def test_file_compiles():
    assert _static(GOOD, "file_compiles") == 1.0
    broken = SourceFile(MAIN, Path(MAIN), "def f(:\n", None, None, None, "syntax error: x (line 1)", 1)
    assert _check("file_compiles", CheckContext(files={MAIN: broken})).fraction == 0.0
    assert _check("file_compiles", CheckContext(files={})).fraction == 0.0


def test_function_exists():
    assert _static(GOOD, "function_exists") == 1.0
    assert _static("def transform_users(user_list):\n    return []\n", "function_exists") == 0.0
    assert _static("async def transform_and_enrich_users(u):\n    return []\n", "function_exists") == 0.0
    nested = "class T:\n    def transform_and_enrich_users(self, u):\n        return []\n"
    assert _static(nested, "function_exists") == 0.0


@pytest.mark.parametrize("params, ok", [
    ("user_list", True), ("users, limit=None", True), ("users, *rest, **extra", True),
    ("users, /", True), ("users, mode", False), ("", False), ("users, *, strict", False),
    ("*users", False),
])
def test_correct_signature(params, ok):
    text = f"def transform_and_enrich_users({params}):\n    return []\n"
    assert _static(text, "correct_signature") == (1.0 if ok else 0.0)
    assert _static(f"async {text}", "correct_signature") == 0.0  # the contract: a plain def


def test_basic_organization():
    assert _static(GOOD, "basic_organization") == 1.0
    body = "\n".join(f"        user['k{i}'] = {i}" for i in range(45))
    long_main = ("print('loading')\n\ndef transform_and_enrich_users(user_list):\n"
                 f"    out = []\n    for user in user_list:\n{body}\n        out.append(user)\n"
                 "    return out\n")
    assert _static(long_main, "basic_organization") == 0.0
    assert _static('import logging\nlogging.basicConfig()\n' + textwrap.dedent(GOOD),
                   "basic_organization") == 0.5


# ---- execution checks ---------------------------------------------------------------

FIELD_CHECKS = ("id_standardization", "email_provider", "age_normalization", "account_tiers")


@pytest.mark.parametrize("check_id", ("function_runs", "error_handling", "differential_run",
                                      *FIELD_CHECKS))
def test_behaviour_checks_full_marks_for_the_oracle_and_none_for_identity(check_id):
    assert _behaviour(check_id, _facts()) == 1.0
    assert _behaviour(check_id, _facts(_identity)) == 0.0
    assert _behaviour(check_id, _facts(lambda users: [])) == 0.0


def _python_casts(users):
    """The oracle, except that string ids, ages and counts go through Python's int()/float()
    (which take "٣٢", "1_000", "1e3", "inf") and "Gold" starts above 100 (a common answer)."""
    def cast(value, kind):
        try:
            return kind(value) if isinstance(value, str) else None
        except (ValueError, OverflowError):
            return None

    out = D.expected_output(users)
    for raw, record in zip([u for u in users if isinstance(u, dict)], out):
        stats = raw.get("stats") if isinstance(raw.get("stats"), dict) else {}
        if cast(raw.get("id"), int) is not None:
            record["id"] = cast(raw["id"], int)
        if isinstance(stats.get("age"), str):
            record["stats"]["age"] = cast(stats["age"], int)
        count = cast(stats.get("total_purchases"), float) if isinstance(stats.get("total_purchases"), str) \
            else D.as_count(stats.get("total_purchases"))
        record["account_tier"] = ("Gold" if count is not None and count > 100 else
                                  "Silver" if count is not None and count >= 50 else "Bronze")
    return out


@pytest.mark.parametrize("check_id", ("id_standardization", "age_normalization", "account_tiers"))
def test_python_casts_and_an_off_by_one_tier_lose_points(check_id):
    assert _behaviour(check_id, _facts(_python_casts)) < 1.0
    assert _behaviour("account_tiers", _facts(_python_casts)) < 0.85


def test_prompt_text_states_the_rules_the_perturbed_data_tests():
    text = (ROOT / "benchmark" / "packs" / "core" / P3.PROMPT_ID / "prompt.md").read_text(encoding="utf-8")
    for needle in ("Python 3.11", "ASCII digits", '"1e3"', '"inf"', '"nan"', '"٣٢"',
                   "exactly 100 is Gold", "exactly 50 is Silver"):
        assert needle in text
    flat = " ".join(text.split())
    assert ("A string of more than 4300 digits (past Python's default `int()` limit) may be "
            "treated either way, as its integer or as not convertible, but must not make the "
            "function raise.") in flat


@pytest.mark.parametrize("check_id", FIELD_CHECKS)
def test_field_checks_give_partial_credit(check_id):
    assert 0.2 < _behaviour(check_id, _facts(_half_right)) < 0.8


def test_field_checks_charge_for_breaking_already_correct_values():
    def ids_to_none(users):
        out = D.expected_output(users)
        for record in out:
            keep = record.get("id") != 102 and not isinstance(record.get("id"), str)
            record["id"] = record.get("id") if keep else None
        return out

    users = D.fixture_users()
    tally = J.field_tally("id", users, D.expected_output(users), ids_to_none(users))
    assert tally == (5, 5, 1)  # 5 ids needed converting; 102 was already right and got broken
    assert _behaviour("id_standardization", _facts(ids_to_none)) < 1.0


def test_function_runs_needs_untouched_other_fields():
    def drop_names(users):
        out = D.expected_output(users)
        for record in out:
            record.pop("name", None)
        return out

    assert _behaviour("function_runs", _facts(drop_names)) < 0.5
    crashed = _facts(fixture=_result("fixture", None, exception="KeyError"))
    assert _behaviour("function_runs", crashed) == 0.0


def test_error_handling_parts():
    crashed = _facts(malformed=_result("malformed", None, exception="AttributeError"))
    assert _behaviour("error_handling", crashed) == 0.0

    def wrong_records(users):
        return [{"id": 0} for u in users if isinstance(u, dict)]

    assert _behaviour("error_handling", _facts(wrong_records)) == 0.5
    perturbed_raised = _facts(perturbed=_result("perturbed", None, exception="ValueError"))
    assert _behaviour("error_handling", perturbed_raised) == 0.5


def test_behaviour_checks_fail_closed_without_an_observation():
    for facts in ({"results": {}, "problem": "the child run failed (timed out)"}, {}):
        outcome = _check("id_standardization", CheckContext(files={}, facts=facts))
        assert outcome.status == "error" and outcome.fraction == 0.0
    missing = dict(_facts(), function_found=False)
    assert _check("function_runs", CheckContext(files={}, facts=missing)).fraction == 0.0
    import_error = dict(_facts(), import_error={"type": "ImportError", "message": "no pandas"})
    outcome = _check("error_handling", CheckContext(files={}, facts=import_error))
    assert outcome.fraction == 0.0 and "ImportError" in outcome.rationale


def _dead(timed_out: bool = True) -> ExecResult:
    return ExecResult(None, "", "", timed_out, "timeout", 30.0, 30.0, 10.0)


def test_observe_sends_four_calls_and_records_a_dead_child():
    requests = []

    def run(request, stage):
        requests.append((request, dict(stage)))
        return _dead()

    facts = P3.observe({}, run, TEST_DATA, SEED)
    (request, stage), retry = requests
    assert stage == {} and request["mode"] == "call" and request["function"] == P3.FUNCTION
    assert [c["label"] for c in request["calls"]] == ["fixture", "malformed", "perturbed",
                                                      "differential", "scale_4x", "scale_16x"]
    assert request["calls"][0]["args"][0] == D.fixture_users()
    assert request["calls"][3]["args"][0] == C.differential_case(SEED)[0]
    assert len(request["calls"][4]["args"][0]) == 4 * P3.SCALE_BASE
    assert len(request["calls"][5]["args"][0]) == 16 * P3.SCALE_BASE
    assert [c.get("measure") for c in request["calls"]] == [None] * 4 + [True, True]
    assert [c.get("budget_s") for c in request["calls"][4:]] == [P3.measured.BUDGET_S] * 2
    assert request["record_sleep"] is True
    assert [c["label"] for c in retry[0]["calls"]] == ["fixture", "perturbed", "differential",
                                                       "scale_4x", "scale_16x"]
    assert "timed out" in facts["problem"]
    assert facts["measured"]["costs"] is None and "timed out" in facts["measured"]["problem"]
    assert J.strict_equal(facts["expected"]["perturbed"], D.expected_output(D.perturbed_users(SEED)))


def test_a_hang_on_the_malformed_list_costs_only_error_handling():
    def run(request, stage):
        labels = [c["label"] for c in request["calls"]]
        if "malformed" in labels:
            return _dead()
        results = [_result(c["label"], D.expected_output(c["args"][0])) for c in request["calls"]]
        observation = {"import_error": None, "function_found": True, "results": results}
        return ExecResult(0, "", "", False, None, 0.1, 0.1, 10.0, observation=observation)

    facts = P3.observe({}, run, TEST_DATA, SEED)
    assert not facts["problem"] and "timed out" in facts["unobserved"]["malformed"]
    assert _behaviour("id_standardization", facts) == 1.0
    outcome = _check("error_handling", CheckContext(files={}, facts=facts))
    assert outcome.fraction == 0.0 and "lost" in outcome.rationale


# ---- quality, security, performance, maintainability checks ----------------------------


def test_specific_exceptions():
    good = ("def f(x):\n    try:\n        return int(x)\n"
            "    except (TypeError, ValueError):\n        return None\n")
    assert _static(good, "specific_exceptions") == 1.0
    assert _static("def f(x):\n    return x\n", "specific_exceptions") == 1.0
    bad = ("def f(x):\n    try:\n        return int(x)\n    except Exception:\n        pass\n"
           "    try:\n        return float(x)\n    except:\n        return None\n"
           "    try:\n        return str(x)\n    except ValueError:\n        return None\n")
    assert _static(bad, "specific_exceptions") == pytest.approx(1 / 3)


def test_no_input_mutation():
    assert _behaviour("no_input_mutation", _facts()) == 1.0
    mutated = _facts(fixture=_result("fixture", [], mutated=True))
    assert _behaviour("no_input_mutation", mutated) == pytest.approx(3 / 4)  # 1 of 4 calls


def test_sandbox_violations_judges_the_denials_of_the_prompts_own_calls():
    facts = _facts()  # this observe's facts: "results", no "runs" or "cases"
    assert _behaviour("sandbox_violations", {**facts, "_sandbox_events": []}) == 1.0
    denied = [{"blocked": "network", "event": "socket.connect", "detail": "203.0.113.9:443", "file": MAIN}]
    assert _behaviour("sandbox_violations", {**facts, "_sandbox_events": denied}) == 0.5


def test_readable_loops():
    assert _static("def f(xs):\n    for x in xs:\n        print(x)\n", "readable_loops") == 1.0
    indexed = "def f(xs):\n    for i in range(len(xs)):\n        print(xs[i])\n"
    assert _static(indexed, "readable_loops") == 0.0


def test_the_unsafe_constructs_rationale_lists_every_bandit_finding_it_counts():
    text = "import pickle\ndef f(s):\n" + "".join(f"    pickle.loads(s{n})\n" for n in range(12))
    tree = ast.parse(text)
    rationale = _check("no_unsafe_constructs", CheckContext(files={MAIN: SourceFile(
        MAIN, Path(MAIN), text, None, None, tree)})).rationale
    count = int(rationale.split("bandit: ")[1].split(" issue")[0])
    shown = rationale.count("B301 line") + rationale.count("B403 line")
    assert count == 13 and shown == 10 and "... and 3 more" in rationale
    assert "pickle.loads (line 3)" in rationale  # and the forbidden calls, which earn nothing


def test_no_unsafe_constructs():
    assert _static(GOOD, "no_unsafe_constructs") == 1.0
    assert _static("def f(s):\n    return eval(s)\n", "no_unsafe_constructs") == 0.0
    assert _static("import subprocess as sp\ndef f():\n    sp.run(['ls'])\n", "no_unsafe_constructs") == 0.0
    assert _static("def f(s):\n    return compile(s, 'x', 'eval')\n", "no_unsafe_constructs") == 0.0


def test_single_pass():
    assert _static(GOOD, "single_pass") == 1.0
    nested = "def f(users):\n    for a in users:\n        for b in users:\n            print(a, b)\n"
    assert _static(nested, "single_pass") == 0.5


def test_code_organization():
    assert _static(GOOD, "code_organization") == 1.0
    branches = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(12))
    assert _static(f"def f(x):\n{branches}\n\ndef g():\n    return 1\n", "code_organization") == 0.5


def test_maintainability_index():
    assert _static(GOOD, "maintainability_index") == 1.0
    lines = "\n".join(f"    v{i} = a * {i} + b - c / {i + 1} + a ** 2 - b * c" for i in range(300))
    assert _static(f"def f(a, b, c):\n{lines}\n    return v0\n", "maintainability_index") < 0.2


# ---- end to end through grade_prompt --------------------------------------------------

TRIVIAL = {
    "identity": "def transform_and_enrich_users(user_list):\n    return user_list\n",
    "none": "def transform_and_enrich_users(user_list):\n    return None\n",
    "empty": "def transform_and_enrich_users(user_list):\n    return []\n",
}
SKELETON = """
def transform_and_enrich_users(user_list):
    return [{"id": None, "contact": {"email_provider": None}, "stats": {"age": None},
             "account_tier": "Bronze"} for _ in user_list]
"""
MEDIOCRE = """
def transform_and_enrich_users(user_list):
    result = []
    for i in range(len(user_list)):
        user = user_list[i]
        try:
            user["id"] = int(user["id"])
            user["contact"]["email_provider"] = user["contact"]["email"].split("@")[1]
            user["stats"]["age"] = int(user["stats"]["age"])
            purchases = int(user["stats"]["total_purchases"])
            if purchases >= 100:
                user["account_tier"] = "Gold"
            elif purchases >= 50:
                user["account_tier"] = "Silver"
            else:
                user["account_tier"] = "Bronze"
        except Exception:
            pass
        result.append(user)
    return result
"""
NOISE = '''
"""Uses eval(), exec(), subprocess.run and for i in range(len(x)) -- only as words."""
# try/except ValueError TypeError specific exceptions; logging; no eval, exec, subprocess
# for i in range(len(users)): nested loops; pickle.loads; os.system("rm -rf /")
'''


def _grade(tmp_path: Path, name: str, text: str):
    model = tmp_path / name
    model.mkdir()
    (model / MAIN).write_text(textwrap.dedent(text), encoding="utf-8")
    return grade_prompt(P3, model, test_data=TEST_DATA)


def _earned(result) -> dict[str, float]:
    return {c.id: c.earned for cat in result.categories for c in cat.checks}


def _category(result, name: str) -> float:
    return next(c.earned for c in result.categories if c.category.value == name)


def test_reference_scores_at_least_23():
    result = grade_prompt(P3, REFERENCE, test_data=TEST_DATA)
    assert result.status == "ok" and result.passed and result.score >= 23
    assert _category(result, "execution") == 12.0


@pytest.mark.parametrize("seed", [1, 77])
def test_reference_is_exact_on_other_seeds(seed):
    result = grade_prompt(P3, REFERENCE, test_data=TEST_DATA, options=GradeOptions(seed=seed))
    assert _category(result, "execution") == 12.0


@pytest.mark.parametrize("name", sorted(TRIVIAL))
def test_trivial_submissions_score_at_most_3_75(tmp_path, name):
    result = _grade(tmp_path, name, TRIVIAL[name])
    assert result.score <= 3.75 and not result.passed
    assert _category(result, "execution") == 0.0


def test_skeleton_and_mediocre_land_between(tmp_path):
    reference = grade_prompt(P3, REFERENCE, test_data=TEST_DATA).score
    skeleton = _grade(tmp_path, "skeleton", SKELETON)
    mediocre = _grade(tmp_path, "mediocre", MEDIOCRE)
    assert skeleton.score < 6 and not skeleton.passed
    assert 3.75 < mediocre.score < reference - 8 and not mediocre.passed
    earned = _earned(mediocre)
    assert earned["no_input_mutation"] == 0 and earned["readable_loops"] == 0
    assert earned["id_standardization"] > 0 and earned["error_handling"] == 0


def test_canned_fixture_answer_fails_the_perturbed_parts(tmp_path):
    canned = ("import copy\n\nEXPECTED = " + repr(D.expected_output(D.fixture_users())) +
              "\n\n\ndef transform_and_enrich_users(user_list):\n    return copy.deepcopy(EXPECTED)\n")
    result = _grade(tmp_path, "canned", canned)
    earned = _earned(result)
    assert earned["function_runs"] == 1.5  # right on the fixture it was written for
    assert all(earned[c] < 0.5 for c in FIELD_CHECKS) and earned["error_handling"] == 0
    assert earned["differential_run"] == 0
    assert not result.passed


def test_comments_and_docstrings_change_no_score(tmp_path):
    text = (REFERENCE / MAIN).read_text(encoding="utf-8")
    future = "from __future__ import annotations\n"
    noisy = text.replace(future, future + NOISE).replace("\ndef ", "\n# eval exec pickle subprocess\ndef ")
    noisy = noisy.replace('    """Return', '    """Never calls eval() or exec(); loops once.\n\n    Return')
    model = tmp_path / "noisy"
    shutil.copytree(REFERENCE, model)
    (model / MAIN).write_text(noisy, encoding="utf-8")
    assert noisy != text
    plain = grade_prompt(P3, REFERENCE, test_data=TEST_DATA)
    assert _earned(grade_prompt(P3, model, test_data=TEST_DATA)) == _earned(plain)


def test_a_real_hang_on_malformed_input_is_contained(tmp_path):
    text = (REFERENCE / MAIN).read_text(encoding="utf-8")
    hang = ('    if any(not isinstance(u, dict) for u in user_list):\n        while True:\n'
            '            pass\n    if not isinstance(user_list, list):')
    hanging = text.replace("    if not isinstance(user_list, list):", hang, 1)
    assert hanging != text
    model = tmp_path / "hang"
    model.mkdir()
    (model / MAIN).write_text(hanging, encoding="utf-8")
    result = grade_prompt(P3, model, test_data=TEST_DATA, options=GradeOptions(timeout_s=2))
    earned = _earned(result)
    # one time-out is the prompt's whole budget: the retry without the malformed list is
    # skipped, and recorded as such
    assert earned["error_handling"] == 0 and _category(result, "execution") == 0.0
    assert [(run["timed_out"], run.get("skipped", False)) for run in result.execution] == [
        (True, False), (False, True)]


# ---- reference fixes: one test per contract clause ------------------------------------------

HUGE = "9" * 5000  # past int()'s default 4300-digit limit


def test_oracle_rule_1_converts_an_id_of_5000_digits():
    """Rule 1: an id of optional sign and ASCII digits is convertible, whatever its length."""
    out = D.expected_output([{"id": f" {HUGE} "}, {"id": "-" + HUGE}, {"id": "+" + HUGE}])
    assert [r["id"] for r in out] == [10 ** 5000 - 1, 1 - 10 ** 5000, 10 ** 5000 - 1]


def test_oracle_rule_3_converts_an_age_of_5000_digits():
    """Rule 3: the same integer conversion for stats.age."""
    out = D.expected_output([{"stats": {"age": HUGE, "total_purchases": "0" * 5000 + "75"}}])
    assert out[0]["stats"]["age"] == 10 ** 5000 - 1 and out[0]["account_tier"] == "Silver"


def test_reference_never_raises_on_ids_and_ages_past_the_digit_limit():
    """"The function must never raise": the reference, run in the sandbox, returns the
    oracle's answer for 5,000-digit ids and ages (it raised ValueError before)."""
    from benchmark.secure_runner import SecureRunner

    users = [{"id": HUGE, "stats": {"age": "-" + HUGE}}, {"id": "1" + "0" * 6000}]
    request = {"mode": "call", "module": MAIN, "function": P3.FUNCTION,
               "calls": [{"label": "huge", "args": [users]}]}
    res = SecureRunner("t").run_harness(request, {MAIN: (REFERENCE / MAIN).read_bytes()}, timeout=20)
    result = res.observation["results"][0]
    assert result["exception"] is None and J.strict_equal(result["value"], D.expected_output(users))


# ---- the differential run -----------------------------------------------------------------


def test_differential_run_is_deterministic_per_seed_and_covers_every_class():
    first, again, other = C.differential_case(11), C.differential_case(11), C.differential_case(12)
    assert first == again and first[0] != other[0]
    users, judged = first
    assert 200 <= len(judged) <= 500 and len(judged) == sum(isinstance(u, dict) for u in users)
    seen: dict[tuple[str, str], int] = {}
    for classes in judged:
        for column, name in classes.items():
            seen[(column, name)] = seen.get((column, name), 0) + 1
    every = {(column, name) for column, names in C.CLASSES.items() for name in names}
    assert every - set(seen) == {("list", "non_dict_items")}  # judged on the list itself
    assert {f"{column}.{name}" for column, name in every} == set(P3.GENERATED_CASES)  # the docs
    assert min(seen.values()) >= C.MIN_PER_CLASS
    facts = P3.observe({}, lambda request, stage: _dead(), TEST_DATA, 11)
    assert facts["classes"] == judged and facts["inputs"]["differential"] == users


def _wrong_on(column: str, name: str):
    """The oracle, except on the records of one value class (their judged value changed)."""
    judged = C.differential_case(SEED)[1]

    def transform(users):
        out = D.expected_output(users)
        if len(out) != len(judged):  # not the differential list
            return out
        for record, classes in zip(out, judged):
            # a stale provider is judged by its contact class too: leave those records alone
            if classes.get(column) == name and classes["contact"] != "stale_provider":
                _spoil(column, record)
        return out
    return transform


def _spoil(column: str, record: dict[str, Any]) -> None:
    if column == "id":
        record["id"] = "spoiled"
    elif column == "email":
        record["contact"]["email_provider"] = "spoiled"
    elif column == "age":
        record["stats"]["age"] = "spoiled"
    elif column == "count":
        record["account_tier"] = "Platinum"
    elif column in ("contact", "stats"):
        record[column]["spoiled"] = True
    else:
        record["spoiled"] = True


@pytest.mark.parametrize("column, name", [
    ("id", "huge"), ("id", "foreign"), ("id", "underscore"), ("age", "signed"),
    ("email", "leading_at"), ("email", "quoted_at"), ("contact", "string"), ("stats", "list"),
    ("count", "text_dot"), ("count", "inf_nan"), ("record", "other_keys")])
def test_each_value_class_answered_wrongly_costs_a_sixth(column, name):
    outcome = _check("differential_run", CheckContext(files={}, facts=_facts(_wrong_on(column, name))))
    assert outcome.fraction == pytest.approx(5 / 6) and f"{column} {name}" in outcome.rationale


def test_differential_run_fails_closed():
    raised = _facts(differential=_result("differential", None, exception="ValueError"))
    outcome = _check("differential_run", CheckContext(files={}, facts=raised))
    assert outcome.fraction == 0 and "ValueError" in outcome.rationale
    lost = dict(_facts(), unobserved={"differential": "the child run failed (timed out)"})
    assert _check("differential_run", CheckContext(files={}, facts=lost)).fraction == 0
    short = _facts(differential=_result("differential", D.expected_output(C.differential_case(SEED)[0])[:-1]))
    outcome = _check("differential_run", CheckContext(files={}, facts=short))
    assert outcome.fraction < 1 and "non_dict_items" in outcome.rationale


# A one-pass answer a strong general model writes: clean, logged, specific exceptions, right
# on the fixture and the malformed list, but with int()/float() for the conversions (which
# take other scripts' digits, "1_000", "1e3" and "inf", and raise past 4300 digits, caught
# here) and a decimal pattern that wants digits after the dot.
SUBTLY_WRONG = '''
"""Clean and enrich user records."""
import copy
import logging
import re

logger = logging.getLogger(__name__)
_SIGNED = re.compile(r"\\s*[+-]?\\d+\\s*")
_NUMBER = re.compile(r"\\s*[+-]?\\d*\\.?\\d+\\s*")


def to_int(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str) and _SIGNED.fullmatch(value):
        try:
            return int(value)
        except ValueError:
            logger.warning("cannot convert %.20r", value)
    return None


def to_number(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and _NUMBER.fullmatch(value):
        return float(value)
    return None


def provider(email):
    if isinstance(email, str) and "@" in email:
        return email.rsplit("@", 1)[1].strip().lower() or None
    return None


def tier(stats):
    count = to_number(stats.get("total_purchases"))
    if count is None:
        return "Bronze"
    return "Gold" if count >= 100 else "Silver" if count >= 50 else "Bronze"


def transform_user(user):
    out = copy.deepcopy(user)
    if "id" in user and to_int(user["id"]) is not None:
        out["id"] = to_int(user["id"])
    contact = out.get("contact") if isinstance(out.get("contact"), dict) else {}
    contact["email_provider"] = provider(contact.get("email"))
    stats = out.get("stats") if isinstance(out.get("stats"), dict) else {}
    out["account_tier"] = tier(stats)
    stats["age"] = to_int(stats.get("age"))
    out["contact"], out["stats"] = contact, stats
    return out


def transform_and_enrich_users(user_list):
    if not isinstance(user_list, list):
        return []
    return [transform_user(user) for user in user_list if isinstance(user, dict)]
'''


def test_a_strong_but_subtly_wrong_answer_scores_clearly_below_the_reference(tmp_path):
    reference = grade_prompt(P3, REFERENCE, test_data=TEST_DATA)
    subtle = _grade(tmp_path, "subtle", SUBTLY_WRONG)
    earned = _earned(subtle)
    assert earned["function_runs"] == 1.5 and earned["error_handling"] == 1.5  # fixture-perfect
    assert earned["differential_run"] <= 1.5, [c.rationale for cat in subtle.categories
                                               for c in cat.checks if c.id == "differential_run"]
    assert reference.score - subtle.score >= 2.0, (reference.score, subtle.score, earned)


def test_digit_string_draws_what_choice_draws():
    """The batched digit draw gives choice's digits and leaves the generator where choice
    leaves it (so every later drawn value of the seed's cases is the same too)."""
    import random

    from benchmark.prompts.p3_transform_cases import digit_string

    for seed in range(60):
        for count in (0, 1, 3, 64, 4400, 6000):
            one_by_one, batched = random.Random(seed), random.Random(seed)
            expected = "".join(one_by_one.choice("0123456789") for _ in range(count))
            assert digit_string(batched, count) == expected
            assert batched.getstate() == one_by_one.getstate()


# ---- one record that raises costs that record (issue 27, point 4) ---------------------------


def _items_result(label: str, users: list[Any], transform, raises=lambda item: False) -> dict:
    """A call that raised as a whole, made again item by item (as the harness does with
    ``split_budget_s``): each item's own call raises where ``raises(item)``."""
    result = _result(label, None, exception="ValueError")
    result["items"] = [_result(f"{label}/{i}", None, exception="ValueError") if raises(item)
                       else _result(f"{label}/{i}", transform([copy.deepcopy(item)]))
                       for i, item in enumerate(users)]
    return result


def _huge_digits(item) -> bool:
    stats = item.get("stats") if isinstance(item, dict) else None
    return isinstance(item, dict) and (D.either_way(item.get("id")) or (
        isinstance(stats, dict) and D.either_way(stats.get("age"))))


@pytest.mark.parametrize("text, either", [
    ("9" * 4300, False), ("9" * 4301, True), (" +" + "9" * 4301 + "\t", True), ("-" + "0" * 4301, True),
    ("9" * 4301 + "x", False), ("٣" * 4301, False), (9, False), (None, False)])
def test_either_way_is_a_convertible_string_of_more_than_4300_digits(text, either):
    assert D.either_way(text) is either


def test_the_differential_run_accepts_huge_ids_and_ages_kept_or_converted():
    def not_converted(users):
        out = D.expected_output(users)
        for raw, record in zip([u for u in users if isinstance(u, dict)], out):
            if D.either_way(raw.get("id")):
                record["id"] = raw["id"]
            if isinstance(raw.get("stats"), dict) and D.either_way(raw["stats"].get("age")):
                record["stats"]["age"] = None
        return out

    outcome = _check("differential_run", CheckContext(files={}, facts=_facts(not_converted)))
    assert outcome.fraction == 1.0 and "81 of 81" in outcome.rationale
    assert DIFF.accepted("id", {"id": "7"}, 7) == (7,)
    assert DIFF.accepted("age", {"stats": {"age": HUGE}}, 10 ** 5000 - 1) == (10 ** 5000 - 1, None)


def test_a_call_that_raises_on_huge_digits_loses_only_those_two_classes():
    users = C.differential_case(SEED)[0]
    facts = _facts(differential=_items_result("differential", users, D.expected_output, _huge_digits))
    outcome = _check("differential_run", CheckContext(files={}, facts=facts))
    assert outcome.fraction == pytest.approx(1 - 2 / 6), outcome.rationale
    assert "id huge" in outcome.rationale and "age huge" in outcome.rationale
    assert "characters starting" in outcome.rationale and "raised ValueError: boom" in outcome.rationale
    assert "9" * 100 not in outcome.rationale and len(outcome.rationale) < 2000
    for other in ("email", "contact", "stats", "count", "record", "list"):
        assert f"; {other} " not in outcome.rationale


def test_a_call_that_fails_on_every_record_fails_every_class():
    users = C.differential_case(SEED)[0]
    facts = _facts(differential=_items_result("differential", users, D.expected_output, lambda item: True))
    assert _behaviour("differential_run", facts) == 0.0
    judged = C.differential_case(SEED)[1]
    every = {pair for classes in judged for pair in classes.items()}
    assert set(ITEMS.blame(judged, {n: "raised" for n in range(len(judged))})) == every


def test_blame_charges_the_class_that_explains_the_failures_not_its_neighbours():
    judged = C.differential_case(SEED)[1]
    failed = {n: "raised" for n, classes in enumerate(judged) if classes.get("email") == "only_at"}
    assert ITEMS.blame(judged, failed) == {("email", "only_at"): min(failed)}
    assert ITEMS.blame(judged, {}) == {}


def test_a_record_that_raises_costs_that_record_in_the_other_checks():
    """The fixture, malformed and perturbed calls made again item by item: each record that
    raised costs its own share, never the whole check."""
    def raises(item):
        return isinstance(item, dict) and item.get("id") == "101"

    facts = _facts(fixture=_items_result("fixture", D.fixture_users(), D.expected_output, raises))
    assert _behaviour("function_runs", facts) == pytest.approx(6 / 7)
    assert 0.8 < _behaviour("id_standardization", facts) < 1.0
    malformed = D.malformed_users()
    broken = _facts(malformed=_items_result("malformed", malformed, D.expected_output,
                                            lambda item: isinstance(item, dict) and item.get("id") is True))
    outcome = _check("error_handling", CheckContext(files={}, facts=broken))
    assert outcome.fraction == pytest.approx(7 / 8) and "7 of 8 records came back" in outcome.rationale
    assert '"id": true' in outcome.rationale


def test_observe_asks_for_the_judged_calls_to_be_split_and_attaches_their_items():
    seen = []

    def run(request, stage):
        seen.append(request)
        results = []
        for call in request["calls"]:
            if call["label"] == "fixture":
                results.append(_result("fixture", None, exception="ValueError"))
                results += [_result(f"fixture/{i}", D.expected_output([u]))
                            for i, u in enumerate(call["args"][0])]
            else:
                results.append(_result(call["label"], D.expected_output(call["args"][0])))
        observation = {"import_error": None, "function_found": True, "results": results}
        return ExecResult(0, "", "", False, None, 0.1, 0.1, 10.0, observation=observation)

    facts = P3.observe({}, run, TEST_DATA, SEED)
    assert [c.get("split_budget_s") for c in seen[0]["calls"]] == [ITEMS.SPLIT_BUDGET_S] * 4 + [None] * 2
    counts = {c["label"]: c.get("split_unless_len") for c in seen[0]["calls"]}
    assert counts[P3.judge.DIFFERENTIAL] == sum(isinstance(u, dict) for u in seen[0]["calls"][3]["args"][0])
    assert [counts[label] for label in ("fixture", "malformed", "perturbed")] == [None] * 3
    assert set(facts["results"]) == set(P3.LABELS)
    assert len(facts["results"]["fixture"]["items"]) == len(D.fixture_users())
    assert "items" not in facts["results"]["perturbed"]
    assert _behaviour("function_runs", facts) == 1.0


def test_a_shown_input_is_capped_and_states_its_length():
    assert ITEMS.shown("9" * 5000).startswith('a string of 5,000 characters starting "9999')
    assert len(ITEMS.shown("9" * 5000)) < 120 and ITEMS.shown("\x1b[31m") == '"\\u001b[31m"'
    assert ITEMS.shown({"a": "b" * 200}).endswith("more characters)")


def _variant(old: str, new: str) -> str:
    text = (REFERENCE / MAIN).read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new)


_DIGITS_TO_INT = """    try:
        return int(text)
    except ValueError:
        return int(decimal.Decimal(text))"""
_EMAIL_DOC = '''    """The lower-cased domain after the last '@', or None."""
'''


def test_an_answer_whose_int_refuses_huge_digit_strings_loses_nothing(tmp_path):
    """Plain int(), its ValueError caught (an honest answer without the digit-limit trick):
    every class right, so no gate takes points from the other categories either."""
    result = _grade(tmp_path, "plain_int", _variant(_DIGITS_TO_INT, """    try:
        return int(text)
    except ValueError:
        return None"""))
    assert _earned(result)["differential_run"] == 3.0 and _category(result, "execution") == 12.0
    assert result.score >= 23


def test_an_answer_that_raises_on_one_class_loses_that_class_only(tmp_path):
    """A raise on one value class (an email "@") costs that class's sixth of the differential
    run and that record's share of the malformed list, in the one sandboxed run as before."""
    raising = _variant(_EMAIL_DOC, _EMAIL_DOC + '    if email == "@":\n        raise ValueError("nothing around the @")\n')
    result = _grade(tmp_path, "raises_once", raising)
    earned = _earned(result)
    assert earned["differential_run"] == pytest.approx(2.5)
    assert earned["error_handling"] == pytest.approx(1.5 * 7 / 8)
    assert all(earned[c] == 1.5 for c in ("function_runs", *FIELD_CHECKS))
    rationale = next(c.rationale for cat in result.categories for c in cat.checks if c.id == "differential_run")
    assert "email only_at" in rationale
    assert 'raised ValueError: nothing around the @ (at prompt_3_transform.py:58), on email "@"' in rationale  # (its line)
    assert len(result.execution) == 1


def test_an_answer_whose_int_raises_past_the_digit_limit_loses_the_two_huge_classes(tmp_path):
    result = _grade(tmp_path, "raises_huge", _variant(_DIGITS_TO_INT, "    return int(text)"))
    assert _earned(result)["differential_run"] == pytest.approx(2.0)
    rationale = next(c.rationale for cat in result.categories for c in cat.checks if c.id == "differential_run")
    assert "id huge" in rationale and "age huge" in rationale and "Exceeds the limit" in rationale
    assert "characters starting" in rationale


def test_an_answer_that_drops_the_records_of_one_class_loses_that_class_only(tmp_path):
    """The differential call returned a list one record per dropped record short: it is made
    again item by item, so the class whose records were dropped is found and charged, never
    every record after the first one dropped (the alignment by position)."""
    dropping = (REFERENCE / MAIN).read_text(encoding="utf-8") + '''

_transform_all = transform_and_enrich_users


def transform_and_enrich_users(user_list):
    """The records whose email is a lone "@" are dropped (a planted defect)."""
    kept = [user for user in user_list if not (isinstance(user, dict) and isinstance(user.get("contact"), dict)
                                                and user["contact"].get("email") == "@")]
    return _transform_all(kept)
'''
    result = _grade(tmp_path, "drops_one_class", dropping)
    assert _earned(result)["differential_run"] == pytest.approx(2.5)
    rationale = next(c.rationale for cat in result.categories for c in cat.checks if c.id == "differential_run")
    assert "email only_at" in rationale and "not the one record" in rationale
