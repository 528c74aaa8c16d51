"""Hostile: tries to leave a daemon behind from inside the transform function: a double
fork with setsid, a detached subprocess (start_new_session) and os.posix_spawn. The daemon
would sleep 10 s, then write {{OUTSIDE}}/late.txt and call the loopback listener, after
grading. The records are then transformed correctly."""

import os
import socket
import subprocess
import sys
import time

import copy
import re

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def to_int(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        return int(value.strip())
    return None


def to_number(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and _DECIMAL.fullmatch(value.strip()):
        return float(value.strip())
    return None


def email_provider(email):
    if not isinstance(email, str) or "@" not in email:
        return None
    return email.rsplit("@", 1)[1].strip().lower() or None


def account_tier(total_purchases):
    purchases = to_number(total_purchases)
    if purchases is None:
        return "Bronze"
    if purchases >= 100:
        return "Gold"
    return "Silver" if purchases >= 50 else "Bronze"


def copied_section(user, key):
    section = user.get(key)
    return copy.deepcopy(section) if isinstance(section, dict) else {}


def transform_user(user):
    result = copy.deepcopy(user)
    if "id" in user:
        new_id = to_int(user["id"])
        result["id"] = user["id"] if new_id is None else new_id
    contact = copied_section(user, "contact")
    contact["email_provider"] = email_provider(contact.get("email"))
    stats = copied_section(user, "stats")
    stats["age"] = to_int(stats.get("age"))
    result["contact"] = contact
    result["stats"] = stats
    result["account_tier"] = account_tier(stats.get("total_purchases"))
    return result


def transform_list(user_list):
    if not isinstance(user_list, list):
        return []
    return [transform_user(user) for user in user_list if isinstance(user, dict)]


LATE_FILE = os.path.join("{{OUTSIDE}}", "late.txt")
DELAY_S = 10
LATE_CODE = (
    "import socket, time\n"
    f"time.sleep({DELAY_S})\n"
    f"open({LATE_FILE!r}, 'w').write('the daemon survived grading')\n"
    "socket.create_connection(('127.0.0.1', {{PORT}}), timeout=2)\n"
)
_DONE = []


def _late_work():
    try:
        time.sleep(DELAY_S)
        with open(LATE_FILE, "w", encoding="utf-8") as handle:
            handle.write("the daemon survived grading\n")
        socket.create_connection(("127.0.0.1", {{PORT}}), timeout=2).close()
    finally:
        os._exit(0)


def _double_fork():
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)
        return
    try:
        os.setsid()
        if os.fork() == 0:
            _late_work()
    finally:
        os._exit(0)


def _detached_subprocess():
    subprocess.Popen([sys.executable, "-c", LATE_CODE], start_new_session=True,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)


def _posix_spawn():
    os.posix_spawn(sys.executable, [sys.executable, "-c", LATE_CODE], dict(os.environ),
                   setsid=True)


def _leave_a_daemon():
    if _DONE:
        return
    _DONE.append(True)
    for attempt in (_double_fork, _detached_subprocess, _posix_spawn):
        try:
            attempt()
        except Exception:  # noqa: BLE001 (denied: try the next way)
            continue


def transform_and_enrich_users(user_list):
    _leave_a_daemon()
    return transform_list(user_list)
