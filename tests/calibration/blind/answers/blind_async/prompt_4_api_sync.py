"""Bulk-sync users to the CRM provider.

``sync_users_to_crm`` is a plain synchronous function (the public contract);
internally the work is an asyncio coroutine that runs the blocking ``requests``
call in a worker thread, so the same code can later be awaited directly from
async services via ``sync_users_to_crm_async``.
"""
import asyncio
import concurrent.futures
import logging
import time
from typing import Any, NamedTuple, Optional

import requests

log = logging.getLogger(__name__)

CRM_SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
MAX_ATTEMPTS = 3
BACKOFF_SECONDS = (1.0, 2.0)      # pause before the 2nd and the 3rd attempt
REQUEST_TIMEOUT = (5.0, 30.0)     # (connect, read) seconds

STATUS_HINTS = {
    400: "payload rejected by the CRM",
    401: "API token rejected",
    503: "CRM temporarily unavailable",
}


class Outcome(NamedTuple):
    job_id: Optional[str]
    retry: bool
    reason: str


def _job_id_outcome(response: requests.Response) -> Outcome:
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        return Outcome(None, False, f"HTTP {status} response is not valid JSON")
    if not isinstance(body, dict):
        return Outcome(None, False, f"HTTP {status} JSON body is not an object")
    job_id = body.get("job_id")
    if isinstance(job_id, str) and job_id:
        return Outcome(job_id, False, "")
    return Outcome(None, False, f"HTTP {status} response has a missing or invalid job_id: {job_id!r}")


def _status_outcome(response: requests.Response) -> Outcome:
    status = response.status_code
    if status in (200, 202):
        return _job_id_outcome(response)
    hint = STATUS_HINTS.get(status, "server error" if status >= 500 else "request refused")
    # 503 must be retried; other 5xx are transient too. 4xx never are.
    return Outcome(None, status >= 500, f"HTTP {status} ({hint})")


async def _attempt(user_data: Any, headers: dict) -> Outcome:
    try:
        response = await asyncio.to_thread(
            requests.post, CRM_SYNC_URL, json=user_data, headers=headers, timeout=REQUEST_TIMEOUT
        )
    except requests.exceptions.Timeout:
        return Outcome(None, True, "timeout: the request timed out")
    except requests.exceptions.ConnectionError:
        return Outcome(None, True, "connection error")
    except requests.exceptions.RequestException as exc:
        return Outcome(None, False, f"request failed: {type(exc).__name__}")
    except (TypeError, ValueError) as exc:
        return Outcome(None, False, f"user data could not be encoded as JSON: {type(exc).__name__}")
    return _status_outcome(response)


async def sync_users_to_crm_async(user_data: list, api_token: str) -> Optional[str]:
    """Async implementation: up to MAX_ATTEMPTS tries with back-off."""
    headers = {"Authorization": f"Bearer {api_token}", "Content-Type": "application/json"}
    for attempt in range(1, MAX_ATTEMPTS + 1):
        outcome = await _attempt(user_data, headers)
        if outcome.job_id is not None:
            log.info("CRM accepted the sync: job %s", outcome.job_id)
            return outcome.job_id
        if not outcome.retry or attempt == MAX_ATTEMPTS:
            log.error("CRM sync failed after %d attempt(s): %s", attempt, outcome.reason)
            return None
        delay = BACKOFF_SECONDS[attempt - 1]
        log.warning("CRM sync attempt %d/%d failed (%s); retrying in %.0f s",
                    attempt, MAX_ATTEMPTS, outcome.reason, delay)
        # time.sleep in a worker thread: a real blocking back-off that does not stall the loop.
        await asyncio.to_thread(time.sleep, delay)
    return None


def sync_users_to_crm(user_data: list, api_token: str) -> Optional[str]:
    """Send ``user_data`` to the CRM bulk-sync endpoint; return the job id or ``None``."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # the normal case: no event loop in this thread
        return asyncio.run(sync_users_to_crm_async(user_data, api_token))
    # Called from inside a running loop: asyncio.run() is not allowed here, so
    # drive the coroutine on a fresh loop in a helper thread.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, sync_users_to_crm_async(user_data, api_token)).result()


if __name__ == "__main__":
    import json
    import os
    import sys

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    if not os.environ.get("CRM_API_TOKEN"):
        sys.exit("CRM_API_TOKEN is not set")
    with open("api_users.json", encoding="utf-8") as handle:
        users = json.load(handle)
    print(sync_users_to_crm(users, os.environ["CRM_API_TOKEN"]))
