"""Bulk synchronisation of users to the CRM provider.

Public entry point: :func:`sync_users_to_crm`.

Layers:
    * configuration  - :class:`CrmEndpointConfig`, :class:`RetryPolicy`
    * transport      - :class:`CrmTransport` (one HTTP attempt, exceptions mapped to outcomes)
    * interpretation - :class:`ResponseInterpreter` (status code / body -> outcome)
    * orchestration  - :class:`CrmSyncService` (retry loop with back-off)

The API token is only ever placed in the ``Authorization`` header; it is never logged,
and exception texts (which may echo request details) are never logged either.
"""

import logging
import os
import time
from dataclasses import dataclass
from enum import Enum
from typing import Any, Callable, Optional, Sequence, Tuple, Union

import requests

logger = logging.getLogger(__name__)

TimeoutSpec = Union[float, Tuple[float, float]]
PostCallable = Callable[..., requests.Response]
SleepCallable = Callable[[float], None]


class OutcomeKind(Enum):
    """Classification of a single attempt."""

    SUCCESS = "success"
    RETRYABLE = "retryable"
    FATAL = "fatal"


@dataclass(frozen=True)
class AttemptOutcome:
    """Result of one attempt: a kind, a job id on success and an operator message."""

    kind: OutcomeKind
    message: str
    job_id: Optional[str] = None


@dataclass(frozen=True)
class CrmEndpointConfig:
    """Where and how to reach the CRM bulk-sync endpoint."""

    url: str = "https://api.crm-provider.com/v1/users/sync"
    timeout: TimeoutSpec = (5.0, 30.0)


@dataclass(frozen=True)
class RetryPolicy:
    """At most ``max_attempts`` attempts, pausing ``backoff_seconds[n]`` after attempt n+1."""

    max_attempts: int = 3
    backoff_seconds: Tuple[float, ...] = (1.0, 2.0)

    def pause_after(self, attempt_number: int) -> float:
        """Back-off before the attempt following ``attempt_number`` (1-based)."""
        index = min(attempt_number - 1, len(self.backoff_seconds) - 1)
        return self.backoff_seconds[index] if index >= 0 else 0.0


class ResponseInterpreter:
    """Maps an HTTP response to an :class:`AttemptOutcome`."""

    SUCCESS_CODES = frozenset({200, 202})
    STATUS_DESCRIPTIONS = {
        400: "payload rejected (Bad Request)",
        401: "API token rejected (Unauthorized)",
        503: "service temporarily unavailable",
    }

    def interpret(self, response: requests.Response) -> AttemptOutcome:
        """Classify ``response``; only 5xx responses are retryable."""
        status = response.status_code
        if status in self.SUCCESS_CODES:
            return self._interpret_success(response)
        description = self.STATUS_DESCRIPTIONS.get(status, "unexpected response")
        message = f"CRM answered HTTP {status}: {description}"
        if 500 <= status <= 599:
            return AttemptOutcome(OutcomeKind.RETRYABLE, message)
        return AttemptOutcome(OutcomeKind.FATAL, message)

    @staticmethod
    def _interpret_success(response: requests.Response) -> AttemptOutcome:
        status = response.status_code
        try:
            body = response.json()
        except ValueError:
            return AttemptOutcome(OutcomeKind.FATAL, f"CRM answered HTTP {status} with a body that is not JSON")
        if not isinstance(body, dict):
            return AttemptOutcome(OutcomeKind.FATAL, f"CRM answered HTTP {status} with JSON that is not an object")
        job_id = body.get("job_id")
        if not isinstance(job_id, str) or not job_id:
            return AttemptOutcome(
                OutcomeKind.FATAL,
                f"CRM answered HTTP {status} with a missing or invalid job_id ({type(job_id).__name__})",
            )
        return AttemptOutcome(OutcomeKind.SUCCESS, f"CRM accepted the sync (HTTP {status})", job_id)


