"""Prompt 3's two checks judged on the parsed source that no library check type expresses:
``basic_organization`` and ``readable_loops`` (``ast``, never by running the code).

The prompt's other static checks are library types (``benchmark/packs/core/prompt_3/
task.yaml``: ``compiles``, ``ast.defines``, ``ast.signature``, ``ast.specific_exceptions``,
``bandit.no_issues``, ``ast.no_nested_loops``, ``radon.*``). Comments, docstrings and string
contents never change a result. The registry created here is shared: ``p3_transform``
(which re-exports it and every check here) adds the behaviour checks, which judge what its
``observe`` saw.
"""

from __future__ import annotations

import ast

from ..analyzers.memo import nodes_of
from ..analyzers import astfacts
from ..types import Evidence
from .base import CheckContext, Outcome, make_registry
from .p3_transform_judge import FUNCTION, MAIN

MAX_FUNCTION_LINES = 40  # the main function needs no helpers up to this many lines
CHECKS, check = make_registry()


# ---- judging helpers ----------------------------------------------------------------


def _tree(ctx: CheckContext) -> ast.Module | None:
    source = ctx.files.get(MAIN)
    return source.tree if source is not None else None


def _function(tree: ast.Module | None) -> ast.FunctionDef | None:
    node = astfacts.find_function(tree, FUNCTION) if tree is not None else None
    return node if isinstance(node, ast.FunctionDef) else None


# ---- structure -----------------------------------------------------------------------


@check("basic_organization")
def basic_organization(ctx: CheckContext) -> Outcome:
    """Half: per-record work in helpers or a short main function; half: no module side effects.

    The first half is earned when ``transform_and_enrich_users`` (a plain module-level def)
    calls a function the file defines, or is at most 40 lines; the second when importing the
    module runs nothing but definitions (``astfacts.module_side_effects``). No library type
    judges whether the main function delegates to helpers, nor module side effects."""
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


@check("readable_loops")
def readable_loops(ctx: CheckContext) -> Outcome:
    """For-loops iterate over the items, not over ``range(len(...))``.

    Credit: the share of for-loops and comprehension clauses that do not iterate over
    ``range(len(x))`` (or ``range(0, len(x))``); a file without such loops earns all. No
    library type looks for ``range(len(...))`` iteration."""
    tree = _tree(ctx)
    if tree is None:
        return Outcome.fail(f"{MAIN} did not parse")
    bad = astfacts.range_len_loops(tree)
    loops = len(nodes_of(tree, ast.For, ast.AsyncFor, ast.comprehension))
    if not bad:
        return Outcome.ok(f"none of {loops} for-loops iterates over range(len(...))")
    return Outcome.ratio(loops - len(bad), loops,
                         f"{len(bad)} of {loops} for-loops iterate over range(len(...)) "
                         "instead of the items", [Evidence(MAIN, line) for line in bad])
