"""Critical checks: a check a task cannot do without caps the whole task when it fails, so an
insecure answer that passes every other check no longer collects their points."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from benchmark import cli
from benchmark.packs.loader import check_pack, load_pack
from benchmark.packs.model import Critical
from benchmark.reporting.results_json import validate_results
from benchmark.reporting.view import run_view
from benchmark.scoring import apply_critical, score_prompt
from benchmark.types import Category, Check

from trees import ROOT, grade_pack

TASK = """\
schema_version: 1
id: total
title: Total of a list
prompt: prompt.md
files:
  - {{path: total.py, kind: python}}
reference: reference
run:
  mode: call
  module: total.py
  function: total
  cases:
    - {{label: three, args: [[1, 2, 3]], expect: 6}}
    - {{label: one,   args: [[7]],       expect: 7}}
checks:
  - {{id: compiles, category: syntax,    points: 5,  use: compiles}}
  - {{id: defined,  category: structure, points: 5,  use: ast.defines, with: {{function: total}}}}
  - {{id: right,    category: execution, points: 10, use: cases.equal}}
  - {{id: no_eval,  category: security,  points: 3,  use: bandit.forbid, with: {{tests: [B307]}}{critical}}}
  - {{id: sandbox,  category: security,  points: 2,  use: exec.sandbox_violations}}
"""
GOOD = "def total(xs):\n    return sum(xs)\n"
INSECURE = "def total(xs):\n    return eval('+'.join(str(x) for x in xs) or '0')\n"


def critical_pack(root: Path, critical: str = ", critical: true") -> Path:
    (root / "total" / "reference").mkdir(parents=True)
    (root / "pack.yaml").write_text("schema_version: 1\nid: safe_pack\nversion: 1\ntitle: Safe\n"
                                    "submission_root: .\ntasks: [total]\n", encoding="utf-8")
    (root / "total" / "prompt.md").write_text("Write total.py.\n", encoding="utf-8")
    (root / "total" / "reference" / "total.py").write_text(GOOD, encoding="utf-8")
    (root / "total" / "task.yaml").write_text(TASK.format(critical=critical), encoding="utf-8")
    return root


def test_critical_is_true_or_a_below_and_a_cap_and_anything_else_is_an_error_at_its_line(tmp_path):
    check = lambda pack: load_pack(pack).tasks[0].checks[3].critical  # noqa: E731
    assert check(critical_pack(tmp_path / "a")) == Critical(1.0, 0.0)
    assert check(critical_pack(tmp_path / "b", ", critical: {below: 0.5, cap: 0.25}")) == Critical(0.5, 0.25)
    assert load_pack(critical_pack(tmp_path / "c", "")).tasks[0].checks[3].critical is None
    _, problems = check_pack(critical_pack(tmp_path / "d", ", critical: {cap: 1.5}"))
    (error,) = [p for p in problems if p.is_error]
    assert error.line == 19 and "checks/3/critical/cap: 1.5 is greater than or equal to the maximum of 1" \
        in error.format()


def _row(check_id: str, critical: Critical | None):
    return SimpleNamespace(id=check_id, critical=critical)


def _task(*rows):
    from benchmark.rubric import RUBRIC

    return SimpleNamespace(checks=rows, maxima=RUBRIC[0].maxima)


def test_a_failing_critical_check_caps_the_task_and_keeps_its_sum_of_categories():
    checks = [Check("a", Category.EXECUTION, 6.0, 6.0, "pass", "behaviour", ""),
              Check("b", Category.SECURITY, 4.0, 2.0, "partial", "bandit", "a finding"),
              Check("c", Category.SYNTAX, 5.0, 5.0, "pass", "ast", "")]
    task = _task(_row("b", Critical(1.0, 0.2)), _row("c", Critical(1.0, 0.0)))
    categories, score, _ = score_prompt(task, checks)
    capped, capped_score, cap = apply_critical(task, checks, categories, score)
    assert capped_score == 5.0
    assert capped_score == pytest.approx(sum(c.earned for c in capped), abs=1e-3)
    assert cap == {"check": "b", "fraction": 0.2, "factor": pytest.approx(5 / score, abs=1e-4), "before": score}
    assert all(c.factor == o.factor and c.earned == pytest.approx(o.earned * cap["factor"], abs=1e-3)
               for c, o in zip(capped, categories))  # each keeps its gate; its points are scaled
    # a check that earns what it must leaves the task alone; a low score stays as it is
    assert apply_critical(_task(_row("b", Critical(0.5, 0.0))), checks, categories, score)[2] is None
    low = apply_critical(_task(_row("b", Critical(1.0, 0.9))), checks, categories, score)
    assert low[0] == categories and low[2]["factor"] == 1.0


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The pack, a good and an insecure answer graded as a user grades them."""
    tmp_path = tmp_path_factory.mktemp("critical")
    pack = critical_pack(tmp_path / "safe_pack")
    code, doc = grade_pack(pack, {"good": {"total.py": GOOD}, "insecure": {"total.py": INSECURE}}, tmp_path)
    return code, doc, pack


