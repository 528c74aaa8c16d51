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


def test_allow_async_false_fails_an_async_def_that_the_default_accepts(tmp_path):
    ctx = context(tmp_path, {"main.py": "async def load(path):\n    return path\n"})
    assert check("ast.defines", ctx, function="load").fraction == 1.0
    refused = check("ast.defines", ctx, function="load", allow_async=False)
    assert refused.fraction == 0.0 and "async def" in refused.rationale and "line 1" in refused.rationale
    assert check("ast.signature", ctx, function="load", required=["path"]).fraction == 1.0
    assert check("ast.signature", ctx, function="load", required=["path"], allow_async=False).fraction == 0.0
    plain = context(tmp_path, {"main.py": "def load(path):\n    return path\n"})
    assert check("ast.defines", plain, function="load", allow_async=False).fraction == 1.0


@pytest.mark.parametrize("params, ok", [
    ("rows", True), ("items, limit=None", True), ("items, *rest, **extra", True), ("items, /", True),
    ("items, *, strict=False", True), ("items, mode", False), ("", False), ("items, *, strict", False),
    ("*items", False), ("items=None", False),
])
def test_signature_positional_counts_required_positional_parameters_whatever_their_names(
        tmp_path, params, ok):
    ctx = context(tmp_path, {"main.py": f"def load({params}):\n    return []\n"})
    outcome = check("ast.signature", ctx, function="load", positional=1)
    assert outcome.fraction == (1.0 if ok else 0.0), outcome.rationale
    if not ok:
        assert "exactly 1 stated" in outcome.rationale
    if ok and params != "rows":  # the same def judged by name instead fails: the names are free
        assert check("ast.signature", ctx, function="load", required=["rows"]).fraction < 1.0


def test_no_nested_loops_credit_share_charges_the_share_of_loops_nested(tmp_path):
    source = ("def pairs(items):\n    for a in items:\n        for b in items:\n            print(a, b)\n"
              "    for c in items:\n        print(c)\n    return [d for d in items]\n")
    ctx = context(tmp_path, {"main.py": source})
    assert check("ast.no_nested_loops", ctx).fraction == pytest.approx(0.75)  # one finding, cost 0.25
    share = check("ast.no_nested_loops", ctx, credit="share")
    assert share.fraction == pytest.approx(3 / 4) and "1 of 4 loops" in share.rationale
    twice = source.replace("print(c)", "[e for e in items if e]")  # a comprehension nested in a loop
    ctx = context(tmp_path, {"main.py": twice})
    assert check("ast.no_nested_loops", ctx).fraction == pytest.approx(0.5)
    assert check("ast.no_nested_loops", ctx, credit="share").fraction == pytest.approx(3 / 5)
    flat = context(tmp_path, {"main.py": "def f(items):\n    return [i for i in items]\n"})
    assert check("ast.no_nested_loops", flat, credit="share").fraction == 1.0


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


def test_bandit_no_issues_forbid_calls_earn_nothing_whatever_bandit_weighs_them(tmp_path):
    weighed = context(tmp_path, {"main.py": "def f(s):\n    return eval(s)\n"})
    assert 0 < check("bandit.no_issues", weighed).fraction < 1  # B307: medium, half the check
    forbidden = check("bandit.no_issues", weighed, forbid_calls=["eval", "exec"])
    assert forbidden.fraction == 0.0 and "eval (line 2)" in forbidden.rationale
    assert forbidden.evidence[0].note == "call to eval"
    unseen = context(tmp_path, {"main.py": "import subprocess as sp\ndef f(s):\n    return compile(s, 'x', 'eval')\n"})
    assert check("bandit.no_issues", unseen, forbid_calls=["compile"]).fraction == 0.0
    assert check("bandit.no_issues", unseen, forbid_calls=["subprocess.run"]).fraction > 0
    alias = context(tmp_path, {"main.py": "import subprocess as sp\ndef f():\n    sp.run(['ls'])\n"})
    assert check("bandit.no_issues", alias, forbid_calls=["subprocess.run"]).fraction == 0.0
    assert check("bandit.no_issues", context(tmp_path, {"main.py": GOOD_SCRIPT}),
                 forbid_calls=["eval"]).fraction == 1.0


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


