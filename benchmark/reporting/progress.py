"""Progress on a terminal while models are graded (tqdm): models done, the model just
finished, elapsed time and rate. Silent with ``-q`` and when stdout is not a terminal."""

from __future__ import annotations

import sys

from tqdm import tqdm


class Progress:
    def __init__(self, total: int, *, quiet: bool) -> None:
        self.enabled = not quiet and sys.stdout.isatty()
        self.bar = tqdm(total=total, unit="model", file=sys.stderr, disable=not self.enabled,
                        dynamic_ncols=True, leave=False,
                        bar_format="{n_fmt}/{total_fmt} models |{bar}| {elapsed} {rate_fmt} {postfix}")

    def done(self, model: str, cached: bool = False) -> None:
        self.bar.set_postfix_str(f"{model}{' (cached)' if cached else ''}", refresh=False)
        self.bar.update(1)

    def write(self, text: str) -> None:
        """Print above the bar (or plainly when there is none)."""
        if self.enabled:
            tqdm.write(text, file=sys.stdout)
        else:
            print(text, flush=True)

    def close(self) -> None:
        self.bar.close()
