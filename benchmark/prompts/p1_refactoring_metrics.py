"""Prompt 1's security, performance and maintainability checks (ast, bandit, radon).

Every number comes from the shared analyzers, which work on the parsed tree (radon on the
normalized source), so comments and docstrings never change a result. The checks register
into the registry of ``p1_refactoring_source``.
"""

from __future__ import annotations

import ast

from ..analyzers.memo import nodes_of
from ..analyzers import astfacts, maintainability, security
from ..types import Evidence
from .base import LIST_LIMIT, CheckContext, Outcome, listed
from .p1_refactoring_source import MAIN, check, line_evidence, main_tree, per_finding

MAX_FUNCTION_LINES = 40
MAX_COMPLEXITY = 10
MI_FULL, MI_ZERO = maintainability.MI_FULL, maintainability.MI_ZERO
_SAFE_LOADERS = frozenset({"SafeLoader", "CSafeLoader", "BaseLoader", "CBaseLoader"})
_SAFE_CALLS = ("yaml.safe_load", "yaml.safe_load_all")
_LOADER_CALLS = ("yaml.load", "yaml.load_all")
_UNSAFE_CALLS = ("yaml.unsafe_load", "yaml.full_load", "yaml.unsafe_load_all",
                 "yaml.full_load_all")


# ---- security ------------------------------------------------------------------------


def _last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def _safe_loader_names(tree: ast.Module) -> frozenset[str]:
    """PyYAML's safe loaders, as redefined by module classes (a class deriving from a safe
    loader is safe; a module class reusing a safe loader's name for anything else is not)."""
    classes = {node.name: [_last_name(base) for base in node.bases]
               for node in nodes_of(tree, ast.ClassDef)}
    safe = set(_SAFE_LOADERS - set(classes))
    for _ in range(len(classes)):
        safe |= {name for name, bases in classes.items() if safe.intersection(bases)}
    return frozenset(safe)


def _loader_is_safe(call: ast.Call, safe: frozenset[str]) -> bool:
    given = [kw.value for kw in call.keywords if kw.arg == "Loader"] + call.args[1:2]
    return bool(given) and _last_name(given[0]) in safe


@check("safe_yaml_loading")
def safe_yaml_loading(ctx: CheckContext) -> Outcome:
    tree = main_tree(ctx)
    if tree is None:
        return Outcome.fail("no parsed source")
    safe_names = _safe_loader_names(tree)
    safe = [line for name in _SAFE_CALLS for line in astfacts.calls_to(tree, name)]
    unsafe = [line for name in _UNSAFE_CALLS for line in astfacts.calls_to(tree, name)]
    # a loader handed over as a function (``read(path, yaml.safe_load)``) loads as it does
    # called; ``yaml.load`` so handed names no loader where it is named: not safe
    safe += [line for name in _SAFE_CALLS for line in astfacts.references_to(tree, name)]
    unsafe += [line for name in (*_UNSAFE_CALLS, *_LOADER_CALLS)
               for line in astfacts.references_to(tree, name)]
    for name in _LOADER_CALLS:
        for call in astfacts.call_nodes(tree, name):
            (safe if _loader_is_safe(call, safe_names) else unsafe).append(call.lineno)
    if unsafe:
        return Outcome.fail(f"{len(unsafe)} unsafe YAML load call(s)",
                            line_evidence(sorted(unsafe), "YAML loaded without a safe loader"))
    if not safe:
        return Outcome.fail("the config is never loaded with a YAML loader")
    return Outcome.ok(f"{len(safe)} YAML load call(s), all with a safe loader",
                      line_evidence(sorted(safe), "safe YAML load"))


@check("no_security_issues")
def no_security_issues(ctx: CheckContext) -> Outcome:
    source = ctx.files.get(MAIN)
    if source is None or source.text is None:
        return Outcome.fail("no source")
    try:
        issues = security.bandit_issues(source.text, MAIN, source.tree)
    except security.BanditError as exc:
        return Outcome.error(f"bandit could not scan {MAIN}: {exc}")
    fraction = security.security_fraction(issues)
    if not issues:
        return Outcome.ok("bandit reports no issues")
    evidence = tuple(Evidence(MAIN, i.line, f"{i.test_id} {i.test_name} ({i.severity})")
                     for i in issues[:LIST_LIMIT])
    return Outcome(fraction, f"bandit: {len(issues)} finding(s): {listed(security.notes(issues))}",
                   evidence)


