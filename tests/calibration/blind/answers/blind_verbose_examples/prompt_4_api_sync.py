"""Synchronise users with the CRM provider's bulk-sync endpoint.

The public function is :func:`sync_users_to_crm`. It POSTs the user list as JSON to
``https://api.crm-provider.com/v1/users/sync`` and returns the ``job_id`` from the CRM's
answer, or ``None`` when the sync failed. It never raises.

Behaviour in short
==================

======================================  =======================  ========
What happens                            Result                   Retried?
======================================  =======================  ========
200/202 with a non-empty ``job_id``     the job id               no
200/202 with a bad or missing body      ``None``                 no
400, 401 and any other 4xx              ``None``                 no
503 and other 5xx                       ``None`` when it lasts   yes
connection error / timeout              ``None`` when it lasts   yes
======================================  =======================  ========

At most three attempts are made per call, with a pause of 1 s and then 2 s in between.

Security
========

The API token is a secret: it is only ever placed in the ``Authorization`` header. It is
never logged, printed, put into the URL or the body, and never hard-coded here; the demo at
the bottom reads it from the ``CRM_API_TOKEN`` environment variable.

Usage
=====

.. code-block:: python

    import logging, os
    from prompt_4_api_sync import sync_users_to_crm

    logging.basicConfig(level=logging.INFO)
    job_id = sync_users_to_crm(users, os.environ["CRM_API_TOKEN"])
    if job_id is None:
        ...  # the log explains why (status code, timeout, bad response, ...)
"""
from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from typing import Any, Optional

import requests

logger = logging.getLogger(__name__)

#: The bulk-sync endpoint (no query string).
CRM_SYNC_URL = "https://api.crm-provider.com/v1/users/sync"

#: (connect timeout, read timeout) in seconds; both finite, so a call can never hang.
REQUEST_TIMEOUT = (5, 30)

#: Total number of attempts per call: the first try plus up to two retries.
MAX_ATTEMPTS = 3

#: Pause before the 2nd and the 3rd attempt, in seconds (exponential back-off).
BACKOFF_SECONDS = (1, 2)


@dataclass(frozen=True)
class AttemptResult:
    """The outcome of a single HTTP attempt.

    Attributes:
        job_id: the job id on success, otherwise ``None``.
        error: a human-readable description of the failure (empty on success).
        retryable: whether a later attempt could succeed (503, other 5xx, network errors).
    """

    job_id: Optional[str] = None
    error: str = ""
    retryable: bool = False


def build_headers(api_token: str) -> dict[str, str]:
    """Build the request headers. This is the only place where the token is used.

    The result holds exactly two headers: ``Authorization`` (``Bearer <token>``) and
    ``Content-Type`` (``application/json``).
    """
    return {
        "Authorization": f"Bearer {api_token}",
        "Content-Type": "application/json",
    }


def extract_job_id(body: Any) -> Optional[str]:
    """Return the ``job_id`` of a decoded response body if it is a non-empty string.

    >>> extract_job_id({"job_id": "job_7Qm2xR9tLk", "status": "queued"})
    'job_7Qm2xR9tLk'
    >>> [extract_job_id(body) for body in ({"job_id": 123}, {"job_id": ""},
    ...                                      {"job_id": None}, {}, ["job_1"], "job_1")]
    [None, None, None, None, None, None]
    """
    if not isinstance(body, dict):
        return None
    job_id = body.get("job_id")
    if isinstance(job_id, str) and job_id:
        return job_id
    return None


