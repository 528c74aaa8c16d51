"""Prompt 4, API Integration: ``sync_users_to_crm(user_data, api_token)`` against a mocked CRM.

``observe`` runs the function once per scenario in one ``http`` child (requests-mock answers,
``time.sleep`` is recorded); the scenarios, the token and the job ids come from the seed
(``p4_api_sync_data``). Checks judge the recorded requests, return values and output.
Error-handling credit needs the call to have actually sent a request, and a function that
never returns a job id gets only half credit for its ``None``s (None is then no signal).

The contract's "never raise" rule: a call that raised earns nothing in the execution check
that owns its scenario, is no report in ``informative_errors``, and earns none of the
attempt-count points of ``retry_resilience``. "Retry 503 and network errors": a persistent
503 or network error must take 2-3 attempts; a single attempt earns half of that scenario.

The static and tool checks that a general check type states are library types in the task's
manifest (``benchmark/packs/core/prompt_4/task.yaml``): ``compiles``, ``ast.defines``,
``ast.specific_exceptions``, ``exec.sandbox_violations`` and ``radon.max_complexity``. The
functions here are the checks no library type expresses: those that read this prompt's
observed scenarios, ``correct_signature`` and ``no_hardcoded_creds``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..analyzers import astfacts, rules_security, security
from ..submission import SourceFile
from ..types import Evidence
from . import p4_api_sync_data as data
from . import p4_api_sync_judge as judge
from .base import LIST_LIMIT, CheckContext, Outcome, RunFn, excerpt, listed, make_registry

PROMPT_ID = "prompt_4"
TITLE = "API Integration"
FILES = (data.MAIN,)
PYTHON_FILES = frozenset(FILES)
MAIN, FUNCTION, PARAMS = data.MAIN, data.FUNCTION, data.PARAMS
HAZARDS: dict[str, str] = {
    "non_ascii_names": "api_users.json has names with non-ASCII letters (Zoë Sørensen); the "
                       "JSON body must carry them intact",
    "null_plan": "api_users.json has a user whose plan is null; the body must keep it null",
}
CHECKS, check = make_registry()


def fixture_files() -> dict[str, bytes]:
    return {data.FIXTURE_PATH: data.dump_json(data.fixture_users())}


def answer_keys() -> dict[str, bytes]:
    return {data.ANSWER_KEY_PATH: data.dump_json(data.answer_key())}


# ---- observing ----------------------------------------------------------------------


def _request(token: str, scenarios: list[dict[str, Any]]) -> dict[str, Any]:
    return {"mode": "http", "module": MAIN, "function": FUNCTION,
            "scenarios": data.harness_scenarios(token, scenarios)}


def observe(files: Mapping[str, SourceFile], run: RunFn, test_data: Path, seed: int) -> dict[str, Any]:
    """Run every scenario in one child. A hang (endless retries) costs the scenarios it
    leaves unobserved: the prompt's time budget is one time-out, so nothing is re-run."""
    token, scenarios = data.make_scenarios(seed)
    result = run(_request(token, scenarios), {})
    facts: dict[str, Any] = {"seed": seed, "token": token, "scenarios": scenarios, "results": {},
                             "streams": [result.stdout, result.stderr], "problem": None}
    observation = result.observation
    if observation is None:
        facts["problem"] = "the child timed out" if result.timed_out else \
            f"the child run failed ({result.channel_error or 'no record'})"
        facts["hung"] = result.timed_out
        return facts
    facts["import_error"] = observation.get("import_error")
    facts["function_found"] = observation.get("function_found")
    facts["streams"].append(observation.get("import_output") or "")
    facts["results"] = {r["label"]: r for r in observation.get("results", [])}
    return facts


# ---- structure ----------------------------------------------------------------------


