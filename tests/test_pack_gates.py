"""The behavioural gates of ``pack validate``: a reference scores full marks, empty files ~0."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmark import cli
from benchmark.engine.pack_gates import behaviour_gates, run_gates
from benchmark.packs.loader import load_pack

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "data_pack"

STATIC_TASK = """\
schema_version: 1
id: loops
title: No loops
prompt: prompt.md
files:
  - {{path: loops.py, kind: python}}
{reference}run: {{mode: parse}}
gates: {{syntax: none, performance: none}}
checks:
  - {{id: parses,   category: syntax,      points: 10, use: compiles}}
  - {{id: no_loops, category: performance, points: 15, use: ast.no_nested_loops}}
"""


def static_pack(root: Path, *, reference: bool = True) -> Path:
    """A pack whose only task pays for code that merely parses and has no nested loop."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pack.yaml").write_text("schema_version: 1\nid: vacuous\nversion: 1\ntitle: Vacuous\n"
                                    "tasks: [loops]\n", encoding="utf-8")
    task = root / "loops"
    (task / "reference").mkdir(parents=True)
    (task / "prompt.md").write_text("Write loops.py.\n", encoding="utf-8")
    (task / "reference" / "loops.py").write_text("def total(xs):\n    return sum(xs)\n", encoding="utf-8")
    (task / "task.yaml").write_text(STATIC_TASK.format(reference="reference: reference\n" if reference else ""),
                                    encoding="utf-8")
    return root


def wrong_answer_pack(tmp_path: Path) -> Path:
    pack = shutil.copytree(EXAMPLE, tmp_path / "data_pack")
    key = pack / "sales_report" / "answers" / "expected.json"
    expected = json.loads(key.read_text(encoding="utf-8"))
    expected["wrong_on_purpose"] = 1
    key.write_text(json.dumps(expected), encoding="utf-8")
    return pack


def test_the_example_pack_passes_both_gates():
    results = run_gates(load_pack(EXAMPLE))
    assert [r.task.id for r in results] == ["sales_report", "slugify"]
    for result in results:
        assert result.problems == ()
        assert result.reference.score == pytest.approx(result.task.points)
        assert result.empty.score <= 0.15 * result.task.points
    assert results[1].summary().startswith("slugify: reference 25/25, empty files ")
    assert ", stubs: returns None " in results[1].summary()
    for result in results:  # the reference's functions with bodies that do nothing pay nothing either
        assert [label for label, _ in result.stubs] == ["returns None", "returns 0", "raises NotImplementedError"]
        assert all(stub.score <= 0.15 * result.task.points for _, stub in result.stubs)


def test_a_wrong_answer_key_fails_the_reference_gate_naming_the_check(tmp_path):
    problems = behaviour_gates(load_pack(wrong_answer_pack(tmp_path)))
    assert len(problems) == 1
    problem = problems[0]
    assert problem.is_error and problem.line == 1
    assert problem.file == tmp_path / "data_pack" / "sales_report" / "task.yaml"
    assert problem.message.startswith("reference solution scores ")
    assert "/25: report_matches " in problem.message
    assert "perturbed_matches" not in problem.message  # its answers come from the reference itself


def test_checks_that_pay_for_empty_files_fail_the_empty_gate(tmp_path):
    results = run_gates(load_pack(static_pack(tmp_path)))
    (result,) = results
    assert result.reference.score == 25
    assert result.empty.score == 25
    problem, *stubs = result.problems
    assert problem.is_error and problem.message.startswith("empty files score 25/25, over 15% (3.75)")
    assert "parses 10/10" in problem.message and "no_loops 15/15" in problem.message
    assert [p.message.split(" score ")[0] for p in stubs] == [  # the stubs pay as much
        "a stub of the reference whose functions returns None", "a stub of the reference whose functions "
        "returns 0", "a stub of the reference whose functions raises NotImplementedError"]


def test_a_task_without_reference_gets_a_warning(tmp_path):
    problems = behaviour_gates(load_pack(static_pack(tmp_path, reference=False)))
    warnings = [p for p in problems if not p.is_error]
    assert [p.message for p in warnings] == ["no reference solution: the pack cannot prove its checks can be passed"]


def test_the_gates_leave_no_temporary_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    run_gates(load_pack(static_pack(tmp_path / "pack_root")))
    assert list((tmp_path / "tmp").iterdir()) == []


