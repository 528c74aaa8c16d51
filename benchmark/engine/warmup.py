"""Warm-up: load the heavy libraries a run will need on a background thread, early.

The bandit process (``benchmark.sandbox.bandit_process``: a Python that imports bandit, about
100 ms, on the other core), the compiled results-schema check (about 40 ms to generate) and
Jinja2 (15 ms, plus 30 ms to compile the HTML template) are needed by every graded run, but
only after the sandboxed children have started; so are the manifest's dependency versions
(``benchmark.installed``, about 3 ms; looked up here only when some model is graded: a run
served from the cache has no wait to fill). ``start()`` prepares them on a daemon
thread while the main thread waits for the zygote and for children, which it does with the
GIL released. The bandit process is started only once the run has said that this process
grades something (``Warmup.grading``), and then first: never when pool workers grade (each
starts its own), nor when every model comes from the cache. Nothing here changes a result: each function it calls is
the one the run calls later (an import, or an ``lru_cache``'d builder), and a failure here
is left for that later call to raise where it is handled. Each step holds
``threads.PYTHON_WORK``, and the run joins this thread before it writes its reports.
"""

from __future__ import annotations

import gc
import threading

from ..threads import PYTHON_WORK

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


def _start_bandit() -> None:
    from ..sandbox import bandit_process

    bandit_process.prestart()


class Warmup:
    """The warm-up thread. ``grading(needed)`` tells it whether this process will grade
    (it then starts the bandit process before the report steps); ``join()`` tells it "no" if nobody has."""

    def __init__(self, grading_here: bool) -> None:
        self._grading_here = grading_here
        self._decided = threading.Event()
        self._needed = False
        self._thread = threading.Thread(target=self._run, name="warm-up", daemon=True)
        self._thread.start()

    def grading(self, needed: bool) -> None:
        if not self._decided.is_set():
            self._needed = needed
            self._decided.set()

    def join(self, timeout: float | None = None) -> None:
        self.grading(False)
        self._thread.join(timeout)

    def _run(self) -> None:
        from ..reporting import results_json, templating
        from . import manifest

        steps = [results_json._fast_check, lambda: templating.environment().get_template("report.html.j2")]
        if self._grading_here:  # grading needs bandit first, the reports only at the end
            self._decided.wait()  # (not holding the lock: the grading threads may need it)
            if self._needed:
                steps.insert(0, _start_bandit)
        for step in steps:
            if not self._step(step):
                return
        self._decided.wait()  # (with a pool too: it hears whether any model is graded)
        if self._needed:  # the run then waits for its models; otherwise this would only compete
            self._step(manifest.dependency_versions)
        tune_gc()  # what the steps loaded is permanent too

    @staticmethod
    def _step(step) -> bool:
        try:
            with PYTHON_WORK:  # only while the grading threads wait for children
                step()
            return True
        except Exception:  # noqa: BLE001 - the real call repeats the step and reports
            return False


def start(grading_here: bool = True) -> Warmup:
    """``grading_here``: this process grades (so it may need bandit), rather than pool workers."""
    return Warmup(grading_here)
