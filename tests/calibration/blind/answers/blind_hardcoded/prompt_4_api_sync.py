"""Sync users to the CRM provider."""

import logging

import requests

logger = logging.getLogger(__name__)

CRM_SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
REQUEST_TIMEOUT = 30


def sync_users_to_crm(user_data, api_token):
    """POST the users to the CRM bulk-sync endpoint and return the job id (or None)."""
    headers = {
        "Authorization": f"Bearer {api_token}",
        "Content-Type": "application/json",
    }
    logger.info("Syncing %d users to the CRM", len(user_data))
    try:
        response = requests.post(CRM_SYNC_URL, json=user_data, headers=headers, timeout=REQUEST_TIMEOUT)
        response.raise_for_status()
        job_id = response.json().get("job_id")
        logger.info("CRM sync accepted (HTTP %s), job id %s", response.status_code, job_id)
        return job_id
    except requests.exceptions.HTTPError as error:
        logger.error("CRM sync failed with HTTP %s", error.response.status_code)
        return None
    except requests.exceptions.RequestException as error:
        logger.error("CRM sync failed: %s", error)
        return None
