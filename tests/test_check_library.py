"""The built-in check types (benchmark.packs.library): a good and a bad input for each, with
the fraction it earns, and the rules every type keeps (documented, schema-valid, and never a
pass on no data)."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

import benchmark.packs.library  # noqa: F401  (registers the built-ins)
from benchmark.packs.model import FileSpec, Task
from benchmark.packs.registry import CHECK_TYPES, METHODS
from benchmark.prompts.base import CheckContext, Outcome
from benchmark.submission import load_source

CONTRACT_NAMES = {
    "compiles", "ast.defines", "ast.signature", "ast.imports", "ast.type_hints",
    "ast.main_guard", "ast.specific_exceptions", "ast.no_builtin_shadowing",
    "ast.context_managers", "ast.logging", "ast.good_naming", "ast.docstrings",
    "ast.no_nested_loops", "ast.no_io_in_loops", "bandit.no_issues", "bandit.forbid",
    "radon.max_complexity", "radon.max_function_lines", "radon.maintainability_index",
    "exec.exit_zero", "exec.sandbox_violations", "output.json_equal", "output.number",
    "output.text_equal", "output.accuracy", "output.only_parsed", "cases.equal",
    "cases.raises", "cases.no_mutation", "parse.loads", "parse.equivalent", "parse.keys",
}


def make_task(files=(("main.py", "python"),), run=None) -> Task:
    return Task(pack="demo", id="demo_task", key="demo.demo_task", title="Demo", points=10,
                maxima={}, checks=(), files=tuple(FileSpec(p, k) for p, k in files),
                observe=lambda *args: {}, gates={}, pass_fraction=0.6, run=run or {})


def context(tmp_path, sources=None, facts=None, run=None, files=None) -> CheckContext:
    """A check context over ``sources`` (name -> text) written to ``tmp_path`` and loaded as
    the grader loads them, with ``facts`` and a task whose files are ``files``."""
    loaded = {}
    for name, text in (sources or {}).items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        loaded[name] = load_source(path, python=name.endswith(".py"))
    return CheckContext(files=loaded, facts=facts or {},
                        task=make_task(files or (("main.py", "python"),), run))


def check(name: str, ctx: CheckContext, **params) -> Outcome:
    return CHECK_TYPES[name].fn(ctx, **params)


# ---- every type -----------------------------------------------------------------------------


def test_the_library_registers_exactly_the_contract_names():
    assert CONTRACT_NAMES <= set(CHECK_TYPES)
    assert {n for n in CHECK_TYPES if CHECK_TYPES[n].source == "builtin"} >= CONTRACT_NAMES


@pytest.mark.parametrize("name", sorted(CONTRACT_NAMES))
def test_every_type_is_documented_with_a_method_and_a_valid_params_schema(name):
    ctype = CHECK_TYPES[name]
    assert ctype.doc and ctype.doc.splitlines()[0].strip().endswith(".")
    assert len(ctype.doc.splitlines()) >= 2 or name in ("compiles",)
    assert ctype.method in METHODS
    Draft202012Validator.check_schema(ctype.schema())
    for prop, spec in ctype.params.items():
        assert spec.get("description"), f"{name}.{prop} has no description"


MINIMAL_PARAMS = {"ast.defines": {"function": "main"}, "bandit.forbid": {"tests": ["B506"]},
                  "output.accuracy": {"key": "label"}, "parse.equivalent": {"against": "config"},
                  "parse.keys": {"required": ["/a"]}}


@pytest.mark.parametrize("name", sorted(CONTRACT_NAMES))
def test_no_data_is_a_fail_never_a_pass(tmp_path, name):
    params = MINIMAL_PARAMS.get(name, {})
    Draft202012Validator(CHECK_TYPES[name].schema()).validate(params)
    outcome = check(name, context(tmp_path), **params)
    assert outcome.fraction == 0.0 and outcome.status in (None, "error"), outcome
    assert outcome.rationale


# ---- source checks: (type, params, source, expected fraction) -------------------------------

GOOD_SCRIPT = '''\
"""A tidy script."""
import logging
import json

LOG = logging.getLogger(__name__)


def load(path: str) -> dict:
    """Read a JSON file."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        LOG.error("cannot read %s", path)
        raise


class Report:
    """A report."""

    def total(self, values: list) -> int:
        """Sum them."""
        return sum(values)


if __name__ == "__main__":
    load("data.json")
'''

BAD_SCRIPT = '''\
import os, yaml
def Load(p, l):
    f = open(p)
    list = yaml.load(f)
    try:
        for x in list:
            for y in list:
                open(y).read()
    except:
        print("failed")
    return list
