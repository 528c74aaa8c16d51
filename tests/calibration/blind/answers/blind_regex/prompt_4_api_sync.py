"""Push users to the CRM provider's bulk-sync endpoint."""

import logging
import os
import re
import time
from typing import Any

import requests

logger = logging.getLogger(__name__)

CRM_SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
REQUEST_TIMEOUT = (5, 30)  # (connect, read) seconds
MAX_ATTEMPTS = 3
BACKOFF_SECONDS = (1, 2)  # pause after attempt 1, after attempt 2

SUCCESS_STATUS_RE = re.compile(r"20[02]")
SERVER_ERROR_RE = re.compile(r"5[0-9]{2}")
# Anything that looks like an Authorization credential inside a message.
BEARER_RE = re.compile(r"(?i)bearer\s+\S+")


def _redact(text: str, api_token: str) -> str:
    """Remove the token (and any bearer credential) from a message before logging it."""
    if api_token:
        text = re.sub(re.escape(api_token), "[REDACTED]", text)
    return BEARER_RE.sub("Bearer [REDACTED]", text)


def _describe_exception(exc: BaseException, api_token: str) -> str:
    """Exception class plus its (redacted) message."""
    return f"{type(exc).__name__}: {_redact(str(exc), api_token)}"


def _job_id_from(response: requests.Response) -> str | None:
    """Extract a non-empty string job_id from a 200/202 response, logging why not."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        logger.error("CRM sync failed: HTTP %s response body is not JSON", status)
        return None
    if not isinstance(body, dict):
        logger.error("CRM sync failed: HTTP %s response JSON is not an object", status)
        return None
    job_id = body.get("job_id")
    if not isinstance(job_id, str) or job_id == "":
        logger.error("CRM sync failed: HTTP %s response has a missing or invalid job_id (%r)", status, job_id)
        return None
    return job_id


def _post_once(user_data: Any, api_token: str) -> requests.Response:
    """One POST attempt; exceptions are left to the caller."""
    return requests.post(
        CRM_SYNC_URL,
        json=user_data,
        headers={"Authorization": f"Bearer {api_token}", "Content-Type": "application/json"},
        timeout=REQUEST_TIMEOUT,
    )


def _attempt(user_data: Any, api_token: str) -> tuple[bool, str | None]:
    """Run one attempt. Returns (retry_allowed, job_id)."""
    try:
        response = _post_once(user_data, api_token)
    except (requests.exceptions.ConnectionError, requests.exceptions.Timeout) as exc:
        kind = "timeout" if isinstance(exc, requests.exceptions.Timeout) else "connection error"
        logger.warning("CRM request failed with a %s (%s)", kind, _describe_exception(exc, api_token))
        return True, None
    except (requests.exceptions.RequestException, TypeError, ValueError) as exc:
        logger.error("CRM sync failed: request not sent (%s)", _describe_exception(exc, api_token))
        return False, None
    status = str(response.status_code)
    if SUCCESS_STATUS_RE.fullmatch(status):
        return False, _job_id_from(response)
    if SERVER_ERROR_RE.fullmatch(status):
        logger.warning("CRM answered HTTP %s (server error)", status)
        return True, None
    logger.error("CRM sync failed: HTTP %s (client error or unexpected status, not retried)", status)
    return False, None


def sync_users_to_crm(user_data: list[dict[str, Any]], api_token: str) -> str | None:
    """POST user_data to the CRM; return the job id, or None on failure. Never raises."""
    for attempt in range(1, MAX_ATTEMPTS + 1):
        retry_allowed, job_id = _attempt(user_data, api_token)
        if job_id is not None:
            logger.info("CRM sync accepted on attempt %d: job_id=%s", attempt, job_id)
            return job_id
        if not retry_allowed:
            return None
        if attempt < MAX_ATTEMPTS:
            pause = BACKOFF_SECONDS[min(attempt, len(BACKOFF_SECONDS)) - 1]
            logger.info("retrying in %s s (attempt %d of %d failed)", pause, attempt, MAX_ATTEMPTS)
            time.sleep(pause)
    logger.error("CRM sync failed: giving up after %d attempts", MAX_ATTEMPTS)
    return None


if __name__ == "__main__":
    import json

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    with open("api_users.json", encoding="utf-8") as handle:
        users = json.load(handle)
    print(sync_users_to_crm(users, os.environ.get("CRM_API_TOKEN", "")))
