"""Progress on a terminal while models are graded (tqdm): models done, the model just
finished, elapsed time and rate. Silent with ``-q`` and when stdout is not a terminal (tqdm
is then not even imported)."""

from __future__ import annotations

import sys
from typing import Any

from ..untrusted import for_stream


class Progress:
    def __init__(self, total: int, *, quiet: bool) -> None:
        self.enabled = not quiet and sys.stdout.isatty()
        self.bar: Any = None
        if self.enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="model", file=sys.stderr, dynamic_ncols=True, leave=False,
                            bar_format="{n_fmt}/{total_fmt} models |{bar}| {elapsed} {rate_fmt} {postfix}")

    def done(self, model: str, cached: bool = False) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(f"{model}{' (cached)' if cached else ''}", refresh=False)
            self.bar.update(1)

    def note(self, status: str) -> None:
        """Show ``status`` beside the bar (a cluster run: admitted workers, units in flight)."""
        if self.bar is not None:
            self.bar.set_postfix_str(status)

    def write(self, text: str) -> None:
        """Print above the bar (or plainly when there is none); what stdout cannot encode
        becomes a backslash escape instead of an exception."""
        text = for_stream(text, getattr(sys.stdout, "encoding", None))
        if self.bar is not None:
            self.bar.write(text, file=sys.stdout)
        else:
            print(text, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
