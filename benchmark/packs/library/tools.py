"""Check types that ask the field's tools: bandit (``benchmark.analyzers.security``) and
radon (``benchmark.analyzers.maintainability``, measured on the normalized source, so
comments and docstrings never change a number)."""

from __future__ import annotations

from collections.abc import Sequence

from ...analyzers import astfacts, maintainability, security
from ...prompts.base import CheckContext, Outcome
from ...types import Evidence
from ..registry import builtin_check
from .common import FILE_PARAM, LIST_LIMIT, listed, python_tree

SEVERITY_RANK = {"LOW": 1, "MEDIUM": 2, "HIGH": 3}


def _issues(ctx: CheckContext, file: str | None):
    """(name, bandit issues, None) or (name, None, the outcome when bandit cannot judge)."""
    name, tree, failed = python_tree(ctx, file)
    if failed:
        return name, None, failed
    try:
        return name, security.bandit_issues(ctx.files[name].text, name, tree), None
    except security.AnalysisLimitError as exc:
        return name, None, Outcome.error(f"bandit could not scan {name}: {exc}")
    except security.BanditError as exc:
        return name, None, Outcome.error(f"bandit could not scan {name}: {exc}")


def _report(name: str, issues: Sequence[security.BanditIssue], fraction: float, what: str) -> Outcome:
    if not issues:
        return Outcome.ok(f"{name}: bandit reports no {what}")
    notes = [f"{i.test_id} line {i.line}" for i in issues]
    evidence = tuple(Evidence(name, i.line, f"{i.test_id} {i.test_name} ({i.severity})")
                     for i in issues[:LIST_LIMIT])
    return Outcome(max(0.0, min(1.0, fraction)),
                   f"{name}: bandit: {len(issues)} {what}: {listed(notes)}", evidence)


@builtin_check("bandit.no_issues", method="bandit", params={
    "file": FILE_PARAM,
    "min_severity": {"type": "string", "enum": ["low", "medium", "high"], "default": "low",
                     "description": "ignore findings below this severity (default low)"},
    "cost": {"type": "number", "minimum": 0, "maximum": 1,
             "description": "when given, each counted finding costs this much; when absent, "
                            "each costs severity weight x confidence weight (HIGH/HIGH = 1)"},
    "forbid_calls": {"type": "array", "uniqueItems": True,
                     "items": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"},
                     "description": "dotted names of calls (eval, pickle.loads, subprocess.run...) "
                                    "any one of which earns nothing, whatever bandit weighs it "
                                    "(import aliases resolved); default none"},
})
def no_issues(ctx: CheckContext, file: str | None = None, min_severity: str = "low",
              cost: float | None = None, forbid_calls: Sequence[str] = ()) -> Outcome:
    """Bandit reports no security issue at or above ``min_severity``.

    Bandit runs with ``# nosec`` ignored (comments never hide a finding). Parameters:
    ``min_severity`` (low|medium|high, default low), ``cost``, ``forbid_calls``, ``file``.
    Partial credit: without ``cost``, ``1 - sum(severity x confidence)`` with severity HIGH 1,
    MEDIUM 0.5, LOW 0.15 and confidence HIGH 1, MEDIUM 0.75, LOW 0.5; with ``cost``, ``1 -
    cost x findings``. B101 (assert) is listed but costs nothing. ``forbid_calls``: a call
    to any of these names (aliases resolved: ``import subprocess as sp; sp.run()`` is
    ``subprocess.run``) earns nothing, however lightly bandit weighs it or whether it sees it
    at all (``compile``, ``__import__``). A file over bandit's analysis budget is an error.
    """
    name, issues, failed = _issues(ctx, file)
    if failed:
        return failed
    floor = SEVERITY_RANK[min_severity.upper()]
    counted = [i for i in issues if SEVERITY_RANK.get(i.severity, 3) >= floor]
    charged = [i for i in counted if i.test_id not in security.UNPENALISED]
    fraction = (1.0 - cost * len(charged)) if cost is not None else security.security_fraction(counted)
    outcome = _report(name, counted, fraction, f"issue(s) at or above {min_severity} severity")
    tree = ctx.files[name].tree
    calls = sorted({(line, call) for call in forbid_calls for line in astfacts.calls_to(tree, call)})
    if not calls:
        return outcome
    notes = [f"{call} (line {line})" for line, call in calls]
    evidence = [Evidence(name, line, f"call to {call}") for line, call in calls] + list(outcome.evidence)
    return Outcome(0.0, f"{outcome.rationale}; forbidden call(s), which earn nothing: {listed(notes)}",
                   tuple(evidence[:LIST_LIMIT]))


@builtin_check("bandit.forbid", method="bandit", required=("tests",), params={
    "file": FILE_PARAM,
    "tests": {"type": "array", "minItems": 1, "uniqueItems": True,
              "items": {"type": "string", "pattern": "^B[0-9]{3}$"},
              "description": "bandit test ids that must not fire, e.g. [B506, B602]"},
    "cost": {"type": "number", "minimum": 0, "maximum": 1, "default": 1.0,
             "description": "credit lost per finding (default 1: any finding loses all)"},
})
def forbid(ctx: CheckContext, tests: Sequence[str], file: str | None = None,
           cost: float = 1.0) -> Outcome:
    """None of the named bandit tests fires on the file.

    Parameters: ``tests`` (bandit ids such as B506 for ``yaml.load``), ``cost`` per finding
    (default 1), ``file``. Partial credit: ``1 - cost x findings``.
    """
    name, issues, failed = _issues(ctx, file)
    if failed:
        return failed
    found = [i for i in issues if i.test_id in set(tests)]
    return _report(name, found, 1.0 - cost * len(found), f"finding(s) of {', '.join(tests)}")


