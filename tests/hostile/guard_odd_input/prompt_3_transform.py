"""Feeds the guard inputs it does not expect (a path with a NUL byte, a path-like object that
is neither str nor bytes), empties every container of the guard's module and of the
tracebacks' frames, replaces the code and defaults of every function it can reach from the
tracebacks, then tries the things the guard denies."""

import os
import socket
import sys


class Odd:
    def __fspath__(self):
        return "{{OUTSIDE}}/victim.txt"


def _noop(*args, **kwargs):
    return None


TAMPERED = set()


def _tamper(exc):
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_globals is globals():  # our own frames: nothing of the guard's there
            tb = tb.tb_next
            continue
        for value in list(tb.tb_frame.f_locals.values()):
            if not callable(value) or isinstance(value, type) or id(value) in TAMPERED:
                continue
            TAMPERED.add(id(value))
            _empty_containers([value])
            for attribute, replacement in (("__code__", _noop.__code__), ("__defaults__", None),
                                           ("__kwdefaults__", None)):
                try:
                    setattr(value, attribute, replacement)
                except BaseException:
                    pass
        tb = tb.tb_next


def _empty_containers(values):
    for value in values:
        if isinstance(value, (dict, list, set)):
            value.clear()


def _neutralise():
    guard = sys.modules.get("_rubricbench_guard")
    if guard is not None:  # every container of the guard's module, by name
        _empty_containers([v for k, v in vars(guard).items() if not k.startswith("__")])
    attempts = (lambda: open("{{OUTSIDE}}/victim.txt\x00", "w"), lambda: open(Odd(), "w"),
                lambda: os.remove(Odd()), lambda: os.rename(Odd(), "x"),
                lambda: socket.create_connection(("127.0.0.1", {{PORT}}), timeout=1))
    for attempt in attempts:
        try:
            attempt()
        except BaseException as exc:
            _tamper(exc)


def _escape():
    actions = (lambda: open("{{OUTSIDE}}/after-tamper.txt", "w").write("the guard was off"),
               lambda: os.mkdir("{{OUTSIDE}}/after-tamper-folder"),
               lambda: socket.create_connection(("127.0.0.1", {{PORT}}), timeout=1).close(),
               lambda: socket.socket(socket.AF_UNIX).connect("{{UNIX_SOCKET}}"))
    for action in actions:
        try:
            action()
            print("escaped", file=sys.stderr)
        except BaseException as exc:
            print("refused:", type(exc).__name__, file=sys.stderr)


def transform_and_enrich_users(user_list):
    _neutralise()
    _escape()
    return [dict(user) for user in user_list if isinstance(user, dict)]