def test_pack_validate_prints_the_gate_scores_then_the_problems(tmp_path, capsys):
    assert cli.main(["pack", "validate", str(EXAMPLE)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("sales_report: reference 25/25, empty files ")
    assert lines[1].startswith("slugify: reference 25/25, empty files ")
    assert lines[-1].endswith(": 0 error(s), 0 warning(s)")
    assert cli.main(["pack", "validate", str(wrong_answer_pack(tmp_path))]) == 1
    out = capsys.readouterr().out
    assert "sales_report: reference 2" in out and "report_matches" in out
    assert out.splitlines()[-1].endswith(": 1 error(s), 0 warning(s)")


def test_no_behaviour_skips_the_gates(capsys):
    assert cli.main(["pack", "validate", "--no-behaviour", str(EXAMPLE)]) == 0
    assert "reference" not in capsys.readouterr().out


SIGNED_TASK = """\
schema_version: 1
id: signed
title: Total
prompt: prompt.md
files:
  - {path: total.py, kind: python}
reference: reference
run: {mode: parse}
gates: {syntax: none, structure: none}
checks:
  - {id: parses,    category: syntax,    points: 3,  use: compiles}
  - {id: defined,   category: structure, points: 11, use: ast.defines, with: {function: total}}
  - {id: signature, category: structure, points: 11, use: ast.signature,
     with: {function: total, required: [xs]}}
"""


def test_checks_that_pay_for_the_right_signature_without_the_work_fail_the_stub_gate(tmp_path):
    """``pass`` earns 3/25 here, under the limit; the reference's own signature with a body that
    does nothing earns 25/25: each stub is reported, naming the checks that paid."""
    root = tmp_path / "signed_pack"
    (root / "signed" / "reference").mkdir(parents=True)
    (root / "pack.yaml").write_text("schema_version: 1\nid: signed_pack\nversion: 1\ntitle: Signed\n"
                                    "tasks: [signed]\n", encoding="utf-8")
    (root / "signed" / "prompt.md").write_text("Write total.py.\n", encoding="utf-8")
    (root / "signed" / "reference" / "total.py").write_text(
        "def total(xs):\n    return sum(xs)\n\n\nif __name__ == '__main__':\n    print(total([1, 2]))\n",
        encoding="utf-8")
    (root / "signed" / "task.yaml").write_text(SIGNED_TASK, encoding="utf-8")
    (result,) = run_gates(load_pack(root))
    assert result.reference.score == 25 and result.empty.score == 3
    assert [(label, stub.score) for label, stub in result.stubs] == [
        ("returns None", 25), ("returns 0", 25), ("raises NotImplementedError", 25)]
    assert len(result.problems) == 3
    assert result.problems[0].message.startswith(
        "a stub of the reference whose functions returns None score 25/25, over 15% (3.75); checks that "
        "paid out (before gating): parses 3/3")
    assert "defined 11/11" in result.problems[0].message and "signature 11/11" in result.problems[0].message


def test_a_stub_keeps_names_signatures_and_declarations_and_does_nothing():
    from benchmark.engine.stubs import stub_source

    source = (
        "from __future__ import annotations\nimport dataclasses\nRow = dict[str, int | None]\nLIMIT = 3\n"
        "TABLE = load_table()\n\n@dataclasses.dataclass\nclass Point:\n    x: int = 0\n    y: int = 0\n\n"
        "    def norm(self, scale: float = 1.0) -> float:\n        return (self.x ** 2 + self.y ** 2) ** 0.5\n\n"
        "async def fetch(url, *, tries=LIMIT):\n    return url\n\nprint('side effect')\n"
        "if __name__ == '__main__':\n    main()\n")
    stubs = {kind: stub_source(source, kind) for kind in ("none", "constant", "raises")}
    for kind, stub in stubs.items():
        assert "print(" not in stub and "__main__" not in stub and "load_table" not in stub
        assert "Row = dict[str, int | None]" in stub and "LIMIT = 3" in stub
        assert "def norm(self, scale: float=1.0) -> float:" in stub and "async def fetch(url, *, tries=LIMIT):" in stub
        space: dict = {}
        exec(compile(stub, "stub.py", "exec"), space)  # (nothing runs: only definitions)
        point = space["Point"](1, 2)
        assert (point.x, point.y) == (1, 2)  # the dataclass keeps its fields
        if kind == "raises":
            with pytest.raises(NotImplementedError):
                point.norm()
        else:
            assert point.norm() == (None if kind == "none" else 0)
    assert stub_source("x = compute()\n", "none") is None  # nothing to stub: the empty gate covers it
    assert stub_source("def broken(:\n", "none") is None