def _functions(ctx: CheckContext, file: str | None):
    name, tree, failed = python_tree(ctx, file)
    if failed:
        return name, (), failed
    functions = maintainability.function_metrics(tree).functions
    if not functions:
        return name, (), Outcome.fail(f"{name} defines no functions: all code runs at module level")
    return name, functions, None


def _within(name: str, functions, measure, limit: int, what: str) -> Outcome:
    over = [f for f in functions if measure(f) > limit]
    within = len(functions) - len(over)
    notes = [f"{f.name} ({measure(f)})" for f in over]
    return Outcome.ratio(within, len(functions),
                         f"{name}: {within}/{len(functions)} functions with {what} <= {limit}"
                         + (f"; over: {listed(notes)}" if over else ""),
                         [Evidence(name, f.line, f"{f.name}: {what} {measure(f)}") for f in over[:10]])


def _within_both(name: str, functions, complexity: int, lines: int) -> Outcome:
    """The share of functions with complexity <= ``complexity`` and at most ``lines`` lines."""
    over = [f for f in functions if f.complexity > complexity or f.length > lines]
    within = len(functions) - len(over)
    notes = [f"{f.name} (complexity {f.complexity}, {f.length} lines)" for f in over]
    return Outcome.ratio(within, len(functions),
                         f"{name}: {within}/{len(functions)} functions with complexity <= {complexity} "
                         f"and lines <= {lines}" + (f"; over: {listed(notes)}" if over else ""),
                         [Evidence(name, f.line, f"{f.name}: complexity {f.complexity}, {f.length} lines")
                          for f in over[:10]])


@builtin_check("radon.max_complexity", method="radon", params={
    "file": FILE_PARAM,
    "limit": {"type": "integer", "minimum": 1, "default": 10,
              "description": "the highest cyclomatic complexity allowed (default 10)"},
    "max_lines": {"type": "integer", "minimum": 1,
                  "description": "when given, a function longer than this many lines (counted as "
                                 "radon.max_function_lines counts them) is over the limit too "
                                 "(default: length is not judged)"},
})
def max_complexity(ctx: CheckContext, file: str | None = None, limit: int = 10,
                   max_lines: int | None = None) -> Outcome:
    """Every function's cyclomatic complexity (radon) is at most ``limit`` (with ``max_lines``, its length).

    Parameters: ``limit`` (default 10), ``max_lines``, ``file``. Partial credit: the share of
    functions within the limit. With ``max_lines``, a function counts as within only when it
    is also at most that many lines long (as ``radon.max_function_lines`` counts them): one
    share of functions both simple and short, not two checks' worth. A file without
    functions fails.
    """
    name, functions, failed = _functions(ctx, file)
    if failed:
        return failed
    if max_lines is not None:
        return _within_both(name, functions, limit, max_lines)
    return _within(name, functions, lambda f: f.complexity, limit, "complexity")


@builtin_check("radon.max_function_lines", method="radon", params={
    "file": FILE_PARAM,
    "limit": {"type": "integer", "minimum": 1, "default": 40,
              "description": "the most lines a function may span (default 40)"},
})
def max_function_lines(ctx: CheckContext, file: str | None = None, limit: int = 40) -> Outcome:
    """Every function is at most ``limit`` lines long.

    Lines are counted on the normalized source (no comments, docstrings or blank lines; one
    statement laid out as ``ast.unparse`` does), from ``def`` to the end of the body.
    Parameters: ``limit`` (default 40), ``file``. Partial credit: the share of functions
    within the limit. A file without functions fails.
    """
    name, functions, failed = _functions(ctx, file)
    if failed:
        return failed
    return _within(name, functions, lambda f: f.length, limit, "lines")


@builtin_check("radon.maintainability_index", method="radon", params={
    "file": FILE_PARAM,
    "full": {"type": "number", "minimum": 0, "maximum": 100, "default": maintainability.MI_FULL,
             "description": f"the index earning full credit (default {maintainability.MI_FULL:g}, "
                            "radon's rank A)"},
    "zero": {"type": "number", "minimum": 0, "maximum": 100, "default": maintainability.MI_ZERO,
             "description": f"the index at or below which nothing is earned (default "
                            f"{maintainability.MI_ZERO:g}, radon's rank C); must be below full"},
})
def maintainability_index(ctx: CheckContext, file: str | None = None,
                          full: float = maintainability.MI_FULL,
                          zero: float = maintainability.MI_ZERO) -> Outcome:
    """Radon's maintainability index of the normalized source reaches ``full``.

    Parameters: ``full`` (default 20), ``zero`` (default 10), ``file``. Partial credit:
    linear from ``zero`` to ``full``. ``zero`` not below ``full`` is a manifest error.
    """
    if zero >= full:
        return Outcome.error(f"radon.maintainability_index: zero ({zero:g}) must be below full ({full:g})")
    name, tree, failed = python_tree(ctx, file)
    if failed:
        return failed
    mi = maintainability.metrics(tree).mi
    return Outcome.ratio(mi - zero, full - zero, f"{name}: maintainability index {mi:.1f} "
                         f"(full credit from {full:g}, none at {zero:g} or below)")
