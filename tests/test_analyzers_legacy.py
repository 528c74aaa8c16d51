"""Tests for the spec's analyzer classes in benchmark.analyzers.legacy."""

from __future__ import annotations

import ast
import textwrap

import pytest

from benchmark.analyzers.legacy import (
    MaintainabilityAnalyzer as MA,
    PerformanceAnalyzer as PA,
    SecurityAnalyzer as SA,
)
from benchmark.analyzers.rules_security import secret_findings


def src(text: str) -> str:
    return textwrap.dedent(text)


def lines(result: dict) -> list[int]:
    return [issue["line"] for issue in result["issues"]]


def assert_shape(result: dict) -> None:
    assert set(result) >= {"issues", "score"}
    assert 0.0 <= result["score"] <= 1.0
    for issue in result["issues"]:
        assert isinstance(issue["line"], int) and isinstance(issue["message"], str)


ALL_CHECKS = [
    getattr(cls, name) for cls in (SA, PA, MA) for name in cls.CHECKS
] + [SA.analyze_code_security, PA.analyze_code_performance, MA.analyze_code_maintainability]


@pytest.mark.parametrize("check", ALL_CHECKS, ids=lambda c: c.__name__)
def test_syntax_error_is_data_with_error_key(check):
    result = check("def broken(:\n    pass\n")
    assert result["score"] == 0.0 and result["issues"] == [] and "syntax error" in result["error"]


@pytest.mark.parametrize("check", ALL_CHECKS, ids=lambda c: c.__name__)
def test_clean_code_has_no_issues(check):
    clean = src('''
        import json


        def load_items(path: str) -> list[int]:
            with open(path, encoding="utf-8") as handle:
                items = json.load(handle)
            return sorted(item for item in items if item > 0)
    ''')
    result = check(clean)
    assert_shape(result)
    assert result["issues"] == [] and result["score"] == 1.0


# --- security ---------------------------------------------------------------------------
def test_sql_injection_bad_and_good():
    bad = src('''
        def find(cursor, name, user_id):
            cursor.execute(f"SELECT * FROM users WHERE name = '{name}'")
            query = "DELETE FROM users WHERE id = %s" % user_id
            cursor.execute(query)
            cursor.execute("SELECT * FROM t WHERE a = " + name)
            cursor.execute("SELECT * FROM t WHERE a = {}".format(name))
    ''')
    result = SA.check_sql_injection_patterns(bad)
    assert_shape(result)
    assert {3, 5, 6, 7} <= set(lines(result)) and result["score"] == 0.0
    assert any(b["test_id"] == "B608" for b in result["bandit"])
    good = src('''
        def find(cursor, name):
            cursor.execute("SELECT * FROM users WHERE name = ?", (name,))
            cursor.execute("SELECT " + "1")
    ''')
    assert SA.check_sql_injection_patterns(good)["issues"] == []


def test_hardcoded_secrets_bad_and_good():
    bad = src('''
        API_KEY = "sk-live-1234567890"
        class Client:
            def __init__(self):
                self.auth_token = "abcd"
        config = {"password": "hunter2"}
        connect(password="hunter2")
    ''')
    result = SA.check_hardcoded_secrets(bad)
    assert {2, 5, 6, 7} <= set(lines(result))
    good = src('''
        import os
        API_KEY_ENV = "OPENAI_API_KEY"
        api_key = os.environ["OPENAI_API_KEY"]
        timeout = "30"
    ''')
    assert SA.check_hardcoded_secrets(good)["issues"] == []
    # the AST rule (bandit aside) skips names that say where a secret lives, and blanks
    own = "TOKEN_URL = 'https://example.com/token'\npassword = ''\nSECRET = 'x'\n"
    assert secret_findings(ast.parse(own)) == [(3, "hard-coded secret assigned to 'SECRET'")]


def test_path_traversal_bad_and_good():
    bad = src('''
        import os
        from pathlib import Path
        def read_user_file(base, filename):
            full = os.path.join(base, filename)
            with open(full, encoding="utf-8") as handle:
                return handle.read()
        def read_other(root, name):
            return (Path(root) / name).read_text(encoding="utf-8")
    ''')
    assert lines(SA.check_path_traversal(bad)) == [6, 9]
    good = src('''
        from pathlib import Path
        def read_user_file(base, filename):
            root = Path(base).resolve()
            full = (root / filename).resolve()
            if not full.is_relative_to(root):
                raise ValueError("outside base")
            return full.read_text(encoding="utf-8")
        def read_given(path):
            with open(path, encoding="utf-8") as handle:
                return handle.read()
    ''')
    assert SA.check_path_traversal(good)["issues"] == []


def test_analyze_code_security_combines_bandit_and_checks():
    bad = src('''
        import subprocess
        def run(cmd):
            subprocess.call(cmd, shell=True)  # nosec
    ''')
    result = SA.analyze_code_security(bad)
    assert_shape(result)
    assert any(b["test_id"] == "B602" for b in result["bandit"])
    assert result["score"] < 0.5
    assert set(result["checks"]) == set(SA.CHECKS)
    secrets = SA.analyze_code_security('password = "hunter2"\n')
    assert secrets["issues"][0]["check"] == "check_hardcoded_secrets"
    assert secrets["score"] == 0.5


# --- performance ------------------------------------------------------------------------
def test_nested_loops():
    result = PA.check_nested_loops(src('''
        for a in xs:
            for b in ys:
                pass
    '''))
    assert lines(result) == [3] and result["score"] == pytest.approx(0.85)