# ---- performance ---------------------------------------------------------------------


HINT = "a static hint; measured_performance times the code"


def _hint(outcome: Outcome) -> Outcome:
    return Outcome(outcome.fraction, f"{outcome.rationale} ({HINT})", outcome.evidence)


@check("no_nested_loops")
def no_nested_loops(ctx: CheckContext) -> Outcome:
    """A static hint: no loop nested in another (each one costs a quarter)."""
    tree = main_tree(ctx)
    if tree is None:
        return Outcome.fail("no parsed source")
    return _hint(per_finding(astfacts.nested_loops(tree), "loops nested in another loop", "nested loop"))


@check("no_io_in_loops")
def no_io_in_loops(ctx: CheckContext) -> Outcome:
    """A static hint: no file or print I/O inside a loop (each one costs a quarter)."""
    tree = main_tree(ctx)
    if tree is None:
        return Outcome.fail("no parsed source")
    return _hint(per_finding(astfacts.io_in_loops(tree), "I/O calls inside loops", "I/O in a loop"))


# ---- maintainability -----------------------------------------------------------------


def _functions(ctx: CheckContext) -> tuple[maintainability.FunctionMetric, ...]:
    tree = main_tree(ctx)
    return maintainability.metrics(tree).functions if tree is not None else ()


@check("no_long_functions")
def no_long_functions(ctx: CheckContext) -> Outcome:
    functions = _functions(ctx)
    if not functions:
        return Outcome.fail("no functions: all code runs at module level")
    long = [f for f in functions if f.length > MAX_FUNCTION_LINES]
    within = len(functions) - len(long)
    detail = ", ".join(f"{f.name} ({f.length} lines)" for f in long[:5])
    return Outcome.ratio(within, len(functions), f"{within}/{len(functions)} functions within "
                         f"{MAX_FUNCTION_LINES} lines" + (f"; too long: {detail}" if long else ""),
                         [Evidence(MAIN, f.line, f"{f.length} lines") for f in long[:10]])


@check("low_complexity")
def low_complexity(ctx: CheckContext) -> Outcome:
    functions = _functions(ctx)
    if not functions:
        return Outcome.fail("no functions: all code runs at module level")
    complex_ = [f for f in functions if f.complexity > MAX_COMPLEXITY]
    within = len(functions) - len(complex_)
    detail = ", ".join(f"{f.name} (cc {f.complexity})" for f in complex_[:5])
    return Outcome.ratio(within, len(functions), f"{within}/{len(functions)} functions with "
                         f"complexity <= {MAX_COMPLEXITY}" + (f"; {detail}" if complex_ else ""),
                         [Evidence(MAIN, f.line, f"cc {f.complexity}") for f in complex_[:10]])


@check("maintainability_index")
def maintainability_index(ctx: CheckContext) -> Outcome:
    tree = main_tree(ctx)
    if tree is None:
        return Outcome.fail("no parsed source")
    mi = maintainability.metrics(tree).mi
    return Outcome.ratio(mi - MI_ZERO, MI_FULL - MI_ZERO,
                         f"maintainability index {mi:.1f} (full credit from {MI_FULL:g})")


@check("good_naming")
def good_naming(ctx: CheckContext) -> Outcome:
    tree = main_tree(ctx)
    if tree is None:
        return Outcome.fail("no parsed source")
    found = astfacts.bad_names(tree)
    outcome = per_finding([line for _, line in found], "poorly named bindings", "poor name")
    if found:
        names = ", ".join(sorted({name for name, _ in found}))
        return Outcome(outcome.fraction, f"{outcome.rationale}: {names}", outcome.evidence)
    return outcome
