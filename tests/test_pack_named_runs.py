"""A script task's named runs: each with its own argv, stdin and staged files, and the exit code
it must end with, so "exits non-zero on a missing file" can be graded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark import cli
from benchmark.packs.loader import check_pack

from trees import ROOT, grade_pack

TASK = """\
schema_version: 1
id: logcount
title: Count the errors in a log
prompt: prompt.md
files:
  - {path: logcount.py, kind: python}
fixtures: [data]
reference: reference
run:
  mode: script
  entry: logcount.py
  argv: [app.log]
  stage: {app.log: data/app.log}
  output: {from: stdout, parse: json}
  runs:
    - {label: empty, stage: {app.log: data/empty.log}}
    - {label: missing, stage: {app.log: null}, exit: nonzero}
checks:
  - {id: compiles, category: syntax,    points: 1,  use: compiles}
  - {id: exits_0,  category: execution, points: 1,  use: exec.exit_zero}
  - {id: exits,    category: execution, points: 3,  use: exec.exit_code}
  - {id: counts,   category: execution, points: 18, use: output.json_equal}
  - {id: sandbox,  category: security,  points: 2,  use: exec.sandbox_violations}
"""
REFERENCE = """\
import json
import sys


def main(path):
    try:
        with open(path, encoding="utf-8") as log:
            lines = log.read().splitlines()
    except OSError as exc:
        print(f"cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 1
    print(json.dumps({"errors": sum("ERROR" in line for line in lines)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
"""
SWALLOWS = REFERENCE.replace("return 1", "print(json.dumps({'errors': 0}))\n        return 0")


def named_pack(root: Path, runs: str | None = None) -> Path:
    task = root / "logcount"
    (task / "reference").mkdir(parents=True)
    (task / "data").mkdir()
    (root / "pack.yaml").write_text("schema_version: 1\nid: logs\nversion: 1\ntitle: Logs\nsubmission_root: .\n"
                                    "tasks: [logcount]\n", encoding="utf-8")
    (task / "prompt.md").write_text("Write logcount.py.\n", encoding="utf-8")
    (task / "data" / "app.log").write_text("INFO up\nERROR disk\nINFO ok\nERROR net\n", encoding="utf-8")
    (task / "data" / "empty.log").write_text("", encoding="utf-8")
    (task / "reference" / "logcount.py").write_text(REFERENCE, encoding="utf-8")
    text = TASK if runs is None else TASK.replace(TASK[TASK.index("  runs:"):TASK.index("checks:")], runs)
    (task / "task.yaml").write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("named")
    pack = named_pack(tmp_path / "logs")
    code, doc = grade_pack(pack, {"careful": {"logcount.py": REFERENCE}, "swallows": {"logcount.py": SWALLOWS}},
                           tmp_path)
    return code, doc, pack


def _check(doc, model, check_id, key="logs.logcount"):
    prompt = doc["models"][model]["prompts"][key]
    return next(c for c in prompt["checks"] if c["id"] == check_id)


def test_a_run_that_must_fail_is_judged_by_its_exit_code_and_left_out_of_the_output_checks(graded):
    code, doc, _ = graded
    assert code == 0
    assert doc["models"]["careful"]["prompts"]["logs.logcount"]["score"] == 25
    exits = _check(doc, "swallows", "exits")
    assert exits["earned"] == 1.5 and "missing: exited with 0, not a non-zero code" in exits["rationale"]
    assert _check(doc, "swallows", "counts")["rationale"] == "2/2 runs right"  # fixture and empty
    assert _check(doc, "swallows", "exits_0")["rationale"] == "2/2 runs right"  # missing is not asked to exit 0


def test_the_gates_pass_and_validate_names_what_is_wrong_with_a_named_run(graded, tmp_path):
    assert cli.main(["pack", "validate", str(graded[2])]) == 0
    bad = named_pack(tmp_path / "bad", runs="  runs:\n    - {label: fixture}\n    - {label: perturbed_2}\n"
                                             "    - {label: gone, stage: {app.log: data/nowhere.log}}\n")
    _, problems = check_pack(bad)
    found = sorted(p.format().split("task.yaml:", 1)[1] for p in problems if p.is_error)
    assert any("run/runs/0/label: label 'fixture' repeats the fixture run" in f for f in found)
    assert any("run/runs/1/label: 'perturbed_2': perturbed_<n> labels are reserved" in f for f in found)
    assert any("run/runs/2/stage/app.log: data/nowhere.log" in f for f in found)


CALL_TASK = """\
schema_version: 1
id: double
title: Double a number
prompt: prompt.md
files:
  - {path: double.py, kind: python}
reference: reference
run:
  mode: call
  module: double.py
  function: double
  cases:
    - {label: quick, args: [2], expect: 4}
    - {label: heavy, args: [50], expect: 100, timeout_s: 0.5}
checks:
  - {id: compiles, category: syntax,    points: 2,  use: compiles}
  - {id: right,    category: execution, points: 21, use: cases.equal}
  - {id: sandbox,  category: security,  points: 2,  use: exec.sandbox_violations}
"""
HANGS = "def double(n):\n    while n > 10:\n        pass\n    return 2 * n\n"


def test_a_case_with_its_own_timeout_runs_alone_and_a_call_past_it_costs_that_case_only(tmp_path):
    pack = tmp_path / "calls"
    (pack / "double" / "reference").mkdir(parents=True)
    (pack / "pack.yaml").write_text("schema_version: 1\nid: calls\nversion: 1\ntitle: Calls\nsubmission_root: .\n"
                                    "tasks: [double]\n", encoding="utf-8")
    (pack / "double" / "prompt.md").write_text("Write double.py.\n", encoding="utf-8")
    (pack / "double" / "reference" / "double.py").write_text("def double(n):\n    return 2 * n\n", encoding="utf-8")
    (pack / "double" / "task.yaml").write_text(CALL_TASK, encoding="utf-8")
    _, doc = grade_pack(pack, {"hangs": {"double.py": HANGS}}, tmp_path)
    right = _check(doc, "hangs", "right", "calls.double")
    assert right["earned"] == 10.5
    assert "heavy: raised TimeoutError: the call did not return within its 0.5 s" in right["rationale"]
    assert _check(doc, "hangs", "sandbox", "calls.double")["earned"] == 2  # the quick case was watched


def test_a_named_run_reads_another_output_file_so_each_file_a_program_writes_is_graded(tmp_path, monkeypatch):
    writes_two = ("import json, sys\nlines = open(sys.argv[1], encoding='utf-8').read().splitlines()\n"
                  "errors = sum('ERROR' in line for line in lines)\n"
                  "json.dump({'errors': errors}, open('report.json', 'w', encoding='utf-8'))\n"
                  "open('summary.txt', 'w', encoding='utf-8').write(f'{errors} errors\\n')\n")
    runs = ("  output: {from: file, path: report.json, parse: json}\n  runs:\n"
            "    - {label: summary, output: {from: file, path: summary.txt, parse: text}}\n")
    pack = named_pack(tmp_path / "logs", runs=runs)
    task = pack / "logcount" / "task.yaml"
    task.write_text(task.read_text().replace("  output: {from: stdout, parse: json}\n", "")
                    .replace("exits,    category: execution, points: 3,  use: exec.exit_code}",
                             "exits,    category: execution, points: 1,  use: exec.exit_code, with: {runs: [summary]}}")
                    .replace("points: 18, use: output.json_equal", "points: 20, use: output.json_equal"),
                    encoding="utf-8")
    (pack / "logcount" / "reference" / "logcount.py").write_text(writes_two, encoding="utf-8")
    wrong = writes_two.replace("f'{errors} errors", "f'{errors + 1} errors")
    monkeypatch.setenv("RUBRICBENCH_TEST_DATA", str(ROOT / "test_data"))
    assert cli.main(["pack", "validate", str(pack)]) == 0
    _, doc = grade_pack(pack, {"wrong_summary": {"logcount.py": wrong}}, tmp_path)
    counts = _check(doc, "wrong_summary", "counts")
    assert counts["earned"] == 10 and "1/2 runs right" in counts["rationale"] and "summary" in counts["rationale"]