def test_max_complexity_with_max_lines_counts_a_long_function_as_over(tmp_path):
    long_body = "".join(f"    x{i} = {i}\n" for i in range(45))
    source = f"def long(a):\n{long_body}    return a\n\ndef short():\n    return 1\n"
    ctx = context(tmp_path, {"main.py": source})
    assert check("radon.max_complexity", ctx).fraction == 1.0  # length is not judged by default
    both = check("radon.max_complexity", ctx, max_lines=40)
    assert both.fraction == pytest.approx(0.5)
    assert "long (complexity 1, 47 lines)" in both.rationale and both.evidence[0].line == 1
    branches = "".join(f"    if a == {i}:\n        return {i}\n" for i in range(11))
    tangled = context(tmp_path, {"main.py": f"def tangled(a):\n{branches}    return a\n"})
    assert check("radon.max_complexity", tangled, max_lines=40).fraction == 0.0
    assert check("radon.max_complexity", tangled, limit=12, max_lines=40).fraction == 1.0
    Draft202012Validator(CHECK_TYPES["radon.max_complexity"].schema()).validate({"max_lines": 40})


def test_maintainability_index_with_zero_not_below_full_is_an_error(tmp_path):
    outcome = check("radon.maintainability_index", context(tmp_path, {"main.py": GOOD_SCRIPT}),
                    full=10, zero=10)
    assert outcome.status == "error"


# ---- script runs ----------------------------------------------------------------------------

SCRIPT_RUN = {"mode": "script", "entry": "main.py", "output": {"from": "stdout", "parse": "json"}}


def a_run(label, output=None, exit_code=0, **extra):
    text = None if output is None else __import__("json").dumps(output)
    record = {"label": label, "exit_code": exit_code, "timed_out": False, "skipped": False,
              "exception": None, "stdout": text or "", "stderr": "", "output": output,
              "output_error": None if output is not None else "stdout is empty",
              "output_text": text, "problem": None}
    record.update(extra)
    return record


def run_facts(runs, expected, **extra):
    facts = {"mode": "script", "seed": 1, "problem": "", "runs": {r["label"]: r for r in runs},
             "expected": expected, "expected_problem": {}, "_sandbox_events": []}
    facts.update(extra)
    return facts


def run_context(tmp_path, facts, run=SCRIPT_RUN):
    return context(tmp_path, {"main.py": GOOD_SCRIPT}, facts=facts, run=run)


def test_exec_exit_zero(tmp_path):
    good = run_facts([a_run("fixture", [1]), a_run("perturbed_1", [2])], {})
    assert check("exec.exit_zero", run_context(tmp_path, good)).fraction == 1.0
    crashed = a_run("perturbed_2", None, exit_code=1,
                    exception={"type": "KeyError", "message": "'id'"})
    half = run_facts([a_run("fixture", [1]), crashed], {})
    outcome = check("exec.exit_zero", run_context(tmp_path, half), runs=["perturbed"])
    assert outcome.fraction == 0.0 and "KeyError" in outcome.rationale
    assert check("exec.exit_zero", run_context(tmp_path, half)).fraction == 0.5
    timed_out = run_facts([a_run("fixture", [1], timed_out=True, exit_code=None)], {})
    assert check("exec.exit_zero", run_context(tmp_path, timed_out)).fraction == 0.0


def test_a_requested_run_that_is_missing_or_failed_earns_nothing(tmp_path):
    facts = run_facts([a_run("fixture", [1], problem="the child died")], {"fixture": [1]})
    outcome = check("exec.exit_zero", run_context(tmp_path, facts), runs=["fixture", "other"])
    assert outcome.fraction == 0.0
    assert "the child died" in outcome.rationale and "not observed" in outcome.rationale
    none_generated = check("exec.exit_zero", run_context(tmp_path, facts), runs=["perturbed"])
    assert none_generated.fraction == 0.0 and "no runs selected" in none_generated.rationale
    whole = run_facts([], {}, problem="the sandbox could not start")
    assert "could not start" in check("output.json_equal", run_context(tmp_path, whole)).rationale


