"""Bulk synchronisation of users to the CRM provider."""
from __future__ import annotations

import json
import logging
import os
import time
from typing import Any, Optional, Union

import requests

logger = logging.getLogger(__name__)

Timeout = Union[float, tuple[float, float]]


class CrmSyncError(Exception):
    """One failed attempt; ``retryable`` tells whether another attempt may help."""

    def __init__(self, message: str, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


class CrmSyncClient:
    """Client for ``POST /v1/users/sync`` with bounded retries.

    The API token is kept private: it is only placed in the Authorization header and
    never appears in the client's repr, in log messages or in error messages.
    """

    SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
    ACCEPTED_STATUSES = (200, 202)

    def __init__(self, api_token: str, timeout: Timeout = (5.0, 30.0),
                 max_attempts: int = 3, backoff_seconds: float = 1.0) -> None:
        self._api_token = api_token
        self._timeout = timeout
        self._max_attempts = max(1, max_attempts)
        self._backoff_seconds = backoff_seconds

    def __repr__(self) -> str:
        return f"{type(self).__name__}(url={self.SYNC_URL!r}, token=<hidden>)"

    @property
    def max_attempts(self) -> int:
        return self._max_attempts

    @property
    def _headers(self) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {self._api_token}",
            "Content-Type": "application/json",
        }

    def push_users(self, users: list[dict[str, Any]]) -> Optional[str]:
        """Send the users; return the job id, or None once the sync has failed."""
        for attempt in range(1, self._max_attempts + 1):
            try:
                job_id = self._send_once(users)
            except CrmSyncError as error:
                logger.warning("CRM sync attempt %d/%d failed: %s",
                               attempt, self._max_attempts, error)
                if not error.retryable or attempt == self._max_attempts:
                    logger.error("CRM sync failed after %d attempt(s): %s", attempt, error)
                    return None
                self._pause(attempt)
                continue
            logger.info("CRM sync accepted on attempt %d, job id %s", attempt, job_id)
            return job_id
        return None

    def _pause(self, attempt: int) -> None:
        delay = self._backoff_seconds * 2 ** (attempt - 1)
        logger.info("waiting %.1f s before retrying", delay)
        time.sleep(delay)

    def _send_once(self, users: list[dict[str, Any]]) -> str:
        try:
            response = requests.post(self.SYNC_URL, json=users, headers=self._headers,
                                     timeout=self._timeout)
        except requests.exceptions.Timeout as error:
            raise CrmSyncError(f"timeout ({type(error).__name__})", retryable=True) from None
        except requests.exceptions.ConnectionError as error:
            raise CrmSyncError(f"connection error ({type(error).__name__})",
                               retryable=True) from None
        except requests.exceptions.RequestException as error:
            raise CrmSyncError(f"request error ({type(error).__name__})") from None
        except ValueError as error:  # e.g. a header value that cannot be encoded
            raise CrmSyncError(f"request could not be built ({type(error).__name__})") from None
        return self._interpret(response)

    def _interpret(self, response: requests.Response) -> str:
        status = response.status_code
        if status in self.ACCEPTED_STATUSES:
            return self._job_id_from(response)
        if status == 400:
            raise CrmSyncError("HTTP 400 Bad Request: the CRM rejected the payload")
        if status == 401:
            raise CrmSyncError("HTTP 401 Unauthorized: the API token is invalid")
        if status == 503:
            raise CrmSyncError("HTTP 503 Service Unavailable", retryable=True)
        if 500 <= status < 600:
            raise CrmSyncError(f"HTTP {status} server error", retryable=True)
        raise CrmSyncError(f"HTTP {status} unexpected response")

    @staticmethod
    def _job_id_from(response: requests.Response) -> str:
        status = response.status_code
        try:
            body = response.json()
        except ValueError:
            raise CrmSyncError(f"HTTP {status} but the body is not JSON") from None
        if not isinstance(body, dict):
            raise CrmSyncError(f"HTTP {status} but the body is not a JSON object")
        job_id = body.get("job_id")
        if not isinstance(job_id, str) or job_id == "":
            raise CrmSyncError(f"HTTP {status} but job_id is missing or invalid ({job_id!r})")
        return job_id


class SyncRequestValidator:
    """Checks the arguments before anything is sent."""

    def __init__(self, user_data: Any, api_token: Any) -> None:
        self._user_data = user_data
        self._api_token = api_token

    def problem(self) -> Optional[str]:
        """A description of what is wrong, or None when the request can be sent."""
        if not isinstance(self._api_token, str) or not self._api_token.strip():
            return "the API token is missing"
        if not isinstance(self._user_data, list):
            return "user_data is not a list"
        try:
            json.dumps(self._user_data, allow_nan=False)
        except (TypeError, ValueError) as error:
            return f"user_data cannot be encoded as JSON ({error})"
        return None


def sync_users_to_crm(user_data: list[dict[str, Any]], api_token: str) -> Optional[str]:
    """Push the users to the CRM and return the sync job id, or None on failure."""
    problem = SyncRequestValidator(user_data, api_token).problem()
    if problem is not None:
        logger.error("CRM sync not started: %s", problem)
        return None
    return CrmSyncClient(api_token).push_users(user_data)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    with open("api_users.json", encoding="utf-8") as users_file:
        sample_users = json.load(users_file)
    result = sync_users_to_crm(sample_users, os.environ.get("CRM_API_TOKEN", ""))
    print(f"job id: {result}")