def interpret_success(response: requests.Response) -> AttemptResult:
    """Turn a 200/202 response into a result. Such responses are never retried."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError:  # requests' JSONDecodeError is a subclass of ValueError
        return AttemptResult(error=f"HTTP {status}, but the response body is not valid JSON")
    job_id = extract_job_id(body)
    if job_id is None:
        return AttemptResult(
            error=f"HTTP {status}, but the response has no valid job_id (a non-empty string)")
    return AttemptResult(job_id=job_id)


def interpret_response(response: requests.Response) -> AttemptResult:
    """Classify an HTTP response by its status code.

    * 200/202: success (if the body carries a job id);
    * 400 / 401 / any other 4xx: a permanent failure, never retried;
    * 503 / any other 5xx: a server-side problem that may go away, so it is retried.
    """
    status = response.status_code
    if status in (200, 202):
        return interpret_success(response)
    if status == 400:
        return AttemptResult(error="HTTP 400 Bad Request: the CRM rejected the payload")
    if status == 401:
        return AttemptResult(error="HTTP 401 Unauthorized: the API token is invalid")
    if status == 503:
        return AttemptResult(error="HTTP 503 Service Unavailable", retryable=True)
    if 500 <= status <= 599:
        return AttemptResult(error=f"HTTP {status} server error", retryable=True)
    return AttemptResult(error=f"HTTP {status}: unexpected response from the CRM")


def send_once(user_data: list[dict[str, Any]], api_token: str) -> AttemptResult:
    """Make one POST request and classify its outcome; never raises.

    Exception messages from ``requests`` do not contain request headers, so logging their
    class name cannot leak the token. We still log only the class name to stay on the
    safe side.
    """
    try:
        response = requests.post(
            CRM_SYNC_URL,
            json=user_data,  # the list itself; requests serialises it as JSON
            headers=build_headers(api_token),
            timeout=REQUEST_TIMEOUT,
        )
    except requests.exceptions.Timeout as exc:  # ConnectTimeout and ReadTimeout included
        return AttemptResult(error=f"timeout ({type(exc).__name__})", retryable=True)
    except requests.exceptions.ConnectionError as exc:
        return AttemptResult(error=f"connection error ({type(exc).__name__})", retryable=True)
    except requests.exceptions.RequestException as exc:  # invalid URL, headers, ...
        return AttemptResult(error=f"request failed ({type(exc).__name__})")
    except ValueError as exc:  # e.g. a header value that cannot be encoded
        return AttemptResult(error=f"request could not be built ({type(exc).__name__})")
    return interpret_response(response)


def check_arguments(user_data: Any, api_token: Any) -> Optional[str]:
    """Return why the arguments cannot be sent, or ``None`` when they are fine.

    The token is checked first, and only for presence: its value is never inspected
    further or echoed back.

    >>> check_arguments([{"id": 1, "name": "Zoë", "plan": None}], None)
    'no API token was given'
    >>> check_arguments([{"id": 1, "name": "Zoë", "plan": None}], "   ")
    'no API token was given'
    """
    if not isinstance(api_token, str) or not api_token.strip():
        return "no API token was given"
    if not isinstance(user_data, list):
        return "user_data must be a list of user objects"
    try:
        json.dumps(user_data, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return f"user_data is not JSON-serialisable: {exc}"
    return None


def sync_users_to_crm(user_data: list[dict[str, Any]], api_token: str) -> Optional[str]:
    """Push ``user_data`` to the CRM and return the sync job id, or ``None`` on failure.

    Args:
        user_data: the users to sync, a JSON-serialisable list of dicts. Non-ASCII text
            and ``None`` values are sent unchanged.
        api_token: the CRM API token (a secret; only sent in the Authorization header).

    Returns:
        The CRM's ``job_id`` string, or ``None``. Every failure is logged with its HTTP
        status code or the kind of error.
    """
    problem = check_arguments(user_data, api_token)
    if problem is not None:
        logger.error("CRM sync not attempted: %s", problem)
        return None

    result = AttemptResult(error="no attempt made")
    for attempt in range(1, MAX_ATTEMPTS + 1):
        result = send_once(user_data, api_token)
        if result.job_id is not None:
            logger.info("CRM sync accepted (attempt %d): job_id=%s", attempt, result.job_id)
            return result.job_id
        logger.warning("CRM sync attempt %d of %d failed: %s", attempt, MAX_ATTEMPTS,
                       result.error)
        if not result.retryable or attempt == MAX_ATTEMPTS:
            break
        delay = BACKOFF_SECONDS[attempt - 1]
        logger.info("Retrying in %d s", delay)
        time.sleep(delay)

    logger.error("CRM sync failed: %s", result.error)
    return None


if __name__ == "__main__":
    # Demo: sync the sample users. The token comes from the environment, never from code:
    #     CRM_API_TOKEN=... python prompt_4_api_sync.py
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    with open("api_users.json", encoding="utf-8") as users_file:
        demo_users = json.load(users_file)
    demo_job_id = sync_users_to_crm(demo_users, os.environ.get("CRM_API_TOKEN", ""))
    print("job id:", demo_job_id)
