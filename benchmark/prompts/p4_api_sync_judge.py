"""Prompt 4 judging helpers: pure functions over the observed facts and the parsed source.

The facts are what ``p4_api_sync.observe`` gathered: the seeded scenarios, the token, and per
scenario label the harness result (``returned``, ``value``, ``exception``, ``requests``,
``output``, ``sleep_total``). Nothing here runs code or touches disk.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

from ..analyzers.memo import nodes_of
from ..analyzers.timing import seconds
from ..untrusted import NAME_LIMIT, text
from .base import CheckContext, Outcome, excerpt, load_problem
from .base import strict_equal as same_json
from .p4_api_sync_data import (CLIENT_ERROR_KINDS, ENDPOINT, FUNCTION, MAIN, MAX_ATTEMPTS, MAX_TIMEOUT_S,
                                METHOD, RULES, expected_value)


def scenarios_of(facts: Mapping[str, Any], kinds: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    return [s for s in facts["scenarios"] if kinds is None or s["kind"] in kinds]


def result_of(facts: Mapping[str, Any], scenario: dict[str, Any]) -> dict[str, Any] | None:
    return facts["results"].get(scenario["label"])


def requests_of(facts: Mapping[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(scenario, request) for every request observed."""
    pairs = []
    for scenario in scenarios_of(facts):
        result = result_of(facts, scenario) or {}
        pairs += [(scenario, request) for request in result.get("requests", [])]
    return pairs


def header(request: dict[str, Any], name: str) -> str | None:
    for key, value in (request.get("headers") or {}).items():
        if key.lower() == name.lower():
            return value
    return None


def request_tallies(pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, int]:
    """How many requests were POSTs, to the exact URL, with body = user_data, typed JSON."""
    tallies = {"POST": 0, "exact URL": 0, "body = user_data": 0, "JSON content type": 0}
    for scenario, request in pairs:
        content_type = (header(request, "Content-Type") or "").split(";")[0].strip().lower()
        tallies["POST"] += request.get("method") == METHOD
        tallies["exact URL"] += request.get("url") == ENDPOINT
        tallies["body = user_data"] += same_json(request.get("json_body"), scenario["users"])
        tallies["JSON content type"] += content_type == "application/json"
    return tallies


def returned_none(result: Mapping[str, Any] | None) -> bool:
    """The call returned None and did not raise."""
    return bool(result) and bool(result.get("returned")) and not result.get("exception") \
        and result.get("value") is None


def gives_job_ids(facts: Mapping[str, Any]) -> bool:
    """Did any success scenario return its job id? (Else a None return carries no signal.)"""
    for scenario in scenarios_of(facts):
        result = result_of(facts, scenario)
        if expected_value(scenario) is not None and result \
                and same_json(result.get("value"), scenario["job_id"]):
            return True
    return False


def score_scenario(facts: Mapping[str, Any], scenario: dict[str, Any]) -> tuple[float, str]:
    """Credit for one scenario: right value, no exception, a request sent, attempts in range."""
    label, rule = scenario["label"], RULES[scenario["kind"]]
    result = result_of(facts, scenario)
    if result is None:
        return 0.0, f"{label}: not observed"
    attempts = len(result["requests"])
    if attempts == 0 and rule.min_requests > 0:
        return 0.0, f"{label}: sent no request"
    if result["exception"]:
        return 0.0, f"{label}: raised {text(result['exception']['type'], NAME_LIMIT)}"
    expected = expected_value(scenario)
    if not result["returned"] or not same_json(result["value"], expected):
        return 0.0, f"{label}: returned {excerpt(result['value'], 40)}, expected {excerpt(expected, 40)}"
    if expected is None and not gives_job_ids(facts):
        return 0.5, f"{label}: None, but the function never returns a job id"
    if not rule.min_requests <= attempts <= rule.max_requests:
        return 0.5, f"{label}: {attempts} attempts (contract: {rule.min_requests}-{rule.max_requests})"
    return 1.0, f"{label}: ok"


def mentions(output: str, topics: tuple[str, ...]) -> bool:
    """Does the output name one of the topics? Status codes must stand alone as numbers."""
    text = output.lower()
    for topic in topics:
        pattern = rf"(?<!\d){topic}(?!\d)" if topic.isdigit() else re.escape(topic)
        if re.search(pattern, text):
            return True
    return False


def timeout_ok(value: Any) -> bool:
    """A finite positive timeout of at most MAX_TIMEOUT_S, or a (connect, read) pair of them."""
    parts = value if isinstance(value, list) and len(value) == 2 else [value]
    return all(isinstance(part, (int, float)) and not isinstance(part, bool)
               and (isinstance(part, int) or math.isfinite(part)) and 0 < part <= MAX_TIMEOUT_S
               for part in parts)


_TOKEN_TEXT = re.compile(r"[A-Za-z0-9_\-.=+/~]{8,}")


