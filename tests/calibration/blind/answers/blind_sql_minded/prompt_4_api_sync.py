"""Push users to the CRM bulk-sync endpoint.

Flow per call:  build request -> send (up to 3 attempts) -> interpret response.
"""

from __future__ import annotations

import logging
import time
from typing import Any, NamedTuple

import requests

logger = logging.getLogger(__name__)

SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
TIMEOUT = (5, 30)  # (connect, read) seconds
MAX_ATTEMPTS = 3
BACKOFF = (1, 2)  # seconds to wait before the 2nd and the 3rd attempt
ACCEPTED = {200, 202}


class Outcome(NamedTuple):
    job_id: str | None
    retry: bool
    reason: str


def build_headers(api_token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_token}", "Content-Type": "application/json"}


def read_job_id(response: requests.Response) -> Outcome:
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        return Outcome(None, False, f"HTTP {status}: response body is not JSON")
    if not isinstance(body, dict):
        return Outcome(None, False, f"HTTP {status}: response JSON is not an object")
    job_id = body.get("job_id")
    if not isinstance(job_id, str) or not job_id:
        return Outcome(None, False, f"HTTP {status}: missing or invalid job_id")
    return Outcome(job_id, False, f"HTTP {status}: accepted")


def interpret(response: requests.Response) -> Outcome:
    status = response.status_code
    if status in ACCEPTED:
        return read_job_id(response)
    if status == 400:
        return Outcome(None, False, "HTTP 400 Bad Request: payload rejected")
    if status == 401:
        return Outcome(None, False, "HTTP 401 Unauthorized: invalid API token")
    if status == 503:
        return Outcome(None, True, "HTTP 503 Service Unavailable")
    if 500 <= status <= 599:
        return Outcome(None, True, f"HTTP {status} server error")
    return Outcome(None, False, f"HTTP {status}: unexpected status")


def send_once(user_data: Any, api_token: str) -> Outcome:
    try:
        response = requests.post(SYNC_URL, json=user_data, headers=build_headers(api_token), timeout=TIMEOUT)
    except requests.exceptions.Timeout:
        return Outcome(None, True, "timeout while contacting the CRM")
    except requests.exceptions.ConnectionError:
        return Outcome(None, True, "connection error while contacting the CRM")
    except requests.exceptions.RequestException as error:
        return Outcome(None, False, f"request failed: {type(error).__name__}")
    except (TypeError, ValueError) as error:
        return Outcome(None, False, f"user_data cannot be encoded as JSON: {type(error).__name__}")
    return interpret(response)


def sync_users_to_crm(user_data: list[dict[str, Any]], api_token: str) -> str | None:
    """Send ``user_data`` to the CRM; return the job id, or None when the sync failed."""
    for attempt in range(1, MAX_ATTEMPTS + 1):
        outcome = send_once(user_data, api_token)
        if outcome.job_id is not None:
            logger.info("CRM sync %s (attempt %d), job_id=%s", outcome.reason, attempt, outcome.job_id)
            return outcome.job_id
        if not outcome.retry:
            logger.error("CRM sync failed: %s", outcome.reason)
            return None
        logger.warning("CRM sync attempt %d/%d failed: %s", attempt, MAX_ATTEMPTS, outcome.reason)
        if attempt < MAX_ATTEMPTS:
            time.sleep(BACKOFF[attempt - 1])
    logger.error("CRM sync failed after %d attempts", MAX_ATTEMPTS)
    return None
