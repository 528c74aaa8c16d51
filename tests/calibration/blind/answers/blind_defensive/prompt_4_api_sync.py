"""Bulk-sync users to the CRM provider.

Public API: ``sync_users_to_crm(user_data, api_token) -> Optional[str]``.

The function never raises and never exits the process; every failure is
logged with the HTTP status or the kind of error, and ``None`` is returned.
The API token is only ever placed in the Authorization header.
"""

import contextlib
import json
import logging
import time
from typing import Any, Dict, List, Optional

import requests

logger = logging.getLogger(__name__)
logger.addHandler(logging.NullHandler())

CRM_SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
CONNECT_TIMEOUT_SECONDS = 5
READ_TIMEOUT_SECONDS = 30
MAX_ATTEMPTS = 3
BACKOFF_SECONDS = (1, 2)  # pause before attempt 2 and before attempt 3
RETRYABLE_STATUS_CODES = frozenset({500, 502, 503, 504})
SUCCESS_STATUS_CODES = frozenset({200, 202})


class CrmSyncError(Exception):
    """Base class for sync failures; the message is safe to log (no secrets)."""


class RetryableSyncError(CrmSyncError):
    """Transient failure: 5xx, connection error or timeout."""


class PermanentSyncError(CrmSyncError):
    """Failure that another attempt would not fix: 4xx, bad success body, bad input."""


def _validate_inputs(user_data: Any, api_token: Any) -> None:
    """Reject inputs that cannot possibly produce a valid request."""
    if not isinstance(user_data, list):
        raise PermanentSyncError(f"user_data must be a list, got {type(user_data).__name__}")
    if not isinstance(api_token, str) or not api_token.strip():
        raise PermanentSyncError("api_token must be a non-empty string")
    if "\r" in api_token or "\n" in api_token:
        raise PermanentSyncError("api_token contains line breaks and cannot be sent in a header")
    try:
        json.dumps(user_data, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise PermanentSyncError(f"user_data is not JSON-serialisable: {exc}") from exc


def _safe_text(text: str, api_token: str) -> str:
    """Mask the token if a library ever echoes it back in an error message."""
    return text.replace(api_token, "[REDACTED]") if api_token else text


def _send(user_data: List[Any], api_token: str) -> requests.Response:
    """Perform one POST; translate transport errors into our error types."""
    headers = {
        "Authorization": f"Bearer {api_token}",
        "Content-Type": "application/json",
        "Accept": "application/json",
    }
    try:
        return requests.post(
            CRM_SYNC_URL,
            json=user_data,
            headers=headers,
            timeout=(CONNECT_TIMEOUT_SECONDS, READ_TIMEOUT_SECONDS),
        )
    except requests.exceptions.Timeout as exc:
        raise RetryableSyncError(f"request timed out ({type(exc).__name__})") from exc
    except requests.exceptions.ConnectionError as exc:
        message = _safe_text(str(exc), api_token)
        raise RetryableSyncError(f"connection error: {message}") from exc
    except requests.exceptions.RequestException as exc:
        message = _safe_text(str(exc), api_token)
        raise PermanentSyncError(f"request failed ({type(exc).__name__}): {message}") from exc


def _job_id_from_success(response: requests.Response) -> str:
    """Extract a non-empty string job_id from a 200/202 response."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError as exc:
        raise PermanentSyncError(f"HTTP {status} but the response body is not valid JSON") from exc
    if not isinstance(body, dict):
        raise PermanentSyncError(f"HTTP {status} but the response JSON is not an object")
    if "job_id" not in body:
        raise PermanentSyncError(f"HTTP {status} but the response has no job_id")
    job_id = body["job_id"]
    if not isinstance(job_id, str) or job_id == "":
        raise PermanentSyncError(f"HTTP {status} but job_id is invalid ({type(job_id).__name__}: {job_id!r})")
    return job_id


def _raise_for_failure_status(status: int) -> None:
    """Map a non-success HTTP status to the right error type."""
    if status == 400:
        raise PermanentSyncError("HTTP 400 Bad Request: the CRM rejected the payload")
    if status == 401:
        raise PermanentSyncError("HTTP 401 Unauthorized: the API token is invalid or expired")
    if status == 503:
        raise RetryableSyncError("HTTP 503 Service Unavailable")
    if status in RETRYABLE_STATUS_CODES or 500 <= status <= 599:
        raise RetryableSyncError(f"HTTP {status} server error")
    raise PermanentSyncError(f"HTTP {status}: unexpected response status")


def _attempt_sync(user_data: List[Any], api_token: str) -> str:
    """One attempt: send, check the status, return the job id or raise."""
    response = _send(user_data, api_token)
    with contextlib.closing(response):
        status = response.status_code
        if not isinstance(status, int):
            raise PermanentSyncError(f"response has no usable HTTP status ({status!r})")
        if status in SUCCESS_STATUS_CODES:
            return _job_id_from_success(response)
        _raise_for_failure_status(status)
    raise PermanentSyncError("unreachable: response was neither success nor failure")


def _pause_before_retry(attempt: int) -> None:
    """Sleep between attempts (1 s, then 2 s)."""
    delay = BACKOFF_SECONDS[min(attempt - 1, len(BACKOFF_SECONDS) - 1)]
    logger.info("Retrying CRM sync in %s s (attempt %d of %d)", delay, attempt + 1, MAX_ATTEMPTS)
    time.sleep(delay)


def sync_users_to_crm(user_data: List[Dict[str, Any]], api_token: str) -> Optional[str]:
    """Push ``user_data`` to the CRM; return the job id, or ``None`` on failure.

    503 responses, other 5xx responses, connection errors and timeouts are
    retried (at most 3 attempts in total). 4xx responses and 200/202 responses
    are never retried. This function never raises.
    """
    try:
        _validate_inputs(user_data, api_token)
    except PermanentSyncError as exc:
        logger.error("CRM sync not attempted: %s", exc)
        return None
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            job_id = _attempt_sync(user_data, api_token)
        except RetryableSyncError as exc:
            logger.warning("CRM sync attempt %d/%d failed: %s", attempt, MAX_ATTEMPTS, exc)
            if attempt < MAX_ATTEMPTS:
                _pause_before_retry(attempt)
            continue
        except PermanentSyncError as exc:
            logger.error("CRM sync failed (not retried): %s", exc)
            return None
        logger.info("CRM sync accepted: %d user(s), job_id=%s", len(user_data), job_id)
        return job_id
    logger.error("CRM sync failed: no success after %d attempts", MAX_ATTEMPTS)
    return None
