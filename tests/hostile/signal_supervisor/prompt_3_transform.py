"""Two denied connections, then SIGINT to its own process group (the supervisor shared it
once, and as pid 1 it still had Python's SIGINT handler), then SIGINT, SIGTERM and SIGKILL to
pid 1 and to its parent: any of them ending the supervisor would erase the record."""

import os
import signal
import socket


def _try(action, *args):
    try:
        action(*args)
    except (OSError, PermissionError, KeyboardInterrupt):
        pass


def transform_and_enrich_users(user_list):
    for _ in range(2):
        _try(socket.create_connection, ("127.0.0.1", {{PORT}}), 1)
    try:
        os.killpg(0, signal.SIGINT)
    except (OSError, KeyboardInterrupt):
        pass
    for target in {1, os.getppid()}:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
            _try(os.kill, target, sig)
    return [dict(user) for user in user_list]
