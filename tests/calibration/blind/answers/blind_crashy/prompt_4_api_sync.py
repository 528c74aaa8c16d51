"""
Sync users to the CRM provider's bulk-sync endpoint.
"""

import json
import logging
import os
import time

import requests

logger = logging.getLogger(__name__)

CRM_SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
MAX_ATTEMPTS = 3
INITIAL_BACKOFF = 1  # seconds, doubled after each failed attempt
REQUEST_TIMEOUT = 30  # seconds


def sync_users_to_crm(user_data, api_token):
    """
    Send the list of users to the CRM bulk-sync endpoint.

    Args:
        user_data: list of user dicts
        api_token: CRM API token (sent as a Bearer token)

    Returns:
        The job id returned by the CRM, or None if the sync failed.
    """
    headers = {
        "Authorization": f"Bearer {api_token}",
        "Content-Type": "application/json",
    }
    backoff = INITIAL_BACKOFF

    for attempt in range(1, MAX_ATTEMPTS + 1):
        logger.info("Syncing %d users to CRM (attempt %d/%d)", len(user_data), attempt, MAX_ATTEMPTS)
        try:
            response = requests.post(CRM_SYNC_URL, json=user_data, headers=headers, timeout=REQUEST_TIMEOUT)
        except requests.exceptions.Timeout:
            logger.warning("Request to CRM timed out (attempt %d/%d)", attempt, MAX_ATTEMPTS)
            if attempt < MAX_ATTEMPTS:
                time.sleep(backoff)
                backoff *= 2
            continue

        if response.status_code in (200, 202):
            try:
                data = response.json()
            except ValueError:
                logger.error("CRM returned status %d but the response is not valid JSON", response.status_code)
                return None
            job_id = data.get("job_id")
            if not job_id:
                logger.error("CRM response does not contain a job_id")
                return None
            logger.info("Sync accepted by CRM, job id: %s", job_id)
            return job_id

        if response.status_code == 503:
            logger.warning("CRM service unavailable (503), attempt %d/%d", attempt, MAX_ATTEMPTS)
            if attempt < MAX_ATTEMPTS:
                time.sleep(backoff)
                backoff *= 2
            continue

        if response.status_code == 400:
            logger.error("CRM rejected the payload (400 Bad Request): %s", response.text)
        elif response.status_code == 401:
            logger.error("CRM rejected the API token (401 Unauthorized)")
        else:
            logger.error("CRM sync failed with unexpected status %d: %s", response.status_code, response.text)
        return None

    logger.error("CRM sync failed after %d attempts", MAX_ATTEMPTS)
    return None


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("api_users.json", "r", encoding="utf-8") as f:
        users = json.load(f)
    job = sync_users_to_crm(users, os.environ.get("CRM_API_TOKEN"))
    print("Job id:", job)
