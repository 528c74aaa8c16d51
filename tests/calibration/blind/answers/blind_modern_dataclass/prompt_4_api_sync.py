"""Push the user list to the CRM provider's bulk-sync endpoint.

Public entry point: :func:`sync_users_to_crm`.  It returns the CRM job id on
success and ``None`` on any failure; it never raises.  Every failure is logged
with the HTTP status or the kind of error, and the API token is never logged.
"""
import json
import logging
import os
import sys
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import Any, NamedTuple

import requests

logger = logging.getLogger(__name__)

SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
ACCEPTED_STATUSES = frozenset({HTTPStatus.OK, HTTPStatus.ACCEPTED})


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how patiently to retry transient failures."""

    max_attempts: int = 3
    backoff_seconds: tuple[float, ...] = (1.0, 2.0)
    timeout: tuple[float, float] = (5.0, 30.0)  # (connect, read), in seconds
    retry_statuses: frozenset[int] = field(
        default_factory=lambda: frozenset({500, 502, 503, 504})
    )

    def pause_after(self, attempt: int) -> float:
        """Back-off before the attempt that follows ``attempt`` (1-based)."""
        index = min(attempt - 1, len(self.backoff_seconds) - 1)
        return self.backoff_seconds[index] if index >= 0 else 0.0


DEFAULT_POLICY = RetryPolicy()


class Attempt(NamedTuple):
    """Outcome of one HTTP attempt."""

    job_id: str | None = None
    retryable: bool = False
    problem: str = ""


def _describe_status(status: int) -> str:
    try:
        return f"HTTP {status} {HTTPStatus(status).phrase}"
    except ValueError:
        return f"HTTP {status}"


def _redact(text: str, secret: str) -> str:
    return text.replace(secret, "[REDACTED]") if secret else text


def _job_id_from(response: requests.Response) -> Attempt:
    """Extract a non-empty string ``job_id`` from a 200/202 response body."""
    status = _describe_status(response.status_code)
    try:
        body = response.json()
    except ValueError:
        return Attempt(problem=f"{status} but the response body is not JSON")
    if not isinstance(body, dict):
        return Attempt(problem=f"{status} but the JSON body is not an object")
    job_id = body.get("job_id")
    if not isinstance(job_id, str) or not job_id:
        return Attempt(problem=f"{status} but job_id is missing or invalid ({job_id!r})")
    return Attempt(job_id=job_id)


def _interpret(response: requests.Response, policy: RetryPolicy) -> Attempt:
    status = response.status_code
    if status in ACCEPTED_STATUSES:
        return _job_id_from(response)
    hint = {
        HTTPStatus.BAD_REQUEST: " (payload rejected)",
        HTTPStatus.UNAUTHORIZED: " (API token invalid)",
        HTTPStatus.SERVICE_UNAVAILABLE: " (service temporarily unavailable)",
    }.get(status, "")
    return Attempt(
        retryable=status in policy.retry_statuses,
        problem=f"{_describe_status(status)}{hint}",
    )


def _post_once(user_data: Any, headers: dict[str, str], policy: RetryPolicy) -> Attempt:
    """Send one request; network failures become an :class:`Attempt`, not an exception."""
    try:
        response = requests.post(SYNC_URL, json=user_data, headers=headers, timeout=policy.timeout)
    except requests.exceptions.Timeout as exc:
        return Attempt(retryable=True, problem=f"timeout ({type(exc).__name__})")
    except requests.exceptions.ConnectionError as exc:
        return Attempt(retryable=True, problem=f"connection error ({type(exc).__name__})")
    except requests.exceptions.RequestException as exc:
        return Attempt(problem=f"request failed ({type(exc).__name__}: {exc})")
    except (TypeError, ValueError) as exc:
        return Attempt(problem=f"user data is not JSON-serialisable ({exc})")
    return _interpret(response, policy)


def sync_users_to_crm(
    user_data: list[dict[str, Any]],
    api_token: str,
    policy: RetryPolicy = DEFAULT_POLICY,
) -> str | None:
    """Send ``user_data`` to the CRM; return the sync job id, or ``None`` on failure."""
    headers = {
        "Authorization": f"Bearer {api_token}",
        "Content-Type": "application/json",
        "Accept": "application/json",
    }
    attempt = Attempt(problem="no attempt made (max_attempts < 1)")
    for number in range(1, policy.max_attempts + 1):
        attempt = _post_once(user_data, headers, policy)
        if attempt.job_id is not None:
            logger.info("CRM sync accepted as job %s (attempt %d)", attempt.job_id, number)
            return attempt.job_id
        if not attempt.retryable or number == policy.max_attempts:
            break
        pause = policy.pause_after(number)
        logger.warning("CRM sync attempt %d/%d failed: %s; retrying in %.1f s",
                       number, policy.max_attempts, _redact(attempt.problem, api_token), pause)
        time.sleep(pause)
    logger.error("CRM sync failed: %s", _redact(attempt.problem, api_token))
    return None


def _main(path: Path = Path("api_users.json")) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    if not os.environ.get("CRM_API_TOKEN"):
        logger.error("set CRM_API_TOKEN to run the sync")
        return 2
    with path.open(encoding="utf-8") as handle:
        users = json.load(handle)
    job_id = sync_users_to_crm(users, os.environ.get("CRM_API_TOKEN", ""))
    print(job_id)
    return 0 if job_id else 1


if __name__ == "__main__":
    sys.exit(_main())
