"""The public API for plugins: what a check type or generator in another distribution imports.

A check type is ``fn(ctx: CheckContext, **params) -> Outcome``: it reads ``ctx.files`` (the
model's files, parsed once), ``ctx.facts`` (what the task's run observed, plain JSON data)
and ``ctx.task`` (the task being graded); it never runs code and never touches the disk.
Declare it with ``@check_type(method=..., params={...json schema properties...})`` and offer
it through the entry-point group ``rubricbench.checks``; generators likewise with
``@generator`` in ``rubricbench.generators``. See ``docs/packs.md``.
"""

from .packs.registry import check_type, generator, observer
from .prompts.base import CheckContext, Outcome, strict_equal
from .types import Category, Evidence

__all__ = ["Category", "CheckContext", "Evidence", "Outcome", "check_type", "generator",
           "observer", "strict_equal"]
