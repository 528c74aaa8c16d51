"""Push users to the CRM provider's bulk-sync endpoint.

Public entry point: :func:`sync_users_to_crm`.

Concurrency note: the CRM treats a bulk sync as one job, and two overlapping
syncs from the same service would just race each other.  Calls are therefore
serialised with a module-level lock, so it is safe to call the function from
several worker threads; the retry loop runs entirely inside the lock.
"""

import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Optional

import requests

logger = logging.getLogger(__name__)

CRM_SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
MAX_ATTEMPTS = 3
BACKOFF_BASE_SECONDS = 1.0            # 1 s, then 2 s
REQUEST_TIMEOUT = (5.0, 30.0)         # (connect, read) seconds
SUCCESS_STATUSES = frozenset({200, 202})
STATUS_HINTS = {
    400: "payload rejected",
    401: "API token invalid",
    403: "forbidden",
    404: "endpoint not found",
    429: "rate limited",
    503: "service temporarily unavailable",
}

_SYNC_LOCK = threading.Lock()


@dataclass(frozen=True)
class AttemptResult:
    """What one HTTP attempt produced: a job id, and whether to try again."""

    job_id: Optional[str] = None
    retryable: bool = False


def _auth_headers(api_token: str) -> dict[str, str]:
    """Request headers; the token lives here and nowhere else."""
    return {
        "Authorization": f"Bearer {api_token}",
        "Content-Type": "application/json",
        "Accept": "application/json",
    }


def _describe(status: int) -> str:
    """Human-readable hint for an HTTP status code."""
    if status in STATUS_HINTS:
        return STATUS_HINTS[status]
    return "server error" if status >= 500 else "client error"


def _extract_job_id(response: requests.Response) -> Optional[str]:
    """Return the non-empty string ``job_id`` of a 200/202 body, else ``None``."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        logger.error("CRM answered HTTP %s but the body is not JSON", status)
        return None
    if not isinstance(body, dict):
        logger.error("CRM answered HTTP %s but the JSON body is not an object (%s)", status, type(body).__name__)
        return None
    job_id = body.get("job_id")
    if not isinstance(job_id, str) or not job_id:
        logger.error("CRM answered HTTP %s with a missing or invalid job_id: %r", status, job_id)
        return None
    logger.info("CRM accepted the sync (HTTP %s), job id %s", status, job_id)
    return job_id


def _interpret(response: requests.Response) -> AttemptResult:
    """Map an HTTP response to an AttemptResult."""
    status = response.status_code
    if status in SUCCESS_STATUSES:
        return AttemptResult(job_id=_extract_job_id(response))
    if 500 <= status <= 599:
        logger.warning("CRM sync failed with HTTP %s (%s)", status, _describe(status))
        return AttemptResult(retryable=True)
    logger.error("CRM sync failed with HTTP %s (%s); not retrying", status, _describe(status))
    return AttemptResult()


def _attempt(user_data: Any, api_token: str) -> AttemptResult:
    """Send one POST and classify the outcome; never raises."""
    try:
        response = requests.post(CRM_SYNC_URL, json=user_data, headers=_auth_headers(api_token),
                                 timeout=REQUEST_TIMEOUT)
    except requests.exceptions.Timeout as error:
        logger.warning("CRM sync attempt timed out (%s)", type(error).__name__)
        return AttemptResult(retryable=True)
    except requests.exceptions.ConnectionError as error:
        logger.warning("CRM sync attempt hit a connection error (%s)", type(error).__name__)
        return AttemptResult(retryable=True)
    except requests.exceptions.RequestException as error:
        # The exception text is not logged: some (e.g. InvalidHeader) quote header values.
        logger.error("CRM sync request could not be sent (%s)", type(error).__name__)
        return AttemptResult()
    except (TypeError, ValueError) as error:
        logger.error("user data could not be encoded as JSON (%s)", type(error).__name__)
        return AttemptResult()
    return _interpret(response)


def _sync_with_retries(user_data: Any, api_token: str) -> Optional[str]:
    """Up to MAX_ATTEMPTS attempts with exponential back-off between them."""
    for attempt in range(1, MAX_ATTEMPTS + 1):
        logger.info("CRM sync attempt %d/%d for %d user(s)", attempt, MAX_ATTEMPTS, len(user_data))
        result = _attempt(user_data, api_token)
        if not result.retryable:
            return result.job_id
        if attempt < MAX_ATTEMPTS:
            delay = BACKOFF_BASE_SECONDS * 2 ** (attempt - 1)
            logger.info("retrying in %.0f s", delay)
            time.sleep(delay)
    logger.error("CRM sync failed: giving up after %d attempts", MAX_ATTEMPTS)
    return None


def sync_users_to_crm(user_data: list[dict[str, Any]], api_token: str) -> Optional[str]:
    """Send ``user_data`` to the CRM bulk-sync endpoint and return the job id.

    Returns ``None`` when the sync fails (the reason is logged).  Never raises.
    Concurrent callers are serialised so that only one sync is in flight.
    """
    if not isinstance(user_data, list):
        logger.error("CRM sync not attempted: user_data must be a list, got %s", type(user_data).__name__)
        return None
    if not isinstance(api_token, str) or not api_token.strip():
        logger.error("CRM sync not attempted: no API token given")
        return None
    with _SYNC_LOCK:
        return _sync_with_retries(user_data, api_token)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(threadName)s %(message)s")
    with open("api_users.json", encoding="utf-8") as handle:
        users = json.load(handle)
    job = sync_users_to_crm(users, os.environ.get("CRM_API_TOKEN", ""))
    print(f"job id: {job}" if job else "sync failed (see log)")
