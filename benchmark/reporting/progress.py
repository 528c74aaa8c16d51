"""Progress while models are graded. On a terminal, a tqdm bar on stderr: models done, the
model just finished, elapsed time and rate. When stdout is not a terminal (a CI log, a pipe),
a line on stderr every ``INTERVAL_S`` seconds and when the last model is done (``graded
12/300 models (4 %), 35 s elapsed, ~13 min left``), so stdout stays what the run prints;
tqdm is then not even imported. Silent with ``-q``.

The time left is the models still to grade at the pace of those graded by this run (a model
served from the cache takes no time, so it does not count towards the pace); before one is
graded, no guess is made."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

from ..untrusted import for_stream

INTERVAL_S = 10.0


def duration(seconds: float) -> str:
    """``35 s``, ``13 min``, ``2 h 05 min``: whole units, for a progress line."""
    seconds = max(0, round(seconds))
    if seconds < 120:
        return f"{seconds} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 120 else f"{minutes // 60} h {minutes % 60:02d} min"


class Progress:
    """``enabled``: the bar is drawn (stdout is a terminal); ``lines``: progress lines are
    written instead. ``clock``, ``stream`` and ``tty`` are for tests (a fake clock drives the
    lines without sleeping); ``ticking=False`` starts no timer thread (lines then come only
    with :meth:`done` and :meth:`tick`)."""

    def __init__(self, total: int, *, quiet: bool, clock: Callable[[], float] = time.monotonic,
                 stream: TextIO | None = None, tty: bool | None = None, interval: float = INTERVAL_S,
                 ticking: bool = True, noun: str = "models") -> None:
        tty = sys.stdout.isatty() if tty is None else tty
        self.enabled = not quiet and tty
        self.lines = not quiet and not tty
        self.bar: Any = None
        self.total, self.count, self.fresh = total, 0, 0
        self.noun = noun  # what is counted: "models", or "units" when a model has several samples
        self._clock, self._stream, self._interval = clock, stream, interval
        self._started = self._last = clock()
        self._status = ""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        if self.enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="model", file=sys.stderr, dynamic_ncols=True, leave=False,
                            bar_format="{n_fmt}/{total_fmt} " + noun + " |{bar}| {elapsed} {rate_fmt} {postfix}")
        elif self.lines and ticking and total:
            threading.Thread(target=self._ticks, name="progress-lines", daemon=True).start()

    def done(self, model: str, cached: bool = False) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(f"{model}{' (cached)' if cached else ''}", refresh=False)
            self.bar.update(1)
        if self.lines:
            with self._lock:
                self.count += 1
                self.fresh += 0 if cached else 1
                finished = self.count == self.total
            self.tick(force=finished)

    def note(self, status: str) -> None:
        """Show ``status`` beside the bar, or at the end of the next progress line (a cluster
        run: admitted workers, units in flight)."""
        self._status = status
        if self.bar is not None:
            self.bar.set_postfix_str(status)

    def line(self) -> str:
        """``graded 12/300 models (4 %), 35 s elapsed, ~13 min left``."""
        elapsed = self._clock() - self._started
        share = 100 * self.count // self.total if self.total else 100
        text = f"graded {self.count}/{self.total} {self.noun} ({share} %), {duration(elapsed)} elapsed"
        if self.fresh and self.count < self.total:
            text += f", ~{duration(elapsed / self.fresh * (self.total - self.count))} left"
        return text + (f"; {self._status}" if self._status else "")

    def tick(self, force: bool = False) -> None:
        """Write a progress line when ``interval`` has passed since the last one (or ``force``)."""
        if not self.lines:
            return
        with self._lock:
            now = self._clock()
            if not force and now - self._last < self._interval:
                return
            self._last = now
            stream = self._stream or sys.stderr
            print(for_stream(self.line(), getattr(stream, "encoding", None)), file=stream, flush=True)

    def _ticks(self) -> None:
        while not self._stop.wait(self._interval / 4):  # (wakes often enough to keep the interval)
            self.tick()

    def write(self, text: str) -> None:
        """Print above the bar (or plainly when there is none); what stdout cannot encode
        becomes a backslash escape instead of an exception."""
        text = for_stream(text, getattr(sys.stdout, "encoding", None))
        if self.bar is not None:
            self.bar.write(text, file=sys.stdout)
        else:
            print(text, flush=True)

    def close(self) -> None:
        self._stop.set()
        if self.bar is not None:
            self.bar.close()
