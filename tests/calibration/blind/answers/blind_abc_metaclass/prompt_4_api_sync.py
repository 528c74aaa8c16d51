"""Push users to the CRM provider's bulk-sync endpoint.

Responses are handled by :class:`StatusHandler` subclasses that register themselves, by
status code, through the :class:`HandlerRegistry` metaclass. Transport failures are
classified by :class:`TransportFailure`, and retries follow a :class:`RetryPolicy`.
"""
from __future__ import annotations

import enum
import json
import logging
import os
import time
from abc import ABC, ABCMeta, abstractmethod
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar, Iterator, Optional

import requests

logger = logging.getLogger(__name__)

SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
REQUEST_TIMEOUT = (5.0, 30.0)  # (connect, read) seconds


@dataclass(frozen=True)
class AttemptResult:
    """What one HTTP attempt produced."""

    job_id: Optional[str] = None
    problem: str = ""
    retryable: bool = False


class TransportFailure(enum.Enum):
    """Kinds of request failure, most specific first (a ConnectTimeout is a timeout)."""

    TIMEOUT = (requests.exceptions.Timeout, "timeout", True)
    CONNECTION = (requests.exceptions.ConnectionError, "connection error", True)
    REQUEST = (requests.exceptions.RequestException, "request error", False)

    def __init__(self, exception_type: type, description: str, retryable: bool) -> None:
        self.exception_type = exception_type
        self.description = description
        self.retryable = retryable

    @classmethod
    def classify(cls, error: requests.exceptions.RequestException) -> AttemptResult:
        """The AttemptResult describing a requests exception."""
        kind = next(member for member in cls if isinstance(error, member.exception_type))
        return AttemptResult(problem=f"{kind.description} ({type(error).__name__})",
                             retryable=kind.retryable)


# ---------------------------------------------------------------------- status handlers


class HandlerRegistry(ABCMeta):
    """Maps each status code to the concrete StatusHandler declared for it."""

    by_status: ClassVar[dict[int, HandlerRegistry]] = {}

    def __new__(cls, name: str, bases: tuple[type, ...],
                namespace: dict[str, Any]) -> HandlerRegistry:
        handler_class = super().__new__(cls, name, bases, namespace)
        cls.by_status.update(dict.fromkeys(namespace.get("statuses", ()), handler_class))
        return handler_class

    def for_status(cls, status: int) -> StatusHandler:
        """The handler for a status code, falling back on its class (4xx or 5xx)."""
        handler_class = cls.by_status.get(status)
        if handler_class is None:
            handler_class = ServerErrorHandler if 500 <= status <= 599 else OtherStatusHandler
        return handler_class()


class StatusHandler(ABC, metaclass=HandlerRegistry):
    """Turns a response with one of ``statuses`` into an AttemptResult."""

    statuses: ClassVar[tuple[int, ...]] = ()

    @abstractmethod
    def handle(self, response: requests.Response) -> AttemptResult:
        """Classify the response."""


class AcceptedHandler(StatusHandler):
    statuses = (200, 202)

    def handle(self, response: requests.Response) -> AttemptResult:
        status = response.status_code
        try:
            body = response.json()
        except ValueError:
            return AttemptResult(problem=f"HTTP {status} with a body that is not JSON")
        job_id = body.get("job_id") if isinstance(body, dict) else None
        if not isinstance(job_id, str) or not job_id:
            return AttemptResult(problem=f"HTTP {status} without a valid job_id "
                                         f"(missing, empty or not a string)")
        return AttemptResult(job_id=job_id)


class BadRequestHandler(StatusHandler):
    statuses = (400,)

    def handle(self, response: requests.Response) -> AttemptResult:
        return AttemptResult(problem="HTTP 400 Bad Request: the payload was rejected")


class UnauthorizedHandler(StatusHandler):
    statuses = (401,)

    def handle(self, response: requests.Response) -> AttemptResult:
        return AttemptResult(problem="HTTP 401 Unauthorized: the API token is invalid")


class UnavailableHandler(StatusHandler):
    statuses = (503,)

    def handle(self, response: requests.Response) -> AttemptResult:
        return AttemptResult(problem="HTTP 503 Service Unavailable", retryable=True)


class ServerErrorHandler(StatusHandler):
    def handle(self, response: requests.Response) -> AttemptResult:
        return AttemptResult(problem=f"HTTP {response.status_code} server error",
                             retryable=True)


