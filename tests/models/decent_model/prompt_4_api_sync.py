import logging

import requests

logger = logging.getLogger(__name__)

CRM_URL = "https://api.crm-provider.com/v1/users/sync"
MAX_RETRIES = 3


def sync_users_to_crm(user_data, api_token):
    """Send user_data to the CRM bulk-sync endpoint and return the job id (or None)."""
    headers = {
        "Authorization": f"Bearer {api_token}",
        "Content-Type": "application/json",
    }

    for attempt in range(1, MAX_RETRIES + 1):
        try:
            response = requests.post(CRM_URL, json=user_data, headers=headers, timeout=30)
        except requests.exceptions.Timeout:
            logger.warning("Attempt %d: request timed out", attempt)
            continue
        except requests.exceptions.ConnectionError:
            logger.warning("Attempt %d: connection error", attempt)
            continue

        if response.status_code in (200, 202):
            try:
                data = response.json()
                job_id = data["job_id"]
                logger.info("Sync accepted, job id %s", job_id)
                return job_id
            except Exception as e:
                logger.error("Invalid response from CRM (status %s): %s",
                             response.status_code, e)
                return None
        elif response.status_code == 400:
            logger.error("Sync failed: 400 Bad Request - payload rejected: %s", response.text)
            return None
        elif response.status_code == 401:
            logger.error("Sync failed: 401 Unauthorized - invalid API token")
            return None
        elif response.status_code == 503:
            logger.warning("Attempt %d: 503 Service Unavailable, retrying", attempt)
            continue
        else:
            logger.error("Sync failed with unexpected status %s", response.status_code)
            return None

    logger.error("Sync failed after %d attempts", MAX_RETRIES)
    return None
