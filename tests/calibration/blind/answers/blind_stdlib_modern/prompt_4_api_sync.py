"""Bulk-sync users to the CRM provider (Python 3.11, requests)."""

import json
import logging
import os
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import requests

logger = logging.getLogger(__name__)

SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
MAX_ATTEMPTS = 3                  # first try + two retries
FIRST_BACKOFF_SECONDS = 1.0       # doubled after every failed attempt: 1 s, 2 s
TIMEOUT_SECONDS = (5, 30)         # (connect, read)


class Problem(StrEnum):
    TIMEOUT = "request timed out"
    CONNECTION = "connection error"
    TRANSPORT = "request could not be sent"
    ENCODING = "user data is not JSON-serialisable"
    NOT_JSON = "response body is not JSON"
    NOT_OBJECT = "response body is not a JSON object"
    BAD_JOB_ID = "response has a missing or invalid job_id"


@dataclass(slots=True, kw_only=True, frozen=True)
class Outcome:
    job_id: str | None = None
    retry: bool = False


def _headers(api_token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_token}", "Content-Type": "application/json"}


def _job_id_from(response: requests.Response) -> str | None:
    """Validate a 200/202 body: a JSON object with a non-empty string job_id."""
    try:
        body = response.json()
    except ValueError:  # requests' JSONDecodeError derives from ValueError
        logger.error("CRM sync failed (HTTP %d): %s", response.status_code, Problem.NOT_JSON)
        return None
    match body:
        case {"job_id": str(job_id)} if job_id:
            logger.info("CRM sync accepted (HTTP %d): job %s", response.status_code, job_id)
            return job_id
        case dict():
            logger.error("CRM sync failed (HTTP %d): %s: %r", response.status_code, Problem.BAD_JOB_ID,
                         body.get("job_id"))
        case _:
            logger.error("CRM sync failed (HTTP %d): %s", response.status_code, Problem.NOT_OBJECT)
    return None


def _judge(response: requests.Response) -> Outcome:
    match response.status_code:
        case 200 | 202:
            return Outcome(job_id=_job_id_from(response))
        case 400:
            logger.error("CRM sync failed: HTTP 400 Bad Request (payload rejected)")
        case 401:
            logger.error("CRM sync failed: HTTP 401 Unauthorized (API token invalid)")
        case 503:
            logger.warning("CRM sync failed: HTTP 503 Service Unavailable")
            return Outcome(retry=True)
        case status if 500 <= status <= 599:
            logger.warning("CRM sync failed: HTTP %d server error", status)
            return Outcome(retry=True)
        case status:
            logger.error("CRM sync failed: unexpected HTTP %d", status)
    return Outcome()


def _attempt(user_data: list[dict[str, Any]], api_token: str) -> Outcome:
    """One POST. Exception texts are not logged: some (InvalidHeader) quote header values."""
    try:
        response = requests.post(SYNC_URL, json=user_data, headers=_headers(api_token), timeout=TIMEOUT_SECONDS)
    except requests.exceptions.Timeout as error:
        logger.warning("CRM sync failed: %s (%s)", Problem.TIMEOUT, type(error).__name__)
        return Outcome(retry=True)
    except requests.exceptions.ConnectionError as error:
        logger.warning("CRM sync failed: %s (%s)", Problem.CONNECTION, type(error).__name__)
        return Outcome(retry=True)
    except requests.exceptions.RequestException as error:
        logger.error("CRM sync failed: %s (%s)", Problem.TRANSPORT, type(error).__name__)
        return Outcome()
    except (TypeError, ValueError) as error:
        logger.error("CRM sync failed: %s (%s)", Problem.ENCODING, type(error).__name__)
        return Outcome()
    return _judge(response)


def sync_users_to_crm(user_data: list[dict[str, Any]], api_token: str) -> str | None:
    """POST ``user_data`` to the CRM bulk-sync endpoint; return the job id, or None on failure.

    503s, other 5xx, connection errors and timeouts are retried (3 attempts in
    total, 1 s then 2 s apart); 4xx answers and 200/202 are final. Never raises.
    """
    for attempt in range(1, MAX_ATTEMPTS + 1):
        logger.info("CRM sync: attempt %d of %d", attempt, MAX_ATTEMPTS)
        if not (outcome := _attempt(user_data, api_token)).retry:
            return outcome.job_id
        if attempt < MAX_ATTEMPTS:
            time.sleep(delay := FIRST_BACKOFF_SECONDS * 2 ** (attempt - 1))
            logger.info("CRM sync: waited %.0f s before retrying", delay)
    logger.error("CRM sync failed: giving up after %d attempts", MAX_ATTEMPTS)
    return None


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    if not (crm_token := os.environ.get("CRM_API_TOKEN")):
        raise SystemExit("set CRM_API_TOKEN to run the example")
    users = json.loads(Path("api_users.json").read_text(encoding="utf-8"))
    print(sync_users_to_crm(users, crm_token))
