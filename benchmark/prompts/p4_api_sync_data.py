"""Prompt 4 data: the contract table, the seeded scenarios and the sample-users fixture.

Every scenario is one call of the submission's ``sync_users_to_crm(users, token)`` against a
mocked CRM endpoint. The token, the user lists and the job ids all come from
``random.Random(seed)``, so no submission can hard-code them; the expected outcome of each
scenario is the contract rule for its kind (``RULES``), computed here in the parent.
"""

from __future__ import annotations

import json
import random
import string
from dataclasses import dataclass
from typing import Any

MAIN = "prompt_4_api_sync.py"
FUNCTION = "sync_users_to_crm"
PARAMS = ("user_data", "api_token")
ENDPOINT = "https://api.crm-provider.com/v1/users/sync"
METHOD = "POST"
MAX_ATTEMPTS = 3
MAX_TIMEOUT_S = 60.0
FIXTURE_PATH = "api_users.json"
ANSWER_KEY_PATH = "prompt_4_expected.json"
EXAMPLE_JOB_ID = "job_7Qm2xR9tLk"  # the job id the prompt text shows; never used in grading


@dataclass(frozen=True)
class Rule:
    """What the contract demands for one scenario kind.

    ``returns`` is "job_id" (return the scenario's job id) or None; a call passes when it
    returns that without raising after ``min_requests``..``max_requests`` HTTP attempts.
    ``topics`` are words of which one must appear in the call's output for the message to
    count as informative (empty for success kinds).
    """

    kind: str
    returns: str | None
    min_requests: int
    max_requests: int
    topics: tuple[str, ...] = ()


RULES: dict[str, Rule] = {rule.kind: rule for rule in (
    Rule("ok_200", "job_id", 1, 1),
    Rule("ok_202", "job_id", 1, 1),
    Rule("retry_503_then_200", "job_id", 3, 3),
    Rule("bad_400", None, 1, 1, ("400",)),
    Rule("auth_401", None, 1, 1, ("401",)),
    Rule("not_found_404", None, 1, 1, ("404",)),
    Rule("server_500", None, 1, MAX_ATTEMPTS, ("500",)),
    Rule("unavailable_503", None, 2, MAX_ATTEMPTS, ("503",)),
    Rule("connection_error", None, 2, MAX_ATTEMPTS, ("connect", "network")),
    Rule("timeout", None, 2, MAX_ATTEMPTS, ("timeout", "timed out", "time out")),
    Rule("read_timeout", None, 2, MAX_ATTEMPTS, ("timeout", "timed out", "time out")),
    Rule("connect_timeout", None, 2, MAX_ATTEMPTS,
         ("timeout", "timed out", "time out", "connect")),
    Rule("non_json_200", None, 1, 1, ("json", "decod", "pars", "format")),
    Rule("no_job_id_200", None, 1, 1, ("job",)),
    Rule("array_body_200", None, 1, 1, ("json", "job", "format", "object")),
    Rule("int_job_id_200", None, 1, 1, ("job",)),
    Rule("empty_job_id_202", None, 1, 1, ("job",)),
    Rule("rate_limited_429", None, 1, 1, ("429",)),
    # the token as read from a file, with its line end: requests refuses the header before
    # sending (``InvalidHeader``, whose message quotes the value) or the answer strips it and
    # the CRM refuses the token; either way None, no exception, and the token in no log
    Rule("token_newline_401", None, 0, 1, ("header", "token", "401", "invalid", "auth")),
)}
NEWLINE_TOKEN_KINDS = ("token_newline_401",)  # the call gets the run's token plus "\n"

SUCCESS_KINDS = ("ok_200", "ok_202")
NETWORK_KINDS = ("connection_error", "timeout", "read_timeout", "connect_timeout")
OTHER_STATUS_KINDS = ("server_500", "not_found_404", "rate_limited_429")
CLIENT_ERROR_KINDS = ("bad_400", "auth_401", "not_found_404", "rate_limited_429")  # never retried
PARSING_KINDS = ("non_json_200", "no_job_id_200", "array_body_200", "int_job_id_200",
                 "empty_job_id_202")
FAILURE_KINDS = tuple(kind for kind, rule in RULES.items() if rule.returns is None)

_FIRST = ("Ana", "Björn", "Chloé", "Dmitri", "Eve", "François", "Grace", "Hiroshi", "Inés",
          "Jamal", "Kofi", "Łucja", "Mateo", "Nadia", "Øystein", "Priya", "Zoë")
_LAST = ("Okafor", "Müller", "García", "Nguyen", "O'Brien", "Sørensen", "Kowalski", "Haddad",
         "Smith", "Dubois", "Tanaka", "Rossi")
_PLANS = ("free", "pro", "enterprise", None)
_TOKEN_ALPHABET = string.ascii_letters + string.digits


def _text(rng: random.Random, size: int, alphabet: str = string.ascii_lowercase + string.digits) -> str:
    return "".join(rng.choice(alphabet) for _ in range(size))


def make_token(rng: random.Random) -> str:
    return "crm_" + _text(rng, 36, _TOKEN_ALPHABET)


