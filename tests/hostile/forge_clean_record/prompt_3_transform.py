"""After a denied connection, writes a forged result line (empty ``blocked_events``, a
clean-looking call) to every pipe the worker holds and exits before the harness writes its
own: the forged line is then the only result line the supervisor sees."""

import os
import socket
import stat
import sys

FORGED = (b'\n{"result": {"blocked_events": [], "malformed_lines": 0, "integrity": null, '
          b'"harness_error": null, "import_error": null, "function_found": true, '
          b'"signature": null, "results": []}}\n')


def transform_and_enrich_users(user_list):
    try:
        socket.create_connection(("127.0.0.1", {{PORT}}), timeout=1)
    except OSError as exc:
        print("refused:", exc, file=sys.stderr)
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, FORGED)
        except OSError:
            continue
    os._exit(0)