def test_exec_sandbox_violations(tmp_path):
    facts = run_facts([a_run("fixture", [1])], {})
    assert check("exec.sandbox_violations", run_context(tmp_path, facts)).fraction == 1.0
    facts["_sandbox_events"] = [{"blocked": "network", "event": "socket.connect", "file": "main.py"}]
    outcome = check("exec.sandbox_violations", run_context(tmp_path, facts))
    assert outcome.fraction == 0.5 and "network" in outcome.rationale


def test_exec_sandbox_violations_judges_facts_without_runs_only_when_asked(tmp_path):
    # a custom observe function that reports its calls under keys of its own
    facts = {"results": {"call_1": {"returned": True}}, "problem": None, "_sandbox_events": []}
    default = check("exec.sandbox_violations", run_context(tmp_path, facts))
    assert default.fraction == 0.0 and "watched nothing" in default.rationale
    assert check("exec.sandbox_violations", run_context(tmp_path, facts), if_no_runs="judge").fraction == 1.0
    facts["_sandbox_events"] = [{"blocked": "network", "event": "socket.connect", "file": "main.py", "count": 2}]
    denied = check("exec.sandbox_violations", run_context(tmp_path, facts), if_no_runs="judge")
    assert denied.fraction == 0.0 and "denied 2 attempt(s)" in denied.rationale
    Draft202012Validator(CHECK_TYPES["exec.sandbox_violations"].schema()).validate({"if_no_runs": "judge"})


def test_output_json_equal_is_type_strict_and_partial_by_runs(tmp_path):
    runs = [a_run("fixture", {"total": 3, "ok": True}), a_run("perturbed_1", {"total": 3.0, "ok": True})]
    expected = {"fixture": {"total": 3, "ok": True}, "perturbed_1": {"total": 3, "ok": True}}
    ctx = run_context(tmp_path, run_facts(runs, expected))
    strict = check("output.json_equal", ctx)
    assert strict.fraction == 0.5 and "/total" in strict.rationale
    assert check("output.json_equal", ctx, compare="numeric").fraction == 1.0
    assert check("output.json_equal", ctx, partial="none").fraction == 0.0
    assert check("output.json_equal", ctx, partial="top_level_items").fraction == pytest.approx(0.75)
    assert check("output.json_equal", ctx, runs=["fixture"]).fraction == 1.0


def test_output_json_equal_numeric_never_equates_booleans_and_numbers(tmp_path):
    ctx = run_context(tmp_path, run_facts([a_run("fixture", [1, True])], {"fixture": [True, 1]}))
    assert check("output.json_equal", ctx, compare="numeric").fraction == 0.0


def test_output_json_equal_without_an_expected_value_fails(tmp_path):
    facts = run_facts([a_run("fixture", [1]), a_run("perturbed_1", [1])], {"fixture": [1]},
                      expected_problem={"perturbed_1": "the reference crashed"})
    outcome = check("output.json_equal", run_context(tmp_path, facts))
    assert outcome.fraction == 0.5 and "the reference crashed" in outcome.rationale


def test_output_number(tmp_path):
    runs = [a_run("fixture", {"summary": {"mean": 2.5000001}}), a_run("perturbed_1", {"summary": {"mean": "2.5"}})]
    expected = {"fixture": {"summary": {"mean": 2.5}}, "perturbed_1": 2.5}
    ctx = run_context(tmp_path, run_facts(runs, expected))
    outcome = check("output.number", ctx, path="/summary/mean", abs_tol=1e-3)
    assert outcome.fraction == 0.5 and "not a number" in outcome.rationale
    assert check("output.number", ctx, path="/summary/mean", runs=["fixture"]).fraction == 0.0
    assert check("output.number", ctx, path="/summary/missing", abs_tol=1).fraction == 0.0


