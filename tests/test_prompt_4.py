"""Prompt 4 (API Integration): every check on good and bad facts, the data, and end to end.

Unit tests build harness-shaped facts by hand (``ideal_facts`` mirrors what a correct
submission produces) and never start a child; the integration tests at the bottom grade
small submissions through ``grade_prompt``.
"""

from __future__ import annotations

import ast
import copy
import io
import json
import tokenize
from pathlib import Path

import pytest

from benchmark.engine.grading import GradeOptions, grade_prompt
from benchmark.packs.registry import check_type_named
from benchmark.packs.suite import core_pack
from benchmark.prompts import module_for
from benchmark.prompts import p4_api_sync as p4
from benchmark.prompts import p4_api_sync_data as data
from benchmark.prompts import p4_api_sync_judge as judge
from benchmark.prompts.base import CheckContext
from benchmark.rubric import by_id
from benchmark.submission import SourceFile
from benchmark.types import ExecResult

ROOT = Path(__file__).resolve().parent.parent
TEST_DATA = ROOT / "test_data"
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model" / data.MAIN
SEED = 424242
TOKEN, SCENARIOS = data.make_scenarios(SEED)
KIND = {s["kind"]: s for s in SCENARIOS}
ATTEMPTS = {"retry_503_then_200": 3, "unavailable_503": 3, "connection_error": 3,
            "timeout": 3, "read_timeout": 3, "connect_timeout": 3}


# ---- builders -----------------------------------------------------------------------


def source(text: str) -> SourceFile:
    return SourceFile(data.MAIN, Path(data.MAIN), text, None, None, ast.parse(text))


REFERENCE_SOURCE = source(REFERENCE.read_text(encoding="utf-8"))


def ideal_request(scenario: dict) -> dict:
    return {"method": "POST", "url": data.ENDPOINT,
            "headers": {"User-Agent": "python-requests/2", "Authorization": f"Bearer {TOKEN}",
                        "Content-Type": "application/json"},
            "body": json.dumps(scenario["users"]), "json_body": copy.deepcopy(scenario["users"]),
            "timeout": [5.0, 30.0], "verify": True}


def ideal_result(scenario: dict) -> dict:
    rule = data.RULES[scenario["kind"]]
    attempts = ATTEMPTS.get(scenario["kind"], 1)
    value = data.expected_value(scenario)
    return {"label": scenario["label"], "returned": True, "value": value,
            "value_type": type(value).__name__, "unserializable": None, "exception": None,
            "mutated": False, "requests": [ideal_request(scenario) for _ in range(attempts)],
            "output": f"ERROR sync failed: {rule.topics[0]}\n" if rule.topics else "",
            "sleep_total": 3.0 if attempts > 1 else 0.0}


def ideal_facts() -> dict:
    return {"seed": SEED, "token": TOKEN, "scenarios": SCENARIOS, "problem": None,
            "import_error": None, "function_found": True, "streams": ["", "", ""],
            "results": {s["label"]: ideal_result(s) for s in SCENARIOS}}


TASK = core_pack().task("prompt_4")


def run_check(check_id: str, facts: dict | None = None, text: str | None = None, files=None):
    """The check as the manifest states it: its check type (``core.p4.<id>`` or a library
    type) with its ``with:`` parameters, over the task's files and ``facts``."""
    files = files if files is not None else {data.MAIN: source(text) if text is not None else REFERENCE_SOURCE}
    row = next(row for row in TASK.checks if row.id == check_id)
    ctx = CheckContext(files=files, facts=facts if facts is not None else ideal_facts(), task=TASK)
    return check_type_named(row.use).fn(ctx, **row.params)


def patch(facts: dict, kind: str, **fields) -> dict:
    facts["results"][kind].update(fields)
    return facts


def each_request(facts: dict, **fields) -> dict:
    for result in facts["results"].values():
        for request in result["requests"]:
            request.update(fields)
    return facts


def with_attempts(facts: dict, kind: str, count: int) -> dict:
    return patch(facts, kind, requests=[ideal_request(KIND[kind]) for _ in range(count)])


# ---- registry, data, fixtures ---------------------------------------------------------


def test_module_registers_exactly_the_rubric_rows_its_functions_judge():
    rows = by_id("prompt_4").checks
    assert set(p4.CHECKS) == {row.id for row in rows if row.use == f"core.p4.{row.id}"}
    assert {row.id: row.use for row in rows if not row.use.startswith("core.")} == {
        "file_compiles": "compiles", "function_exists": "ast.defines",
        "specific_exceptions": "ast.specific_exceptions", "sandbox_violations": "exec.sandbox_violations",
        "code_organization": "radon.max_complexity"}
    assert module_for("prompt_4") is p4 and p4.FILES == ("prompt_4_api_sync.py",)


def test_scenarios_are_seeded_and_secret_free():
    again = data.make_scenarios(SEED)
    other_token, other = data.make_scenarios(SEED + 1)
    assert again == (TOKEN, SCENARIOS) and other_token != TOKEN
    assert [s["job_id"] for s in other] != [s["job_id"] for s in SCENARIOS]
    assert set(KIND) == set(data.RULES) and len({s["job_id"] for s in SCENARIOS}) == len(SCENARIOS)
    assert TOKEN not in json.dumps(data.harness_scenarios("", SCENARIOS))


