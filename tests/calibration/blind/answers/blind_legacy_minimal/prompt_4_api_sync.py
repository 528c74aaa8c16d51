import logging
import time

import requests

logger = logging.getLogger(__name__)

CRM_SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
MAX_ATTEMPTS = 3
RETRY_DELAYS = [1, 2]
TIMEOUT_SECONDS = 30


def _read_job_id(response):
    try:
        body = response.json()
    except ValueError:
        logger.error("CRM sync failed: HTTP %s response is not valid JSON", response.status_code)
        return None
    if not isinstance(body, dict):
        logger.error("CRM sync failed: HTTP %s response is not a JSON object", response.status_code)
        return None
    job_id = body.get("job_id")
    if job_id is None:
        logger.error("CRM sync failed: response has no job_id")
        return None
    logger.info("CRM sync started, job_id=%s", job_id)
    return job_id


def sync_users_to_crm(user_data, api_token):
    headers = {
        "Authorization": "Bearer " + api_token,
        "Content-Type": "application/json",
    }
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            response = requests.post(CRM_SYNC_URL, json=user_data, headers=headers,
                                     timeout=TIMEOUT_SECONDS)
        except requests.exceptions.Timeout:
            logger.error("CRM sync failed: request timed out (timeout after %s s)", TIMEOUT_SECONDS)
            return None
        except requests.exceptions.RequestException as e:
            logger.error("CRM sync failed: connection error (%s)", type(e).__name__)
            return None

        if response.status_code in (200, 202):
            return _read_job_id(response)
        if response.status_code == 503 and attempt < MAX_ATTEMPTS:
            delay = RETRY_DELAYS[attempt - 1]
            logger.warning("CRM returned 503 (attempt %d/%d), retrying in %d s",
                           attempt, MAX_ATTEMPTS, delay)
            time.sleep(delay)
            continue
        logger.error("CRM sync failed: HTTP %s", response.status_code)
        return None
    return None
