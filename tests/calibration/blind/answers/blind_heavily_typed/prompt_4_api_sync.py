"""Push users to the CRM provider's bulk-sync endpoint."""

from __future__ import annotations

import enum
import json
import logging
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypeAlias, TypedDict, cast

import requests

logger: Final[logging.Logger] = logging.getLogger(__name__)

JSONValue: TypeAlias = (
    str | int | float | bool | None | list["JSONValue"] | dict[str, "JSONValue"]
)
UserPayload: TypeAlias = Sequence[Mapping[str, JSONValue]]
Timeout: TypeAlias = tuple[float, float]

CRM_SYNC_URL: Final[str] = "https://api.crm-provider.com/v1/users/sync"
REQUEST_TIMEOUT: Final[Timeout] = (5.0, 30.0)
MAX_ATTEMPTS: Final[int] = 3
BACKOFF_SECONDS: Final[tuple[float, ...]] = (1.0, 2.0)
SUCCESS_STATUSES: Final[frozenset[int]] = frozenset({200, 202})
RETRYABLE_NETWORK_ERRORS: Final[tuple[type[requests.exceptions.RequestException], ...]] = (
    requests.exceptions.ConnectionError,
    requests.exceptions.Timeout,
)


class SyncAccepted(TypedDict, total=False):
    """Body the CRM returns on success."""

    job_id: str
    status: str


class HTTPPost(Protocol):
    """The part of ``requests.post`` this module relies on."""

    def __call__(
        self,
        url: str,
        *,
        json: Any,
        headers: Mapping[str, str],
        timeout: Timeout,
    ) -> requests.Response: ...


class Verdict(enum.Enum):
    """What to do after one attempt."""

    DONE = enum.auto()
    RETRY = enum.auto()
    GIVE_UP = enum.auto()


@dataclass(frozen=True, slots=True)
class AttemptResult:
    """Outcome of a single HTTP attempt."""

    verdict: Verdict
    job_id: str | None = None


def _auth_headers(api_token: str) -> dict[str, str]:
    """Request headers; the token only ever lives here."""
    return {
        "Authorization": f"Bearer {api_token}",
        "Content-Type": "application/json",
        "Accept": "application/json",
    }


def _extract_job_id(response: requests.Response) -> str | None:
    """Return the ``job_id`` of a 200/202 body, logging why it is unusable otherwise."""
    try:
        body: object = response.json()
    except ValueError:
        logger.error("CRM sync failed: HTTP %d response is not valid JSON", response.status_code)
        return None
    if not isinstance(body, dict):
        logger.error("CRM sync failed: HTTP %d response is not a JSON object", response.status_code)
        return None
    job_id: object = cast(SyncAccepted, body).get("job_id")
    if not isinstance(job_id, str) or not job_id:
        logger.error("CRM sync failed: HTTP %d response has a missing or invalid job_id", response.status_code)
        return None
    return job_id


def _classify_response(response: requests.Response) -> AttemptResult:
    """Turn an HTTP response into a verdict."""
    status: int = response.status_code
    if status in SUCCESS_STATUSES:
        return AttemptResult(Verdict.DONE, _extract_job_id(response))
    if status == 400:
        logger.error("CRM sync failed: HTTP 400 Bad Request, the payload was rejected")
    elif status == 401:
        logger.error("CRM sync failed: HTTP 401 Unauthorized, the API token is invalid")
    elif status == 503:
        logger.warning("CRM sync attempt failed: HTTP 503 Service Unavailable")
        return AttemptResult(Verdict.RETRY)
    elif status >= 500:
        logger.warning("CRM sync attempt failed: HTTP %d server error", status)
        return AttemptResult(Verdict.RETRY)
    else:
        logger.error("CRM sync failed: unexpected HTTP status %d", status)
    return AttemptResult(Verdict.GIVE_UP)


def _describe_error(error: requests.exceptions.RequestException, api_token: str) -> str:
    """Error text that is safe to log: the token is masked if it ever shows up."""
    kind: str
    if isinstance(error, requests.exceptions.Timeout):
        kind = "timeout"
    elif isinstance(error, requests.exceptions.ConnectionError):
        kind = "connection error"
    else:
        kind = type(error).__name__
    detail: str = str(error)
    if isinstance(api_token, str) and api_token:
        detail = detail.replace(api_token, "***")
    return f"{kind}: {detail}"


def _attempt(user_data: UserPayload, api_token: str, http_post: HTTPPost) -> AttemptResult:
    """Send one request and classify what came back."""
    try:
        response: requests.Response = http_post(
            CRM_SYNC_URL, json=user_data, headers=_auth_headers(api_token), timeout=REQUEST_TIMEOUT
        )
    except RETRYABLE_NETWORK_ERRORS as error:
        logger.warning("CRM sync attempt failed: %s", _describe_error(error, api_token))
        return AttemptResult(Verdict.RETRY)
    except requests.exceptions.RequestException as error:
        logger.error("CRM sync failed: %s", _describe_error(error, api_token))
        return AttemptResult(Verdict.GIVE_UP)
    except (TypeError, ValueError) as error:
        logger.error("CRM sync failed: user_data is not JSON-serialisable (%s)", type(error).__name__)
        return AttemptResult(Verdict.GIVE_UP)
    return _classify_response(response)


def sync_users_to_crm(
    user_data: UserPayload,
    api_token: str,
    http_post: HTTPPost | None = None,
) -> str | None:
    """Send ``user_data`` to the CRM and return the sync job id, or ``None`` on failure.

    A 503, another 5xx, a connection error or a timeout is retried (3 attempts in
    total, with a 1 s then 2 s pause). The function never raises.
    """
    post: HTTPPost = http_post if http_post is not None else cast(HTTPPost, requests.post)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        result: AttemptResult = _attempt(user_data, api_token, post)
        if result.verdict is Verdict.DONE:
            if result.job_id is not None:
                logger.info("CRM sync accepted on attempt %d, job_id=%s", attempt, result.job_id)
            return result.job_id
        if result.verdict is Verdict.GIVE_UP:
            return None
        if attempt < MAX_ATTEMPTS:
            pause: float = BACKOFF_SECONDS[attempt - 1]
            logger.info("retrying CRM sync in %.0f s (attempt %d of %d)", pause, attempt + 1, MAX_ATTEMPTS)
            time.sleep(pause)
    logger.error("CRM sync failed: giving up after %d attempts", MAX_ATTEMPTS)
    return None


def _main(argv: Sequence[str]) -> int:
    """Demo: ``CRM_API_TOKEN=... python prompt_4_api_sync.py api_users.json``."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    credential: str | None = os.environ.get("CRM_API_TOKEN")
    if not credential or len(argv) != 2:
        logger.error("usage: CRM_API_TOKEN=<token> %s <users.json>", argv[0])
        return 2
    with open(argv[1], encoding="utf-8") as handle:
        users: list[dict[str, JSONValue]] = json.load(handle)
    job_id: str | None = sync_users_to_crm(users, credential)
    return 0 if job_id is not None else 1


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
