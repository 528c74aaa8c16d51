"""Warm-up: load the heavy libraries a run will need on a background thread, early.

Bandit (about 60 ms to import), the compiled results-schema check (about 40 ms to generate)
and Jinja2 (15 ms, plus 30 ms to compile the HTML template) are needed by every graded run,
but only after the sandboxed children have started. ``start()`` prepares them on a daemon
thread while the main thread waits for the zygote and for children, which it does with the
GIL released. A run whose models are graded by pool workers does not load bandit here. Nothing here changes a result: each function it calls is the one the run calls
later (an import, or an ``lru_cache``'d builder), and a failure here is left for that later
call to raise where it is handled. Each step holds ``threads.PYTHON_WORK``, and the run joins
this thread before it writes its reports.
"""

from __future__ import annotations

import gc
import threading

from .threads import PYTHON_WORK

# Grading allocates syntax trees by the hundred thousand, almost none of them in reference
# cycles. With CPython's default first threshold (700 allocations) the collector runs dozens
# of times per model and walks every live object each time it reaches the oldest generation.
GC_THRESHOLDS = (50_000, 20, 20)


def tune_gc() -> None:
    """For a grading process (not for a library user's): move everything loaded so far out of
    the collector's reach (``gc.freeze``; modules and their data live as long as the process)
    and collect less often. Garbage in cycles is still collected, later and in larger batches."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def _warm(grading_here: bool) -> None:
    from .analyzers.security import bandit_modules
    from .reporting import results_json, templating

    steps = ((bandit_modules,) if grading_here else ()) + (
        results_json._fast_check, lambda: templating.environment().get_template("report.html.j2"))
    for step in steps:
        try:
            with PYTHON_WORK:  # only while the grading threads wait for children
                step()
        except Exception:  # noqa: BLE001 - the real call repeats the step and reports
            return
    tune_gc()  # what the steps loaded is permanent too


def start(grading_here: bool = True) -> threading.Thread:
    """``grading_here``: this process grades (so it needs bandit), rather than pool workers."""
    thread = threading.Thread(target=_warm, args=(grading_here,), name="warm-up", daemon=True)
    thread.start()
    return thread
