"""Push users to the CRM provider's bulk-sync endpoint."""
from __future__ import annotations

import json
import logging
import os
import time
from typing import Any, Optional

import requests

logger = logging.getLogger(__name__)

CRM_SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
MAX_ATTEMPTS = 3
BACKOFF_SECONDS = (1, 2)
REQUEST_TIMEOUT = (5, 30)
RETRYABLE_STATUS = frozenset({500, 502, 503, 504})


class _RetryableError(Exception):
    """Internal marker: the attempt failed in a way worth retrying."""


def _extract_job_id(response: requests.Response) -> Optional[str]:
    """Return the job id from a success response, or None (with a log) if unusable."""
    try:
        body = response.json()
    except ValueError:
        logger.error("CRM sync: HTTP %s response body is not valid JSON", response.status_code)
        return None
    if not isinstance(body, dict):
        logger.error("CRM sync: HTTP %s response is not a JSON object", response.status_code)
        return None
    job_id = body.get("job_id")
    if not isinstance(job_id, str) or not job_id:
        logger.error("CRM sync: HTTP %s response has no job_id", response.status_code)
        return None
    return job_id


def _attempt_sync(user_data: list, headers: dict) -> Optional[str]:
    """One POST. Returns the job id, None for a final failure, or raises _RetryableError."""
    try:
        response = requests.post(CRM_SYNC_URL, json=user_data, headers=headers,
                                 timeout=REQUEST_TIMEOUT)
    except requests.exceptions.Timeout as exc:
        raise _RetryableError("request timed out") from exc
    except requests.exceptions.ConnectionError as exc:
        raise _RetryableError("connection error") from exc
    status = response.status_code
    if status in (200, 202):
        return _extract_job_id(response)
    if status in RETRYABLE_STATUS:
        raise _RetryableError(f"HTTP {status} from CRM")
    if status == 400:
        logger.error("CRM sync failed: HTTP 400 Bad Request (payload rejected)")
    elif status == 401:
        logger.error("CRM sync failed: HTTP 401 Unauthorized (check the API token)")
    else:
        logger.error("CRM sync failed: unexpected HTTP %s", status)
    return None


def sync_users_to_crm(user_data: list, api_token: str) -> Optional[str]:
    """POST ``user_data`` to the CRM and return the sync job id, or None on failure."""
    headers = {
        "Authorization": f"Bearer {api_token}",
        "Content-Type": "application/json",
    }
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            return _attempt_sync(user_data, headers)
        except _RetryableError as exc:
            logger.warning("CRM sync attempt %d/%d failed: %s", attempt, MAX_ATTEMPTS, exc)
        except requests.exceptions.RequestException as exc:
            logger.error("CRM sync failed: request error (%s)", type(exc).__name__)
            return None
        if attempt < MAX_ATTEMPTS:
            time.sleep(BACKOFF_SECONDS[attempt - 1])
    logger.error("CRM sync failed after %d attempts", MAX_ATTEMPTS)
    return None


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("api_users.json", encoding="utf-8") as handle:
        users = json.load(handle)
    job = sync_users_to_crm(users, os.environ.get("CRM_API_TOKEN", ""))
    print(f"job id: {job}" if job else "sync failed")