def test_output_text_equal(tmp_path):
    runs = [a_run("fixture", "x", output_text="Hello World  \r\nBye\n")]
    ctx = run_context(tmp_path, run_facts(runs, {"fixture": "Hello World\nBye"}))
    assert check("output.text_equal", ctx).fraction == 1.0
    assert check("output.text_equal", ctx, strip=False).fraction == 0.0
    other = run_context(tmp_path, run_facts(runs, {"fixture": "hello world\nbye"}))
    assert check("output.text_equal", other).fraction == 0.0
    assert check("output.text_equal", other, ignore_case=True).fraction == 1.0


def test_output_accuracy_rises_linearly(tmp_path):
    expected = {"fixture": [{"id": str(i), "label": "spam" if i % 2 else "ham"} for i in range(10)]}
    predicted = [{"id": i, "label": "spam" if i % 2 else "ham"} for i in range(10)]
    for item in predicted[:2]:
        item["label"] = "eggs"
    ctx = run_context(tmp_path, run_facts([a_run("fixture", predicted)], expected))
    outcome = check("output.accuracy", ctx, key="label", zero_at=0.6, full_at=1.0)
    assert outcome.fraction == pytest.approx(0.5) and "8/10" in outcome.rationale
    assert check("output.accuracy", ctx, key="label", zero_at=0.0, full_at=0.8).fraction == 1.0
    as_mapping = run_context(tmp_path, run_facts(
        [a_run("fixture", {str(i): "ham" for i in range(10)})], expected))
    assert check("output.accuracy", as_mapping, key="label").fraction == 0.0
    wrong_shape = run_context(tmp_path, run_facts([a_run("fixture", [1, 2])], expected))
    assert check("output.accuracy", wrong_shape, key="label").fraction == 0.0


def test_output_only_parsed(tmp_path):
    clean = a_run("fixture", [1, 2])
    noisy = a_run("perturbed_1", [1, 2])
    noisy["stdout"] = "loading...\n" + noisy["stdout"]
    ctx = run_context(tmp_path, run_facts([clean, noisy], {}))
    assert check("output.only_parsed", ctx, runs=["fixture"]).fraction == 1.0
    outcome = check("output.only_parsed", ctx)
    assert outcome.fraction == 0.5 and "perturbed_1" in outcome.rationale
    from_file = {**SCRIPT_RUN, "output": {"from": "file", "path": "out.json", "parse": "json"}}
    assert check("output.only_parsed", run_context(tmp_path, run_facts([clean], {}), from_file)).fraction == 0.0


# ---- calls ----------------------------------------------------------------------------------

CALL_RUN = {"mode": "call", "module": "main.py", "function": "normalize"}


def a_case(label, value=None, exception=None, mutated=False):
    return {"label": label, "args": [], "kwargs": {}, "returned": exception is None,
            "value": value, "value_type": type(value).__name__, "unserializable": None,
            "exception": exception, "mutated": mutated, "output": ""}


def call_context(tmp_path, cases, expect, **extra):
    facts = {"mode": "call", "seed": 1, "problem": "", "import_error": None, "function_found": True,
             "cases": {c["label"]: c for c in cases}, "expect": expect, "expected_problem": {}}
    facts.update(extra)
    return context(tmp_path, {"main.py": GOOD_SCRIPT}, facts=facts, run=CALL_RUN)


def test_cases_equal(tmp_path):
    cases = [a_case("plain", "+1415"), a_case("perturbed_1", 1.0), a_case("perturbed_2", None,
                                                                         {"type": "ValueError", "message": "x"})]
    expect = {"plain": {"value": "+1415"}, "perturbed_1": {"value": 1}, "perturbed_2": {"value": 2}}
    ctx = call_context(tmp_path, cases, expect)
    outcome = check("cases.equal", ctx)
    assert outcome.fraction == pytest.approx(1 / 3) and "ValueError" in outcome.rationale
    assert check("cases.equal", ctx, labels=["plain"]).fraction == 1.0
    assert check("cases.equal", ctx, labels=["perturbed"], compare="numeric").fraction == 0.5