@check("correct_signature")
def correct_signature(ctx: CheckContext) -> Outcome:
    """Two required positional parameters: 0.75; named user_data, api_token as well: 1.0.

    The function judged is the module-level def the import binds (as ``ast.defines`` finds
    it: the last one, a def in a top-level ``if``/``try`` included). Anything else (another
    count of required positional parameters, a required keyword-only one, no function)
    earns nothing. No library type: ``ast.signature`` ignores order and kind (the harness
    calls positionally) and gives no credit for the right arity under other names."""
    tree = judge.main_tree(ctx)
    node = astfacts.find_function(tree, FUNCTION) if tree is not None else None
    if node is None:
        return Outcome.fail(f"no {FUNCTION} to inspect")
    required, required_kwonly = judge.required_params(node)
    evidence = [Evidence(MAIN, node.lineno)]
    if len(required) != 2 or required_kwonly:
        return Outcome.fail(f"{FUNCTION} needs exactly 2 required positional parameters; it has "
                            f"{len(required)} ({', '.join(required) or 'none'})"
                            + (f" plus required keyword-only {required_kwonly}" if required_kwonly else ""),
                            evidence)
    if tuple(required) == PARAMS:
        return Outcome.ok(f"{FUNCTION}({', '.join(PARAMS)}) as specified", evidence)
    return Outcome(0.75, f"2 required parameters, but named {tuple(required)} not {PARAMS}",
                   tuple(evidence))


@check("request_structure")
def request_structure(ctx: CheckContext) -> Outcome:
    """Per request: POST, the exact https URL, body equal to user_data, JSON content type.

    Credit: the share of those four properties over all requests observed (none sent: 0).
    No library type: it reads the requests this prompt's mocked HTTP scenarios recorded."""
    blocked = judge.request_blocker(ctx)
    if blocked:
        return blocked
    pairs = judge.requests_of(ctx.facts)
    tallies = judge.request_tallies(pairs)
    done = sum(tallies.values())
    detail = ", ".join(f"{name} {count}/{len(pairs)}" for name, count in tallies.items())
    return Outcome.ratio(done, 4 * len(pairs), f"{len(pairs)} requests: {detail}")


# ---- execution ----------------------------------------------------------------------


@check("success_handling")
def success_handling(ctx: CheckContext) -> Outcome:
    """The 200 and 202 scenarios return the response's job id, after one request.

    Credit per scenario (``judge.score_scenario``): the right value without raising, after
    a request, within the contract's attempt count (out of range: half). No library type:
    it judges this prompt's mocked HTTP scenarios against their seeded job ids."""
    return judge.judge_kinds(ctx, data.SUCCESS_KINDS, "200/202 with a job_id return it")


@check("handle_400")
def handle_400(ctx: CheckContext) -> Outcome:
    """A 400 returns None without raising, after exactly one request.

    Credit as ``success_handling`` scores a scenario; a None from a function that never
    returns a job id is half (None is then no signal). No library type: it judges this
    prompt's mocked HTTP scenario."""
    return judge.judge_kinds(ctx, ("bad_400",), "400 returns None after one attempt")


@check("handle_401")
def handle_401(ctx: CheckContext) -> Outcome:
    """A 401, and a token the Authorization header cannot carry (a line end), return None.

    The 401 after one request, the bad token after at most one (it may be refused before
    sending); credit per scenario as ``handle_400``. No library type: it judges this
    prompt's mocked HTTP scenarios."""
    return judge.judge_kinds(ctx, ("auth_401", *data.NEWLINE_TOKEN_KINDS),
                             "401, and a token the header cannot carry, return None after at "
                             "most one attempt")


@check("handle_503")
def handle_503(ctx: CheckContext) -> Outcome:
    """A persistent 503 returns None after 2-3 attempts (another count: half).

    Credit as ``handle_400`` scores a scenario. No library type: it judges this prompt's
    mocked HTTP scenario and counts its attempts."""
    return judge.judge_kinds(ctx, ("unavailable_503",), "persistent 503 returns None within 3 attempts")


@check("handle_connection_error")
def handle_connection_error(ctx: CheckContext) -> Outcome:
    """Connection errors and (connect, read) timeouts return None after 2-3 attempts.

    Credit per scenario as ``handle_400`` (another count of attempts: half). No library
    type: it judges this prompt's mocked network failures."""
    return judge.judge_kinds(ctx, data.NETWORK_KINDS, "connection errors and timeouts return None")


@check("handle_other_status")
def handle_other_status(ctx: CheckContext) -> Outcome:
    """500 returns None within 3 attempts, 404 and 429 after exactly one.

    Credit per scenario as ``handle_400``. No library type: it judges this prompt's mocked
    HTTP scenarios."""
    return judge.judge_kinds(ctx, data.OTHER_STATUS_KINDS, "500/404/429 return None (4xx: one attempt)")


