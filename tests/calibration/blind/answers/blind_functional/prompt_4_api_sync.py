"""Push users to the CRM provider's bulk-sync endpoint.

``sync_users_to_crm(user_data, api_token)`` returns the CRM's job id, or ``None`` when the
sync failed; it never raises. Every failure is logged with its HTTP status code or the kind
of error. The token only ever travels in the ``Authorization`` header.
"""
from __future__ import annotations

import json
import logging
import os
import time
from functools import partial
from itertools import count
from typing import Any, Callable, Iterable, Iterator, NamedTuple, Optional

import requests

logger = logging.getLogger(__name__)

SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
REQUEST_TIMEOUT = (5, 30)  # seconds: (connect, read)
BACKOFF_DELAYS = (1, 2)  # pauses between attempts: 3 attempts in total
SUCCESS_CODES = frozenset({200, 202})
STATUS_HINTS = {
    400: "the CRM rejected the payload (400 Bad Request)",
    401: "the API token was refused (401 Unauthorized)",
    403: "the API token lacks permission (403 Forbidden)",
    404: "the sync endpoint was not found (404 Not Found)",
    429: "the CRM is rate limiting us (429 Too Many Requests)",
    503: "the CRM is temporarily unavailable (503 Service Unavailable)",
}

Sender = Callable[[], requests.Response]


class Outcome(NamedTuple):
    """What one attempt produced: a job id, or a problem and whether to try again."""

    job_id: Optional[str] = None
    problem: str = ""
    retryable: bool = False


# ------------------------------------------------------------------------ pure helpers


def redact(text: str, secret: str) -> str:
    """Text with every occurrence of the secret masked."""
    return text.replace(secret, "***") if secret else text


def auth_headers(api_token: str) -> dict[str, str]:
    """Request headers; the token appears here and nowhere else."""
    return {
        "Authorization": f"Bearer {api_token}",
        "Content-Type": "application/json",
        "Accept": "application/json",
    }


def describe_status(status: int) -> str:
    """A human-readable explanation of an error status code."""
    return STATUS_HINTS.get(status, f"the CRM answered HTTP {status}")


def job_id_outcome(response: requests.Response) -> Outcome:
    """Read the job id out of a 200/202 response."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        return Outcome(problem=f"HTTP {status} response is not valid JSON")
    if not isinstance(body, dict):
        return Outcome(problem=f"HTTP {status} response is not a JSON object")
    job_id = body.get("job_id")
    if not isinstance(job_id, str) or not job_id:
        return Outcome(problem=f"HTTP {status} response has a missing or invalid job_id "
                               f"({type(job_id).__name__})")
    return Outcome(job_id=job_id)


def response_outcome(response: requests.Response) -> Outcome:
    """Classify an HTTP response; only 5xx answers are worth another attempt."""
    status = response.status_code
    if status in SUCCESS_CODES:
        return job_id_outcome(response)
    return Outcome(problem=describe_status(status), retryable=500 <= status < 600)


def error_outcome(error: Exception, secret: str) -> Outcome:
    """Classify an exception raised while sending the request."""
    detail = redact(str(error), secret)
    if isinstance(error, requests.exceptions.Timeout):
        return Outcome(problem=f"timeout talking to the CRM ({type(error).__name__}: {detail})",
                       retryable=True)
    if isinstance(error, requests.exceptions.ConnectionError):
        return Outcome(problem=f"connection error ({type(error).__name__}: {detail})",
                       retryable=True)
    return Outcome(problem=f"request could not be sent ({type(error).__name__}: {detail})")


# ------------------------------------------------------------------------- the effects


def attempt(send: Sender, secret: str) -> Outcome:
    """Make one request and classify what happened."""
    try:
        response = send()
    except (requests.exceptions.RequestException, ValueError) as error:
        return error_outcome(error, secret)
    return response_outcome(response)


def attempts(send: Sender, secret: str, delays: Iterable[float]) -> Iterator[Outcome]:
    """Lazily yield the outcome of each attempt, pausing before every retry."""
    outcome = attempt(send, secret)
    yield outcome
    for delay in delays:
        if not outcome.retryable:
            return
        logger.info("retrying the CRM sync in %s s", delay)
        time.sleep(delay)
        outcome = attempt(send, secret)
        yield outcome


def last_outcome(outcomes: Iterable[Outcome]) -> Outcome:
    """Log every outcome and return the final one."""
    final = Outcome(problem="no attempt was made")
    for number, outcome in zip(count(1), outcomes):
        if outcome.job_id is None:
            logger.warning("CRM sync attempt %d failed: %s", number, outcome.problem)
        final = outcome
    return final


def payload_problem(user_data: Any) -> Optional[str]:
    """Why user_data cannot be sent as a JSON list, or None when it can."""
    if not isinstance(user_data, list):
        return f"user_data must be a list, got {type(user_data).__name__}"
    try:
        json.dumps(user_data, allow_nan=False)
    except (TypeError, ValueError) as error:
        return f"user_data is not JSON-serialisable: {error}"
    return None


def token_problem(api_token: Any) -> Optional[str]:
    """Why the token cannot be used (without revealing it), or None when it can."""
    if not isinstance(api_token, str) or not api_token.strip():
        return "no API token given"
    return None


def sync_users_to_crm(user_data: list[dict[str, Any]], api_token: str) -> Optional[str]:
    """Send the users to the CRM; return the sync job id, or None on failure."""
    problem = token_problem(api_token) or payload_problem(user_data)
    if problem:
        logger.error("CRM sync not attempted: %s", problem)
        return None
    send = partial(requests.post, SYNC_URL, json=user_data,
                   headers=auth_headers(api_token), timeout=REQUEST_TIMEOUT)
    final = last_outcome(attempts(send, api_token, BACKOFF_DELAYS))
    if final.job_id is None:
        logger.error("CRM sync of %d user(s) failed: %s", len(user_data), final.problem)
        return None
    logger.info("CRM sync of %d user(s) accepted, job id %s", len(user_data), final.job_id)
    return final.job_id


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    with open("api_users.json", encoding="utf-8") as source:
        users = json.load(source)
    job = sync_users_to_crm(users, os.environ.get("CRM_API_TOKEN", ""))
    print(job if job is not None else "sync failed, see the log above")
