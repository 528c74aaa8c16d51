"""Tests for benchmark.analyzers.astfacts: good and bad snippets for every fact."""

from __future__ import annotations

import ast
import textwrap

import pytest

from benchmark.analyzers import astfacts as A


def tree(src: str) -> ast.Module:
    return ast.parse(textwrap.dedent(src))


# --- imports, functions, main guard -----------------------------------------------------
def test_imported_modules_top_level_names_and_relative_ignored():
    t = tree("""
        import yaml
        import xml.etree.ElementTree
        import numpy as np
        from pathlib import Path
        from requests.exceptions import Timeout
        from . import sibling
        from .pkg import thing
        def f():
            import json
    """)
    assert A.imported_modules(t) == {"yaml", "xml", "numpy", "pathlib", "requests", "json"}
    assert A.imported_modules(tree("x = 1")) == set()


def test_find_function_module_level_last_definition():
    t = tree("""
        def main():
            return 1
        class C:
            def helper(self): ...
        def main():
            def inner(): ...
            return 2
    """)
    found = A.find_function(t, "main")
    assert found is not None and found.lineno == 6
    assert A.find_function(t, "helper") is None  # a method is not module-level
    assert A.find_function(t, "inner") is None
    assert A.find_function(t, "missing") is None
    async_t = tree("async def fetch(): ...")
    assert isinstance(A.find_function(async_t, "fetch"), ast.AsyncFunctionDef)


def test_functions_include_methods_nested_and_async_in_source_order():
    t = tree("""
        def a():
            def b(): ...
        class C:
            def m(self): ...
            async def n(self): ...
        lam = lambda: 0
    """)
    assert [f.name for f in A.functions(t)] == ["a", "b", "m", "n"]
    assert A.functions(tree("x = 1")) == []


def test_annotation_ratio_counts_params_and_return_skipping_self_cls():
    t = tree("""
        def f(a: int, b, *args: str, c=1, **kw) -> int: ...
        class C:
            def m(self, x: int) -> None: ...
            @classmethod
            def k(cls, y): ...
            @staticmethod
            def s(self): ...
        def outer(self): ...
    """)
    # f: 5 params (a, b, args, c, kw) + return -> 3 annotated of 6
    # m: x + return -> 2/2 ; k: y + return -> 0/2 ; s: self counted -> 0/2
    # outer: not a method, self counted -> 0/2
    assert A.annotation_ratio(t) == (5, 14)
    assert A.annotation_ratio(tree("x = 1")) == (0, 0)
    assert A.annotation_ratio(tree("def f(a: int) -> int: ...")) == (2, 2)


@pytest.mark.parametrize("src, expected", [
    ('if __name__ == "__main__":\n    main()\n', True),
    ("if '__main__' == __name__:\n    main()\n", True),
    ('def f():\n    if __name__ == "__main__":\n        main()\n', False),
    ('if __name__ != "__main__":\n    main()\n', False),
    ('if __name__ == "main":\n    main()\n', False),
    ("main()\n", False),
])
def test_has_main_guard(src, expected):
    assert A.has_main_guard(ast.parse(src)) is expected


# --- exception handlers -----------------------------------------------------------------
def test_handlers_kinds_and_swallowing():
    t = tree("""
        try:
            x()
        except:
            pass
        try:
            x()
        except Exception:
            ...
        except (ValueError, BaseException) as exc:
            return None
        except KeyError:
            continue
        try:
            x()
        except ValueError as exc:
            logger.warning("bad %s", exc)
        except builtins.Exception:
            raise
        except OSError:
            "just a string"
        except TypeError:
            return
        except LookupError:
            result = None
        except ZeroDivisionError:
            return 0
    """)
    got = [(h.line, h.kind, h.swallowed) for h in A.handlers(t)]
    assert got == [
        (4, "bare", True), (8, "broad", True), (10, "broad", True), (12, "specific", True),
        (16, "specific", False), (18, "broad", False), (20, "specific", True),
        (22, "specific", True), (24, "specific", False), (26, "specific", False),
    ]
    assert A.handlers(tree("x = 1")) == []
    with pytest.raises(Exception):
        A.handlers(t)[0].line = 3  # frozen


# --- shadowed builtins ------------------------------------------------------------------
def test_shadowed_builtins_every_binding_form():
    t = tree("""
        list = [1]
        for id in range(3): pass
        with open("f") as file: pass
        def max(input, *, type=None): pass
        class filter: pass
        import json as dict
        from os import open
        values = [str for str in "ab"]
        try:
            pass
        except Exception as hash:
            pass
        (len := 3)
        _ = 1
        license = "MIT"
    """)
    assert A.shadowed_builtins(t) == [
        ("list", 2), ("id", 3), ("input", 5), ("max", 5), ("type", 5), ("filter", 6),
        ("dict", 7), ("open", 8), ("str", 9), ("hash", 12), ("len", 14),
    ]


