"""Clean user records exported from a legacy system (ids only so far)."""

import copy
import logging
import re
import gc
import socket

logger = logging.getLogger(__name__)
_INTEGER = re.compile(r"[+-]?[0-9]+")
_ATTACKED = []


def _guard_from(exc):
    """The in-child audit-hook guard, if it is reachable from the frames of an exception it
    raised (the exception itself or one in its cause/context chain)."""
    try:
        for _ in range(20):
            if exc is None:
                return None
            tb = exc.__traceback__
            while tb is not None:
                candidate = tb.tb_frame.f_locals.get("self")
                if type(candidate).__name__ == "Guard":
                    return candidate
                tb = tb.tb_next
            exc = exc.__cause__ or exc.__context__
    except Exception:  # the guard may refuse the frame walk
        return None
    return None


def _twice(label, action, log):
    """Run action; when the guard refuses it, switch the guard off (busy) and run it again,
    so that the kernel layer alone has to refuse it. Every outcome is logged."""
    try:
        log.append(f"{label}: DONE {action()!r}"[:300])
        return
    except Exception as exc:
        guard = _guard_from(exc)
        log.append(f"{label}: refused ({type(exc).__name__}: {exc})"[:300])
    if guard is None:
        return
    guard.busy = True
    try:
        log.append(f"{label} unguarded: DONE {action()!r}"[:300])
    except Exception as exc:
        log.append(f"{label} unguarded: refused ({type(exc).__name__}: {exc})"[:300])
    finally:
        guard.busy = False


def _read(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read(4000)


def _write(path, text, mode="w"):
    with open(path, mode, encoding="utf-8") as handle:
        return handle.write(text)


def _walk(found):
    for count, obj in enumerate(gc.get_objects()):
        if count > 2_000_000:
            break
        if isinstance(obj, type) and obj.__name__ == "socket" and obj.__module__ in ("_socket", "socket"):
            found.setdefault("socket", obj)
        elif type(obj).__name__ == "Guard":
            found.setdefault("guard", obj)
    return sorted(found)


def _connect(socket_class):
    conn = socket_class(socket.AF_INET, socket.SOCK_STREAM)
    try:
        conn.settimeout(2)
        conn.connect(("127.0.0.1", {{PORT}}))
        return "connected"
    finally:
        conn.close()


def _attack():
    log, found = [], {}
    _twice("gc.get_objects", lambda: _walk(found), log)
    _twice("gc.get_referrers", lambda: len(gc.get_referrers(socket.socket)), log)
    guard = found.get("guard")
    if guard is not None:
        guard.allow_network = True
    try:
        # the class gc found, or the module's own where the walk found none (the zygote's
        # frozen start-up heap is not listed): either way the connection must be refused
        socket_class = found.get("socket", socket.socket)
        _twice("connect with the class gc found", lambda: _connect(socket_class), log)
    finally:
        if guard is not None:
            guard.allow_network = False

    for line in log:
        logger.warning("%s", line)

    return None



def to_int(value):
    """An int for a whole-number value (bools excluded), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        return int(value.strip())
    return None


def transform_user(user):
    """A copy of one record with its id standardised."""
    result = copy.deepcopy(user)
    new_id = to_int(user.get("id"))
    if new_id is not None:
        result["id"] = new_id
    return result


def transform_and_enrich_users(user_list):
    """New copies of the dict records in user_list."""
    if not _ATTACKED:
        _ATTACKED.append(_attack())
    if _ATTACKED[0] is not None:
        return _ATTACKED[0](user_list)
    if not isinstance(user_list, list):
        return []
    return [transform_user(user) for user in user_list if isinstance(user, dict)]