def test_answer_key_agrees_with_the_oracle():
    key = json.loads(p4.answer_keys()[data.ANSWER_KEY_PATH])
    assert key["endpoint"] == data.ENDPOINT and key["max_attempts"] == 3
    for scenario in SCENARIOS:
        rule = key["rules"][scenario["kind"]]
        expected = data.expected_value(scenario)
        assert (rule["returns"] == "job_id") == (expected is not None)
        if expected is not None:  # the job id the fake CRM finally answers with
            assert scenario["responses"][-1]["json"]["job_id"] == expected
        assert rule["min_requests"] <= rule["max_requests"] <= data.MAX_ATTEMPTS


def test_fixtures_are_deterministic_and_committed():
    assert p4.fixture_files() == p4.fixture_files() and p4.answer_keys() == p4.answer_keys()
    for rel, blob in p4.fixture_files().items():
        assert (TEST_DATA / rel).read_bytes() == blob
    for rel, blob in p4.answer_keys().items():
        assert (TEST_DATA / "answer_keys" / rel).read_bytes() == blob


def test_each_hazard_exists_in_the_fixture_bytes():
    blob = p4.fixture_files()[data.FIXTURE_PATH]
    users = json.loads(blob)
    proofs = {"non_ascii_names": any(not u["name"].isascii() for u in users) and "Zoë".encode() in blob,
              "null_plan": any(u["plan"] is None for u in users)}
    assert set(proofs) == set(p4.HAZARDS) and all(proofs.values())


def test_prompt_text_states_the_contract():
    text = (ROOT / "benchmark" / "packs" / "core" / p4.PROMPT_ID / "prompt.md").read_text(encoding="utf-8")
    for needle in (data.ENDPOINT, "def sync_users_to_crm(user_data, api_token):", data.MAIN,
                   "Bearer", "timeout=", "3 attempts", data.FIXTURE_PATH, "Evaluation contract",
                   "Python 3.11", "2 or 3 attempts", "empty string", "not a string"):
        assert needle in text


# ---- judging helpers ----------------------------------------------------------------


def test_same_json_is_type_strict():
    assert judge.same_json({"a": [1, None]}, {"a": [1, None]})
    assert not judge.same_json(1, True) and not judge.same_json(1, 1.0) and not judge.same_json([1], [1, 2])


def test_timeouts_and_secret_shapes():
    assert all(map(judge.timeout_ok, (10, 0.5, [3, 27], 60)))
    assert not any(map(judge.timeout_ok, (None, 0, -1, 61, True, [3, None], "10", [1, 2, 3])))
    assert judge.looks_secret("sk_live_9fA2kQ7xLm3vR8tZ1pW4") and judge.looks_secret("Bearer abcdefgh1234")
    assert not any(map(judge.looks_secret, (data.ENDPOINT, "CRM_API_TOKEN", "application/json",
                                            "Syncing users to the CRM", "job_7Qm2xR9tLk")))
    # what a redaction writes in place of the credential is none
    assert not any(map(judge.looks_secret, ("Bearer [REDACTED]", "Bearer <your-api-token>",
                                            "Bearer REDACTED", "Bearer ***redacted***")))


def test_status_codes_must_stand_alone_in_messages():
    assert judge.mentions("HTTP 400 Bad Request", ("400",))
    assert not judge.mentions("took 4000 ms", ("400",)) and judge.mentions("Read TIMEOUT", ("timeout",))


# ---- observe (with a fake run function; no child) -------------------------------------


def fake_run(outcomes: list):
    """A run() that records each request and answers with the next ExecResult-like value."""
    calls = []

    def run(request, stage):
        calls.append(request)
        timed_out, observation, channel_error = outcomes[len(calls) - 1]
        return ExecResult(None if timed_out else 0, "out", "err", timed_out,
                          "timeout" if timed_out else None, 1.0, 1.0, 10.0,
                          observation=observation, channel_error=channel_error)

    return run, calls


def _observation(labels):
    results = [ideal_result(KIND[label]) for label in labels]
    return {"import_error": None, "function_found": True, "import_output": "", "results": results}


def test_observe_runs_every_scenario_once_with_the_seeded_token():
    run, calls = fake_run([(False, _observation(list(KIND)), None)])
    facts = p4.observe({}, run, TEST_DATA, SEED)
    assert len(calls) == 1 and calls[0]["mode"] == "http" and calls[0]["function"] == data.FUNCTION
    assert [s["args"][1] for s in calls[0]["scenarios"]] == [
        TOKEN + "\n" if s["kind"] in data.NEWLINE_TOKEN_KINDS else TOKEN for s in SCENARIOS]
    assert set(facts["results"]) == set(KIND) and facts["problem"] is None
    json.dumps(facts, allow_nan=False)


def test_observe_runs_once_and_records_a_hang():
    run, calls = fake_run([(True, None, "timed out")])
    facts = p4.observe({}, run, TEST_DATA, SEED)
    assert len(calls) == 1 and facts["hung"] and facts["problem"] == "the child timed out"
    assert run_check("success_handling", facts).fraction == 0


def test_observe_records_a_broken_channel_as_a_problem():
    run, calls = fake_run([(False, None, "no record")])
    facts = p4.observe({}, run, TEST_DATA, SEED)
    assert len(calls) == 1 and "no record" in facts["problem"] and not facts["hung"]


# ---- syntax and structure -----------------------------------------------------------


