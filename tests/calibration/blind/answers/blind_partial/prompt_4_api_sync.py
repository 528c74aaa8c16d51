"""Push users to the CRM provider's bulk-sync endpoint."""

import json
import logging
import os
from typing import Any, Optional

import requests

logger = logging.getLogger(__name__)

CRM_SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
REQUEST_TIMEOUT = 30


def sync_users_to_crm(user_data: list[dict[str, Any]], api_token: str) -> Optional[str]:
    """Send the users to the CRM and return the sync job id, or None on failure."""
    headers = {
        "Authorization": f"Bearer {api_token}",
        "Content-Type": "application/json",
    }
    try:
        response = requests.post(CRM_SYNC_URL, json=user_data, headers=headers, timeout=REQUEST_TIMEOUT)
    except requests.exceptions.RequestException as exc:
        logger.error("CRM sync request failed: %s", exc.__class__.__name__)
        return None

    if response.status_code not in (200, 202):
        logger.error("CRM sync failed with HTTP status %d", response.status_code)
        return None

    job_id = response.json().get("job_id")
    logger.info("CRM sync started, job id %s", job_id)
    return job_id


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("api_users.json", encoding="utf-8") as handle:
        users = json.load(handle)
    print(sync_users_to_crm(users, os.environ.get("CRM_API_TOKEN", "")))
