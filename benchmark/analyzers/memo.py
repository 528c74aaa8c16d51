"""Per-tree memoization: each analysis of a parsed module is computed once.

Checks of one prompt ask the same questions of the same tree many times (its normalized
source, its import resolver, radon's metrics). ``per_tree`` keeps each answer beside the tree
it was computed from, in a weak mapping, so an answer lives exactly as long as its tree and
two trees never share one. Memoized functions must be pure functions of the tree (and of
hashable extra arguments) and return values callers treat as read-only.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_answers: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], Any]] = weakref.WeakKeyDictionary()


def per_tree(fn: F) -> F:
    """Memoize ``fn(tree, *args)`` on the identity of ``tree`` (see module docstring)."""

    @functools.wraps(fn)
    def wrapper(tree, *args):
        answers = _answers.get(tree)
        if answers is None:
            answers = _answers[tree] = {}
        key = (fn, *args)
        if key not in answers:
            answers[key] = fn(tree, *args)
        return answers[key]

    return wrapper  # type: ignore[return-value]


@per_tree
def all_nodes(tree) -> tuple[Any, ...]:
    """``tuple(ast.walk(tree))``, in ``ast.walk``'s order, listed once per tree."""
    import ast

    return tuple(ast.walk(tree))