'''

TANGLED = "def tangled(a, b, c):\n    total = 0\n" + "".join(
    f"    if a > {i} and b < {i} or c == {i}:\n        total = total * {i} + a - b / (c + {i})\n"
    f"    elif b % {i + 2} == 1:\n        total -= a ** {i}\n" for i in range(40)) + "    return total\n"

SOURCE_CASES = [
    ("compiles", {}, GOOD_SCRIPT, 1.0),
    ("compiles", {}, "def broken(:\n", 0.0),
    ("ast.defines", {"function": "load"}, GOOD_SCRIPT, 1.0),
    ("ast.defines", {"function": "total", "class": "Report"}, GOOD_SCRIPT, 1.0),
    ("ast.defines", {"function": "total"}, GOOD_SCRIPT, 0.0),
    ("ast.signature", {"function": "load", "required": ["path"]}, GOOD_SCRIPT, 1.0),
    ("ast.signature", {"function": "Load", "required": ["p"], "optional": ["mode"]}, BAD_SCRIPT, 1 / 3),
    ("ast.imports", {"require": ["json", "logging"], "forbid": ["yaml"]}, GOOD_SCRIPT, 1.0),
    ("ast.imports", {"require": ["json"], "forbid": ["yaml", "pickle"]}, BAD_SCRIPT, 1 / 3),
    ("ast.type_hints", {}, GOOD_SCRIPT, 1.0),
    ("ast.type_hints", {"min_ratio": 0.5}, "def f(a: int, b):\n    return a\n", 2 / 3),
    ("ast.type_hints", {}, BAD_SCRIPT, 0.0),
    ("ast.main_guard", {}, GOOD_SCRIPT, 1.0),
    ("ast.main_guard", {}, BAD_SCRIPT, 0.0),
    ("ast.specific_exceptions", {}, GOOD_SCRIPT, 1.0),
    ("ast.specific_exceptions", {}, BAD_SCRIPT, 0.0),
    ("ast.specific_exceptions", {}, "x = 1\n", 0.0),
    ("ast.specific_exceptions", {"if_none": "pass"}, "x = 1\n", 1.0),
    ("ast.no_builtin_shadowing", {}, GOOD_SCRIPT, 1.0),
    ("ast.no_builtin_shadowing", {}, BAD_SCRIPT, 0.75),
    ("ast.context_managers", {}, GOOD_SCRIPT, 1.0),
    ("ast.context_managers", {}, BAD_SCRIPT, 0.0),
    ("ast.logging", {}, GOOD_SCRIPT, 1.0),
    ("ast.logging", {}, BAD_SCRIPT, 0.0),
    ("ast.logging", {}, "import logging\ntry:\n    pass\nexcept OSError:\n    logging.info('x')\n"
                        "    print('oops')\n", 0.5),
    ("ast.good_naming", {}, GOOD_SCRIPT, 1.0),
    ("ast.good_naming", {"cost": 0.5}, BAD_SCRIPT, 0.0),
    ("ast.docstrings", {}, GOOD_SCRIPT, 1.0),
    ("ast.docstrings", {"min_ratio": 0.5}, "def a():\n    '''Doc.'''\n\ndef b():\n    pass\n\n"
                                           "def c():\n    pass\n\ndef _d():\n    pass\n", 2 / 3),
    ("ast.docstrings", {}, BAD_SCRIPT, 0.0),
    ("ast.no_nested_loops", {}, GOOD_SCRIPT, 1.0),
    ("ast.no_nested_loops", {}, BAD_SCRIPT, 0.75),
    ("ast.no_io_in_loops", {}, GOOD_SCRIPT, 1.0),
    ("ast.no_io_in_loops", {"cost": 0.1}, BAD_SCRIPT, 0.9),
    ("radon.max_complexity", {}, GOOD_SCRIPT, 1.0),
    ("radon.max_complexity", {"limit": 1}, GOOD_SCRIPT, 0.5),
    ("radon.max_complexity", {}, "x = 1\n", 0.0),
    ("radon.max_function_lines", {}, GOOD_SCRIPT, 1.0),
    ("radon.max_function_lines", {"limit": 3}, GOOD_SCRIPT, 0.5),
    ("radon.maintainability_index", {}, GOOD_SCRIPT, 1.0),
    ("radon.maintainability_index", {}, TANGLED, 0.0),
]


@pytest.mark.parametrize("name, params, source, expected", SOURCE_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(SOURCE_CASES)])
def test_source_check_earns_the_expected_fraction(tmp_path, name, params, source, expected):
    Draft202012Validator(CHECK_TYPES[name].schema()).validate(params)
    outcome = check(name, context(tmp_path, {"main.py": source}), **params)
    assert outcome.fraction == pytest.approx(expected), outcome
    assert outcome.status is None, outcome


def test_a_python_type_names_the_file_and_why_it_cannot_read_it(tmp_path):
    ctx = context(tmp_path, {"main.py": "def broken(:\n", "empty.py": "   \n"})
    syntax = check("ast.main_guard", ctx)
    assert syntax.fraction == 0 and "main.py" in syntax.rationale and "syntax error" in syntax.rationale
    assert syntax.evidence[0].line == 1
    empty = check("ast.type_hints", ctx, file="empty.py")
    assert "empty.py" in empty.rationale and "empty" in empty.rationale
    absent = check("ast.imports", ctx, file="other.py", require=["os"])
    assert absent.fraction == 0 and "other.py: not submitted" in absent.rationale


def test_signature_defaults_come_from_the_run_section(tmp_path):
    run = {"mode": "call", "module": "phone.py", "function": "normalize",
           "signature": {"required": ["number"], "optional": ["region"]}}
    good = context(tmp_path, {"phone.py": "def normalize(number, region='US'):\n    return number\n"},
                   run=run, files=(("phone.py", "python"),))
    assert check("ast.signature", good).fraction == 1.0
    bad = context(tmp_path, {"phone.py": "def normalize(number, region, strict):\n    return number\n"},
                  run=run, files=(("phone.py", "python"),))
    outcome = check("ast.signature", bad)
    assert outcome.fraction == pytest.approx(1 / 3)
    assert "strict is required but not in the contract" in outcome.rationale


def test_comments_and_docstrings_do_not_change_finding_counts(tmp_path):
    commented = "# for x in y:\n#     for z in x: pass\ndef f(items):\n    '''for a in b: open(a)'''\n" \
                "    return [i for i in items]\n"
    assert check("ast.no_nested_loops", context(tmp_path, {"main.py": commented})).fraction == 1.0
    assert check("ast.no_io_in_loops", context(tmp_path, {"main.py": commented})).fraction == 1.0


# ---- bandit ---------------------------------------------------------------------------------

UNSAFE = "import subprocess\nimport yaml\n\ndef run(cmd, path):\n    subprocess.call(cmd, shell=True)\n" \
         "    with open(path, encoding='utf-8') as handle:\n        return yaml.load(handle)\n"


def test_bandit_no_issues_good_and_bad(tmp_path):
    assert check("bandit.no_issues", context(tmp_path, {"main.py": GOOD_SCRIPT})).fraction == 1.0
    bad = check("bandit.no_issues", context(tmp_path, {"main.py": UNSAFE}))
    assert bad.fraction < 0.5 and "B506" in bad.rationale and "B602" in bad.rationale
    assert any(e.note.startswith("B506") for e in bad.evidence)
    per_finding = check("bandit.no_issues", context(tmp_path, {"main.py": UNSAFE}),
                        min_severity="high", cost=0.4)
    high = [e for e in per_finding.evidence if "(HIGH)" in e.note]
    assert high and all("(HIGH)" in e.note for e in per_finding.evidence)
    assert per_finding.fraction == pytest.approx(max(0.0, 1 - 0.4 * len(high)))


def test_bandit_no_issues_lists_at_most_ten_findings_then_a_count(tmp_path):
    source = "import subprocess\n" + "".join(f"subprocess.call('x{i}', shell=True)\n" for i in range(13))
    outcome = check("bandit.no_issues", context(tmp_path, {"main.py": source}), cost=0.01)
    assert "... and" in outcome.rationale and " more" in outcome.rationale
    assert len(outcome.evidence) == 10


def test_bandit_over_the_analysis_budget_is_an_error(tmp_path, monkeypatch):
    from benchmark.analyzers import security

    def over_budget(*args, **kwargs):
        raise security.AnalysisLimitError("too big")

    monkeypatch.setattr(security, "bandit_issues", over_budget)
    outcome = check("bandit.no_issues", context(tmp_path, {"main.py": GOOD_SCRIPT}))
    assert outcome.status == "error" and "too big" in outcome.rationale


def test_bandit_forbid(tmp_path):
    assert check("bandit.forbid", context(tmp_path, {"main.py": GOOD_SCRIPT}), tests=["B506"]).fraction == 1.0
    bad = check("bandit.forbid", context(tmp_path, {"main.py": UNSAFE}), tests=["B506", "B602"], cost=0.25)
    assert bad.fraction == pytest.approx(0.5) and "B506 line 7" in bad.rationale
