"""The spec's public analyzer classes (re-exported by ``benchmark.validators``).

Every method takes source text and returns a plain dict; nothing here reads comments or
uses regular expressions over the source: facts come from ``ast``, bandit and radon.

Result shapes
-------------
A ``check_*`` method returns ``{"issues": [{"line": int, "message": str}, ...],
"score": float}`` with ``score`` in [0, 1] (1.0 when nothing was found); security checks
also list the bandit findings they used under ``"bandit"``.

An ``analyze_code_*`` classmethod returns ``{"score": float, "issues": [...],
"checks": {check name: score}}`` where each issue also names its ``"check"``; security adds
``"bandit"`` (every bandit finding as a dict) and maintainability adds ``"metrics"``
(radon numbers). A module with no statements scores 0.0 with ``"note": "no code"``: there
is nothing to credit.

Source that does not parse gives ``{"issues": [], "score": 0.0, "error": "..."}``.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable
from functools import wraps

from . import maintainability as radon_metrics
from . import rules_maintainability as maint_rules
from . import rules_performance as perf_rules
from . import rules_security as sec_rules
from .security import bandit_issues, security_fraction

Finding = tuple[int, str]


def _parse(code: str) -> ast.Module | dict:
    """The parsed module, or the error result for source that does not parse."""
    try:
        return ast.parse(code)
    except SyntaxError as exc:
        where = f" (line {exc.lineno})" if exc.lineno else ""
        return {"issues": [], "score": 0.0, "error": f"syntax error: {exc.msg}{where}"}
    except ValueError as exc:  # e.g. NUL bytes
        return {"issues": [], "score": 0.0, "error": f"cannot parse: {exc}"}


def _result(findings: list[Finding], weight: float, **extra) -> dict:
    """Issues sorted by line; score loses ``weight`` per issue (floored at 0)."""
    unique = sorted(set(findings))
    issues = [{"line": line, "message": message} for line, message in unique]
    score = round(max(0.0, 1.0 - weight * len(issues)), 4)
    return {"issues": issues, "score": score, **extra}


def _on_source(check: Callable[[ast.Module, str], dict]) -> Callable[[str], dict]:
    """Turn ``check(tree, code)`` into ``check(code)`` that reports syntax errors as data."""

    @wraps(check)
    def run(code: str) -> dict:
        tree = _parse(code)
        return tree if isinstance(tree, dict) else check(tree, code)

    return staticmethod(run)


def _bandit(code: str, test_ids: frozenset[str]) -> tuple[list[Finding], list[dict]]:
    found = [issue for issue in bandit_issues(code) if issue.test_id in test_ids]
    findings = [(issue.line, f"bandit {issue.test_id}: {issue.text}") for issue in found]
    return findings, [dataclasses.asdict(issue) for issue in found]


def _merge(bandit: list[Finding], own: list[Finding]) -> list[Finding]:
    """Bandit's findings plus the AST rule's findings on lines bandit did not flag."""
    flagged = {line for line, _ in bandit}
    return bandit + [item for item in own if item[0] not in flagged]


def _aggregate(cls, code: str, names: tuple[str, ...], combine) -> dict:
    tree = _parse(code)
    if isinstance(tree, dict):
        return tree
    results = {name: getattr(cls, name)(code) for name in names}
    issues = [dict(issue, check=name) for name, res in results.items() for issue in res["issues"]]
    issues.sort(key=lambda issue: (issue["line"], issue["check"]))
    checks = {name: res["score"] for name, res in results.items()}
    result = {"score": combine(checks.values()), "issues": issues, "checks": checks}
    if not tree.body:
        result.update(score=0.0, note="no code")
    return result


def _mean(values) -> float:
    values = list(values)
    return round(sum(values) / len(values), 4) if values else 0.0


class SecurityAnalyzer:
    """Security checks: bandit plus AST rules. Each check loses 0.5 per finding."""

    @_on_source
    def check_sql_injection_patterns(tree: ast.Module, code: str) -> dict:
        """bandit B608 plus ``execute()`` calls whose query is built by f-string/%/+/format."""
        bandit, raw = _bandit(code, frozenset({"B608"}))
        return _result(_merge(bandit, sec_rules.sql_findings(tree)), 0.5, bandit=raw)

    @_on_source
    def check_hardcoded_secrets(tree: ast.Module, code: str) -> dict:
        """bandit B105/B106/B107 plus literals bound to password/secret/token/api_key names."""
        bandit, raw = _bandit(code, frozenset({"B105", "B106", "B107"}))
        return _result(_merge(bandit, sec_rules.secret_findings(tree)), 0.5, bandit=raw)

    @_on_source
    def check_path_traversal(tree: ast.Module, code: str) -> dict:
        """Paths joined from parameters and opened without a containment check (heuristic,
        see :func:`.rules_security.path_findings`)."""
        return _result(sec_rules.path_findings(tree), 0.5)

    CHECKS = ("check_sql_injection_patterns", "check_hardcoded_secrets", "check_path_traversal")

    @classmethod
    def analyze_code_security(cls, code: str) -> dict:
        """Score = the lower of bandit's ``security_fraction`` (all findings) and each check."""
        tree = _parse(code)
        if isinstance(tree, dict):
            return tree
        issues = bandit_issues(code)
        fraction = security_fraction(issues)
        result = _aggregate(cls, code, cls.CHECKS, lambda scores: min([fraction, *scores]))
        result["bandit"] = [dataclasses.asdict(issue) for issue in issues]
        return result


