"""Warm-up: load the heavy libraries a run will need on a background thread, early.

Bandit (about 60 ms to import), jsonschema (40 ms, and 30 ms more for its first validation)
and Jinja2 (15 ms, plus 30 ms to compile the HTML template) are needed by every graded run,
but only after the sandboxed children have started. ``start()`` loads them on a daemon
thread while the main thread waits for the zygote and for children, which it does with the
GIL released. Nothing here changes a result: each function it calls is the one the run calls
later (an import, or an ``lru_cache``'d builder), and a failure here is left for that later
call to raise where it is handled. Each step holds ``threads.PYTHON_WORK``, and the run joins
this thread before it writes its reports.
"""

from __future__ import annotations

import threading

from .threads import PYTHON_WORK


def _warm() -> None:
    from .analyzers.security import bandit_modules
    from .reporting import results_json, templating

    steps = (bandit_modules, results_json._validator,
             lambda: list(results_json._validator().iter_errors({})),
             lambda: templating.environment().get_template("report.html.j2"))
    for step in steps:
        try:
            with PYTHON_WORK:  # only while the grading threads wait for children
                step()
        except Exception:  # noqa: BLE001 - the real call repeats the step and reports
            return


def start() -> threading.Thread:
    thread = threading.Thread(target=_warm, name="warm-up", daemon=True)
    thread.start()
    return thread