def test_file_compiles_and_function_exists():
    assert run_check("file_compiles").fraction == 1 and run_check("function_exists").fraction == 1
    broken = SourceFile(data.MAIN, Path(data.MAIN), "def f(:\n", None, None, None, "syntax error", 1)
    for check_id in ("file_compiles", "function_exists"):
        outcome = run_check(check_id, {}, files={data.MAIN: broken})
        assert outcome.fraction == 0 and "syntax error" in outcome.rationale and data.MAIN in outcome.rationale
    missing = run_check("file_compiles", {}, files={})
    assert missing.fraction == 0 and data.MAIN in missing.rationale
    nested = "class Sync:\n    def sync_users_to_crm(self, a, b):\n        return None\n"
    assert run_check("function_exists", text=nested).fraction == 0


@pytest.mark.parametrize("signature, fraction", [
    ("user_data, api_token", 1.0), ("user_data, api_token, retries=3", 1.0),
    ("users, token", 0.75), ("user_data", 0.0), ("user_data, api_token, url", 0.0),
    ("user_data, api_token, *, mode", 0.0),
])
def test_correct_signature(signature, fraction):
    text = f"def sync_users_to_crm({signature}):\n    return None\n"
    assert run_check("correct_signature", text=text).fraction == fraction


def test_both_judge_the_def_the_import_binds():
    # a def in a top-level if/try is the module's function; of two, the last one is
    guarded = ("try:\n    import requests\nexcept ImportError:\n    requests = None\nelse:\n"
               "    def sync_users_to_crm(user_data, api_token):\n        return None\n")
    assert run_check("function_exists", text=guarded).fraction == 1
    assert run_check("correct_signature", text=guarded).fraction == 1
    redefined = ("def sync_users_to_crm(user_data, api_token):\n    return None\n\n"
                 "def sync_users_to_crm(users):\n    return None\n")
    found = run_check("function_exists", text=redefined)
    assert found.fraction == 1 and found.evidence[0].line == 4
    assert run_check("correct_signature", text=redefined).fraction == 0


def test_request_structure():
    assert run_check("request_structure").fraction == 1
    facts = each_request(ideal_facts(), url="http://api.crm-provider.com/v1/users/sync")
    assert run_check("request_structure", facts).fraction == pytest.approx(0.75)
    facts = each_request(ideal_facts(), method="PUT", json_body={"users": []},
                         headers={"Authorization": f"Bearer {TOKEN}"})
    assert run_check("request_structure", facts).fraction == pytest.approx(0.25)
    charset = each_request(ideal_facts(), headers={"content-type": "application/json; charset=utf-8"})
    assert run_check("request_structure", charset).fraction == 1


# ---- execution ----------------------------------------------------------------------

EXECUTION = ("success_handling", "handle_400", "handle_401", "handle_503",
             "handle_connection_error", "handle_other_status", "json_parsing")


def test_ideal_behaviour_earns_every_execution_check():
    assert all(run_check(check_id).fraction == 1 for check_id in EXECUTION)


def test_no_request_earns_nothing_even_when_none_is_right():
    facts = ideal_facts()
    for result in facts["results"].values():
        result.update(requests=[], value=None)
    assert all(run_check(check_id, facts).fraction == 0 for check_id in EXECUTION)


def test_none_everywhere_earns_half_for_the_error_cases():
    facts = ideal_facts()
    for result in facts["results"].values():
        result["value"] = None
    assert run_check("success_handling", facts).fraction == 0
    assert run_check("handle_400", facts).fraction == 0.5


def test_success_handling_needs_the_perturbed_job_id():
    facts = patch(ideal_facts(), "ok_202", value=data.EXAMPLE_JOB_ID)
    assert run_check("success_handling", facts).fraction == 0.5


@pytest.mark.parametrize("check_id, kind, share", [("handle_400", "bad_400", 1.0),
                                                   ("handle_401", "auth_401", 0.5)])
def test_client_errors_are_not_retried_and_do_not_raise(check_id, kind, share):
    # share: the scenario's part of its check (handle_401 also judges the line-end token)
    lost = run_check(check_id, with_attempts(ideal_facts(), kind, 3)).fraction
    assert lost == pytest.approx(1 - share / 2)
    raised = patch(ideal_facts(), kind, returned=False, exception={"type": "HTTPError", "message": ""})
    assert run_check(check_id, raised).fraction == pytest.approx(1 - share)
    assert run_check(check_id, patch(ideal_facts(), kind, value=False)).fraction == pytest.approx(1 - share)


def test_handle_503_needs_two_or_three_attempts():
    assert run_check("handle_503", with_attempts(ideal_facts(), "unavailable_503", 2)).fraction == 1
    assert run_check("handle_503", with_attempts(ideal_facts(), "unavailable_503", 1)).fraction == 0.5
    assert run_check("handle_503", with_attempts(ideal_facts(), "unavailable_503", 5)).fraction == 0.5
    raised = patch(with_attempts(ideal_facts(), "unavailable_503", 1), "unavailable_503", returned=False,
                   value=None, exception={"type": "KeyError", "message": "'job_id'"})
    assert run_check("handle_503", raised).fraction == 0


def test_network_errors_must_not_escape_and_must_be_retried():
    facts = patch(ideal_facts(), "read_timeout", returned=False,
                  exception={"type": "ReadTimeout", "message": ""})
    assert run_check("handle_connection_error", facts).fraction == pytest.approx(0.75)
    once = with_attempts(ideal_facts(), "connection_error", 1)
    assert run_check("handle_connection_error", once).fraction == pytest.approx(0.875)


def test_other_statuses_and_json_parsing():
    facts = with_attempts(ideal_facts(), "not_found_404", 2)
    assert run_check("handle_other_status", facts).fraction == pytest.approx(2.5 / 3)
    facts = patch(ideal_facts(), "array_body_200", returned=False,
                  exception={"type": "AttributeError", "message": "'list' object has no attribute 'get'"})
    assert run_check("json_parsing", facts).fraction == pytest.approx(4 / 5)


