"""Prompt 3's structure, quality, security and maintainability checks, judged on the parsed
source (``ast``, bandit's API, radon's API), never by running it.

Comments, docstrings and string contents never change a result. The registry created here
is shared: ``p3_transform`` (which re-exports it and every check here) adds the syntax and
behaviour checks, which judge what its ``observe`` saw.
"""

from __future__ import annotations

import ast

from ..analyzers.memo import nodes_of
from ..analyzers import astfacts, maintainability, security
from ..types import Evidence
from .base import LIST_LIMIT, CheckContext, Outcome, listed, make_registry
from .p3_transform_judge import FUNCTION, MAIN

MAX_FUNCTION_LINES = 40
MAX_COMPLEXITY = 10
MI_FULL, MI_ZERO = maintainability.MI_FULL, maintainability.MI_ZERO
UNSAFE_CALLS = ("eval", "exec", "compile", "__import__", "pickle.load", "pickle.loads",
                "marshal.loads", "os.system", "os.popen", "subprocess.run", "subprocess.call",
                "subprocess.Popen", "subprocess.check_call", "subprocess.check_output")
CHECKS, check = make_registry(sandboxed=True)


# ---- judging helpers ----------------------------------------------------------------


def _tree(ctx: CheckContext) -> ast.Module | None:
    source = ctx.files.get(MAIN)
    return source.tree if source is not None else None


def _function(tree: ast.Module | None) -> ast.FunctionDef | None:
    node = astfacts.find_function(tree, FUNCTION) if tree is not None else None
    return node if isinstance(node, ast.FunctionDef) else None


def _needs_tree(ctx: CheckContext) -> tuple[ast.Module | None, Outcome | None]:
    tree = _tree(ctx)
    return tree, None if tree is not None else Outcome.fail(f"{MAIN} did not parse")


# ---- structure -----------------------------------------------------------------------


@check("function_exists")
def function_exists(ctx: CheckContext) -> Outcome:
    tree = _tree(ctx)
    node = _function(tree)
    if node is None:
        found = astfacts.find_function(tree, FUNCTION) if tree is not None else None
        why = "is async (it must return a list, not a coroutine)" if found else "is not defined"
        return Outcome.fail(f"a top-level def {FUNCTION} {why} in {MAIN}")
    return Outcome.ok(f"{FUNCTION} defined at line {node.lineno}", [Evidence(MAIN, node.lineno)])


@check("correct_signature")
def correct_signature(ctx: CheckContext) -> Outcome:
    """Exactly one required positional parameter; any others need defaults (*args ok)."""
    node = _function(_tree(ctx))
    if node is None:
        return Outcome.fail(f"no {FUNCTION} to inspect")
    args = node.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    required = positional[: len(positional) - len(args.defaults)]
    required_kwonly = [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]
    evidence = [Evidence(MAIN, node.lineno)]
    if len(required) != 1 or required_kwonly:
        extra = f" and required keyword-only {required_kwonly}" if required_kwonly else ""
        return Outcome.fail(f"{FUNCTION} has {len(required)} required positional parameters "
                            f"({', '.join(required) or 'none'}){extra}; the contract needs exactly 1",
                            evidence)
    return Outcome.ok(f"{FUNCTION}({required[0]}) takes the user list as its one required argument",
                      evidence)