@check("json_parsing")
def json_parsing(ctx: CheckContext) -> Outcome:
    """Bodies that are not JSON, not an object, lack a job_id or hold a non-string or empty
    one return None without raising, after one request.

    Credit per scenario as ``handle_400``. No library type: it judges this prompt's mocked
    HTTP responses."""
    return judge.judge_kinds(ctx, data.PARSING_KINDS,
                             "non-JSON, non-object, job_id-less and non-string/empty job_id "
                             "bodies return None")


# ---- quality ------------------------------------------------------------------------


@check("informative_errors")
def informative_errors(ctx: CheckContext) -> Outcome:
    """Each failing call logs its status code or error kind and returns None without raising.

    A scenario counts only when the call sent a request (where its rule needs one: a token
    the header cannot carry may be refused before sending) and returned None: an escaping
    exception is no report (the contract says never raise), and a call that returned a value
    did not treat the failure as one, whatever it printed. Credit: the share of failing
    scenarios so reported. No library type: it reads each scenario's captured output."""
    blocked = judge.request_blocker(ctx)
    if blocked:
        return blocked
    scenarios = judge.scenarios_of(ctx.facts, data.FAILURE_KINDS)
    silent = []
    for scenario in scenarios:
        result = judge.result_of(ctx.facts, scenario) or {}
        rule = data.RULES[scenario["kind"]]
        reported = judge.returned_none(result) and judge.mentions(result.get("output") or "", rule.topics)
        if not ((result.get("requests") or rule.min_requests == 0) and reported):
            silent.append(scenario["label"])
    told = len(scenarios) - len(silent)
    rationale = f"{told}/{len(scenarios)} failing calls reported the status or error kind"
    return Outcome.ratio(told, len(scenarios), rationale + (f"; not: {', '.join(silent)}" if silent else ""))


# ---- security -----------------------------------------------------------------------


@check("bearer_auth")
def bearer_auth(ctx: CheckContext) -> Outcome:
    """Each request carries ``Authorization: Bearer <the token passed in>``.

    Credit: the share of requests that do (none sent: 0). No library type: it reads the
    headers of the requests this prompt's scenarios recorded, against the seeded token."""
    blocked = judge.request_blocker(ctx)
    if blocked:
        return blocked
    pairs = judge.requests_of(ctx.facts)
    expected = f"Bearer {ctx.facts['token']}"
    good = sum(judge.header(request, "Authorization") == expected for _, request in pairs)
    return Outcome.ratio(good, len(pairs), f"{good}/{len(pairs)} requests carried "
                         "'Authorization: Bearer <the token passed in>'")


@check("no_token_leak")
def no_token_leak(ctx: CheckContext) -> Outcome:
    """The token appears nowhere but the API's Authorization header: any leak fails the check.

    Looked for in every call's output (print, logging), escaping exception messages and return
    values, in every request's URL and query string and body, in headers sent to any other
    host, and in the process's own stdout and stderr. One leak anywhere earns nothing (a
    secret is out once it is out); the rationale names every place (ten, then a count). A
    call that took the harness's log listener off the root logger (``log_detached``) earns
    nothing either: its logs could not be read. No library type: it searches this prompt's
    observed calls for the seeded token."""
    blocked = judge.request_blocker(ctx)
    if blocked:
        return blocked
    places = judge.leak_places(ctx.facts)
    if places:
        return Outcome.fail(f"the token leaked in {len(places)} place(s): {listed(places)}")
    unheard = [s["label"] for s in judge.scenarios_of(ctx.facts)
               if (judge.result_of(ctx.facts, s) or {}).get("log_detached") is True]
    if unheard:  # the harness put its log listener back: what was logged meanwhile is unknown
        return Outcome.fail(f"the code took the root logger's handlers off during {len(unheard)} "
                            f"call(s) ({listed(unheard)}), so what it logged there could not be "
                            "read: no leak can be ruled out")
    return Outcome.ok(f"the token appeared only in the Authorization header of the "
                      f"{len(judge.requests_of(ctx.facts))} requests to {judge.API_HOST}: not in "
                      "output, exceptions, return values, URLs, bodies or other hosts' headers")