def test_an_insecure_answer_that_passes_everything_else_is_capped_at_zero(graded):
    code, doc, _ = graded
    validate_results(doc)
    good, insecure = (doc["models"][n]["prompts"]["safe_pack.total"] for n in ("good", "insecure"))
    assert good["score"] == 25 and "cap" not in good
    right = next(c for c in insecure["checks"] if c["id"] == "right")
    assert right["earned"] == right["points"]  # it does compute the totals
    assert insecure["score"] == 0 and insecure["passed"] is False
    assert insecure["cap"] == {"check": "no_eval", "fraction": 0.0, "factor": 0.0, "before": 22.0}
    assert code == 0


def test_the_reports_say_the_cap_took_the_points(graded):
    _, doc, _ = graded
    prompt = run_view(doc).model("insecure").prompt("safe_pack.total")
    cap = next(loss for loss in prompt.losses if loss.kind == "cap")
    assert cap.points == pytest.approx(22.0)
    assert "the critical check no_eval did not earn what it must, so the task keeps at most 0%" in cap.reason
    assert sum(loss.points for loss in prompt.losses) == pytest.approx(25.0, abs=0.02)


def test_validate_and_pack_docs_state_each_critical_check(graded, capsys):
    pack = graded[2]
    assert cli.main(["pack", "validate", str(pack)]) == 0
    out = capsys.readouterr().out
    assert "; critical: no_eval below 100% of its points caps the task at 0%" in out
    assert cli.main(["pack", "docs", str(pack)]) == 0
    assert "- `no_eval`: below 100% of its points caps the task at 0%" in capsys.readouterr().out


def test_with_gates_and_a_partial_cap_the_losses_still_add_up_to_what_the_task_lost():
    from dataclasses import replace

    from benchmark.reporting.results_json import run_to_dict
    from benchmark.rubric import RUBRIC
    from benchmark.scoring import score_model

    from result_fakes import make_checks, make_run

    rubric = RUBRIC[0]
    checks = make_checks(rubric, {"execution": 0.6, "security": 0.5})
    categories, score, _ = score_prompt(rubric, checks)
    failing = next(c.id for c in checks if c.category == Category.SECURITY)
    capped, capped_score, cap = apply_critical(
        SimpleNamespace(checks=[_row(failing, Critical(1.0, 0.25))]), checks, categories, score)
    assert capped_score == 6.25 and cap["before"] == score > 6.25
    prompt = replace(__import__("result_fakes").make_prompt(rubric, {"execution": 0.6, "security": 0.5}),
                     categories=capped, score=capped_score, passed=False, cap=cap)
    doc = run_to_dict(make_run(score_model("capped", "t", [prompt])))
    validate_results(doc)
    view = run_view(doc).model("capped").prompt(rubric.id)
    kinds = {loss.kind for loss in view.losses}
    assert {"check", "gate", "cap"} <= kinds
    assert sum(loss.points for loss in view.losses) == pytest.approx(25 - 6.25, abs=0.02)