def test_shadowed_builtins_class_namespace_and_good_code():
    t = tree("""
        from dataclasses import dataclass
        @dataclass
        class Record:
            id: int
            type: str = "x"
            def format(self, filter=None):
                return self.id
        def good(items, limit):
            total = sum(items)
            return total
    """)
    assert A.shadowed_builtins(t) == [("filter", 7)]


# --- opens ------------------------------------------------------------------------------
def test_unmanaged_opens():
    t = tree("""
        import webbrowser, contextlib
        from pathlib import Path
        with open("a") as f, Path("b").open() as g:
            pass
        data = open("c").read()
        handle = Path("d").open("rb")
        Path("e").read_text(encoding="utf-8")
        Path("e").write_text("x", encoding="utf-8")
        webbrowser.open("http://example.com")
        with contextlib.ExitStack() as stack:
            h = stack.enter_context(open("f"))
        with contextlib.closing(open("g")) as h2:
            pass
        async def run():
            async with aiofiles.open("h") as fh:
                pass
        with wrap(open("i")) as w:
            pass
    """)
    assert A.unmanaged_opens(t) == [6, 7, 18]
    assert A.unmanaged_opens(tree("with open('x', encoding='utf-8') as f: pass")) == []


def test_opens_without_encoding():
    t = tree("""
        import gzip, io, os
        from pathlib import Path
        open("a")
        open("a", "rb")
        open("a", "w", encoding="utf-8")
        open("a", mode="wb")
        open("a", "r", -1, "utf-8")
        open("a", mode)
        Path("b").open()
        Path("b").open("rb")
        Path("b").open("r", -1, "utf-8")
        Path("c").read_text()
        Path("c").read_text("utf-8")
        Path("c").write_text("data")
        Path("c").write_text("data", "utf-8")
        gzip.open("d")
        gzip.open("d", "rt")
        io.open("e", "w")
        os.open("f", os.O_RDONLY)
        open("g", **options)
        Path("c").read_bytes()
    """)
    assert A.opens_without_encoding(t) == [4, 10, 13, 15, 18, 19]


# --- calls with alias resolution --------------------------------------------------------
def test_calls_to_resolves_aliases():
    t = tree("""
        import yaml
        import yaml as y
        from yaml import load
        from yaml import load as L
        from json import load as jload
        yaml.load(a)
        y.load(b)
        load(c)
        L(d)
        yaml.safe_load(e)
        jload(f)
        other.load(g)
    """)
    assert A.calls_to(t, "yaml.load") == [7, 8, 9, 10]
    assert A.calls_to(t, "yaml.safe_load") == [11]
    assert A.calls_to(t, "json.load") == [12]


def test_references_to_finds_a_function_used_as_a_value_never_its_calls():
    t = tree("""
        import yaml
        from yaml import safe_load as sl
        yaml.safe_load(a)
        read(path, yaml.safe_load)
        parsers = {"yaml": sl}
        sl(b)
        other.safe_load
        print(yaml.safe_load_all)
    """)
    assert A.references_to(t, "yaml.safe_load") == [5, 6]
    assert A.calls_to(t, "yaml.safe_load") == [4, 7]
    assert A.references_to(t, "yaml") == [4, 5, 9]  # the module, the head of each chain


def test_references_to_keeps_each_use_once_in_source_order_across_names_of_one_tree():
    t = tree("""
        import builtins
        handlers = [len, len]
        table = {"n": builtins.len}
        len(table)
        first = yaml_reader
    """)
    assert A.references_to(t, "len") == [3, 3, 4]  # two uses on one line; builtins.len too
    assert A.references_to(t, "yaml_reader") == [6]
    assert A.references_to(t, "len") == [3, 3, 4]  # (asked again of the same tree)


def test_calls_to_builtin_and_dotted_modules():
    t = tree("""
        import builtins
        import xml.etree.ElementTree as ET
        from os import path
        eval("1")
        builtins.eval("2")
        obj.eval("3")
        ET.parse(x)
        path.join(a, b)
        def g():
            from evil import eval
            eval("4")
    """)
    assert A.calls_to(t, "eval") == [5, 6]
    assert A.calls_to(t, "xml.etree.ElementTree.parse") == [8]
    assert A.calls_to(t, "os.path.join") == [9]
    assert A.calls_to(t, "exec") == []


