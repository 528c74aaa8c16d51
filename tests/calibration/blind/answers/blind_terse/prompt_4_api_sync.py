"""Push users to the CRM bulk-sync endpoint."""
import logging
import time

import requests

log = logging.getLogger(__name__)
URL = "https://api.crm-provider.com/v1/users/sync"
ATTEMPTS, BACKOFF, TIMEOUT = 3, (1, 2), (5, 30)


def _job_id(resp: requests.Response) -> tuple[str | None, str]:
    try:
        body = resp.json()
    except ValueError:
        return None, f"HTTP {resp.status_code}: response is not JSON"
    if not isinstance(body, dict):
        return None, f"HTTP {resp.status_code}: body is not a JSON object"
    job = body.get("job_id")
    return (job, "") if isinstance(job, str) and job else (None, f"HTTP {resp.status_code}: missing/invalid job_id {job!r}")


def _attempt(user_data: list, headers: dict) -> tuple[str | None, bool, str]:
    """One POST -> (job_id, retryable, error description)."""
    try:
        resp = requests.post(URL, json=user_data, headers=headers, timeout=TIMEOUT)
    except requests.exceptions.Timeout:
        return None, True, "timeout"
    except requests.exceptions.ConnectionError:
        return None, True, "connection error"
    except (requests.exceptions.RequestException, TypeError, ValueError) as err:
        return None, False, f"request error: {type(err).__name__}"
    if resp.status_code in (200, 202):
        job, error = _job_id(resp)
        return job, False, error
    return None, resp.status_code >= 500, f"HTTP {resp.status_code}"


def sync_users_to_crm(user_data: list, api_token: str) -> str | None:
    headers = {"Authorization": f"Bearer {api_token}", "Content-Type": "application/json"}
    for attempt in range(1, ATTEMPTS + 1):
        job, retry, error = _attempt(user_data, headers)
        if job:
            log.info("CRM sync queued: job_id=%s", job)
            return job
        log.warning("CRM sync attempt %d/%d failed: %s", attempt, ATTEMPTS, error)
        if not retry or attempt == ATTEMPTS:
            break
        time.sleep(BACKOFF[attempt - 1])
    log.error("CRM sync failed: %s", error)
    return None
