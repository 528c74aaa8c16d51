"""Bulk user sync to the CRM provider."""

import logging
import os
import time
from typing import Any, Dict, List, Optional

import requests

logger = logging.getLogger(__name__)

CRM_SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
REQUEST_TIMEOUT = 30  # seconds
MAX_ATTEMPTS = 3
BACKOFF_SECONDS = 1  # doubled after every failed attempt
RETRYABLE_STATUS_CODES = {408, 429, 500, 502, 503, 504}


def _build_headers(api_token: str) -> Dict[str, str]:
    return {
        "Authorization": f"Bearer {api_token}",
        "Content-Type": "application/json",
    }


def _parse_job_id(response: requests.Response) -> Optional[str]:
    """Extract the job id from a successful CRM response."""
    try:
        payload = response.json()
    except ValueError:
        logger.error("CRM returned HTTP %s with a non-JSON body", response.status_code)
        return None
    if not isinstance(payload, dict):
        logger.error("CRM returned HTTP %s with an unexpected JSON body", response.status_code)
        return None
    job_id = payload.get("job_id")
    if job_id is None:
        logger.error("CRM returned HTTP %s without a job_id", response.status_code)
        return None
    return str(job_id)


def _log_http_error(response: requests.Response, attempt: int) -> None:
    status = response.status_code
    if status == 400:
        logger.error("CRM rejected the payload (HTTP 400 Bad Request)")
    elif status == 401:
        logger.error("CRM rejected the API token (HTTP 401 Unauthorized)")
    elif status == 503:
        logger.warning("CRM unavailable (HTTP 503), attempt %d/%d", attempt, MAX_ATTEMPTS)
    else:
        logger.warning("CRM returned HTTP %s, attempt %d/%d", status, attempt, MAX_ATTEMPTS)


def sync_users_to_crm(user_data: List[Dict[str, Any]], api_token: str) -> Optional[str]:
    """Send the user list to the CRM bulk-sync endpoint.

    Returns the CRM job id on success, or None if the sync failed.
    """
    delay = BACKOFF_SECONDS
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            response = requests.post(
                CRM_SYNC_URL,
                json=user_data,
                headers=_build_headers(api_token),
                timeout=REQUEST_TIMEOUT,
            )
        except (requests.exceptions.ConnectionError, requests.exceptions.Timeout) as exc:
            logger.warning("Request to CRM failed (attempt %d/%d): %s", attempt, MAX_ATTEMPTS, exc)
        except (requests.exceptions.RequestException, TypeError, ValueError) as exc:
            logger.error("Could not send request to CRM: %s", exc)
            return None
        else:
            if response.status_code in (200, 202):
                return _parse_job_id(response)
            _log_http_error(response, attempt)
            if response.status_code not in RETRYABLE_STATUS_CODES:
                return None

        if attempt < MAX_ATTEMPTS:
            time.sleep(delay)
            delay *= 2

    logger.error("CRM sync failed after %d attempts", MAX_ATTEMPTS)
    return None


if __name__ == "__main__":
    import json

    logging.basicConfig(level=logging.INFO)
    with open("api_users.json", encoding="utf-8") as handle:
        users = json.load(handle)
    job = sync_users_to_crm(users, os.environ.get("CRM_API_TOKEN", ""))
    print(f"Sync job id: {job}")
