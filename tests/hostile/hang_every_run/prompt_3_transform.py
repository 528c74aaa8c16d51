"""Two denied connections, then an endless loop on every call: each child run of the prompt
would cost a full time-out, and the denials would vanish with the run."""

import socket


def transform_and_enrich_users(user_list):
    for _ in range(2):
        try:
            socket.create_connection(("127.0.0.1", {{PORT}}), timeout=1)
        except OSError:
            pass
    while True:
        pass