class OtherStatusHandler(StatusHandler):
    def handle(self, response: requests.Response) -> AttemptResult:
        return AttemptResult(problem=f"HTTP {response.status_code} (not retried)")


# ------------------------------------------------------------------------ retry policy


class RetryPolicy(ABC):
    """Decides how long to wait before the next attempt, if there is one."""

    @abstractmethod
    def delay_before(self, next_attempt: int) -> Optional[float]:
        """Seconds to sleep before attempt ``next_attempt`` (2, 3, ...), or None to stop."""


class ExponentialBackoff(RetryPolicy):
    """1 s, 2 s, 4 s, ... up to ``max_attempts`` attempts in total."""

    def __init__(self, max_attempts: int = 3, base_delay: float = 1.0) -> None:
        self.max_attempts = max_attempts
        self.base_delay = base_delay

    def delay_before(self, next_attempt: int) -> Optional[float]:
        if next_attempt > self.max_attempts:
            return None
        return self.base_delay * 2 ** (next_attempt - 2)


# --------------------------------------------------------------------------- the sync


class _SecretFilter(logging.Filter):
    """Masks a secret in every record passing through the module logger."""

    def __init__(self, secret: str) -> None:
        super().__init__()
        self._secret = secret

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if self._secret and self._secret in message:
            record.msg, record.args = message.replace(self._secret, "***"), ()
        return True


@contextmanager
def secret_masked(secret: str) -> Iterator[None]:
    """Belt and braces: keep the token out of this module's log output."""
    secret_filter = _SecretFilter(secret)
    logger.addFilter(secret_filter)
    try:
        yield
    finally:
        logger.removeFilter(secret_filter)


def attempt_sync(user_data: list[dict[str, Any]], api_token: str) -> AttemptResult:
    """One POST to the sync endpoint."""
    headers = {"Authorization": f"Bearer {api_token}", "Content-Type": "application/json"}
    try:
        response = requests.post(SYNC_URL, json=user_data, headers=headers,
                                 timeout=REQUEST_TIMEOUT)
    except requests.exceptions.RequestException as error:
        return TransportFailure.classify(error)
    except ValueError as error:  # e.g. a header value that cannot be encoded
        return AttemptResult(problem=f"request could not be built ({type(error).__name__})")
    return StatusHandler.for_status(response.status_code).handle(response)


def run_attempts(user_data: list[dict[str, Any]], api_token: str,
                 policy: RetryPolicy) -> AttemptResult:
    """Attempt the sync until it succeeds, fails for good, or the policy says stop."""
    attempt = 1
    while True:
        result = attempt_sync(user_data, api_token)
        if result.job_id is not None:
            return result
        logger.warning("CRM sync attempt %d failed: %s", attempt, result.problem)
        attempt += 1
        delay = policy.delay_before(attempt) if result.retryable else None
        if delay is None:
            return result
        logger.info("retrying the CRM sync in %.0f s", delay)
        time.sleep(delay)


def invalid_arguments(user_data: Any, api_token: Any) -> Optional[str]:
    """A description of unusable arguments, or None."""
    if not isinstance(api_token, str) or not api_token.strip():
        return "the API token is missing"
    if not isinstance(user_data, list):
        return "user_data is not a list"
    try:
        json.dumps(user_data, allow_nan=False)
    except (TypeError, ValueError) as error:
        return f"user_data is not JSON-serialisable ({error})"
    return None


def sync_users_to_crm(user_data: list[dict[str, Any]], api_token: str) -> Optional[str]:
    """Sync the users to the CRM; return the job id, or None when the sync failed."""
    problem = invalid_arguments(user_data, api_token)
    if problem is not None:
        logger.error("CRM sync not attempted: %s", problem)
        return None
    with secret_masked(api_token):
        result = run_attempts(user_data, api_token, ExponentialBackoff(max_attempts=3))
        if result.job_id is None:
            logger.error("CRM sync failed: %s", result.problem)
            return None
        logger.info("CRM sync queued as job %s", result.job_id)
        return result.job_id


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    with open("api_users.json", encoding="utf-8") as users_file:
        users = json.load(users_file)
    print(sync_users_to_crm(users, os.environ.get("CRM_API_TOKEN", "")))