def looks_secret(value: str) -> bool:
    """A bearer header value whose credential is token text (eight or more token characters,
    a digit among them: ``Bearer [REDACTED]``, ``Bearer <your token>`` and ``Bearer REDACTED``
    are what a redaction writes, no credential), or a long, high-entropy, letter-and-digit
    string."""
    if value.startswith("Bearer "):
        credential = value[len("Bearer "):]
        return bool(_TOKEN_TEXT.fullmatch(credential) and re.search(r"\d", credential))
    if len(value) < 16 or not re.fullmatch(r"[A-Za-z0-9_\-.=+/]+", value):
        return False
    if not (re.search(r"\d", value) and re.search(r"[A-Za-z]", value)):
        return False
    counts = [value.count(ch) for ch in set(value)]
    entropy = -sum(c / len(value) * math.log2(c / len(value)) for c in counts)
    return entropy >= 3.5


def secret_constant_lines(tree: ast.Module) -> list[int]:
    """Lines of string constants used as values (not docstrings) that look like credentials."""
    docstrings = {id(node.value) for node in nodes_of(tree, ast.Expr)
                  if isinstance(node.value, ast.Constant)}
    return sorted({node.lineno for node in nodes_of(tree, ast.Constant)
                   if isinstance(node.value, str)
                   and id(node) not in docstrings and looks_secret(node.value)})


# ---- where the token went ---------------------------------------------------------------

API_HOST = urlsplit(ENDPOINT).hostname
STREAMS = ("the process's stdout", "the process's stderr", "output while importing")


def _json_text(value: Any) -> str:
    """A returned value as JSON text to search for the token; a value holding an int past the
    digit limit (``json.dumps`` refuses it) is searched by its strings, keys included."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except ValueError:
        return json.dumps(_strings(value), ensure_ascii=False)


def _strings(value: Any) -> Any:
    """``value`` with every number, boolean and null dropped: its strings and keys only."""
    if isinstance(value, dict):
        return {key: _strings(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_strings(item) for item in value]
    return value if isinstance(value, str) else None


def _host(url: str) -> str | None:
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


def request_leaks(request: Mapping[str, Any], token: str) -> list[str]:
    """Where one request exposed the token: its URL (a query string is named as such; the
    URL is also read percent-decoded), its body, or any header sent to a host that is not the
    API's."""
    url = str(request.get("url") or "")
    places = []
    if token in unquote(url):
        query = url.partition("?")[2]
        places.append("URL query string" if token in unquote(query) else "URL")
    if token in str(request.get("body") or ""):
        places.append("body")
    host = _host(url)
    if host != API_HOST and any(token in str(v) for v in (request.get("headers") or {}).values()):
        places.append(f"headers sent to another host ({text(host or url, NAME_LIMIT)})")
    return places


def call_leaks(result: Mapping[str, Any], token: str) -> list[str]:
    """Where one call exposed the token: its output (print, logging, warnings), a log record
    at any level (``log``: the harness collects every record the root logger gets), the
    message of an exception it let escape, its return value."""
    exception = result.get("exception") or {}
    texts = {"output (print/logging)": str(result.get("output") or ""),
             "a log record (any level, as an operator who turns the level down reads it)":
                 str(result.get("log") or ""),
             "exception message": str(exception.get("message") or ""),
             "return value": _json_text(result.get("value")) + str(result.get("unserializable") or "")}
    return [where for where, said in texts.items() if token in said]


def leak_places(facts: Mapping[str, Any]) -> list[str]:
    """Every place the token showed up outside the API's own Authorization header, in order:
    per scenario its call and each request, then the process's own streams."""
    token = facts["token"]
    places = []
    for scenario in scenarios_of(facts):
        label, result = scenario["label"], result_of(facts, scenario) or {}
        places += [f"{label}: {where}" for where in call_leaks(result, token)]
        for number, request in enumerate(result.get("requests", []), 1):
            places += [f"{label} request {number}: {where}" for where in request_leaks(request, token)]
    streams = list(facts.get("streams", []))
    places += [name for name, said in zip(STREAMS, streams) if token in str(said or "")]
    return places


def transport_problems(facts: Mapping[str, Any]) -> list[str]:
    """Observed requests sent with certificate checks off, or carrying the token over plain
    http (URL, headers or body), each kind counted over all requests with an example."""
    token, pairs = facts["token"], requests_of(facts)
    unverified, plain = [], []
    for scenario, request in pairs:
        if request.get("verify") is False:
            unverified.append(scenario["label"])
        url = str(request.get("url") or "")
        carried = token in url or token in str(request.get("body") or "") or any(
            token in str(v) for v in (request.get("headers") or {}).values())
        if url.lower().startswith("http://") and carried:
            plain.append(text(url.split("?")[0], NAME_LIMIT))
    problems = []
    if unverified:
        problems.append(f"{len(unverified)}/{len(pairs)} requests sent with certificate checks "
                        f"off (verify=False; first in {unverified[0]})")
    if plain:
        problems.append(f"{len(plain)}/{len(pairs)} requests carried the token over plain http "
                        f"({plain[0]})")
    return problems


# ---- shared check steps ---------------------------------------------------------------


