"""What the command line shares with the commands behind it: exit codes and output.

Exit codes (the spec's table): 0 success; 1 general error (bad configuration, a grader
failure, refused --unsafe, a model whose results record could not be written); 2 unknown model
or no model found; 3 a submission file could not be graded (status ``error``: missing, empty,
binary, non-UTF-8, syntax error ...), a model folder was skipped (its name cannot name a
model) or a task pack did not validate; 4 a child hit the wall-clock timeout; 5 the
submissions or test-data folder does not exist; 6 ``--compare --fail-on-regression PTS``: a
model's overall score dropped by more than PTS points; 7 ``--fail-under PCT``: a graded model
scored under PCT percent.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from .types import RunConfig
from .untrusted import for_stream, text

EXIT_OK, EXIT_ERROR, EXIT_MISSING_MODEL, EXIT_VALIDATION, EXIT_TIMEOUT, EXIT_NOT_FOUND = range(6)
EXIT_REGRESSION, EXIT_FAIL_UNDER = 6, 7
# What each exit code of a grading run means, in short (README.md, "Exit codes", says it in full;
# `rubricbench --help` lists these).
EXIT_MEANINGS = (
    (EXIT_OK, "success"),
    (EXIT_ERROR, "general error: bad configuration, a grader failure, a results folder that cannot "
                 "be written, a lost cluster, a failed --self-check"),
    (EXIT_MISSING_MODEL, "unknown model or none found (nothing written), or a usage error"),
    (EXIT_VALIDATION, "a pack did not validate, a reference solution failed, a submission file could "
                      "not be graded (empty, binary, too large, undecodable, a syntax error, misnamed), "
                      "a model submitted no file at all, or a model folder was skipped"),
    (EXIT_TIMEOUT, "a child hit the wall-clock time-out"),
    (EXIT_NOT_FOUND, "the submissions or test-data folder does not exist"),
    (EXIT_REGRESSION, "--compare --fail-on-regression: a model lost more than the points allowed"),
    (EXIT_FAIL_UNDER, "--fail-under: a graded model scored under the bar"),
)
SCHEMA_VERSION = "1.0"


def _say(config: RunConfig, message: str = "") -> None:
    """Print unless quiet; what the terminal cannot encode (an emoji on an ASCII terminal)
    becomes a backslash escape. Text from submissions has passed ``benchmark.untrusted``."""
    if not config.quiet:
        print(for_stream(message, getattr(sys.stdout, "encoding", None)), flush=True)


def _error(message: str) -> None:
    """``error: ...`` on stderr, on one line: the message may quote a folder name or a model
    name given on the command line, so it passes the untrusted-text boundary here."""
    _to_stderr("error", message)


def _warn(message: str) -> None:
    """``warning: ...`` on stderr, on one line, even with -q (the boundary as for ``_error``)."""
    _to_stderr("warning", message)


def _to_stderr(kind: str, message: str) -> None:
    line = for_stream(f"{kind}: {text(message)}", getattr(sys.stderr, "encoding", None))
    print(line, file=sys.stderr, flush=True)


class PipeSafe:
    """A text stream whose reader may leave (``rubricbench ... | head``) or that may fail (a log
    on a full disk): the first BrokenPipeError, or any other OSError, points the descriptor at
    /dev/null and every later write is dropped, so the run goes on and writes its results files
    instead of dying between two models. The rest of the stream's interface is the wrapped
    stream's. ``failure`` keeps the first error that was not the reader leaving (a full disk):
    a command whose product is what it prints (``pack docs``) reports it."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.gone = False
        self.failure: OSError | None = None

    def write(self, data: str) -> int:
        if not self.gone:
            try:
                return self._stream.write(data)
            except OSError as exc:  # BrokenPipeError, ENOSPC, EIO ...
                self._reader_left(exc)
        return len(data)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except OSError as exc:
                self._reader_left(exc)

    def _reader_left(self, exc: OSError) -> None:
        """Later writes go nowhere, the interpreter's own flush at exit included (it would
        otherwise print an ignored BrokenPipeError)."""
        self.gone = True
        if not isinstance(exc, BrokenPipeError):
            self.failure = exc
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, self._stream.fileno())
            finally:
                os.close(null)
        except (OSError, ValueError, AttributeError):
            pass  # a stream without a descriptor: dropping our own writes is enough

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def signals_held(signums: tuple[int, ...] = (signal.SIGINT, signal.SIGTERM)) -> Iterator[list[int]]:
    """While the block runs, each of ``signums`` that arrives is noted (in the list this
    yields) instead of acted on, so what the block writes is written in full; the handlers in
    place before are restored after it. Only in the main thread (elsewhere nothing changes)."""
    held: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield held
        return
    previous = {signum: signal.signal(signum, lambda number, _frame: held.append(number))
                for signum in signums}
    try:
        yield held
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