def test_call_keywords_and_call_nodes():
    t = tree("""
        import yaml
        yaml.load(f, Loader=yaml.SafeLoader)
        yaml.load(f)
        yaml.load(f, **opts)
    """)
    got = A.call_keywords(t, "yaml.load")
    assert [line for line, _ in got] == [3, 4, 5]
    assert ast.unparse(got[0][1]["Loader"]) == "yaml.SafeLoader"
    assert got[1][1] == {}
    assert set(got[2][1]) == {"**"}
    nodes = A.call_nodes(t, "yaml.load")
    assert [ast.unparse(n.args[0]) for n in nodes] == ["f", "f", "f"]
    assert all(isinstance(n, ast.Call) for n in nodes)


# --- loops ------------------------------------------------------------------------------
def test_nested_loops_statements_comprehensions_and_scopes():
    t = tree("""
        for a in xs:
            for b in ys:
                pass
            while cond:
                pass
            def helper():
                for c in zs:
                    pass
            squares = [v * v for v in a]
        pairs = [(p, q) for p in xs for q in ys]
        for d in xs:
            pass
        else:
            for e in ys:
                pass
        for f in [g for g in xs]:
            pass
    """)
    assert A.nested_loops(t) == [3, 5, 10, 11]
    assert A.nested_loops(tree("for a in b:\n    x = 1\n")) == []


def test_io_in_loops():
    t = tree("""
        import json, requests
        import yaml as y
        for path in paths:
            with open(path) as fh:
                data = json.load(fh)
            cfg = y.safe_load(fh)
            text = path.read_text()
            requests.get(url)
            self.session.post(url)
            client.get(url)
            json.loads(text)
        data = [json.load(open(p)) for p in paths]
        for line in open("big"):
            pass
        json.dump(data, fh)
        while True:
            Session.get(url)
    """)
    assert A.io_in_loops(t) == [5, 6, 7, 8, 9, 10, 13, 13, 18]


def test_range_len_loops():
    t = tree("""
        for i in range(len(xs)):
            pass
        for i in range(0, len(xs)):
            pass
        for i in range(1, len(xs)):
            pass
        for i, x in enumerate(xs):
            pass
        total = [xs[i] for i in range(len(xs))]
        for i in range(n):
            pass
    """)
    assert A.range_len_loops(t) == [2, 4, 10]


# --- names ------------------------------------------------------------------------------
def test_bad_names():
    t = tree("""
        def processData(a, i, x):
            q = 1
            for l in a:
                pass
            keep = [z for z in a]
            return sorted(a, key=lambda w: w)
        class my_class:
            pass
        class GoodName:
            def __init__(self): ...
            def setUp(self): ...
            def visit_FunctionDef(self, node): ...
            def _private_ok(self): ...
            def BadMethod(self): ...
        def g(): ...
        _ = n = e = f = 0
    """)
    assert A.bad_names(t) == [
        ("a", 2), ("processData", 2), ("q", 3), ("l", 4), ("z", 6),
        ("my_class", 8), ("BadMethod", 15), ("g", 16),
    ]
    assert A.bad_names(tree("def snake_case(value):\n    total = value\n")) == []


# --- module side effects ----------------------------------------------------------------
def test_module_side_effects():
    t = tree('''
        """Docstring."""
        import logging
        from typing import TYPE_CHECKING
        try:
            import yaml
        except ImportError:
            yaml = None
        if TYPE_CHECKING:
            from pathlib import Path
        CONSTANT = compute()
        counter: int = 0
        counter += 1
        def main(): ...
        class C: ...
        logging.basicConfig(level=logging.INFO)
        print("hello")
        for x in range(3):
            pass
        main()
        try:
            main()
        except Exception:
            pass
        if __name__ == "__main__":
            main()
    ''')
    assert A.module_side_effects(t) == [16, 17, 18, 20, 21]
    assert A.module_side_effects(tree("import os\nX = 1\n")) == []
    library = tree("import logging\nlogger = logging.getLogger(__name__)\n"
                   "logger.addHandler(logging.NullHandler())\n"
                   "logging.getLogger().addHandler(logging.StreamHandler())\n")
    assert A.module_side_effects(library) == [4]  # a NullHandler is quiet, a stream handler is not


# --- normalization ----------------------------------------------------------------------
def test_strip_docstrings_and_bare_strings():
    t = tree('''
        """Module doc."""
        def f():
            """Only a docstring."""
        class C:
            """Class doc."""
            x = 1
            "attribute doc"
        def g():
            """Doc."""
            if x:
                "bare"
            return 1
    ''')
    stripped = A.strip_docstrings(t)
    assert stripped is not t
    assert ast.get_docstring(t) == "Module doc."  # original untouched
    text = ast.unparse(stripped)
    assert "doc" not in text and "bare" not in text
    assert ast.get_docstring(stripped) is None
    f = A.find_function(stripped, "f")
    assert isinstance(f.body[0], ast.Pass)
    compile(stripped, "<stripped>", "exec")  # still a valid module