@pytest.mark.parametrize("compare", ["strict", "numeric"])
def test_a_case_returning_an_int_past_the_digit_limit_costs_that_case_only(tmp_path, compare):
    """A call may return an int of thousands of digits (the channel carries it): str() and
    float arithmetic refuse it, so judging it once made the whole check an internal error;
    now it costs its own case, shown by its size."""
    cases = [a_case("plain", 1), a_case("perturbed_1", 10 ** 5000), a_case("perturbed_2", 2.5)]
    expect = {"plain": {"value": 1}, "perturbed_1": {"value": 2.5}, "perturbed_2": {"value": 2.5}}
    outcome = check("cases.equal", call_context(tmp_path, cases, expect), compare=compare)
    assert outcome.status is None and outcome.fraction == pytest.approx(2 / 3)
    assert "perturbed_1: returned an int of about 5001 digits (int)" in outcome.rationale


def test_numeric_equal_never_raises_on_ints_too_large_for_a_float():
    from benchmark.packs.library.common import numeric_equal

    assert numeric_equal(10 ** 5000, 10 ** 5000, 1e-9) and not numeric_equal(10 ** 5000, 1.5, 1e6)
    assert not numeric_equal(1.5, -10 ** 400, 1e-9) and numeric_equal(3, 3.0000000001, 1e-6)
    assert not numeric_equal(float("nan"), float("nan"), 1.0)


def test_cases_fail_when_the_module_does_not_import(tmp_path):
    ctx = call_context(tmp_path, [], {"plain": {"value": 1}},
                       import_error={"type": "SyntaxError", "message": "bad"}, function_found=None)
    outcome = check("cases.equal", ctx)
    assert outcome.fraction == 0.0 and "SyntaxError" in outcome.rationale


def test_cases_raises(tmp_path):
    cases = [a_case("garbage", None, {"type": "phone.PhoneError", "message": "no digits"}),
             a_case("empty", "")]
    expect = {"garbage": {"raises": ["ValueError", "PhoneError"]}, "empty": {"raises": ["ValueError"]},
              "plain": {"value": "x"}}
    ctx = call_context(tmp_path, cases, expect)
    outcome = check("cases.raises", ctx)
    assert outcome.fraction == 0.5 and "returned instead of raising" in outcome.rationale
    assert check("cases.raises", ctx, labels=["garbage"]).fraction == 1.0
    assert check("cases.raises", ctx, labels=["plain"]).fraction == 0.0


def test_cases_no_mutation(tmp_path):
    cases = [a_case("a", 1), a_case("b", 1, mutated=True), a_case("c", 1, mutated=None)]
    ctx = call_context(tmp_path, cases, {})
    outcome = check("cases.no_mutation", ctx)
    assert outcome.fraction == 0.5 and "not judged: c" in outcome.rationale
    assert check("cases.no_mutation", ctx, labels=["a"]).fraction == 1.0
    assert check("cases.no_mutation", ctx, labels=["c"]).fraction == 0.0


# ---- documents ------------------------------------------------------------------------------

DOC_FILES = (("config.yaml", "yaml"), ("config.json", "json"))


def doc_context(tmp_path, documents, expected=None):
    facts = {"mode": "parse", "seed": 0, "problem": "", "documents": documents,
             "expected": expected or {}}
    return context(tmp_path, facts=facts, run={"mode": "parse"}, files=DOC_FILES)


CONFIG = {"server": {"port": 8080, "debug": False}, "users": ["ann"]}


def test_parse_loads(tmp_path):
    good = {"config.yaml": {"kind": "yaml", "value": CONFIG, "error": None, "line": None},
            "config.json": {"kind": "json", "value": CONFIG, "error": None, "line": None}}
    assert check("parse.loads", doc_context(tmp_path, good)).fraction == 1.0
    bad = {**good, "config.json": {"kind": "json", "value": None, "error": "Expecting ','", "line": 3}}
    outcome = check("parse.loads", doc_context(tmp_path, bad))
    assert outcome.fraction == 0.5 and outcome.evidence[0].line == 3
    empty = {**good, "config.yaml": {"kind": "yaml", "value": None, "error": None, "line": None}}
    nothing = check("parse.loads", doc_context(tmp_path, empty), files=["config.yaml"])
    assert nothing.fraction == 0.0 and [e.file for e in nothing.evidence] == ["config.yaml"]


