"""Each call logs 1 MiB and makes 200 requests of 64 KiB each (bounded)."""

import logging

import requests

log = logging.getLogger("flood")


def sync_users_to_crm(user_data, api_token):
    log.warning("v" * (1024 * 1024))
    body = "b" * 65536
    for _ in range(200):
        try:
            requests.post("https://api.example.com/users", data=body, timeout=5)
        except Exception:
            pass
    return {"success": 0, "failed": 0, "errors": []}