@pytest.mark.parametrize("kind", ["int_job_id_200", "empty_job_id_202"])
def test_json_parsing_needs_a_non_empty_string_job_id(kind):
    body = KIND[kind]["responses"][-1]["json"]
    assert body["job_id"] == "" or type(body["job_id"]) is int
    facts = patch(ideal_facts(), kind, value=body["job_id"], value_type=type(body["job_id"]).__name__)
    assert run_check("json_parsing", facts).fraction == pytest.approx(4 / 5)


def test_a_retried_429_costs_its_scenario_and_a_share_of_the_retry_points():
    facts = with_attempts(ideal_facts(), "rate_limited_429", 3)
    other = run_check("handle_other_status", facts)
    assert other.fraction == pytest.approx(2.5 / 3) and "rate_limited_429: 3 attempts" in other.rationale
    retries = run_check("retry_resilience", facts)
    assert retries.fraction == pytest.approx(1.875 / 2) and "429 3 attempt(s)" in retries.rationale


def test_a_token_with_a_line_end_must_return_none_quietly_and_leak_nowhere():
    kind = data.NEWLINE_TOKEN_KINDS[0]
    refused_before_sending = patch(ideal_facts(), kind, requests=[], output="ERROR invalid header\n")
    assert run_check("handle_401", refused_before_sending).fraction == 1
    assert run_check("informative_errors", refused_before_sending).fraction == 1
    assert run_check("no_token_leak", refused_before_sending).fraction == 1
    # requests' InvalidHeader quotes the header value: logging str(exc) raw leaks the token
    leaked = patch(ideal_facts(), kind, requests=[],
                   output=f"ERROR Invalid return character or leading space in header: "
                          f"Authorization: 'Bearer {TOKEN}\\n'\n")
    verdict = run_check("no_token_leak", leaked)
    assert verdict.fraction == 0 and f"{kind}: " in verdict.rationale
    raised = patch(ideal_facts(), kind, requests=[], returned=False, value=None,
                   exception={"type": "InvalidHeader", "message": "header"})
    assert run_check("handle_401", raised).fraction == 0.5


def test_behaviour_blockers():
    assert run_check("handle_400", {**ideal_facts(), "import_error": {"type": "ImportError",
                                                                       "message": "no tenacity"}}).fraction == 0
    assert run_check("handle_400", {**ideal_facts(), "function_found": False}).status is None
    hung = {**ideal_facts(), "results": {}, "problem": "the child timed out", "hung": True}
    assert run_check("handle_400", hung).status is None and run_check("handle_400", hung).fraction == 0
    crashed = {**ideal_facts(), "results": {}, "problem": "the child run failed (no record)"}
    assert run_check("bearer_auth", crashed).status == "error"


# ---- quality ------------------------------------------------------------------------


def test_informative_errors():
    assert run_check("informative_errors").fraction == 1
    facts = ideal_facts()
    for kind in ("bad_400", "timeout", "no_job_id_200"):
        patch(facts, kind, output="Something went wrong\n")
    assert run_check("informative_errors", facts).fraction == pytest.approx(13 / 16)


def test_informative_errors_need_a_none_return_without_raising():
    facts = patch(ideal_facts(), "bad_400", returned=False, value=None,
                  exception={"type": "KeyError", "message": "'job_id'"}, output="ERROR HTTP 400\n")
    job = KIND["int_job_id_200"]["responses"][-1]["json"]["job_id"]
    facts = patch(facts, "int_job_id_200", value=job, output=f"job id {job}\n")
    assert run_check("informative_errors", facts).fraction == pytest.approx(14 / 16)


SPECIFIC = """
import requests
def sync_users_to_crm(user_data, api_token):
    try:
        return requests.post("u", json=user_data, timeout=5).json()["job_id"]
    except requests.exceptions.RequestException as exc:
        print("network error", type(exc).__name__)
    except (ValueError, KeyError):
        return None
"""


def test_specific_exceptions():
    assert run_check("specific_exceptions", text=SPECIFIC).fraction == 1
    bare = SPECIFIC.replace("except (ValueError, KeyError):", "except:")
    assert run_check("specific_exceptions", text=bare).fraction == 0.5
    silent = SPECIFIC.replace("except (ValueError, KeyError):", "except Exception:")
    assert run_check("specific_exceptions", text=silent).fraction == 0.5
    assert run_check("specific_exceptions", text="def sync_users_to_crm(a, b):\n    return None\n").fraction == 0


# ---- security -----------------------------------------------------------------------


def test_bearer_auth():
    assert run_check("bearer_auth").fraction == 1
    facts = ideal_facts()
    for request in facts["results"]["ok_200"]["requests"]:
        request["headers"]["Authorization"] = f"Token {TOKEN}"
    total = sum(len(r["requests"]) for r in facts["results"].values())
    assert run_check("bearer_auth", facts).fraction == pytest.approx((total - 1) / total)


LEAKS = {  # where the token goes -> the place the rationale must name
    "query": ("auth_401", "auth_401 request 1: URL query string"),
    "path": ("auth_401", "auth_401 request 1: URL"),
    "body": ("auth_401", "auth_401 request 1: body"),
    "other_host": ("auth_401", "auth_401 request 2: headers sent to another host (evil.example)"),
    "output": ("auth_401", "auth_401: output (print/logging)"),
    "exception": ("auth_401", "auth_401: exception message"),
    "value": ("ok_200", "ok_200: return value"),
    "stream": (None, "the process's stderr"),
}


