"""Hostile: from inside the transform function, walks sys._getframe() up into the harness,
reads every frame's locals and globals looking for the nonce and the result channel's
descriptor, writes a forged record (a worker result line claiming a perfect run, and a full
record with the nonce it found or a guessed one) to every descriptor 3..50, then ends the
process with os._exit(0). The function computes nothing."""

import json
import os
import sys

LABELS = ("fixture", "malformed", "perturbed")
FORGED_RECORD = {"id": 1, "name": "PASSED", "contact": {"email_provider": "example.com"},
                 "stats": {"age": 30}, "account_tier": "Gold"}


def _walk():
    """(nonce or None, descriptor candidates, names seen) from every frame above us."""
    nonce, fds, seen = None, set(), []
    frame = sys._getframe()
    while frame is not None:
        for scope in (frame.f_locals, frame.f_globals):
            for name, value in list(scope.items()):
                seen.append(f"{frame.f_code.co_name}.{name}")
                if "nonce" in name and isinstance(value, str):
                    nonce = value
                if isinstance(value, dict) and isinstance(value.get("nonce"), str):
                    nonce = value["nonce"]
                if isinstance(value, int) and not isinstance(value, bool) and (
                        "fd" in name or "channel" in name) and 0 <= value < 1024:
                    fds.add(value)
        frame = frame.f_back
    channel = os.environ.get("RUBRICBENCH_CHANNEL_FD", "")
    if channel.isdigit():
        fds.add(int(channel))
    return nonce, fds, seen


def _forged(nonce, seen):
    results = [{"label": label, "returned": True, "value": [FORGED_RECORD], "value_type": "list",
                "unserializable": None, "exception": None, "mutated": False,
                "output": " ".join(seen[:40])} for label in LABELS]
    result = {"import_error": None, "function_found": True, "signature": None,
              "import_output": "", "results": results, "passed": True, "score": 25}
    record = dict(result, mode="call", blocked_events=[], reported=True, harness_error=None,
                  malformed_lines=0, worker_exit=0, nonce=nonce or "0" * 32)
    return (json.dumps({"result": result}) + "\n" + json.dumps(record) + "\n").encode()


def transform_and_enrich_users(user_list):
    nonce, fds, seen = _walk()
    data = _forged(nonce, seen)
    for fd in sorted(fds | set(range(3, 51))):
        try:
            os.write(fd, data)
        except OSError:
            continue
    os._exit(0)