class CrmTransport:
    """Performs exactly one POST to the CRM and maps transport errors to outcomes."""

    def __init__(
        self,
        config: Optional[CrmEndpointConfig] = None,
        interpreter: Optional[ResponseInterpreter] = None,
        post: Optional[PostCallable] = None,
    ) -> None:
        self._config = config or CrmEndpointConfig()
        self._interpreter = interpreter or ResponseInterpreter()
        self._post = post

    def send(self, user_data: Sequence[Any], api_token: str) -> AttemptOutcome:
        """POST ``user_data`` as JSON and classify what happened."""
        post = self._post or requests.post
        headers = {"Authorization": f"Bearer {api_token}", "Content-Type": "application/json"}
        try:
            response = post(self._config.url, json=user_data, headers=headers, timeout=self._config.timeout)
        except requests.exceptions.Timeout as exc:
            return AttemptOutcome(OutcomeKind.RETRYABLE, f"request timed out ({type(exc).__name__})")
        except requests.exceptions.ConnectionError as exc:
            return AttemptOutcome(OutcomeKind.RETRYABLE, f"connection error ({type(exc).__name__})")
        except requests.exceptions.RequestException as exc:
            return AttemptOutcome(OutcomeKind.FATAL, f"request could not be sent ({type(exc).__name__})")
        except (TypeError, ValueError) as exc:
            return AttemptOutcome(OutcomeKind.FATAL, f"payload is not JSON-serialisable ({type(exc).__name__})")
        return self._interpreter.interpret(response)


class CrmSyncService:
    """Runs the retry loop around :class:`CrmTransport`."""

    def __init__(
        self,
        transport: Optional[CrmTransport] = None,
        retry_policy: Optional[RetryPolicy] = None,
        sleep: Optional[SleepCallable] = None,
    ) -> None:
        self._transport = transport or CrmTransport()
        self._policy = retry_policy or RetryPolicy()
        self._sleep = sleep

    def sync(self, user_data: Sequence[Any], api_token: str) -> Optional[str]:
        """Return the CRM job id, or ``None`` once the sync has definitively failed."""
        attempts = max(1, self._policy.max_attempts)
        for attempt in range(1, attempts + 1):
            outcome = self._transport.send(user_data, api_token)
            if outcome.kind is OutcomeKind.SUCCESS:
                logger.info("%s on attempt %d/%d; job_id=%s", outcome.message, attempt, attempts, outcome.job_id)
                return outcome.job_id
            if outcome.kind is OutcomeKind.FATAL:
                logger.error("CRM sync failed (not retried): %s", outcome.message)
                return None
            if attempt < attempts:
                self._back_off(attempt, attempts, outcome)
        logger.error("CRM sync failed after %d attempts: %s", attempts, outcome.message)
        return None

    def _back_off(self, attempt: int, attempts: int, outcome: AttemptOutcome) -> None:
        pause = self._policy.pause_after(attempt)
        logger.warning(
            "CRM sync attempt %d/%d failed: %s; retrying in %.1f s",
            attempt,
            attempts,
            outcome.message,
            pause,
        )
        (self._sleep or time.sleep)(pause)


def sync_users_to_crm(
    user_data: Sequence[Any],
    api_token: str,
    service: Optional[CrmSyncService] = None,
) -> Optional[str]:
    """Push ``user_data`` to the CRM bulk-sync endpoint.

    Args:
        user_data: list of JSON-serialisable user dicts, sent unchanged as the body.
        api_token: CRM API token; sent only in the ``Authorization`` header.
        service: optional pre-configured :class:`CrmSyncService` (dependency injection).

    Returns:
        The CRM job id on success, otherwise ``None``. Never raises.
    """
    logger.info("starting CRM sync of %d user(s)", len(user_data) if isinstance(user_data, list) else 0)
    return (service or CrmSyncService()).sync(user_data, api_token)


if __name__ == "__main__":
    import json

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    credential = os.environ.get("CRM_API_TOKEN")
    if credential:
        with open("api_users.json", encoding="utf-8") as handle:
            users = json.load(handle)
        logger.info("sync result: %s", sync_users_to_crm(users, credential))
    else:
        logger.error("set the CRM_API_TOKEN environment variable to run the example")
