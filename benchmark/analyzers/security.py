"""Security findings from bandit's Python API, and the arithmetic that turns them into credit.

Bandit runs with ``ignore_nosec=True``: a ``# nosec`` comment is text the submission wrote,
and comments never earn or cost points, so it must never hide a finding.
"""

from __future__ import annotations

import ast
import hashlib
import logging
import tempfile
import threading
import warnings
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..sandbox import bandit_process
from ..threads import released_while_waiting
from ..decoding import source_bytes
from .budget import bandit_budget_problem

SEVERITY_WEIGHT = {"HIGH": 1.0, "MEDIUM": 0.5, "LOW": 0.15}
CONFIDENCE_WEIGHT = {"HIGH": 1.0, "MEDIUM": 0.75, "LOW": 0.5}
# B101 (assert used) is not a vulnerability in a script or library: asserts document
# invariants and are how tests are written. Bandit flags every one because ``python -O``
# strips them, which would penalise defensive code; it is reported but costs nothing.
UNPENALISED = frozenset({"B101"})
CACHE_SIZE = 256


class BanditError(RuntimeError):
    """Bandit could not analyse the text (unparseable input or an internal plugin error)."""


class AnalysisLimitError(BanditError):
    """The text is over the analysis budget (``benchmark.analyzers.budget``): the
    submission's doing, so the checks that use bandit are errors, not internal errors."""


@dataclass(frozen=True)
class BanditIssue:
    """One bandit finding; ``severity``/``confidence`` are "LOW", "MEDIUM" or "HIGH"."""

    test_id: str
    test_name: str
    severity: str
    confidence: str
    line: int
    text: str


_import_lock = threading.Lock()


def bandit_modules() -> tuple[Any, Any]:
    """(bandit.core.config, bandit.core.manager), imported on first use (see ``benchmark.engine.warmup``)."""
    with _import_lock, warnings.catch_warnings():
        # bandit's extension loader passes an argument stevedore deprecated (a DeprecationWarning
        # at import); it is not ours to act on and must not reach output or fail strict runs.
        warnings.simplefilter("ignore", DeprecationWarning)
        from bandit.core import config as bandit_config
        from bandit.core import manager as bandit_manager
    return bandit_config, bandit_manager


_cache: OrderedDict[str, tuple[BanditIssue, ...]] = OrderedDict()
_cache_lock = threading.Lock()
_run_lock = threading.Lock()  # bandit's logger is shared state while a run captures it


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.errors: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.errors.append(record.getMessage().splitlines()[0])


@contextmanager
def _captured_bandit_log() -> Iterator[_Collect]:
    """Route bandit's log records to a collector (nothing printed); errors are kept."""
    logger = logging.getLogger("bandit")
    saved = (logger.handlers[:], logger.propagate, logger.level)
    collector = _Collect()
    logger.handlers, logger.propagate = [collector], False
    logger.setLevel(logging.ERROR)
    try:
        yield collector
    finally:
        logger.handlers, logger.propagate = saved[0], saved[1]
        logger.setLevel(saved[2])


def _safe_name(name: str) -> str:
    base = Path(name).name or "submission.py"
    return base if base.endswith(".py") else base + ".py"


def _run_bandit(text: str, name: str) -> tuple[BanditIssue, ...]:
    with tempfile.TemporaryDirectory(prefix="rubricbench-bandit-") as folder:
        target = Path(folder) / _safe_name(name)
        try:
            target.write_bytes(source_bytes(text))  # bandit decodes bytes as CPython does
        except UnicodeError as exc:
            raise BanditError(f"bandit could not analyse {name}: {exc}") from None
        bandit_config, bandit_manager = bandit_modules()
        with _run_lock, _captured_bandit_log() as log:
            mgr = bandit_manager.BanditManager(
                bandit_config.BanditConfig(), "file", ignore_nosec=True, quiet=True
            )
            mgr.discover_files([str(target)], recursive=False)
            mgr.run_tests()
            found = mgr.get_issue_list()
    if mgr.skipped or log.errors:
        # each reason once, without the temporary folder's random name
        reasons = dict.fromkeys(reason.replace(f"{folder}/", "")
                                for reason in [reason for _, reason in mgr.skipped] + log.errors)
        raise BanditError(f"bandit could not analyse {name}: {'; '.join(reasons)}")
    issues = (
        BanditIssue(i.test_id, i.test, i.severity, i.confidence, i.lineno, i.text) for i in found
    )
    return tuple(sorted(issues, key=lambda i: (i.line, i.test_id)))


def _check_budget(text: str, tree: ast.Module | None) -> None:
    if tree is None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return  # bandit skips it and says why
    problem = bandit_budget_problem(tree)
    if problem:
        raise AnalysisLimitError(problem)


def _run_bounded(text: str, name: str) -> tuple[BanditIssue, ...]:
    """:func:`_run_bandit` in this process's bandit process, under its deadline. A scan past
    the deadline is the submission's doing, like a text over the size budget (bandit takes
    about a second on the largest file a submission may have): ``AnalysisLimitError``."""
    try:
        with released_while_waiting():  # other prompts' analysis goes on meanwhile
            answer = bandit_process.scan(text, name)
    except bandit_process.AnalysisTimeout as exc:
        raise AnalysisLimitError(str(exc)) from None
    if "error" in answer:
        raise BanditError(answer["error"])
    if "crash" in answer:
        raise RuntimeError(f"the bandit process failed: {answer['crash']}")
    return tuple(BanditIssue(*fields) for fields in answer["issues"])


def bandit_issues(text: str, name: str = "submission.py",
                  tree: ast.Module | None = None) -> tuple[BanditIssue, ...]:
    """Bandit's findings for ``text``, sorted by (line, test id); cached by content.

    Bandit scans a private temporary copy of the text (removed afterwards), written in the
    encoding its own coding declaration names, so bandit (which decodes the bytes as CPython
    does) reads exactly ``text``, in a process of its own (``benchmark.sandbox.bandit_process``).
    Raises :class:`AnalysisLimitError` before bandit runs when the text is over the analysis
    budget (``tree``, when given, is ``text`` parsed) or when bandit did not finish within
    its deadline (``bandit_process.DEADLINE_S``), :class:`BanditError` when bandit skips the file (e.g. a syntax error) or a plugin fails.
    """
    key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    _check_budget(text, tree)
    issues = _run_bounded(text, name)
    with _cache_lock:
        _cache[key] = issues
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return issues


def notes(issues: Iterable[BanditIssue]) -> list[str]:
    """One short note per finding, in order (``B307 line 12``), for a rationale to list."""
    return [f"{issue.test_id} line {issue.line}" for issue in issues]


def issue_weight(issue: BanditIssue) -> float:
    """Severity weight x confidence weight; 0 for unpenalised tests such as B101."""
    if issue.test_id in UNPENALISED:
        return 0.0
    return SEVERITY_WEIGHT.get(issue.severity, 0.0) * CONFIDENCE_WEIGHT.get(issue.confidence, 0.0)


def penalty(issues: Iterable[BanditIssue]) -> float:
    """Sum of :func:`issue_weight` (one HIGH/HIGH finding costs 1.0)."""
    return sum(issue_weight(issue) for issue in issues)


def security_fraction(issues: Iterable[BanditIssue]) -> float:
    """Credit in [0, 1]: ``max(0, 1 - penalty)``."""
    return max(0.0, 1.0 - penalty(issues))