def test_parse_equivalent(tmp_path):
    doc = lambda value: {"config.yaml": {"kind": "yaml", "value": value, "error": None, "line": None}}  # noqa: E731
    ctx = doc_context(tmp_path, doc(CONFIG), {"config": CONFIG})
    assert check("parse.equivalent", ctx, against="config").fraction == 1.0
    wrong = {"server": {"port": "8080", "debug": False}, "users": ["ann"]}
    bad = doc_context(tmp_path, doc(wrong), {"config": CONFIG})
    outcome = check("parse.equivalent", bad, against="config")
    assert outcome.fraction == 0.0 and "/server/port" in outcome.rationale
    assert check("parse.equivalent", bad, against="config", partial="top_level_items").fraction == 0.5
    assert check("parse.equivalent", ctx, against="other").fraction == 0.0


def test_parse_keys(tmp_path):
    documents = {"config.json": {"kind": "json", "value": CONFIG, "error": None, "line": None}}
    ctx = doc_context(tmp_path, documents)
    assert check("parse.keys", ctx, file="config.json", required=["/server/port", "/users/0"]).fraction == 1.0
    outcome = check("parse.keys", ctx, file="config.json", required=["/server/port", "/server/host"])
    assert outcome.fraction == 0.5 and "/server/host" in outcome.rationale
    assert check("parse.keys", ctx, required=["/server"]).fraction == 0.0  # config.yaml: not parsed


def _doc(value, documents=1, error=None, kind="yaml"):
    return {"kind": kind, "value": value, "error": error, "line": None, "documents": documents}


def test_parse_loads_can_require_a_mapping_and_charge_for_several_documents(tmp_path):
    docs = {"config.yaml": _doc(CONFIG, documents=2), "config.json": _doc(["a", "b"], kind="json")}
    ctx = doc_context(tmp_path, docs)
    assert check("parse.loads", ctx).fraction == 1.0  # by default: any value, any number of documents
    no_count = {"config.yaml": {k: v for k, v in _doc(CONFIG).items() if k != "documents"}}  # (one document)
    assert check("parse.loads", doc_context(tmp_path, no_count), files=["config.yaml"],
                 multi_document=0.5).fraction == 1.0
    listed = check("parse.loads", ctx, files=["config.json"], root="mapping")
    assert listed.fraction == 0.0 and listed.rationale == (
        "0/1 files load with the safe, limited loaders; config.json loads to a list, not a mapping")
    assert check("parse.loads", ctx, files=["config.json"], root="list").fraction == 1.0
    several = check("parse.loads", ctx, files=["config.yaml"], root="mapping", multi_document=0.5)
    assert several.fraction == 0.5 and "config.yaml holds 2 documents" in several.rationale
    assert check("parse.loads", ctx, root="mapping", multi_document=0.5).fraction == 0.25
    one = {"config.yaml": _doc(CONFIG, documents=1)}
    assert check("parse.loads", doc_context(tmp_path, one), files=["config.yaml"], multi_document=0).fraction == 1.0


def test_parse_keys_and_equivalent_judge_several_files_for_their_mean(tmp_path):
    docs = {"config.yaml": _doc(CONFIG), "config.json": _doc({"server": {"port": 8080}}, kind="json")}
    ctx = doc_context(tmp_path, docs, {"config": CONFIG})
    both = ["config.yaml", "config.json"]
    outcome = check("parse.keys", ctx, files=both, required=["/server/port", "/users"])
    assert outcome.fraction == 0.75 and outcome.rationale == (
        "config.yaml: 2/2 key paths present; config.json: 1/2 key paths present; missing: /users")
    assert check("parse.keys", ctx, files=["config.json"], required=["/users"]).rationale == \
        check("parse.keys", ctx, file="config.json", required=["/users"]).rationale
    assert check("parse.equivalent", ctx, against="config", files=both).fraction == 0.5
    assert check("parse.equivalent", ctx, against="config", files=["config.yaml", "gone.json"]).fraction == 0.5
    for name in ("parse.keys", "parse.equivalent"):
        params = {"required": ["/users"]} if name == "parse.keys" else {"against": "config"}
        clash = check(name, ctx, file="config.yaml", files=both, **params)
        assert clash.fraction == 0.0 and "not both" in clash.rationale


