"""
CRM user synchronisation.

Sends the user list to the CRM provider's bulk-sync endpoint and returns the
job id of the sync job.
"""

import logging
import time
from typing import Any, Dict, List, Optional

import requests
import urllib3

urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)

logger = logging.getLogger(__name__)

CRM_SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
MAX_RETRIES = 3
BACKOFF_FACTOR = 1  # seconds; doubled after each failed attempt
REQUEST_TIMEOUT = 30  # seconds


def _build_headers(api_token: str) -> Dict[str, str]:
    return {
        "Authorization": f"Bearer {api_token}",
        "Content-Type": "application/json",
        "Accept": "application/json",
    }


def _extract_job_id(response: requests.Response) -> Optional[str]:
    """Return the job id from a successful response, or None if it is invalid."""
    try:
        data = response.json()
    except ValueError:
        logger.error("CRM returned HTTP %s but the response is not valid JSON: %s",
                     response.status_code, response.text[:200])
        return None

    if not isinstance(data, dict):
        logger.error("CRM returned a JSON %s instead of an object", type(data).__name__)
        return None

    job_id = data.get("job_id")
    if not isinstance(job_id, str) or not job_id:
        logger.error("CRM response has a missing or invalid job_id: %r", job_id)
        return None
    return job_id


def sync_users_to_crm(user_data: List[Dict[str, Any]], api_token: str) -> Optional[str]:
    """
    Sync users to the CRM.

    Args:
        user_data: list of user dictionaries
        api_token: CRM API token

    Returns:
        The job id returned by the CRM, or None if the sync failed.
    """
    headers = _build_headers(api_token)
    logger.info("Syncing %d users to %s (headers: %s)", len(user_data), CRM_SYNC_URL, headers)

    for attempt in range(1, MAX_RETRIES + 1):
        try:
            response = requests.post(
                CRM_SYNC_URL,
                json=user_data,
                headers=headers,
                timeout=REQUEST_TIMEOUT,
                verify=False,
            )
        except requests.exceptions.Timeout:
            logger.warning("Attempt %d/%d: request timed out (timeout)", attempt, MAX_RETRIES)
        except requests.exceptions.ConnectionError as exc:
            logger.warning("Attempt %d/%d: connection error: %s", attempt, MAX_RETRIES, exc)
        except requests.exceptions.RequestException as exc:
            logger.error("Request failed: %s", exc)
            return None
        else:
            status = response.status_code
            if status in (200, 202):
                return _extract_job_id(response)
            if status == 400:
                logger.error("CRM rejected the payload (400 Bad Request): %s", response.text[:200])
                return None
            if status == 401:
                logger.error("CRM rejected the API token (401 Unauthorized)")
                return None
            if status < 500:
                logger.error("CRM returned client error %d", status)
                return None
            logger.warning("Attempt %d/%d: CRM returned server error %d", attempt, MAX_RETRIES, status)

        if attempt < MAX_RETRIES:
            delay = BACKOFF_FACTOR * (2 ** (attempt - 1))
            logger.info("Retrying in %s seconds...", delay)
            time.sleep(delay)

    logger.error("CRM sync failed after %d attempts", MAX_RETRIES)
    return None
