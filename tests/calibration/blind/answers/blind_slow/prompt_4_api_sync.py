"""Synchronise users with the CRM provider's bulk-sync endpoint."""

import copy
import json
import logging
import time

import requests

logger = logging.getLogger(__name__)

CRM_SYNC_URL = "https://api.crm-provider.com/v1/users/sync"
REQUEST_TIMEOUT = 30
MAX_ATTEMPTS = 3
RETRY_DELAYS = [1, 2]


def prepare_payload(user_data):
    """Return a JSON-safe copy of the user list, or None if it cannot be serialised."""
    if not isinstance(user_data, list):
        logger.error("CRM sync failed: user_data must be a list, got %s", type(user_data).__name__)
        return None
    payload = []
    for user in copy.deepcopy(user_data):
        try:
            payload.append(json.loads(json.dumps(user)))
        except (TypeError, ValueError) as error:
            logger.error("CRM sync failed: a user record is not JSON-serialisable (%s)", error)
            return None
    return payload


def build_headers(api_token):
    """Build the request headers."""
    return {
        "Authorization": "Bearer " + api_token,
        "Content-Type": "application/json",
    }


def describe_users(payload):
    """Short description of the payload for the log (no personal data)."""
    description = ""
    for user in payload:
        if isinstance(user, dict) and "id" in user:
            description = description + str(user["id"]) + ","
    return description.rstrip(",")


def post_once(user_data, api_token):
    """Make a single POST request; returns the response or raises a requests exception."""
    payload = prepare_payload(user_data)
    logger.info("Sending %d users to the CRM (ids: %s)", len(payload), describe_users(payload))
    return requests.post(
        CRM_SYNC_URL,
        json=payload,
        headers=build_headers(api_token),
        timeout=REQUEST_TIMEOUT,
    )


def job_id_from_response(response):
    """Return the job_id of a successful response, or None if it is missing or invalid."""
    try:
        body = response.json()
    except ValueError:
        logger.error("CRM sync failed: HTTP %s response is not valid JSON", response.status_code)
        return None
    if not isinstance(body, dict):
        logger.error("CRM sync failed: HTTP %s response is not a JSON object", response.status_code)
        return None
    job_id = body.get("job_id")
    if not isinstance(job_id, str) or job_id == "":
        logger.error("CRM sync failed: HTTP %s response has a missing or invalid job_id", response.status_code)
        return None
    return job_id


def handle_error_status(status_code):
    """Log an error status; return True if the request should be retried."""
    if status_code == 400:
        logger.error("CRM sync failed: HTTP 400 Bad Request (payload rejected)")
        return False
    if status_code == 401:
        logger.error("CRM sync failed: HTTP 401 Unauthorized (invalid API token)")
        return False
    if status_code >= 500:
        logger.warning("CRM sync attempt failed: HTTP %s (server error)", status_code)
        return True
    logger.error("CRM sync failed: HTTP %s", status_code)
    return False


def handle_response(response):
    """Return (finished, job_id); finished is False when the request should be retried."""
    if response.status_code in (200, 202):
        job_id = job_id_from_response(response)
        if job_id is not None:
            logger.info("CRM sync accepted (HTTP %s), job_id=%s", response.status_code, job_id)
        return True, job_id
    return not handle_error_status(response.status_code), None


def sync_users_to_crm(user_data, api_token):
    """Send the users to the CRM and return the sync job id, or None on failure."""
    if prepare_payload(user_data) is None:
        return None
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            response = post_once(user_data, api_token)
        except (requests.exceptions.ConnectionError, requests.exceptions.Timeout) as error:
            kind = "timeout" if isinstance(error, requests.exceptions.Timeout) else "connection error"
            logger.warning("CRM sync attempt %d failed: %s", attempt, kind)
        except requests.exceptions.RequestException as error:
            logger.error("CRM sync failed: request error (%s)", type(error).__name__)
            return None
        else:
            finished, job_id = handle_response(response)
            if finished:
                return job_id
        if attempt < MAX_ATTEMPTS:
            time.sleep(RETRY_DELAYS[attempt - 1])
    logger.error("CRM sync failed after %d attempts", MAX_ATTEMPTS)
    return None
