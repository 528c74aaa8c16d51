"""The worker's I/O around submission code (runs INSIDE the child): output captured at the
descriptor level, ``stdin`` fed from a file, the output file a script wrote read without
following a link, an exception summarised without trusting its ``__str__``, and a line
written whole to a pipe (the supervisor writes its record with it too).

The descriptor calls are bound when the harness loads, before any submission code runs.
"""

import errno
import os
import stat
import sys
import tempfile

_write, _read, _close = os.write, os.read, os.close
_dup, _dup2, _fstat, _ftruncate, _lseek, _getpid = os.dup, os.dup2, os.fstat, os.ftruncate, os.lseek, os.getpid
_type, _len = type, len
OUTPUT_CAP = 64 * 1024
MESSAGE_CAP = 500


def _exc_info(exc):
    try:
        message = str(exc)[:MESSAGE_CAP]
    except Exception:  # a hostile __str__
        message = "<unprintable>"
    return {"type": _type(exc).__name__, "message": message}


# The worker's capture file: [(descriptor, (st_dev, st_ino), the pid that made it) or None,
# whether a capture is using it] (a list, changed in place: the seal watches what the
# harness's names are bound to). Only the process that made it uses it: a process forked
# with it (none is: the zygote captures nothing) makes its own, so runs share no file.
_CAPTURE_FILE = [None, False]


class _Capture:
    """Redirects fd 1 and 2 (so print and logging both land here) into a temp file.

    The worker keeps one such file and empties it for each capture (a call's output is read
    before the next call starts), so a run of hundreds of calls makes one file, not one per
    call. A capture inside another gets a file of its own, closed after. When the
    descriptor no longer holds that file (submission code closed it, or put a file of its own
    under its number), a new file is made and kept, and that descriptor is left alone. A
    thread the submission leaves running with a copy of the descriptor can write into a later
    call's output: its own calls' logs only, as it could by printing."""

    def __enter__(self):
        self._flush()
        self._saved = (_dup(1), _dup(2))
        self._fd, self._private = self._take()
        _dup2(self._fd, 1)
        _dup2(self._fd, 2)
        return self

    @staticmethod
    def _take():
        """(the descriptor to capture into, whether it is this capture's own)."""
        shared, busy = _CAPTURE_FILE
        if shared is not None and not busy:
            fd, identity, pid = shared
            try:
                info = _fstat(fd)
                if ((info.st_dev, info.st_ino) == identity and pid == _getpid()
                        and stat.S_ISREG(info.st_mode)):
                    _ftruncate(fd, 0)
                    _lseek(fd, 0, 0)
                    _CAPTURE_FILE[1] = True
                    return fd, False
            except OSError:
                pass
            _CAPTURE_FILE[0] = None  # (not ours any more: never closed here)
        handle = tempfile.TemporaryFile()
        fd = _dup(handle.fileno())
        handle.close()
        if busy:
            return fd, True
        info = _fstat(fd)
        _CAPTURE_FILE[:] = [(fd, (info.st_dev, info.st_ino), _getpid()), True]
        return fd, False

    @staticmethod
    def _flush():
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # a submission may have replaced the stream
                pass

    def __exit__(self, *exc):
        self._flush()
        _dup2(self._saved[0], 1)
        _dup2(self._saved[1], 2)
        for fd in self._saved:
            _close(fd)
        chunks, size = [], 0
        try:
            _lseek(self._fd, 0, 0)
            while size < OUTPUT_CAP:
                chunk = _read(self._fd, OUTPUT_CAP - size)
                if not chunk:
                    break
                chunks.append(chunk)
                size += _len(chunk)
        except OSError:  # (submission code closed it or replaced it: what was read is kept)
            pass
        self.text = b"".join(chunks).decode("utf-8", "replace")
        if self._private:
            _close(self._fd)
        else:
            _CAPTURE_FILE[1] = False
        return False


def _feed_stdin(text):
    """fd 0 (and so ``sys.stdin`` and ``input()``) reads ``text``, from an unlinked temporary
    file, so input of any size is there at once and nothing blocks."""
    handle = tempfile.TemporaryFile()
    handle.write(text.encode("utf-8"))
    handle.seek(0)
    os.dup2(handle.fileno(), 0)
    handle.close()
    sys.stdin = open(0, encoding="utf-8", closefd=False)


def _lstat_is_link(name, dir_fd):
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def _open_output(dir_fd, relative):
    """A descriptor for ``relative`` under ``dir_fd`` (every component opened with
    O_NOFOLLOW, so no symbolic link is followed), or a str saying why not."""
    parts = relative.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return "not a plain relative path"
    opened = []
    try:
        current = dir_fd
        for index, part in enumerate(parts):
            last = index == _len(parts) - 1
            if _lstat_is_link(part, current):  # before open: the guard never sees a link
                return "is a symbolic link (not followed)"
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
            flags |= (os.O_NONBLOCK | os.O_NOCTTY) if last else os.O_DIRECTORY
            current = os.open(part, flags, dir_fd=current)
            opened.append(current)
        return opened.pop()
    except FileNotFoundError:
        return "no such file"
    except OSError as exc:
        return "is a symbolic link (not followed)" if exc.errno == errno.ELOOP else f"cannot be opened: {exc.strerror}"
    finally:
        for fd in opened:
            _close(fd)


def read_output_file(dir_fd, relative):
    """{"text", "truncated", "decode_error"} or {"error"}: the regular file ``relative`` under
    ``dir_fd``, read without following links, capped at OUTPUT_CAP bytes, decoded as UTF-8
    (invalid bytes replaced and the first one noted in ``decode_error``)."""
    import codecs

    fd = _open_output(dir_fd, relative)
    if _type(fd) is str:
        return {"error": fd}
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return {"error": "not a regular file"}
        chunks, size = [], 0
        while size <= OUTPUT_CAP:
            chunk = _read(fd, OUTPUT_CAP + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += _len(chunk)
    except OSError as exc:
        return {"error": f"cannot be read: {exc.strerror}"}
    finally:
        _close(fd)
    data = b"".join(chunks)
    truncated = _len(data) > OUTPUT_CAP
    data = data[:OUTPUT_CAP]
    problem = None
    try:  # a character cut at the cap is dropped, not an error
        text = codecs.getincrementaldecoder("utf-8")("strict").decode(data, final=not truncated)
    except UnicodeDecodeError as exc:
        problem = f"not valid UTF-8 at byte {exc.start}"
        text = data.decode("utf-8", "replace")
    return {"text": text, "truncated": truncated, "decode_error": problem}


def _output_record(home, relative):
    try:
        os.fchdir(home)  # the guard resolves names against the working dir
        return read_output_file(home, relative)
    except OSError as exc:  # the program closed or replaced the descriptor
        return {"error": f"the working folder could not be reopened: {exc.strerror}"}


def _send_line(fd, text):
    data = text.encode("utf-8")
    while data:
        data = data[_write(fd, data):]
