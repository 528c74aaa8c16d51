"""Maintainability metrics from radon, computed on the normalized source.

Every number comes from :func:`.astfacts.normalized_source` (no comments, docstrings or bare
strings, uniform layout), so documenting or commenting a program never changes a metric.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from radon.complexity import cc_visit_ast
from radon.metrics import h_visit_ast, mi_compute
from radon.raw import analyze
from radon.visitors import ComplexityVisitor

from .memo import per_tree
from .normalize import NormalizedFunction, normalized_functions, normalized_tree, span_length


@dataclass(frozen=True)
class FunctionMetric:
    """``name`` is the qualname (``Class.method``); ``line`` original, ``length`` normalized."""

    name: str
    line: int
    length: int
    complexity: int


@dataclass(frozen=True)
class CodeMetrics:
    """Per-function metrics plus module-level maintainability index and source lines."""

    functions: tuple[FunctionMetric, ...]
    max_complexity: int
    mean_complexity: float
    mi: float
    sloc: int


def _complexity(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Radon's cyclomatic complexity of one function, wherever it sits.

    Radon's blocks for a whole module omit methods of classes defined inside functions, so
    each function is measured on its own; radon's function complexity does not depend on
    the surroundings (closures are counted separately), so the numbers are radon's.
    """
    blocks = cc_visit_ast(ast.Module(body=[node], type_ignores=[]))
    return blocks[0].complexity


def _measured(visitor: ComplexityVisitor) -> dict[tuple[int, int], int]:
    """``(line, column) -> complexity`` of every function radon's module visitor measured:
    functions, their closures, methods and methods of nested classes (radon computes each
    from the function's own subtree, as :func:`_complexity` does). A position seen twice is
    left out, so such functions are measured on their own."""
    found: dict[tuple[int, int], int] = {}
    twice: set[tuple[int, int]] = set()
    todo: list[Any] = [*visitor.functions, *visitor.classes]
    while todo:
        block = todo.pop()
        if hasattr(block, "methods"):  # a radon Class
            todo += [*block.methods, *block.inner_classes]
            continue
        key = (block.lineno, block.col_offset)
        if key in found:
            twice.add(key)
        found[key] = block.complexity
        todo += block.closures
    return {key: value for key, value in found.items() if key not in twice}


def _metric(pair: NormalizedFunction, measured: dict[tuple[int, int], int]) -> FunctionMetric:
    node = pair.normalized
    complexity = measured.get((node.lineno, node.col_offset))
    if complexity is None:  # e.g. a method of a class defined in a function: radon skips it
        complexity = _complexity(node)
    return FunctionMetric(pair.qualname, pair.original.lineno, span_length(node), complexity)


@dataclass(frozen=True)
class FunctionMetrics:
    """Each function's metric, and the complexity radon's module visitor totals (for MI)."""

    functions: tuple[FunctionMetric, ...]
    total_complexity: int


@per_tree
def function_metrics(tree: ast.Module) -> FunctionMetrics:
    """Radon's cyclomatic complexity and the normalized length of every function: what a
    check of functions needs, without the maintainability index (which tokenizes the whole
    normalized source once more, about half of :func:`metrics`)."""
    _, pairs = normalized_functions(tree)
    visitor = ComplexityVisitor.from_ast(normalized_tree(tree))  # one walk: each function's and the total
    measured = _measured(visitor)
    return FunctionMetrics(tuple(_metric(pair, measured) for pair in pairs), visitor.total_complexity)


@per_tree
def metrics(tree: ast.Module) -> CodeMetrics:
    """Radon cyclomatic complexity per function, MI and SLOC of the normalized source."""
    text, _ = normalized_functions(tree)
    raw = _raw(text)
    measured = function_metrics(tree)
    values = [item.complexity for item in measured.functions]
    return CodeMetrics(
        functions=measured.functions,
        max_complexity=max(values, default=0),
        mean_complexity=sum(values) / len(values) if values else 0.0,
        mi=_maintainability_index(raw, normalized_tree(tree), measured.total_complexity),
        sloc=raw.sloc,
    )


def _maintainability_index(raw: Any, parsed: ast.Module, complexity: int) -> float:
    """radon's ``mi_visit(text, multi=True)`` of a normalized source, computed as radon's
    ``mi_parameters`` does, from its raw metrics, parse and total complexity already at hand
    (``mi_visit`` would parse and tokenize the text once more)."""
    comments = (raw.comments + raw.multi) / raw.sloc * 100 if raw.sloc else 0
    volume = h_visit_ast(parsed).total.volume
    return float(mi_compute(volume, complexity, raw.lloc, comments))


@functools.lru_cache(maxsize=64)
def _raw(text: str):
    """radon's raw metrics of a normalized source (several checks ask about one text)."""
    return analyze(text)


def fraction_within(values: Iterable[float], limit: float) -> float:
    """Share of ``values`` that are ``<= limit``; 1.0 for no values."""
    items = list(values)
    if not items:
        return 1.0
    return sum(value <= limit for value in items) / len(items)


# Radon ranks a maintainability index of 20 or more "A" (very maintainable) and below 10 "C".
# On comment-free source the index falls with program size, so credit follows radon's ranks:
# full credit at rank A, none at rank C, linear in between.
MI_FULL = 20.0
MI_ZERO = 10.0


def mi_fraction(mi: float) -> float:
    """Credit in [0, 1] for a maintainability index (see MI_FULL / MI_ZERO)."""
    return max(0.0, min(1.0, (mi - MI_ZERO) / (MI_FULL - MI_ZERO)))
