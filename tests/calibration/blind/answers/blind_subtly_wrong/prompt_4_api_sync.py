"""Sync users to the CRM provider's bulk-sync API."""
import json
import logging
import os
import time
from typing import Any, Dict, List, Optional

import requests

logger = logging.getLogger(__name__)

CRM_SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
REQUEST_TIMEOUT = 30  # seconds
MAX_RETRIES = 3
BACKOFF_FACTOR = 1  # seconds; doubled after each failed attempt
RETRYABLE_STATUS_CODES = {429, 500, 502, 503, 504}


def _build_headers(api_token: str) -> Dict[str, str]:
    return {
        "Authorization": f"Bearer {api_token}",
        "Content-Type": "application/json",
    }


def _parse_job_id(response: requests.Response) -> Optional[str]:
    """Extract the job id from a successful response, or None if it is unusable."""
    try:
        data = response.json()
    except ValueError:
        logger.error("CRM returned HTTP %s with a non-JSON body", response.status_code)
        return None
    if not isinstance(data, dict):
        logger.error("CRM returned HTTP %s with an unexpected JSON body (not an object)",
                     response.status_code)
        return None
    job_id = data.get("job_id")
    if job_id is None:
        logger.error("CRM response (HTTP %s) is missing job_id", response.status_code)
        return None
    return str(job_id)


def _backoff(attempt: int) -> None:
    delay = BACKOFF_FACTOR * (2 ** attempt)
    logger.info("Retrying in %s seconds...", delay)
    time.sleep(delay)


def sync_users_to_crm(user_data: List[Dict[str, Any]], api_token: str) -> Optional[str]:
    """Push users to the CRM. Returns the sync job id, or None if the sync failed."""
    headers = _build_headers(api_token)

    for attempt in range(MAX_RETRIES + 1):
        try:
            response = requests.post(CRM_SYNC_URL, json=user_data, headers=headers,
                                     timeout=REQUEST_TIMEOUT)
        except requests.exceptions.Timeout:
            logger.warning("Attempt %d: timeout while calling the CRM", attempt + 1)
        except requests.exceptions.ConnectionError as e:
            logger.warning("Attempt %d: connection error: %s", attempt + 1, e)
        except requests.exceptions.RequestException as e:
            logger.error("Request to CRM failed: %s", e)
            return None
        else:
            if response.status_code in (200, 202):
                job_id = _parse_job_id(response)
                if job_id is not None:
                    logger.info("CRM sync started, job id %s", job_id)
                return job_id
            if response.status_code not in RETRYABLE_STATUS_CODES:
                logger.error("CRM sync failed with HTTP %s", response.status_code)
                return None
            logger.warning("Attempt %d: CRM returned HTTP %s", attempt + 1,
                           response.status_code)

        if attempt < MAX_RETRIES:
            _backoff(attempt)

    logger.error("CRM sync failed after %d attempts", MAX_RETRIES + 1)
    return None


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("api_users.json", encoding="utf-8") as f:
        users = json.load(f)
    token = os.environ.get("CRM_API_TOKEN")
    if not token:
        print("Set CRM_API_TOKEN to run this example")
    else:
        print(sync_users_to_crm(users, token))