@check("basic_organization")
def basic_organization(ctx: CheckContext) -> Outcome:
    """Half: per-record work in helpers or a short main function; half: no module side effects."""
    tree = _tree(ctx)
    node = _function(tree)
    if node is None:
        return Outcome.fail(f"no {FUNCTION} to inspect")
    helpers = {n.name for n in nodes_of(tree, ast.FunctionDef) if n is not node}
    called = {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
    used = sorted(helpers & called)
    length = next((s.length for s in astfacts.function_spans(tree)
                   if s.qualname == FUNCTION and s.line == node.lineno), MAX_FUNCTION_LINES + 1)
    organized = bool(used) or length <= MAX_FUNCTION_LINES
    effects = astfacts.module_side_effects(tree)
    first = f"calls helpers {', '.join(used)}" if used else f"main function is {length} lines, no helpers"
    second = f"{len(effects)} module-level side effects" if effects else "no module-level side effects"
    evidence = [Evidence(MAIN, line, "module-level side effect") for line in effects[:5]]
    return Outcome.ratio(0.5 * organized + 0.5 * (not effects), 1, f"{first}; {second}", evidence)


# ---- quality ------------------------------------------------------------------------


@check("specific_exceptions")
def specific_exceptions(ctx: CheckContext) -> Outcome:
    """A handler counts against when it is bare, or broad and swallows the error."""
    tree, failed = _needs_tree(ctx)
    if failed:
        return failed
    handlers = astfacts.handlers(tree)
    bad = [h for h in handlers if h.hides_errors]
    if not handlers:
        return Outcome.ok("no exception handlers, so none is bare or swallows errors")
    evidence = [Evidence(MAIN, h.line, f"{h.kind} handler") for h in bad]
    return Outcome.ratio(len(handlers) - len(bad), len(handlers),
                         f"{len(handlers) - len(bad)} of {len(handlers)} handlers are specific "
                         "or re-raise/report", evidence)


@check("readable_loops")
def readable_loops(ctx: CheckContext) -> Outcome:
    tree, failed = _needs_tree(ctx)
    if failed:
        return failed
    bad = astfacts.range_len_loops(tree)
    loops = len(nodes_of(tree, ast.For, ast.AsyncFor, ast.comprehension))
    if not bad:
        return Outcome.ok(f"none of {loops} for-loops iterates over range(len(...))")
    return Outcome.ratio(loops - len(bad), loops,
                         f"{len(bad)} of {loops} for-loops iterate over range(len(...)) "
                         "instead of the items", [Evidence(MAIN, line) for line in bad])


# ---- security, performance, maintainability ------------------------------------------


@check("no_unsafe_constructs")
def no_unsafe_constructs(ctx: CheckContext) -> Outcome:
    tree, failed = _needs_tree(ctx)
    if failed:
        return failed
    try:
        issues = security.bandit_issues(ctx.files[MAIN].text, MAIN, tree)
    except security.AnalysisLimitError as exc:
        return Outcome.error(f"bandit could not scan {MAIN}: {exc}")
    unsafe = sorted({(line, name) for name in UNSAFE_CALLS for line in astfacts.calls_to(tree, name)})
    fraction = 0.0 if unsafe else security.security_fraction(issues)
    evidence = ([Evidence(MAIN, line, f"call to {name}") for line, name in unsafe]
                + [Evidence(MAIN, i.line, f"bandit {i.test_id} {i.severity}") for i in issues])
    names = ", ".join(sorted({name for _, name in unsafe})) or "none"
    found = f": {listed(security.notes(issues))}" if issues else ""
    return Outcome(fraction, f"{len(issues)} bandit finding(s){found}; unsafe calls: {names}",
                   tuple(evidence[:LIST_LIMIT]))


@check("single_pass")
def single_pass(ctx: CheckContext) -> Outcome:
    """A static hint: no loop nested in another (measured_performance times the code itself)."""
    tree, failed = _needs_tree(ctx)
    if failed:
        return failed
    nested = astfacts.nested_loops(tree)
    loops = len(nodes_of(tree, ast.For, ast.AsyncFor, ast.While, ast.comprehension))
    hint = "a static hint; measured_performance times the code"
    if not nested:
        return Outcome.ok(f"no loop runs inside another loop ({loops} loops; {hint})")
    return Outcome.ratio(loops - len(nested), loops,
                         f"{len(nested)} of {loops} loops are nested inside another loop ({hint})",
                         [Evidence(MAIN, line) for line in nested])


@check("code_organization")
def code_organization(ctx: CheckContext) -> Outcome:
    tree, failed = _needs_tree(ctx)
    if failed:
        return failed
    functions = maintainability.metrics(tree).functions
    if not functions:
        return Outcome.fail("no functions to measure")
    bad = [f for f in functions if f.length > MAX_FUNCTION_LINES or f.complexity > MAX_COMPLEXITY]
    detail = "; ".join(f"{f.name}: {f.length} lines, complexity {f.complexity}" for f in bad)
    return Outcome.ratio(len(functions) - len(bad), len(functions),
                         f"{len(functions) - len(bad)} of {len(functions)} functions are at most "
                         f"{MAX_FUNCTION_LINES} lines with complexity at most {MAX_COMPLEXITY}"
                         + (f" ({detail})" if bad else ""),
                         [Evidence(MAIN, f.line, f.name) for f in bad])


@check("maintainability_index")
def maintainability_index(ctx: CheckContext) -> Outcome:
    tree, failed = _needs_tree(ctx)
    if failed:
        return failed
    mi = maintainability.metrics(tree).mi
    return Outcome.ratio(mi - MI_ZERO, MI_FULL - MI_ZERO,
                         f"maintainability index {mi:.1f} (full credit from {MI_FULL:.0f}, none at "
                         f"{MI_ZERO:.0f} or below)")
