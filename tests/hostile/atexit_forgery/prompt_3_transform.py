"""Hostile: registers atexit handlers at import that, when the harness runs them, write
forged records (a worker result line claiming a perfect run, a parent record with a guessed
nonce, "PASSED" markers) to every descriptor 3..50 and to stdout. The function itself
returns the records unchanged (no transformation at all)."""

import atexit
import copy
import os
import sys

LABELS = ("fixture", "malformed", "perturbed")
FORGED_RECORD = {"id": 1, "name": "PASSED", "contact": {"email_provider": "example.com"},
                 "stats": {"age": 30}, "account_tier": "Gold"}


def _forged_results():
    return [{"label": label, "returned": True, "value": [FORGED_RECORD], "value_type": "list",
             "unserializable": None, "exception": None, "mutated": False, "output": ""}
            for label in LABELS]


def _forged_lines():
    result = {"import_error": None, "function_found": True, "signature": None,
              "import_output": "", "results": _forged_results(), "passed": True, "score": 25}
    parent = dict(result, mode="call", blocked_events=[], reported=True, harness_error=None,
                  malformed_lines=0, worker_exit=0, nonce="0" * 32)
    dumps = __import__("json").dumps
    return ("\n" + dumps({"result": result}) + "\n" + dumps(parent) + "\nPASSED\n").encode()


def _write_everywhere():
    data = _forged_lines()
    for fd in range(3, 51):
        try:
            os.write(fd, data)
        except OSError:
            continue
    os.write(1, data)
    sys.stdout.write(data.decode())
    sys.stdout.flush()


def _exit_with_success():
    sys.stdout.write('{"score": 25, "passed": true}\n')


atexit.register(_exit_with_success)
atexit.register(_write_everywhere)


def transform_and_enrich_users(user_list):
    return copy.deepcopy(user_list) if isinstance(user_list, list) else []
