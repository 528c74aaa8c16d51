"""The worker's seal on what the harness observes with (runs INSIDE the child, in the worker,
alongside submission code; standard library only, loaded by path like the rest of the harness).

Everything the harness reports about a call (its CPU time, whether it changed its arguments,
the requests it sent, what it logged) is taken in the submission's own process, by harness
functions and library objects the submission can reach: a module global of
``_rubricbench_modes`` replaced (the timer, the per-call function, the view of a request), a
function's code or defaults swapped, or requests_mock's request proxy rewritten would forge
the observation (``tests/hostile/harness_global_patch``, ``mock_history_forgery``,
``timer_forged``). The zygote takes one snapshot (``prepare``) when every harness module is
loaded: every name of every harness module and class, each harness function's code and
defaults, and the classes of the libraries it observes through (requests_mock's request
proxy, adapter, matcher and mocker; the dispatch methods of ``logging.Logger`` and
``logging.Handler``). Each run's worker makes its seal (``make``) after its filters and the
guard are installed and before the submission loads; the modes check it after the import,
after each call and at each mocked request, and the worker before it reports; a change is
written to the report pipe at once, as an ``integrity`` attempt ("harness changed"), which
makes the supervisor refuse the run's result. A check costs about 0.2 ms in a run.

What it cannot see: a change made and undone between two checks (within one call, with no
mocked request between). The kernel layer contains the run either way; this guards the
verdict, not the machine.
"""

import sys

_MISSING = object()
LIBRARY_CLASSES = (  # (module, class, names watched: None for every name of the class)
    ("requests_mock.request", "_RequestObjectProxy", None),
    ("requests_mock.adapter", "Adapter", None),
    ("requests_mock.adapter", "_Matcher", None),
    ("requests_mock.mocker", "Mocker", None),
    ("logging", "Logger", ("handle", "callHandlers", "_log", "makeRecord")),
    ("logging", "Handler", ("handle",)),
)
MAX_NAMES = 8  # names a report of a change lists
# added to a module's namespace by Python itself: the warnings registry of code that warned
# there (a submission's warnings.warn(..., stacklevel=2) called by the harness lands in
# _rubricbench_modes)
IGNORED = frozenset({"__warningregistry__"})


def _functions(mapping):
    """The plain functions held in a namespace, with those of its classes' methods."""
    found = []
    for value in list(mapping.values()):
        target = getattr(value, "__func__", value)  # staticmethod, classmethod
        if type(target).__name__ == "function":
            found.append(target)
    return found


def _items(namespace):
    return tuple((key, value) for key, value in namespace.items() if key not in IGNORED)


def _snapshot():
    """(namespaces, functions): every harness module's and class's namespace with its items
    as they are now, the watched library classes' (their chosen names), and each harness
    function with its code, defaults and keyword defaults."""
    spaces, functions = [], []
    for name, module in list(sys.modules.items()):
        if not name.startswith("_rubricbench_"):
            continue
        namespace = vars(module)
        spaces.append((name, namespace, _items(namespace), True))
        functions += _functions(namespace)
        for key, value in list(namespace.items()):
            if isinstance(value, type) and value.__module__ == name:
                spaces.append((f"{name}.{key}", value.__dict__, _items(value.__dict__), True))
                functions += _functions(value.__dict__)
    for module_name, class_name, names in LIBRARY_CLASSES:
        cls = getattr(sys.modules.get(module_name), class_name, None)
        if isinstance(cls, type):
            items = _items(cls.__dict__) if names is None else tuple(
                (key, cls.__dict__.get(key, _MISSING)) for key in names)
            spaces.append((f"{module_name}.{class_name}", cls.__dict__, items, names is None))
    frozen = tuple((f, f.__code__, f.__defaults__, f.__kwdefaults__,
                    None if f.__kwdefaults__ is None else tuple(f.__kwdefaults__.items()))
                   for f in functions)
    return tuple(spaces), frozen


_PREPARED = []  # the zygote's snapshot (``prepare``): a list, filled, never rebound


def prepare():
    """Take the snapshot once, in the zygote, when every harness module is loaded: each run
    then only checks it (taken in each run, the walk cost about 2 ms of its CPU, most of it
    the pages it copies)."""
    if not _PREPARED:
        _PREPARED.append(_snapshot())


def make(report_fd, event, write=None):
    """The run's seal: ``check()`` returns the names changed since the snapshot (the zygote's,
    or taken now) (an empty tuple when nothing did) and, the first time a given change is
    seen, reports it on ``report_fd`` as an integrity attempt named ``event``
    (``guard_events.CHANGED_EVENT``)."""
    import json
    import os

    spaces, frozen = _PREPARED[0] if _PREPARED else _snapshot()
    reported = set()

    def check(spaces=spaces, frozen=frozen, reported=reported, report_fd=report_fd,
              write=write or os.write, dumps=json.dumps, missing=_MISSING, len=len,
              tuple=tuple, sorted=sorted, base=BaseException, cap=MAX_NAMES, ignored=IGNORED,
              event=event):
        changed = []
        try:
            for label, namespace, items, whole in spaces:
                if whole and len(namespace) - sum(1 for key in ignored if key in namespace) != len(items):
                    changed.append(label + " (names added or removed)")
                for key, value in items:
                    if namespace.get(key, missing) is not value:
                        changed.append(f"{label}.{key}")
            for function, code, defaults, kwdefaults, kwitems in frozen:
                if (function.__code__ is not code or function.__defaults__ is not defaults
                        or function.__kwdefaults__ is not kwdefaults
                        or (kwdefaults is not None and tuple(kwdefaults.items()) != kwitems)):
                    changed.append(f"{function.__module__}.{function.__qualname__} (code or defaults)")
        except base:
            changed.append("a namespace the seal could not read")
        found = tuple(sorted(changed))
        if found and found not in reported:
            reported.add(found)
            detail = ", ".join(found[:cap]) + (f" and {len(found) - cap} more" if len(found) > cap else "")
            line = dumps({"blocked": "integrity", "event": event, "detail": detail[:300]})
            try:
                write(report_fd, ("\n" + line + "\n").encode("ascii"))
            except base:
                pass
        return found

    return check