@pytest.mark.parametrize("where", sorted(LEAKS))
def test_one_token_leak_anywhere_fails_the_leak_check_and_is_named(where):
    assert run_check("no_token_leak").fraction == 1
    facts = ideal_facts()
    label, place = LEAKS[where]
    result = facts["results"][label] if label else None
    if where == "query":
        result["requests"][0]["url"] += f"?api_key={TOKEN}"
    elif where == "path":
        result["requests"][0]["url"] += f"/{TOKEN}"
    elif where == "body":
        result["requests"][0]["body"] = json.dumps({"token": TOKEN})
    elif where == "other_host":
        result["requests"].append({**ideal_request(KIND["auth_401"]), "url": "https://evil.example/t"})
    elif where == "output":
        result["output"] = f"ERROR 401 for token {TOKEN}\n"
    elif where == "exception":
        result["exception"] = {"type": "RuntimeError", "message": f"bad token {TOKEN}"}
    elif where == "value":
        result["value"] = {"job": result["value"], "auth": f"Bearer {TOKEN}"}
    else:
        facts["streams"][1] = f"atexit: {TOKEN}"
    outcome = run_check("no_token_leak", facts)
    assert outcome.fraction == 0 and "1 place(s)" in outcome.rationale, outcome.rationale
    assert outcome.rationale.endswith(place), outcome.rationale


def test_the_leak_rationale_names_every_place_up_to_ten_then_counts():
    facts = ideal_facts()
    for result in facts["results"].values():
        result["output"] += f"debug: token={TOKEN}\n"
    outcome = run_check("no_token_leak", facts)
    count = len(facts["results"])
    assert count > 10 and outcome.fraction == 0
    assert f"leaked in {count} place(s)" in outcome.rationale
    assert outcome.rationale.count("output (print/logging)") == 10
    assert outcome.rationale.endswith(f"... and {count - 10} more")


def test_the_token_in_the_api_authorization_header_is_no_leak():
    outcome = run_check("no_token_leak")
    assert outcome.fraction == 1 and "only in the Authorization header" in outcome.rationale


def test_secure_transport_passes_https_with_checks_on():
    outcome = run_check("secure_transport")
    assert outcome.fraction == 1 and outcome.status is None, outcome.rationale
    assert run_check("secure_transport", each_request(ideal_facts(), verify="ca_bundle")).fraction == 1


def test_an_observed_request_without_certificate_checks_fails_secure_transport():
    facts = ideal_facts()
    facts["results"]["ok_200"]["requests"][0]["verify"] = False
    outcome = run_check("secure_transport", facts)
    total = sum(len(r["requests"]) for r in facts["results"].values())
    assert outcome.fraction == 0 and f"1/{total} requests sent with certificate checks off" in outcome.rationale


def test_the_token_over_plain_http_fails_secure_transport():
    facts = each_request(ideal_facts(), url=data.ENDPOINT.replace("https://", "http://"))
    outcome = run_check("secure_transport", facts)
    assert outcome.fraction == 0 and "carried the token over plain http" in outcome.rationale


@pytest.mark.parametrize("snippet", [
    "requests.post(URL, json=u, headers=h, timeout=5, verify=False)",
    "session = requests.Session()\n    session.verify = False",
    "context = ssl.create_default_context()\n    context.check_hostname = False\n"
    "    context.verify_mode = ssl.CERT_NONE",
    "ssl._create_default_https_context = ssl._create_unverified_context",
    "urllib3.disable_warnings()\n    requests.post(URL, json=u, verify=0, timeout=5)",
])
def test_code_that_disables_certificate_checks_fails_secure_transport_even_unexercised(snippet):
    text = (f"import ssl\nimport requests\nimport urllib3\nURL = 'https://x'\n\n"
            f"def _unused(u, h):\n    {snippet}\n\n" + REFERENCE.read_text(encoding="utf-8"))
    outcome = run_check("secure_transport", text=text)
    assert outcome.fraction == 0 and "certificate checks disabled" in outcome.rationale, outcome.rationale
    assert all(item.line and item.line >= 7 for item in outcome.evidence)


def test_verify_true_and_comparisons_with_cert_none_are_fine():
    text = ("import ssl\nimport requests\n\ndef f(u, ctx):\n"
            "    if ctx.verify_mode == ssl.CERT_NONE:\n        raise ValueError('unverified')\n"
            "    return requests.post('https://x', json=u, verify=True, timeout=5)\n")
    assert run_check("secure_transport", text=text).fraction == 1


def test_explicit_timeout():
    assert run_check("explicit_timeout").fraction == 1
    facts = ideal_facts()
    for result in facts["results"].values():
        for request in result["requests"][:1]:
            request["timeout"] = None
    assert run_check("explicit_timeout", facts).fraction < 1
    assert run_check("explicit_timeout", each_request(ideal_facts(), timeout=120)).fraction == 0


@pytest.mark.parametrize("snippet", [
    'API_KEY = "sk_live_9fA2kQ7xLm3vR8tZ1pW4"\n',
    'api_token = "changeme"\n',
    'HEADERS = {"Authorization": "Bearer 9fA2kQ7xLm3vR8tZ"}\n',
    'def sync_users_to_crm(user_data, api_token, fallback_token="hunter2"):\n    return None\n',
])
def test_hardcoded_credentials_fail(snippet):
    text = snippet + "def helper(user_data, api_token):\n    return None\n"
    assert run_check("no_hardcoded_creds", text=text).fraction == 0