def make_users(rng: random.Random, count: int) -> list[dict[str, Any]]:
    users = []
    for _ in range(count):
        first, last = rng.choice(_FIRST), rng.choice(_LAST)
        handle = _text(rng, 5)
        users.append({
            "id": rng.randint(1000, 99999),
            "name": f"{first} {last}",
            "email": f"{handle}.{rng.randint(1, 99)}@example.{rng.choice(('com', 'org', 'net'))}",
            "active": rng.random() < 0.7,
            "plan": rng.choice(_PLANS),
            "tags": sorted(rng.sample(["beta", "vip", "newsletter", "trial", "churn-risk"],
                                      rng.randint(0, 2))),
            "score": round(rng.uniform(0, 100), 2),
        })
    return users


def _responses(kind: str, job_id: str) -> list[dict[str, Any]]:
    """The fake CRM's answers, in order (the last repeats). ``int_job_id_200`` sends a number
    derived from the job id as ``job_id``: not a string, so the contract's answer is None."""
    unavailable = {"status": 503, "text": "Service Unavailable"}
    table: dict[str, list[dict[str, Any]]] = {
        "ok_200": [{"status": 200, "json": {"job_id": job_id, "status": "queued"}}],
        "ok_202": [{"status": 202, "json": {"job_id": job_id, "accepted": True}}],
        "retry_503_then_200": [unavailable, unavailable,
                               {"status": 200, "json": {"job_id": job_id, "status": "queued"}}],
        "bad_400": [{"status": 400, "json": {"error": "invalid_payload",
                                             "detail": "users[0].email is not valid"}}],
        "auth_401": [{"status": 401, "json": {"error": "invalid_token"}}],
        "not_found_404": [{"status": 404, "json": {"error": "not_found"}}],
        "server_500": [{"status": 500, "text": "Internal Server Error"}],
        "unavailable_503": [unavailable],
        "connection_error": [{"exc": "ConnectionError"}],
        "timeout": [{"exc": "Timeout"}],
        "read_timeout": [{"exc": "ReadTimeout"}],
        "connect_timeout": [{"exc": "ConnectTimeout"}],
        "non_json_200": [{"status": 200, "text": "<html><body>OK</body></html>"}],
        "no_job_id_200": [{"status": 200, "json": {"status": "queued"}}],
        "array_body_200": [{"status": 200, "json": [{"job_id": job_id}]}],
        "int_job_id_200": [{"status": 200, "json": {"job_id": _number(job_id), "status": "queued"}}],
        "empty_job_id_202": [{"status": 202, "json": {"job_id": "", "status": "queued"}}],
        "rate_limited_429": [{"status": 429, "json": {"error": "rate_limited"}}],
        "token_newline_401": [{"status": 401, "json": {"error": "invalid_token"}}],
    }
    return table[kind]


def _number(job_id: str) -> int:
    """A seeded positive integer derived from a job id (its characters' code points)."""
    return int("".join(str(ord(ch) % 10) for ch in job_id[4:])) + 1


def make_scenarios(seed: int) -> tuple[str, list[dict[str, Any]]]:
    """(token, scenarios): one scenario per rule kind, all data drawn from ``seed``.

    A scenario is ``{"label", "kind", "users", "job_id", "responses"}``; the harness request
    needs only label, args and responses (see ``harness_scenarios``).
    """
    rng = random.Random(seed)
    token = make_token(rng)
    scenarios = []
    for kind in RULES:
        job_id = "job_" + _text(rng, 12, _TOKEN_ALPHABET)
        scenarios.append({"label": kind, "kind": kind, "users": make_users(rng, rng.randint(1, 4)),
                          "job_id": job_id, "responses": _responses(kind, job_id)})
    return token, scenarios


def harness_scenarios(token: str, scenarios: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"label": s["label"], "args": [s["users"], call_token(token, s["kind"])],
             "responses": s["responses"]} for s in scenarios]


def call_token(token: str, kind: str) -> str:
    """The token a scenario's call gets: the run's, with a line end for ``NEWLINE_TOKEN_KINDS``."""
    return token + "\n" if kind in NEWLINE_TOKEN_KINDS else token


def expected_value(scenario: dict[str, Any]) -> str | None:
    """The oracle: what the call must return for this scenario."""
    return scenario["job_id"] if RULES[scenario["kind"]].returns == "job_id" else None


def fixture_users() -> list[dict[str, Any]]:
    """The sample payload shipped with the prompt; names include non-ASCII letters."""
    users = make_users(random.Random(4004), 3)
    users[0]["name"] = "Zoë Sørensen"
    users[1]["plan"] = None
    return users


def answer_key() -> dict[str, Any]:
    """The contract as data: endpoint, limits and the rule for every scenario kind."""
    return {
        "endpoint": ENDPOINT,
        "method": METHOD,
        "max_attempts": MAX_ATTEMPTS,
        "max_timeout_s": MAX_TIMEOUT_S,
        "rules": {kind: {"returns": rule.returns, "min_requests": rule.min_requests,
                         "max_requests": rule.max_requests, "topics": list(rule.topics)}
                  for kind, rule in RULES.items()},
    }


def dump_json(data: Any) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
