"""Honest code runs unchanged: everyday idioms print the same inside the sandbox (every layer
on, and the kernel layer alone) as in a plain interpreter, and nothing is denied.

Each idiom is a small script that prints what it computed; the test runs it three times
(plain ``python -I``, ``run_harness`` with the guard, ``run_harness`` without it) and
compares stdout, exit status and the sandbox's evidence."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from benchmark.secure_runner import SecureRunner

IDIOMS = {
    "namedtuple_with_defaults": """
        import collections
        Point = collections.namedtuple("Point", "x y z", defaults=[0])
        print(Point(1, 2), Point(1, 2, 3)._asdict())
    """,
    "typing_namedtuple_with_defaults": """
        from typing import NamedTuple
        class Row(NamedTuple):
            name: str
            age: int = 0
            tags: tuple = ()
        print(Row("a"), Row("b", 3)._replace(age=4))
    """,
    "assign_own_function_defaults": """
        def greet(name="world", *, punct="!"):
            return "hello " + name + punct
        greet.__defaults__ = ("there",)
        greet.__kwdefaults__ = {"punct": "?"}
        def other():
            return 42
        greet2 = lambda: 0
        greet2.__code__ = other.__code__
        print(greet(), greet2())
    """,
    "asyncio_run": """
        import asyncio
        async def work(n):
            await asyncio.sleep(0.001)
            return n * 2
        async def main():
            return await asyncio.gather(*(work(i) for i in range(5)))
        print(asyncio.run(main()))
    """,
    "asyncio_loop_run_until_complete": """
        import asyncio
        async def answer():
            await asyncio.sleep(0)
            return 42
        loop = asyncio.new_event_loop()
        try:
            print(loop.run_until_complete(answer()))
        finally:
            loop.close()
    """,
    "gc_and_frames_introspection": """
        import gc, sys, threading
        gc.collect()
        marker = object()
        holder = [marker]
        print(any(r is holder for r in gc.get_referrers(marker)), holder in gc.get_objects())
        print(threading.get_ident() in sys._current_frames())
    """,
}


def _outside(code: str) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True,
                          timeout=60)
    return done.returncode, done.stdout


def _inside(code: str, *, guard: bool) -> tuple[int, str, tuple]:
    result = SecureRunner("idioms").run_harness({"mode": "script", "module": "idiom.py"},
                                                {"idiom.py": code.encode()}, guard=guard)
    return result.returncode, result.stdout, result.blocked_events


@pytest.mark.parametrize("name", sorted(IDIOMS))
@pytest.mark.parametrize("guard", [True, False], ids=["all-layers", "kernel-alone"])
def test_idiom_behaves_inside_the_sandbox_as_outside(name, guard):
    code = textwrap.dedent(IDIOMS[name])
    returncode, stdout = _outside(code)
    assert returncode == 0 and stdout, stdout
    assert _inside(code, guard=guard) == (returncode, stdout, ())


def test_the_guards_own_functions_stay_protected_while_ordinary_ones_may_change():
    """The rule nearest to the idioms above: replacing the code or defaults of the guard's
    own functions (reached through ``sys.modules``) is still denied and reported."""
    code = textwrap.dedent("""
        import sys
        guard = sys.modules["_rubricbench_guard"]
        outcomes = []
        for target, attribute, value in ((guard._resolve, "__defaults__", None),
                                         (guard._resolve, "__code__", (lambda: 0).__code__)):
            try:
                setattr(target, attribute, value)
                outcomes.append("allowed")
            except PermissionError:
                outcomes.append("denied")
        def mine(a=1):
            return a
        mine.__defaults__ = (2,)
        print(outcomes, mine())
    """)
    returncode, stdout, blocked = _inside(code, guard=True)
    assert (returncode, stdout) == (0, "['denied', 'denied'] 2\n")
    assert [event["blocked"] for event in blocked] == ["introspection", "introspection"]