def blocker(ctx: CheckContext) -> Outcome | None:
    """Why no behaviour can be judged, as an Outcome; None when results exist."""
    facts = ctx.facts
    if "results" not in facts:
        return Outcome.error("no behaviour facts were gathered")
    if facts.get("problem"):
        return (Outcome.fail if facts.get("hung") else Outcome.error)(facts["problem"])
    return load_problem(facts, MAIN, FUNCTION)


def judge_kinds(ctx: CheckContext, kinds: tuple[str, ...], what: str) -> Outcome:
    blocked = request_blocker(ctx)  # a function that never sends a request earns nothing here
    if blocked:
        return blocked
    verdicts = [score_scenario(ctx.facts, s) for s in scenarios_of(ctx.facts, kinds)]
    earned = sum(v for v, _ in verdicts)
    notes = "; ".join(note for value, note in verdicts if value < 1) or "all as specified"
    return Outcome.ratio(earned, len(verdicts), f"{what}: {earned:g}/{len(verdicts)} ({notes})")


def request_blocker(ctx: CheckContext) -> Outcome | None:
    blocked = blocker(ctx)
    if blocked is None and not requests_of(ctx.facts):
        return Outcome.fail("no HTTP request was sent in any scenario")
    return blocked


def main_tree(ctx: CheckContext) -> ast.Module | None:
    source = ctx.files.get(MAIN)
    return source.tree if source is not None else None


def required_params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[list[str], list[str]]:
    """(required positional parameter names, required keyword-only parameter names)."""
    args = node.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    required = positional[: len(positional) - len(args.defaults)]
    return required, [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]


def _attempt_points(facts: Mapping[str, Any], kind: str, low: int, high: int) -> tuple[float, str]:
    """0.5 when the ``kind`` call made ``low``..``high`` attempts and returned None without raising."""
    result = next((result_of(facts, s) or {} for s in scenarios_of(facts, (kind,))), {})
    attempts, clean = len(result.get("requests", [])), returned_none(result)
    note = f"{attempts} attempt(s)" + ("" if clean else ", not a clean None")
    return (0.5 if clean and low <= attempts <= high else 0.0), note


ONE_REQUEST_KINDS = tuple(kind for kind, rule in RULES.items() if rule.max_requests == 1)
NEEDLESS_SLEEP_COST = 1.0  # of retry_resilience's 2 points


def needless_sleeps(facts: Mapping[str, Any]) -> dict[str, float]:
    """Sleeps outside a retry back-off, by scenario label: what a call slept (``time.sleep``,
    recorded, not slept) in a scenario whose contract allows a single request, where there is
    nothing to back off from. A malformed ``sleep_total`` counts as no sleep."""
    slept = {}
    for scenario in scenarios_of(facts, ONE_REQUEST_KINDS):
        result = result_of(facts, scenario)
        total = seconds(result.get("sleep_total")) if isinstance(result, Mapping) else None
        if total:
            slept[scenario["label"]] = total
    return slept


def judge_retries(ctx: CheckContext) -> Outcome:
    """The ``retry_resilience`` verdict: recovery with back-off (1), each 4xx once, network 2-3 tries;
    a sleep in a call that needs no retry (a sleep outside a retry back-off) costs 1."""
    blocked = request_blocker(ctx)
    if blocked:
        return blocked
    retry = scenarios_of(ctx.facts, ("retry_503_then_200",))[0]
    retry_result = result_of(ctx.facts, retry) or {}
    points, notes = 0.0, []
    if score_scenario(ctx.facts, retry)[0] == 1.0:
        backoff = bool(seconds(retry_result.get("sleep_total")))
        points += 1.0 if backoff else 0.5
        notes.append("recovered from 503,503" + ("" if backoff else " but without back-off"))
    else:
        notes.append(f"did not recover from 503,503 ({len(retry_result.get('requests', []))} attempts)")
    once = [_attempt_points(ctx.facts, kind, 1, 1) for kind in CLIENT_ERROR_KINDS]
    points += sum(earned for earned, _ in once) / len(once)
    notes.append("4xx once: " + ", ".join(f"{kind.rsplit('_', 1)[-1]} {note}"
                                          for kind, (_, note) in zip(CLIENT_ERROR_KINDS, once)))
    earned, note = _attempt_points(ctx.facts, "connection_error", 2, MAX_ATTEMPTS)
    points += earned
    notes.append(f"persistent connection error: {note}")
    slept = needless_sleeps(ctx.facts)
    if slept:
        points = max(0.0, points - NEEDLESS_SLEEP_COST)
        where = ", ".join(f"{label} {total:g} s" for label, total in slept.items())
        notes.insert(0, f"slept {sum(slept.values()):g} s outside a retry back-off, in calls that "
                        f"needed one request (time.sleep, recorded instead of slept: {where}): "
                        f"-{NEEDLESS_SLEEP_COST:g}")
    return Outcome.ratio(points, 2.0, f"{points:g}/2 retry points: {'; '.join(notes)}")