def test_hardcoded_credential_rationale_names_every_finding():
    text = "".join(f'TOKEN_{n} = "sk_live_9fA2kQ7xLm3vR8tZ1pW{n:02d}"\n' for n in range(12))
    result = run_check("no_hardcoded_creds", text=text)
    assert result.fraction == 0 and result.rationale.startswith(f"{result.rationale.split()[0]} hard-coded")
    total = int(result.rationale.split()[0])
    assert total >= 12 and result.rationale.count(" line ") == 10
    assert result.rationale.endswith(f"... and {total - 10} more") and len(result.evidence) == 10


def test_credentials_in_docstrings_and_comments_do_not_count():
    text = ('"""Example: API_KEY = "sk_live_9fA2kQ7xLm3vR8tZ1pW4"."""\n'
            '# token = "sk_live_9fA2kQ7xLm3vR8tZ1pW4"\n'
            'def sync_users_to_crm(user_data, api_token):\n'
            '    """Never write api_token = "sk_live_9fA2kQ7xLm3vR8tZ1pW4"."""\n')
    assert run_check("no_hardcoded_creds").fraction == 1
    assert run_check("no_hardcoded_creds", text=text).fraction == 1
    empty = 'def sync_users_to_crm(user_data, api_token):\n    if api_token == "":\n        return None\n'
    assert run_check("no_hardcoded_creds", text=empty).fraction == 1


# ---- performance and maintainability -------------------------------------------------


def test_retry_resilience():
    assert run_check("retry_resilience").fraction == 1
    no_backoff = patch(ideal_facts(), "retry_503_then_200", sleep_total=0.0)
    assert run_check("retry_resilience", no_backoff).fraction == 0.75
    facts = patch(with_attempts(ideal_facts(), "retry_503_then_200", 1), "retry_503_then_200", value=None)
    facts = with_attempts(with_attempts(facts, "connection_error", 1), "bad_400", 3)
    assert run_check("retry_resilience", facts).fraction == pytest.approx(0.375 / 2)  # 3 of 4 4xx once
    for kind in data.CLIENT_ERROR_KINDS:
        facts = with_attempts(facts, kind, 2)
    assert run_check("retry_resilience", facts).fraction == 0
    raised = patch(ideal_facts(), "bad_400", returned=False, value=None,
                   exception={"type": "KeyError", "message": "'job_id'"})
    assert run_check("retry_resilience", raised).fraction == pytest.approx(1.875 / 2)


def test_a_sleep_outside_a_retry_back_off_is_reported_and_costs_a_point():
    # a back-off in the scenarios that retry is not "outside"; a sleep where the contract
    # allows one request is, and the rationale names each such call
    slept = patch(patch(ideal_facts(), "ok_200", sleep_total=2.0), "auth_401", sleep_total=0.5)
    result = run_check("retry_resilience", slept)
    assert result.fraction == 0.5
    assert "slept 2.5 s outside a retry back-off" in result.rationale
    assert "ok_200 2 s" in result.rationale and "auth_401 0.5 s" in result.rationale
    backoff_only = patch(ideal_facts(), "unavailable_503", sleep_total=6.0)
    assert run_check("retry_resilience", backoff_only).fraction == 1
    # the penalty never takes the check below zero, and a malformed total is no sleep
    worst = patch(ideal_facts(), "retry_503_then_200", sleep_total=0.0, value=None)
    worst = with_attempts(with_attempts(patch(worst, "ok_200", sleep_total=1), "connection_error", 1), "bad_400", 3)
    assert run_check("retry_resilience", worst).fraction == 0
    for bad in ("2", True, float("nan"), -1.0, 1e12, None, [1]):
        assert run_check("retry_resilience", patch(ideal_facts(), "ok_202", sleep_total=bad)).fraction == 1


def test_code_organization():
    assert run_check("code_organization").fraction == 1
    long_body = "".join(f"    x{i} = {i}\n" for i in range(45))
    text = f"def sync_users_to_crm(a, b):\n{long_body}    return None\n\ndef ok():\n    return 1\n"
    assert run_check("code_organization", text=text).fraction == 0.5
    # a short function over complexity 10 counts against as a long one does: one share
    branches = "".join(f"    if a == {i}:\n        return {i}\n" for i in range(11))
    tangled = run_check("code_organization", text=f"def sync_users_to_crm(a, b):\n{branches}    return None\n"
                                                  "\ndef ok():\n    return 1\n")
    assert tangled.fraction == 0.5 and "sync_users_to_crm (complexity 12" in tangled.rationale
    assert run_check("code_organization", text="X = 1\n").fraction == 0


def test_sandbox_violations_judges_the_denials_of_the_http_child():
    # the observe reports its calls as "results" (no runs or cases), yet what the sandbox
    # denied during them is judged: nothing denied earns all, each denied attempt half
    assert run_check("sandbox_violations").fraction == 1
    denied = {**ideal_facts(), "_sandbox_events": [{"blocked": "network", "event": "socket.connect",
                                                    "detail": "1.2.3.4:443", "file": data.MAIN}]}
    outcome = run_check("sandbox_violations", denied)
    assert outcome.fraction == 0.5 and "network" in outcome.rationale
    lost = {**ideal_facts(), "problem": "the child timed out", "results": {},
            "_sandbox_events": [{"blocked": "integrity", "event": "record lost", "detail": "time-out",
                                 "file": data.MAIN}]}
    assert run_check("sandbox_violations", lost).fraction == 0


