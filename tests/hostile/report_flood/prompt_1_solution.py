"""Floods every pipe it holds with forged denied-attempt lines (distinct details, so no
de-duplication folds them) and with lines of other shapes, in writes of at most 64 KiB."""

import json
import os
import stat
import sys

COUNT = 20_000


def _pipes():
    found = []
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                found.append(fd)
        except OSError:
            continue
    return found


def main():
    lines = [json.dumps({"blocked": "network", "event": "socket.connect", "detail": f"forged {i}"})
             for i in range(COUNT)]
    lines += [json.dumps({"blocked": "network", "event": "socket.connect", "detail": f"odd {i}",
                          "extra": i}) for i in range(COUNT)]
    data = ("\n" + "\n".join(lines) + "\n").encode()
    for fd in _pipes():
        for start in range(0, len(data), 65536):
            try:
                os.write(fd, data[start:start + 65536])
            except OSError:
                break
    print("[]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