EXAMPLE = ROOT / "examples" / "data_pack"
SNOOP = """
for guess in ("../answers/expected.json", "/answers/expected.json", "../../sales_report/reference/sales_report.py"):
    try:
        open(guess, encoding="utf-8").read()
    except OSError:
        pass
"""


REFERENCE_REPORT = (EXAMPLE / "sales_report" / "reference" / "sales_report.py").read_text(encoding="utf-8")


def snooping_pack(tmp_path: Path) -> Path:
    """The example pack whose sales_report's sandbox check fails on answer-key reads, critically."""
    import shutil

    pack = shutil.copytree(EXAMPLE, tmp_path / "data_pack")
    manifest = pack / "sales_report" / "task.yaml"
    text = manifest.read_text(encoding="utf-8")
    old = "use: exec.sandbox_violations}"
    assert text.count(old) == 1
    manifest.write_text(text.replace(old, "use: exec.sandbox_violations, with: {answer_reads: fail}, critical: true}"),
                        encoding="utf-8")
    return pack


def test_a_denied_read_of_the_answer_key_fails_the_sandbox_check_and_a_critical_one_zeroes_the_task(tmp_path):
    _, doc = grade_pack(snooping_pack(tmp_path), {
        "honest": {"data_pack/sales_report.py": REFERENCE_REPORT},
        "snoop": {"data_pack/sales_report.py": SNOOP + REFERENCE_REPORT}}, tmp_path)
    honest, snoop = (doc["models"][n]["prompts"]["data_pack.sales_report"] for n in ("honest", "snoop"))
    assert honest["score"] == 25
    sandbox = next(c for c in snoop["checks"] if c["id"] == "sandbox_clean")
    assert sandbox["earned"] == 0 and "on the task's answer key or reference" in sandbox["rationale"]
    assert snoop["score"] == 0 and snoop["cap"]["check"] == "sandbox_clean"


def test_a_guess_at_the_answer_key_that_raises_no_denial_is_caught_in_the_source(tmp_path):
    quiet = "try:\n    open('answers/expected.json').read()\nexcept OSError:\n    pass\n" + REFERENCE_REPORT
    _, doc = grade_pack(snooping_pack(tmp_path), {"quiet": {"data_pack/sales_report.py": quiet}}, tmp_path)
    prompt = doc["models"]["quiet"]["prompts"]["data_pack.sales_report"]
    sandbox = next(c for c in prompt["checks"] if c["id"] == "sandbox_clean")
    assert prompt.get("denials") is None  # nothing was denied: the open failed inside the sandbox
    assert sandbox["earned"] == 0 and "the source names the task's answer key or reference in 1 place(s) " \
        "(first: 'answers/expected.json' at sales_report.py:2)" in sandbox["rationale"]
    assert prompt["score"] == 0


def test_a_critical_check_left_unjudged_by_the_grader_or_the_reference_caps_nothing():
    checks = [Check("a", Category.EXECUTION, 6.0, 6.0, "pass", "behaviour", ""),
              Check("b", Category.SECURITY, 4.0, 0.0, "error", "bandit", "reference solution failed", cause="reference")]
    task = _task(_row("b", Critical(1.0, 0.0)))
    categories, score, _ = score_prompt(task, checks)
    assert apply_critical(task, checks, categories, score) == (categories, score, None)


def test_an_honest_file_named_like_the_answer_key_is_not_taken_for_snooping():
    from benchmark.packs.library.runs import _names_the_key

    task = SimpleNamespace(manifest={"answers": {"fixture": "answers/expected.json"}, "reference": "reference"},
                           file_names=("report.py",))
    assert _names_the_key("expected.json", task) is False  # the program's own output file, say
    assert _names_the_key("../answers/expected.json", task) and _names_the_key("read /x/answers/expected.json", task)
    assert _names_the_key("../reference/report.py", task) and not _names_the_key("report.py", task)