class PerformanceAnalyzer:
    """Performance patterns from the AST; the aggregate score is the mean of the checks."""

    @_on_source
    def check_nested_loops(tree: ast.Module, code: str) -> dict:
        """Loops inside loops of the same scope (comprehension clauses too); -0.15 each."""
        return _result(perf_rules.nested_loop_findings(tree), 0.15)

    @_on_source
    def check_inefficient_patterns(tree: ast.Module, code: str) -> dict:
        """String ``+=`` in loops, ``range(len())``, list membership/index in loops; -0.2 each."""
        return _result(perf_rules.inefficient_findings(tree), 0.2)

    @_on_source
    def check_memory_patterns(tree: ast.Module, code: str) -> dict:
        """``readlines()``, ``list()`` of a lazy iterable only to loop, ``read()`` in loops."""
        return _result(perf_rules.memory_findings(tree), 0.2)

    @_on_source
    def check_algorithm_efficiency(tree: ast.Module, code: str) -> dict:
        """Sorting inside loops and nested loops over the same iterable; -0.25 each."""
        return _result(perf_rules.algorithm_findings(tree), 0.25)

    CHECKS = ("check_nested_loops", "check_inefficient_patterns", "check_memory_patterns",
              "check_algorithm_efficiency")

    @classmethod
    def analyze_code_performance(cls, code: str) -> dict:
        return _aggregate(cls, code, cls.CHECKS, _mean)


class MaintainabilityAnalyzer:
    """Maintainability from radon and the AST, on the normalized source."""

    @_on_source
    def check_function_length(tree: ast.Module, code: str) -> dict:
        """Functions over 20 normalized lines; score = share of functions within the limit."""
        data = radon_metrics.metrics(tree)
        within = radon_metrics.fraction_within(
            [item.length for item in data.functions], maint_rules.MAX_FUNCTION_LINES
        )
        return dict(_result(maint_rules.length_findings(data), 0.0), score=within)

    @_on_source
    def check_code_duplication(tree: ast.Module, code: str) -> dict:
        """Runs of >= 3 identical statements repeated elsewhere; -0.25 per run."""
        return _result(maint_rules.duplication_findings(tree), 0.25)

    @_on_source
    def check_variable_naming(tree: ast.Module, code: str) -> dict:
        """Unclear single letters, non-snake_case functions, non-CapWords classes, shadowed
        builtins; -0.1 each."""
        return _result(maint_rules.naming_findings(tree), 0.1)

    @_on_source
    def check_complexity_indicators(tree: ast.Module, code: str) -> dict:
        """Radon complexity > 10 or block nesting > 4 per function; -0.2 each."""
        data = radon_metrics.metrics(tree)
        return _result(maint_rules.complexity_findings(tree, data), 0.2)

    CHECKS = ("check_function_length", "check_code_duplication", "check_variable_naming",
              "check_complexity_indicators")

    @classmethod
    def analyze_code_maintainability(cls, code: str) -> dict:
        """Mean of the checks, plus radon's numbers under ``"metrics"``."""
        tree = _parse(code)
        if isinstance(tree, dict):
            return tree
        result = _aggregate(cls, code, cls.CHECKS, _mean)
        data = radon_metrics.metrics(tree)
        result["metrics"] = {"mi": data.mi, "sloc": data.sloc,
                             "max_complexity": data.max_complexity,
                             "mean_complexity": data.mean_complexity}
        return result
