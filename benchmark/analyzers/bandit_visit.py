"""Bandit's node visitor without the work no finding depends on (the bandit process only).

Bandit's ``BanditNodeVisitor`` prepares a context (line range, bookkeeping, debug logging) for
every node of a file and asks its tester to run that node type's tests, but only eight node
types have tests or a ``visit_`` method of their own (``Call``, ``Import``, ``Str``...): most
nodes (names, operators, load/store markers, arguments...) get a context that nothing reads.
:class:`LeanVisitor` links every node to its parent and sibling as bandit does (plugins read
them) and goes straight on to the children of those nodes, and its tester skips the
``# nosec`` look-up when the file has no ``# nosec`` lines (always, with ``ignore_nosec=True``,
the grader's setting). Every test still runs on every node it runs on in bandit, with the
same context, so the findings are bandit's own, in bandit's order.

It relies on bandit's internals, so :func:`install` applies it only to the bandit version it
was written and tested for (``tests/test_bandit_visit.py`` compares it with bandit's own
visitor); any other version runs bandit unchanged.
"""

from __future__ import annotations

from typing import Any

FOR_BANDIT = "1.9.4"


def _classes() -> tuple[type, type]:
    import ast

    from bandit.core import node_visitor, tester

    class LeanTester(tester.BanditTester):
        def _get_nosecs_from_contexts(self, context, test_result=None):
            if not self.nosec_lines:  # bandit's answer for no nosec lines at all
                return None
            return super()._get_nosecs_from_contexts(context, test_result)

    class LeanVisitor(node_visitor.BanditNodeVisitor):
        def __init__(self, fname, fdata, metaast, testset, debug, nosec_lines, metrics):
            super().__init__(fname, fdata, metaast, testset, debug, nosec_lines, metrics)
            self.tester = LeanTester(self.testset, self.debug, nosec_lines, metrics)
            self._inert: dict[type, bool] = {}

        def _is_inert(self, kind: type) -> bool:
            """No ``visit_`` method and no test for this node type: bandit's pre-visit,
            visit and post-visit of such a node change nothing a test reads (with debug off)."""
            inert = self._inert.get(kind)
            if inert is None:
                name = kind.__name__
                inert = self._inert[kind] = (not self.debug and not hasattr(self, "visit_" + name)
                                             and not self.testset.get_tests(name))
            return inert

        def generic_visit(self, node: Any) -> None:
            """Bandit's ``generic_visit``, with inert nodes passed through to their children.
            One frame per tree level, as in bandit, so a deep tree meets Python's recursion
            limit where it does in bandit (the same error, from the same plugin)."""
            for _, value in ast.iter_fields(node):
                if isinstance(value, list):
                    last = len(value) - 1
                    items = [(i, item) for i, item in enumerate(value) if isinstance(item, ast.AST)]
                else:
                    last, items = 0, [(0, value)] if isinstance(value, ast.AST) else []
                for index, item in items:
                    item._bandit_sibling = value[index + 1] if index < last else None
                    item._bandit_parent = node
                    if self._is_inert(type(item)):
                        self.generic_visit(item)
                    elif self.pre_visit(item):
                        self.visit(item)
                        self.generic_visit(item)
                        self.post_visit(item)

    return LeanVisitor, LeanTester


def install() -> bool:
    """Make bandit's manager use :class:`LeanVisitor` in this process (meant for the bandit
    process, which runs nothing else); False, and bandit unchanged, on another bandit version."""
    import bandit
    from bandit.core import manager

    if getattr(bandit, "__version__", None) != FOR_BANDIT:
        return False
    manager.b_node_visitor = _LeanModule(manager.b_node_visitor, _classes()[0])
    return True


class _LeanModule:
    """Bandit's ``node_visitor`` module as the manager sees it, with the lean visitor."""

    def __init__(self, module: Any, visitor: type) -> None:
        self._module = module
        self.BanditNodeVisitor = visitor

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)