@check("secure_transport")
def secure_transport(ctx: CheckContext) -> Outcome:
    """Certificate checks stay on and the token travels only over https: anything else fails.

    From the code (``ast``): ``verify=False`` in any call, ``session.verify = False``,
    ``check_hostname = False``, ``CERT_NONE``, ``ssl._create_unverified_context`` (and
    ``urllib3.disable_warnings()`` beside one of them). From the observed requests: one sent
    with ``verify`` off, or one carrying the token over plain ``http://``. One such fact fails
    the whole check; the rationale lists each (ten, then a count). No library type: half of
    it reads the requests this prompt's scenarios recorded."""
    tree = judge.main_tree(ctx)
    found = rules_security.tls_findings(tree) if tree is not None else []
    problems = [f"{note} (line {line})" for line, note in found]
    evidence = [Evidence(MAIN, line, note) for line, note in found[:LIST_LIMIT]]
    blocked = judge.request_blocker(ctx)
    if blocked and not problems:
        return blocked
    problems += [] if blocked else judge.transport_problems(ctx.facts)
    if problems:
        return Outcome.fail(f"{len(problems)} transport security problem(s): {listed(problems)}",
                            evidence)
    return Outcome.ok(f"all {len(judge.requests_of(ctx.facts))} requests used https with "
                      "certificate checks on, and no code turns the checks off")


@check("explicit_timeout")
def explicit_timeout(ctx: CheckContext) -> Outcome:
    """Each request was sent with a finite timeout of at most 60 s (``MAX_TIMEOUT_S``).

    A number or a (connect, read) pair of them, each finite and positive. Credit: the share
    of requests that had one (none sent: 0). No library type: it reads the timeout each
    recorded request was sent with."""
    blocked = judge.request_blocker(ctx)
    if blocked:
        return blocked
    pairs = judge.requests_of(ctx.facts)
    good = sum(judge.timeout_ok(request.get("timeout")) for _, request in pairs)
    seen = sorted({excerpt(request.get("timeout"), 40) for _, request in pairs})[:3]
    return Outcome.ratio(good, len(pairs), f"{good}/{len(pairs)} requests had a finite timeout of "
                         f"at most {data.MAX_TIMEOUT_S:g} s (seen: {', '.join(seen)})")


@check("no_hardcoded_creds")
def no_hardcoded_creds(ctx: CheckContext) -> Outcome:
    """Bandit B105-B107 (an empty literal is no credential) plus credential-like constants.

    Credential-like: a string constant (not a docstring) that looks like a key or token
    (``judge.looks_secret``: ``sk_live_...``, ``Bearer <token>``), under any name. One
    finding fails the check; the rationale lists each (ten, then a count). No library type:
    ``bandit.forbid`` counts an empty B105 literal and cannot see a key under a name bandit
    does not suspect (``API_KEY = "sk_live_..."``)."""
    source = ctx.files.get(MAIN)
    if source is None or source.tree is None or source.text is None:
        return Outcome.fail(f"{MAIN} could not be analysed")
    try:
        found = security.bandit_issues(source.text, MAIN, source.tree)
    except security.AnalysisLimitError as exc:
        return Outcome.error(f"bandit could not scan {MAIN}: {exc}")
    issues = [i for i in found
              if i.test_id in ("B105", "B106", "B107") and not i.text.endswith(": ''")]
    evidence = [Evidence(MAIN, i.line, f"{i.test_id} {i.test_name}") for i in issues]
    evidence += [Evidence(MAIN, line, "credential-like string constant")
                 for line in judge.secret_constant_lines(source.tree)]
    if evidence:
        notes = [f"{item.note} line {item.line}" for item in evidence]
        return Outcome.fail(f"{len(evidence)} hard-coded credential finding(s): {listed(notes)}",
                            evidence[:LIST_LIMIT])
    return Outcome.ok("no hard-coded credentials (bandit B105-B107 and credential-like constants)")


# ---- performance ----------------------------------------------------------------------


@check("retry_resilience")
def retry_resilience(ctx: CheckContext) -> Outcome:
    """503,503,200 -> job id with back-off (1.0 pt); each 4xx (400, 401, 404, 429) -> one
    attempt (0.5, shared); persistent ConnectionError -> 2-3 attempts (0.5).

    The two attempt-count points also need the call to have returned None without raising
    (the contract says never raise). A sleep outside a retry back-off (any ``time.sleep`` in a
    call whose contract allows a single request: 200, 202, 4xx, bad bodies) costs 1
    point, and the rationale names each such call and what it slept. No library type: it
    counts the attempts and recorded sleeps of this prompt's scenarios."""
    return judge.judge_retries(ctx)