def test_parse_equivalent_with_partial_leaves_credits_each_equal_leaf(tmp_path):
    answer = {"server": {"port": 8080, "debug": False, "hosts": ["a", "b"]}, "name": "svc"}
    def share(value):
        ctx = doc_context(tmp_path, {"config.yaml": _doc(value)}, {"config": answer})
        return check("parse.equivalent", ctx, against="config", partial="leaves")
    assert share(answer).fraction == 1.0
    wrong = share({"server": {"port": "8080", "debug": False, "hosts": ["a", "b"]}, "name": "svc"})
    assert wrong.fraction == 0.75 and "3/4 leaves equal" in wrong.rationale and "/server/port" in wrong.rationale
    extra = share({**answer, "server": {**answer["server"], "tmp/dir": "/tmp"}})
    assert extra.fraction == 0.8 and "/server/tmp~1dir (unexpected)" in extra.rationale  # 4 of 5 leaves
    flattened = share({"server": "localhost:8080", "name": "svc"})  # a section as one value: no extra leaf
    assert flattened.fraction == 0.25 and "(unexpected)" not in flattened.rationale
    assert share(["svc"]).fraction == 0.0 and share({"name": "svc"}).fraction == 0.25
    ctx = doc_context(tmp_path, {"config.yaml": _doc({**answer, "name": "other"})}, {"config": answer})
    assert check("parse.equivalent", ctx, against="config").fraction == 0.0  # the default: all or nothing
    assert check("parse.equivalent", ctx, against="config", partial="top_level_items").fraction == 0.5


def test_cases_raises_takes_a_builtin_name_for_what_really_derives_from_it(tmp_path):
    """A built-in exception's name matches its subclasses (as ``except`` does) and nothing that
    is merely named so: the harness reports each exception's real built-in ancestry."""
    spoof = {"type": "ValueError", "message": "x", "builtin": ["Exception", "BaseException", "object"]}
    subclass = {"type": "BadAmount", "message": "x",
                "builtin": ["ValueError", "Exception", "BaseException", "object"]}
    cases = [a_case("spoof", None, spoof), a_case("subclass", None, subclass)]
    ctx = call_context(tmp_path, cases, {"spoof": {"raises": ["ValueError"]},
                                         "subclass": {"raises": ["ValueError"]}})
    assert check("cases.raises", ctx, labels=["spoof"]).fraction == 0.0
    assert "no built-in ValueError" in check("cases.raises", ctx, labels=["spoof"]).rationale
    assert check("cases.raises", ctx, labels=["subclass"]).fraction == 1.0


def test_the_harness_reports_the_builtin_ancestry_of_what_a_call_raises():
    from benchmark.secure_runner import SecureRunner

    source = (b"Fake = type('ValueError', (Exception,), {})\n"
              b"Claimed = type('TypeError', (Exception,), {'__module__': 'builtins'})\n"
              b"class Real(ValueError):\n    pass\n"
              b"def f(kind):\n    raise {'fake': Fake, 'claimed': Claimed, 'real': Real}[kind]('no')\n")
    calls = [{"label": kind, "args": [kind]} for kind in ("fake", "claimed", "real")]
    result = SecureRunner("t").run_harness(
        {"mode": "call", "module": "m.py", "function": "f", "calls": calls}, {"m.py": source}, timeout=20)
    raised = {r["label"]: r["exception"] for r in result.observation["results"]}
    assert raised["fake"]["type"] == "ValueError" and "ValueError" not in raised["fake"]["builtin"]
    assert raised["claimed"]["builtin"] == ["Exception", "BaseException", "object"]
    assert raised["real"]["builtin"] == ["ValueError", "Exception", "BaseException", "object"]