# ---- end to end through grade_prompt ----------------------------------------------------

TRIVIAL = "def sync_users_to_crm(user_data, api_token):\n    return None\n"
MEDIOCRE = '''import requests

API_URL = "https://api.crm-provider.com/v1/users/sync"


def sync_users_to_crm(user_data, api_token):
    print("Syncing users with token " + api_token)
    headers = {"Authorization": "Bearer " + api_token, "Content-Type": "application/json"}
    try:
        response = requests.post(API_URL, json=user_data, headers=headers)
        if response.status_code == 200:
            return response.json()["job_id"]
        print("Sync failed:", response.status_code)
        return None
    except:
        return None
'''
CANNED = '''import logging
import requests

URL = "https://api.crm-provider.com/v1/users/sync"


def sync_users_to_crm(user_data, api_token):
    headers = {"Authorization": f"Bearer {api_token}", "Content-Type": "application/json"}
    try:
        response = requests.post(URL, json=user_data, headers=headers, timeout=10)
    except requests.exceptions.RequestException as exc:
        logging.error("request failed: %s", type(exc).__name__)
        return None
    if response.status_code in (200, 202):
        return "job_7Qm2xR9tLk"
    logging.error("HTTP %d", response.status_code)
    return None
'''
HANGS_ON_ERRORS = '''import requests


def sync_users_to_crm(user_data, api_token):
    while True:
        try:
            response = requests.post("https://api.crm-provider.com/v1/users/sync", json=user_data,
                                     headers={"Authorization": f"Bearer {api_token}"}, timeout=10)
        except requests.RequestException:
            continue
        if response.status_code in (200, 202):
            return response.json()["job_id"]
'''
LEAKS_AT_EXIT = REFERENCE.read_text(encoding="utf-8").replace(
    "    headers = _auth_headers(api_token)\n",
    "    headers = _auth_headers(api_token)\n    atexit.register(os.write, 2, api_token.encode())\n",
).replace("import json\n", "import atexit\nimport json\n")


def laden(text: str) -> str:
    """The same code with keyword-stuffed comments on every line and docstrings everywhere."""
    comment = "  # requests.post timeout=10 Bearer retry 503 400 401 except RequestException job_id"
    ends = {tok.start[0] for tok in tokenize.generate_tokens(io.StringIO(text).readline)
            if tok.type in (tokenize.NEWLINE, tokenize.NL)}
    lines = [line + comment if number in ends and line.strip() else line
             for number, line in enumerate(text.splitlines(), 1)]
    for node in sorted((n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef)),
                       key=lambda n: -n.lineno):
        pad = " " * (node.body[0].col_offset)
        doc = f'{pad}"""Handles 400 401 503 timeouts; token sk_live_9fA2kQ7xLm3vR8tZ1pW4; never leaks."""'
        lines.insert(node.body[0].lineno - 1, doc)
    return "# security: Bearer token, timeout=30, retries with back-off, specific exceptions\n" + \
        "\n".join(lines) + "\n"


def _grade(tmp_path: Path, name: str, text: str, **options):
    model = tmp_path / name
    model.mkdir()
    (model / data.MAIN).write_text(text, encoding="utf-8")
    return grade_prompt(p4, model, test_data=TEST_DATA, options=GradeOptions(**options))


def _earned(result) -> dict[str, float]:
    return {c.id: c.earned for cat in result.categories for c in cat.checks}


@pytest.fixture(scope="module")
def reference_result():
    return grade_prompt(p4, REFERENCE.parent, test_data=TEST_DATA)


def test_reference_scores_full_marks(reference_result):
    assert reference_result.status == "ok" and reference_result.passed
    assert reference_result.score >= 23, _earned(reference_result)
    assert reference_result.score == pytest.approx(25.0), _earned(reference_result)


def test_trivial_submission_fails(tmp_path):
    result = _grade(tmp_path, "trivial", TRIVIAL)
    assert result.score <= 3.75 and not result.passed


def test_mediocre_submission_lands_in_between(tmp_path, reference_result):
    result = _grade(tmp_path, "mediocre", MEDIOCRE)
    earned = _earned(result)
    assert 3.75 < result.score < reference_result.score - 5
    assert earned["explicit_timeout"] == 0 and earned["specific_exceptions"] == 0
    assert earned["no_token_leak"] < 2 and earned["retry_resilience"] < 1


def test_canned_job_id_fails_the_perturbed_parts(tmp_path):
    result = _grade(tmp_path, "canned", CANNED)
    earned = _earned(result)
    assert earned["success_handling"] == 0 and earned["json_parsing"] == 0 and not result.passed


def test_comments_and_docstrings_change_no_score(tmp_path, reference_result):
    result = _grade(tmp_path, "laden", laden(REFERENCE.read_text(encoding="utf-8")))
    assert _earned(result) == _earned(reference_result)


def test_a_leak_after_the_call_is_caught_in_the_process_streams(tmp_path):
    result = _grade(tmp_path, "leaky", LEAKS_AT_EXIT)
    assert _earned(result)["no_token_leak"] < 2 and _earned(result)["success_handling"] == 1.5


def test_endless_retries_cost_one_time_out_and_what_it_left_unobserved(tmp_path):
    result = _grade(tmp_path, "hangs", HANGS_ON_ERRORS, timeout_s=2.0)
    earned = _earned(result)
    assert earned["success_handling"] == 0 and earned["handle_400"] == 0
    assert result.status == "ok" and not result.passed
    assert [run["timed_out"] for run in result.execution] == [True]


