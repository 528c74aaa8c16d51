"""Sync users to the CRM provider's bulk endpoint, with retries and structured logging.

Log messages are ``key=value`` pairs so an operator (or a log pipeline) can tell why a
sync failed. The API token is never logged: it is not among the logged fields, the
timing decorator does not log arguments, and exception texts are reduced to their class
names because they can echo request details.
"""

import functools
import logging
import logging.config
import os
import time
from typing import Any, Callable, Optional, ParamSpec, TypeVar

import requests

logger = logging.getLogger(__name__)

ParamsT = ParamSpec("ParamsT")
ReturnT = TypeVar("ReturnT")

CRM_SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
CONNECT_TIMEOUT_S = 5
READ_TIMEOUT_S = 30
MAX_ATTEMPTS = 3
BACKOFF_BASE_S = 1.0  # 1 s, then 2 s
SUCCESS_STATUSES = frozenset({200, 202})

RETRY = "retry"
STOP = "stop"


def log_duration(func: Callable[ParamsT, ReturnT]) -> Callable[ParamsT, ReturnT]:
    """Log the wall-clock duration of ``func``; arguments are never logged."""

    @functools.wraps(func)
    def wrapper(*args: ParamsT.args, **kwargs: ParamsT.kwargs) -> ReturnT:
        started = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            logger.debug(
                "event=duration function=%s elapsed_ms=%.1f",
                func.__name__,
                (time.perf_counter() - started) * 1000,
            )

    return wrapper


def _extract_job_id(response: requests.Response) -> Optional[str]:
    """Return the non-empty string ``job_id`` of a 200/202 body, logging any problem."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        logger.error("event=sync_failed status=%d reason=response_not_json", status)
        return None
    if not isinstance(body, dict):
        logger.error("event=sync_failed status=%d reason=response_not_object type=%s", status, type(body).__name__)
        return None
    job_id = body.get("job_id")
    if not isinstance(job_id, str) or not job_id:
        logger.error(
            "event=sync_failed status=%d reason=invalid_job_id job_id_type=%s",
            status,
            type(job_id).__name__ if "job_id" in body else "missing",
        )
        return None
    return job_id


def _classify_status(response: requests.Response, attempt: int) -> tuple[str, Optional[str]]:
    """Decide what a response means: (RETRY|STOP, job_id)."""
    status = response.status_code
    if status in SUCCESS_STATUSES:
        return STOP, _extract_job_id(response)
    if 500 <= status <= 599:
        logger.warning("event=attempt_failed attempt=%d status=%d reason=server_error", attempt, status)
        return RETRY, None
    reasons = {400: "payload_rejected", 401: "token_rejected"}
    logger.error(
        "event=sync_failed attempt=%d status=%d reason=%s retry=false",
        attempt,
        status,
        reasons.get(status, "client_error" if 400 <= status <= 499 else "unexpected_status"),
    )
    return STOP, None


@log_duration
def _attempt(user_data: Any, api_token: str, attempt: int) -> tuple[str, Optional[str]]:
    """Send one POST and classify the result."""
    headers = {"Authorization": f"Bearer {api_token}", "Content-Type": "application/json"}
    try:
        response = requests.post(
            CRM_SYNC_URL,
            json=user_data,
            headers=headers,
            timeout=(CONNECT_TIMEOUT_S, READ_TIMEOUT_S),
        )
    except requests.exceptions.Timeout as exc:
        logger.warning("event=attempt_failed attempt=%d reason=timeout error=%s", attempt, type(exc).__name__)
        return RETRY, None
    except requests.exceptions.ConnectionError as exc:
        logger.warning("event=attempt_failed attempt=%d reason=connection_error error=%s", attempt, type(exc).__name__)
        return RETRY, None
    except (requests.exceptions.RequestException, TypeError, ValueError) as exc:
        logger.error("event=sync_failed attempt=%d reason=request_not_sent error=%s", attempt, type(exc).__name__)
        return STOP, None
    return _classify_status(response, attempt)


@log_duration
def sync_users_to_crm(user_data: list[dict[str, Any]], api_token: str) -> Optional[str]:
    """Push ``user_data`` to the CRM and return its job id, or ``None`` on failure.

    Up to ``MAX_ATTEMPTS`` attempts; 5xx responses, connection errors and timeouts are
    retried with exponential back-off. Never raises.
    """
    count = len(user_data) if isinstance(user_data, list) else -1
    logger.info("event=sync_started users=%d max_attempts=%d", count, MAX_ATTEMPTS)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        decision, job_id = _attempt(user_data, api_token, attempt)
        if job_id is not None:
            logger.info("event=sync_succeeded attempt=%d job_id=%s", attempt, job_id)
            return job_id
        if decision == STOP:
            return None
        if attempt < MAX_ATTEMPTS:
            delay = BACKOFF_BASE_S * 2 ** (attempt - 1)
            logger.info("event=retry_scheduled next_attempt=%d delay_s=%.1f", attempt + 1, delay)
            time.sleep(delay)
    logger.error("event=sync_failed reason=attempts_exhausted attempts=%d", MAX_ATTEMPTS)
    return None


def main() -> None:
    """Example run: sync ``api_users.json`` with the token from ``CRM_API_TOKEN``."""
    import json

    logging.config.dictConfig({
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"kv": {"format": "%(asctime)s level=%(levelname)s logger=%(name)s %(message)s"}},
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "kv"}},
        "root": {"level": "INFO", "handlers": ["console"]},
    })
    credential = os.environ.get("CRM_API_TOKEN")
    if not credential:
        logger.error("event=config_missing variable=CRM_API_TOKEN")
        return
    with open("api_users.json", encoding="utf-8") as handle:
        users = json.load(handle)
    logger.info("event=example_finished job_id=%s", sync_users_to_crm(users, credential))


if __name__ == "__main__":
    main()
