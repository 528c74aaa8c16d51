"""What a grading run is configured with: light to import (a run whose models all come from
the cache never loads the grading engine, ``benchmark.engine.grading``, which re-exports these)."""

from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..types import CAUSE_INTERNAL, INTERNAL_ERROR, MAX_TIMEOUT_S, MEM_CHOICES, Check, ModelResult, RunConfig, unjudged_by_reference

if TYPE_CHECKING:
    from ..secure_runner import SecureRunner

DEFAULT_SEED = RunConfig.seed  # one default, kept in benchmark.types


@dataclass(frozen=True)
class GradeOptions:
    """How models are graded. The values the command line refuses are refused here too (a
    library caller's ``timeout_s=-1`` or ``memory_mb=1`` would otherwise starve every child and
    score the submission for it): ``TypeError`` for a value of the wrong type, ``ValueError``
    for one out of range, naming the field."""

    memory_mb: int = 512
    timeout_s: float = 30.0
    unsafe: bool = False
    allow_network: bool = False
    seed: int = DEFAULT_SEED
    debug: bool = False

    def __post_init__(self) -> None:
        def number(name: str, value: object, kind: type, what: str) -> None:
            if isinstance(value, bool) or not isinstance(value, kind):
                raise TypeError(f"GradeOptions.{name} must be {what}, not {type(value).__name__}")
        number("timeout_s", self.timeout_s, numbers.Real, "a number")
        if not (math.isfinite(self.timeout_s) and 0 < self.timeout_s <= MAX_TIMEOUT_S):
            raise ValueError(f"GradeOptions.timeout_s={self.timeout_s!r}: the wall-clock time-out "
                             f"is a number of seconds over 0 and at most {MAX_TIMEOUT_S:g}")
        number("memory_mb", self.memory_mb, numbers.Integral, "an integer")
        if self.memory_mb < MEM_CHOICES[0]:
            raise ValueError(f"GradeOptions.memory_mb={self.memory_mb!r}: each child needs at "
                             f"least {MEM_CHOICES[0]} MB")
        number("seed", self.seed, numbers.Integral, "an integer")
        if not -2**63 <= self.seed < 2**63:  # (the results record it as a 64-bit JSON integer)
            raise ValueError(f"GradeOptions.seed={self.seed!r}: the seed is an integer from "
                             f"{-2**63} to {2**63 - 1}")

    def runner(self, model: str) -> SecureRunner:
        from ..secure_runner import SecureRunner  # (a run served from the cache starts none)

        return SecureRunner(model, self.allow_network, memory_mb=self.memory_mb,
                            timeout_s=self.timeout_s, unsafe=self.unsafe)


def has_internal_error(result: ModelResult) -> bool:
    """Whether the grader failed on a check of ``result`` (its typed cause, not its text)."""
    return any(check.cause == CAUSE_INTERNAL for check in _checks(result))


def _checks(result: ModelResult):
    return (check for prompt in result.prompts for cat in prompt.categories for check in cat.checks)


def reference_unjudged(check: Check, *, unfinished: bool = False) -> bool:
    """Whether ``check`` was not judged because its task's reference solution failed (with
    ``unfinished``: because it did not finish, which the machine's load may have caused)."""
    return unjudged_by_reference(check.cause, unfinished=unfinished)


def has_reference_failure(result: ModelResult) -> bool:
    """Whether a check of ``result`` was not judged because a reference solution failed."""
    return any(reference_unjudged(check) for check in _checks(result))


def cacheable(result: ModelResult) -> bool:
    """Whether a graded model may be stored in the result cache: only a verified grading.

    Anything the grader caused (an exception in a check or while observing, a zygote that
    died or did not end a timed-out run, a sandbox killed from outside before it reported, a
    sandbox clean-up that failed: each recorded as an
    ``internal error``) is transient, so the model is graded again next time instead of the
    failure being replayed. The submission's own faults (a syntax error, a missing file, its
    child timing out at the deadline the zygote measures) are results, and are stored. So is
    a check left unjudged by a reference solution that raised, exited non-zero or printed what
    does not parse (the key holds the pack's content hash, reference included, and the
    grader's source hash, the core references included: fixing it re-grades); one whose
    reference did not finish (timed out, skipped, killed, no record) may be the machine's
    load, and is graded again."""
    return not has_internal_error(result) and not any(
        reference_unjudged(check, unfinished=True) for check in _checks(result))


def default_test_data() -> Path:
    """``$RUBRICBENCH_TEST_DATA`` (or the spec's ``$AIBUGBENCH_TEST_DATA``), else ./test_data,
    else the checkout's test_data, else the copy an installed wheel carries
    (``benchmark/test_data``, see setup.py). A variable of blanks counts as unset."""
    for name in ("RUBRICBENCH_TEST_DATA", "AIBUGBENCH_TEST_DATA"):
        env = os.environ.get(name, "")
        if env.strip():
            return Path(env)
    local = Path.cwd() / "test_data"
    if local.is_dir():
        return local
    package = Path(__file__).resolve().parents[1]
    checkout = package.parent / "test_data"
    return checkout if checkout.is_dir() or not (package / "test_data").is_dir() else package / "test_data"