REFERENCE_TEXT = REFERENCE.read_text(encoding="utf-8")
POST_CALL = "requests.post(CRM_SYNC_URL, json=user_data, headers=headers,\n"


def _security(result) -> dict[str, tuple[float, str]]:
    return {c.id: (c.earned, c.rationale) for cat in result.categories for c in cat.checks
            if cat.category.value == "security"}


def test_a_token_logged_once_in_an_error_path_fails_the_leak_check(tmp_path, reference_result):
    logged = REFERENCE_TEXT.replace('logger.error("CRM sync failed after %d attempts", MAX_ATTEMPTS)',
                                    'logger.error("CRM sync failed after %d attempts (token %s)", '
                                    'MAX_ATTEMPTS, api_token)')
    assert logged != REFERENCE_TEXT
    earned, rationale = _security(_grade(tmp_path, "logs_token", logged))["no_token_leak"]
    assert _security(reference_result)["no_token_leak"][0] == 2
    assert earned == 0 and "unavailable_503: output (print/logging)" in rationale, rationale


def test_verify_false_seen_only_at_run_time_costs_secure_transport(tmp_path, reference_result):
    hidden = REFERENCE_TEXT.replace(POST_CALL, POST_CALL.replace("headers=headers,", "headers=headers, "
                                                                 "**{'ver' + 'ify': False},"))
    assert hidden != REFERENCE_TEXT
    result = _grade(tmp_path, "unverified", hidden)
    earned, rationale = _security(result)["secure_transport"]
    assert _security(reference_result)["secure_transport"][0] == 2
    assert earned == 0 and "sent with certificate checks off" in rationale, rationale
    assert result.categories and _security(result)["bearer_auth"][0] == 1


def test_the_token_sent_to_a_plain_http_url_costs_secure_transport(tmp_path):
    plain = REFERENCE_TEXT.replace('CRM_SYNC_URL = "https://', 'CRM_SYNC_URL = "http://')
    assert plain != REFERENCE_TEXT
    earned, rationale = _security(_grade(tmp_path, "plain_http", plain))["secure_transport"]
    assert earned == 0 and "over plain http (http://api.crm-provider.com" in rationale, rationale


# ---- values past int()'s digit limit (the channel carries ints of up to 21,500 digits) ----------


def test_a_scenario_returning_an_int_past_the_digit_limit_costs_that_scenario_only():
    """str() refuses such an int, so judging one once made the whole check an internal error."""
    facts = patch(ideal_facts(), "bad_400", value=10 ** 5000)
    outcome = run_check("handle_400", facts)
    assert outcome.status is None and outcome.fraction == 0
    assert "returned an int of about 5001 digits, expected null" in outcome.rationale
    assert run_check("success_handling", facts).fraction == 1


def test_a_leaked_token_beside_an_int_past_the_digit_limit_is_still_found():
    facts = ideal_facts()
    facts["results"]["ok_200"]["value"] = {"n": 10 ** 5000, "auth": f"Bearer {TOKEN}"}
    outcome = run_check("no_token_leak", facts)
    assert outcome.fraction == 0 and outcome.rationale.endswith("ok_200: return value"), outcome.rationale


def test_a_timeout_past_the_digit_limit_is_not_finite_enough_and_no_grader_error():
    outcome = run_check("explicit_timeout", each_request(ideal_facts(), timeout=10 ** 5000))
    assert outcome.status is None and outcome.fraction == 0 and "int of about 5001 digits" in outcome.rationale


def test_a_library_style_logger_is_heard_as_the_operator_hears_it(tmp_path, reference_result):
    """A module logger with a NullHandler of its own (the logging HOWTO's advice for
    libraries) prints nothing until the application configures logging; the harness
    configures it as an operator would (WARNING and above to stderr), so its reports count."""
    quiet = REFERENCE_TEXT.replace("logger = logging.getLogger(__name__)\n",
                                   "logger = logging.getLogger(__name__)\n"
                                   "logger.addHandler(logging.NullHandler())\n", 1)
    assert quiet != REFERENCE_TEXT
    assert _earned(_grade(tmp_path, "library_logger", quiet)) == _earned(reference_result)


def test_a_module_that_configures_logging_itself_keeps_its_configuration(tmp_path, reference_result):
    configured = REFERENCE_TEXT.replace(
        "logger = logging.getLogger(__name__)\n",
        "logging.basicConfig(level=logging.ERROR, format='[%(levelname)s] %(message)s')\n"
        "logger = logging.getLogger(__name__)\n", 1)
    result = _grade(tmp_path, "own_config", configured)
    earned = _earned(result)
    # its own ERROR level hides the warnings it logs (a 503, a time-out): those are not heard
    assert earned["informative_errors"] < 1.5
    assert earned["no_token_leak"] == 2.0 and earned["success_handling"] == 1.5


def test_a_token_logged_at_debug_level_is_a_leak_although_no_handler_prints_it(tmp_path):
    """An operator who turns the level down reads it: a record at any level counts."""
    old = '    logger.info("Syncing %d users to the CRM", len(user_data))\n'
    assert old in REFERENCE_TEXT
    leaky = REFERENCE_TEXT.replace(old, '    logger.debug("Syncing %d users with %s", len(user_data), headers)\n')
    result = _grade(tmp_path, "debug_leak", leaky)
    security = _security(result)
    assert security["no_token_leak"][0] == 0.0, security["no_token_leak"]
    assert "a log record (any level" in security["no_token_leak"][1]
    assert "output (print/logging)" not in security["no_token_leak"][1]  # nothing printed it
