"""The zygote's clock of its runs: when each started, its deadline, and how it ended (runs
INSIDE the zygote; standard library only, loaded by path like the other harness modules)."""

import time


class RunClock:
    """When each live run started, its deadline, and whether it was ended at that deadline
    (``timed_out``) or by the grader's kill (``killed``); times are ``time.monotonic()``."""

    def __init__(self):
        self.runs = {}  # pid -> [started, deadline or None, timed_out, killed]

    def start(self, pid, seconds):
        now = time.monotonic()
        self.runs[pid] = [now, now + float(seconds) if seconds else None, False, False]

    def wait(self):
        """Seconds until the next deadline of a run not yet ended (None: no deadline)."""
        pending = [run[1] for run in self.runs.values() if run[1] is not None and not run[2]]
        return max(0.0, min(pending) - time.monotonic()) if pending else None

    def overdue(self, running):
        """The runs past their deadline that are still ``running(pid)``, each returned once
        (marked as timed out: one that ended in time is not)."""
        now, late = time.monotonic(), []
        for pid, run in self.runs.items():
            if run[1] is not None and not run[2] and now >= run[1] and running(pid):
                run[2] = True
                late.append(pid)
        return late

    def killed(self, pid):
        if pid in self.runs:
            self.runs[pid][3] = True

    def finish(self, pid):
        """The report of an ended run: its wall time, and how it was ended."""
        started, _, timed_out, killed = self.runs.pop(pid, (time.monotonic(), None, False, False))
        return {"wall_s": round(time.monotonic() - started, 4), "timed_out": timed_out,
                "killed": killed}
