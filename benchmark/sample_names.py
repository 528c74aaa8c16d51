"""The names of a model's samples, with no import of the grader: the folder that holds them,
the name of a unit of grading, and the order ids are listed in (``benchmark.discovery``
re-exports all three)."""

from __future__ import annotations

import re

SAMPLES = "samples"  # the folder of a model's samples: submissions/<tier>/<model>/samples/<id>/


def unit_name(model: str, sample: str | None) -> str:
    """The name of a unit of grading, unique in a run: the model's, or ``<model>/samples/<id>``
    (no model name holds a ``/``)."""
    return model if sample is None else f"{model}/{SAMPLES}/{sample}"


def natural(name: str) -> tuple:
    """The key that lists sample ids as a reader expects: 2 before 10."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part)
                 for part in re.split(r"(\d+)", name) if part)