def test_normalized_source_has_no_comments_or_docstrings():
    src = 'def f(x):\n    """Doc."""\n    # comment\n    return x  # trailing\n'
    assert A.normalized_source(ast.parse(src)) == "def f(x):\n    return x"


def test_function_spans_qualnames_lines_and_normalized_length():
    t = tree('''
        import os


        def top(a):
            """A long docstring
            over several
            lines."""
            # a comment
            call(a,
                 b,
                 c)
            return a

        class Box:
            @property
            def size(self):
                def inner():
                    return 1
                return inner()
    ''')
    spans = A.function_spans(t)
    assert [(s.name, s.qualname, s.line) for s in spans] == [
        ("top", "top", 5), ("size", "Box.size", 17), ("inner", "Box.size.<locals>.inner", 18),
    ]
    assert spans[0].length == 3  # def line, one call, return
    assert spans[2].length == 2
    assert spans[1].length >= 4


# --- comments, docstrings and strings change nothing -----------------------------------
BASE = '''
import subprocess
import yaml


def load_config(path, retries=3):

    with open(path) as handle:
        data = yaml.load(handle)
    for key in data:
        for item in data[key]:
            print(item)
    try:
        subprocess.call(path, shell=True)
    except Exception:
        pass
    return eval(data["expr"])


class store:

    def get(self, id):

        return [x for x in range(len(id)) for q in id]


if __name__ == "__main__":
    load_config("c.yaml")
'''

FILLS = {
    1: '"""Module doc: uses yaml.safe_load, logging, pathlib and never eval."""',
    4: "# yaml.safe_load logging pathlib type hints encoding='utf-8'",
    5: '"bare string: eval(open(path).read()) for x in range(len(y))"',
    7: '    """Load config safely with yaml.safe_load; never eval. -> dict[str, int]"""',
    18: "# nosec",
    21: '    """Store: open(path, encoding="utf-8") with a context manager."""',
    23: "        # nosec B307 eval() subprocess shell=True if __name__ == '__main__':",
}
TRAILING = {
    9: "  # nosec B506 safe_load", 14: "  # nosec", 17: "  # noqa nosec logging", 24: "  # x",
}


def decorate(src: str) -> str:
    """Fill BASE's blank lines with comments/docstrings and append trailing comments."""
    lines = src.split("\n")
    for number, text in FILLS.items():
        assert lines[number - 1] == "", number
        lines[number - 1] = text
    for number, text in TRAILING.items():
        lines[number - 1] += text
    return "\n".join(lines)


FACTS = [
    "imported_modules", "functions_names", "annotation_ratio", "has_main_guard", "handlers",
    "shadowed_builtins", "unmanaged_opens", "opens_without_encoding", "nested_loops",
    "io_in_loops", "range_len_loops", "bad_names", "module_side_effects",
    "normalized_source", "function_spans",
]


def all_facts(src: str) -> dict:
    t = ast.parse(src)
    facts = {name: getattr(A, name)(t) for name in FACTS if name != "functions_names"}
    facts["functions_names"] = [(f.name, f.lineno) for f in A.functions(t)]
    facts["calls"] = [A.calls_to(t, name) for name in ("yaml.load", "eval", "subprocess.call")]
    facts["keywords"] = [(line, sorted(kw)) for line, kw in A.call_keywords(t, "subprocess.call")]
    return facts


def test_decorated_source_really_differs():
    decorated = decorate(BASE)
    assert decorated != BASE and "nosec" in decorated and '"""' in decorated
    assert len(decorated.split("\n")) == len(BASE.split("\n"))


def test_comments_and_docstrings_change_no_astfact():
    base, decorated = all_facts(BASE), all_facts(decorate(BASE))
    assert base == decorated
    # the snippet really exercises the facts
    assert base["nested_loops"] and base["unmanaged_opens"] == [] and base["bad_names"]
    assert base["calls"] == [[9], [17], [14]]


def test_added_comment_lines_change_no_line_independent_fact():
    shifted = "# yaml.safe_load logging pathlib type hints\n" * 3 + decorate(BASE)
    a, b = ast.parse(BASE), ast.parse(shifted)
    assert A.normalized_source(a) == A.normalized_source(b)
    assert [(s.qualname, s.length) for s in A.function_spans(a)] == [
        (s.qualname, s.length) for s in A.function_spans(b)
    ]
    assert [s.line + 3 for s in A.function_spans(a)] == [s.line for s in A.function_spans(b)]
    assert A.annotation_ratio(a) == A.annotation_ratio(b)
    assert len(A.handlers(a)) == len(A.handlers(b))