def test_shown_and_hidden_cases_are_counted_apart_in_a_rationale():
    from benchmark.packs.library.common import pooled

    scores = [("small", 1.0, ""), ("zero", 1.0, ""), ("perturbed_1", 0.0, "returned 3"), ("perturbed_2", 1.0, ""),
              ("perturbed_3", 0.0, "raised")]
    outcome = pooled("f.py", scores, "cases")
    assert outcome.rationale.startswith("3/5 cases right: shown 2/2, hidden (generated) 1/3 (perturbed_1: ")
    assert [tuple(g) for g in outcome.groups] == [("shown", 2, 2), ("hidden", 1, 3)]
    assert pooled("f.py", scores[:2], "cases").rationale == "2/2 cases right"  # one group: as before
    assert pooled("f.py", scores[:2], "cases").groups == ()  # (no generated case: no groups)
    assert pooled("f.py", scores[2:], "cases").rationale.startswith("1/3 cases right (")
    assert [tuple(g) for g in pooled("f.py", scores[2:], "cases").groups] == [("hidden", 1, 3)]


def test_output_json_equal_ignores_paths_and_takes_tolerances_per_path(tmp_path):
    got = {"generated_at": "2026-12-02T10:00", "rows": [{"id": 7, "v": 1.0004}, {"id": 8, "v": 2}],
           "mean": 2.004, "count": 2}
    want = {"generated_at": "2025-01-01T00:00", "rows": [{"id": 1, "v": 1.0}, {"id": 2, "v": 2.0}],
            "mean": 2.0, "count": 2}
    ctx = run_context(tmp_path, run_facts([a_run("fixture", got)], {"fixture": want}))
    assert check("output.json_equal", ctx).fraction == 0.0
    loose = {"ignore": ["/generated_at", "/rows/*/id"], "tolerances": {"/rows/*/v": 0.001, "/mean": 0.01}}
    assert check("output.json_equal", ctx, **loose).fraction == 1.0
    tight = check("output.json_equal", ctx, **{**loose, "tolerances": {"/rows/*/v": 0.001, "/mean": 0.001}})
    assert tight.fraction == 0.0 and "/mean" in tight.rationale  # each path its own tolerance
    missed = check("output.json_equal", ctx, ignore=["/generated_at"], tolerances=loose["tolerances"])
    assert missed.fraction == 0.0 and "/rows/0/id" in missed.rationale  # only what is ignored is ignored
    # an ignored key an answer leaves out costs nothing; a key it adds that is not ignored still counts
    ctx2 = run_context(tmp_path, run_facts([a_run("fixture", {"count": 2, "extra": 1})], {"fixture": {"count": 2, "t": 0}}))
    assert check("output.json_equal", ctx2, ignore=["/t"]).fraction == 0.0
    assert check("output.json_equal", ctx2, ignore=["/t", "/extra"]).fraction == 1.0


def test_cases_equal_with_a_chance_floor_pays_nothing_for_guessing(tmp_path):
    labels = [f"c{i}" for i in range(10)]
    truth = ["spam" if i % 2 else "ham" for i in range(10)]
    expect = {label: {"value": value} for label, value in zip(labels, truth)}
    always_ham = call_context(tmp_path, [a_case(label, "ham") for label in labels], expect)
    assert check("cases.equal", always_ham).fraction == 0.5  # the plain share: half for a constant
    floor = check("cases.equal", always_ham, zero_at=0.5)
    assert floor.fraction == 0.0 and "scaled from 50% (nothing) to 100% (all): 0% of the points" in floor.rationale
    nine = call_context(tmp_path, [a_case(label, value if label != "c0" else "spam")
                                   for label, value in zip(labels, truth)], expect)
    assert check("cases.equal", nine, zero_at=0.5).fraction == pytest.approx(0.8)
    assert check("cases.equal", nine, zero_at=0.5, full_at=0.9).fraction == 1.0
    assert check("cases.equal", nine, zero_at=0.9, full_at=0.5).status == "error"