def test_inefficient_patterns():
    code = src('''
        def build(items, wanted):
            out = ""
            seen = []
            allowed = list(wanted)
            for i in range(len(items)):
                out += items[i]
                if items[i] in seen:
                    continue
                position = allowed.index(items[i])
                label = f"{position}"
                label += "!"
            return out
    ''')
    result = PA.check_inefficient_patterns(code)
    assert lines(result) == [6, 7, 8, 10, 12]
    good = src('''
        def build(items):
            seen = set()
            total = 0
            for item in items:
                total += item
                if item in seen:
                    continue
            return "".join(items)
    ''')
    assert PA.check_inefficient_patterns(good)["issues"] == []


def test_memory_patterns():
    code = src('''
        def scan(paths, handle):
            rows = handle.readlines()
            for value in list(map(str, rows)):
                pass
            for path in paths:
                with open(path, encoding="utf-8") as fh:
                    data = fh.read()
            for key in list(rows):
                pass
    ''')
    assert lines(PA.check_memory_patterns(code)) == [3, 4, 8]


def test_algorithm_efficiency():
    code = src('''
        def pairs(items, groups):
            found = []
            for a in items:
                for b in items:
                    found.append((a, b))
                found.sort()
            ordered = [sorted(group) for group in groups]
            twice = [(x, y) for x in items for y in items]
            return found
    ''')
    assert lines(PA.check_algorithm_efficiency(code)) == [5, 7, 9]


def test_analyze_code_performance_mean_of_checks():
    result = PA.analyze_code_performance("for a in xs:\n    for b in ys:\n        pass\n")
    assert result["checks"]["check_nested_loops"] == pytest.approx(0.85)
    assert result["score"] == pytest.approx((0.85 + 3) / 4, abs=1e-4)
    assert result["issues"][0]["check"] == "check_nested_loops"


# --- maintainability --------------------------------------------------------------------
def test_function_length_uses_normalized_lines():
    long_body = "\n".join(f"    v{n} = {n}" for n in range(25))
    code = f"def long_one():\n{long_body}\n    return 0\n\ndef short():\n    return 1\n"
    result = MA.check_function_length(code)
    assert lines(result) == [1] and result["score"] == 0.5
    docstring = '    """' + "doc line\n" * 40 + '"""\n'
    padded = "def short():\n" + docstring + "    # c\n" * 30 + "    return 1\n"
    assert MA.check_function_length(padded)["issues"] == []


def test_code_duplication():
    code = src('''
        def first(data):
            cleaned = [d.strip() for d in data]
            cleaned = [d for d in cleaned if d]
            total = len(cleaned)
            return total
        def second(data):
            """Different docstring."""
            cleaned = [d.strip() for d in data]
            cleaned = [d for d in cleaned if d]
            total = len(cleaned)
            return total * 2
    ''')
    result = MA.check_code_duplication(code)
    assert lines(result) == [9] and "3-5" in result["issues"][0]["message"]
    unique = "a = 1\nb = 2\nc = 3\nd = 4\n"
    assert MA.check_code_duplication(unique)["issues"] == []
    repeated = "x = 1\nx = 1\nx = 1\nx = 1\n"  # overlapping windows are not duplicates
    assert MA.check_code_duplication(repeated)["issues"] == []


def test_variable_naming():
    code = "def calcTotal(list):\n    q = 0\n    return q\n"
    messages = [issue["message"] for issue in MA.check_variable_naming(code)["issues"]]
    assert len(messages) == 3
    assert any("calcTotal" in m for m in messages) and any("list" in m for m in messages)


def test_complexity_indicators():
    branches = "\n".join(f"    if x == {n}:\n        return {n}" for n in range(11))
    complex_code = f"def pick(x):\n{branches}\n    return -1\n"
    result = MA.check_complexity_indicators(complex_code)
    assert lines(result) == [1] and "complexity 12" in result["issues"][0]["message"]
    deep = src('''
        def deep(rows):
            for row in rows:
                if row:
                    while row:
                        with row:
                            try:
                                row.pop()
                            except IndexError:
                                break
    ''')
    assert lines(MA.check_complexity_indicators(deep)) == [7]
    elifs = "def chain(x):\n" + "".join(
        f"    {'if' if n == 0 else 'elif'} x == {n}:\n        pass\n" for n in range(6)
    )
    assert "nests" not in str(MA.check_complexity_indicators(elifs))


def test_analyze_code_maintainability_has_metrics_and_empty_code_scores_zero():
    result = MA.analyze_code_maintainability("def f(x):\n    return x\n")
    assert result["score"] == 1.0 and result["metrics"]["max_complexity"] == 1
    assert 0 <= result["metrics"]["mi"] <= 100
    for analyze in (SA.analyze_code_security, PA.analyze_code_performance,
                    MA.analyze_code_maintainability):
        empty = analyze("")
        assert empty["score"] == 0.0 and empty["note"] == "no code"


def test_comments_and_docstrings_change_no_analyzer_result():
    plain = src('''
        import subprocess


        def run(cmd, items):

            out = ""
            for a in items:
                for b in items:
                    out += str(a)
            subprocess.call(cmd, shell=True)
            return out
    ''')
    lines_ = plain.split("\n")
    assert lines_[3] == lines_[5] == ""  # only blank lines are filled
    lines_[3] = "# yaml.safe_load logging pathlib type hints"
    lines_[5] = '    """Never eval(); uses yaml.safe_load. for x in y: for z in y: s += t"""'
    lines_[10] += "  # nosec B602 shell=False"
    decorated = "\n".join(lines_)
    assert decorated != plain
    for analyze in (SA.analyze_code_security, PA.analyze_code_performance,
                    MA.analyze_code_maintainability):
        assert analyze(plain) == analyze(decorated), analyze.__name__
    assert PA.analyze_code_performance(plain)["issues"]  # the snippet does trigger findings
