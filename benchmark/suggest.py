"""Did-you-mean: the near misses of a name the user typed, for the command line's messages.

``SuggestingParser`` is the ``argparse.ArgumentParser`` of every command: an unknown flag, or
an unknown choice of a flag or sub-command, is answered with the nearest names it knows
(``rubricbench: error: unrecognized arguments: --moddel; did you mean --model?``).
``nearest`` serves the other names a user types or submits: model names and the files of a
model folder.
"""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Iterable

CUTOFF = 0.6  # difflib's ratio; 0.6 takes one or two typos in a name of a few words
_CHOICE = re.compile(r"invalid choice: '([^']*)'")


def nearest(typed: str, known: Iterable[str], count: int = 3) -> list[str]:
    """The names of ``known`` closest to ``typed``, best first (none under ``CUTOFF``); a
    known name that differs only in case or in ``-``/``_`` comes first."""
    names = list(dict.fromkeys(known))

    def folded(name: str) -> str:
        return name.casefold().replace("-", "_")

    same = [name for name in names if folded(name) == folded(typed) and name != typed]
    close = difflib.get_close_matches(typed, names, n=count, cutoff=CUTOFF)
    return list(dict.fromkeys(same + close))[:count]


def did_you_mean(typed: str, known: Iterable[str], count: int = 3) -> str:
    """``"; did you mean X?"`` (or ``X or Y``), or "" when nothing is close."""
    found = nearest(typed, known, count)
    return f"; did you mean {' or '.join(found)}?" if found else ""


class SuggestingParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors name the nearest flag or choice it knows."""

    def error(self, message: str):  # type: ignore[override]
        if message.startswith("unrecognized arguments: "):
            flags = [option for action in self._actions for option in action.option_strings]
            for token in message[len("unrecognized arguments: "):].split():
                if token.startswith("-"):
                    message += did_you_mean(token.split("=", 1)[0], flags, 1)
                    break
        elif (match := _CHOICE.search(message)) is not None:
            choices = [str(c) for action in self._actions if action.choices for c in action.choices]
            message += did_you_mean(match.group(1), choices, 1)
        super().error(message)
