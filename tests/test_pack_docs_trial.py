"""The docs trial: ``tests/packs/docs_trial`` was written from ``docs/packs.md`` alone.

(a) it validates with no problem at all; (b) its reference solutions grade to full marks
through the engine (and empty files to nothing); (c) a copy with one deliberate mistake in
one manifest reports exactly one error, at the ``file:line:col`` and with the message the
guide's troubleshooting table shows.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmark.engine.pack_gates import run_gates
from benchmark.grading import GradeOptions, grade_task
from benchmark.engine.options import default_test_data
from benchmark.packs import registry
from benchmark.packs.loader import check_pack, load_pack

PACK = Path(__file__).resolve().parent / "packs" / "docs_trial"
GUIDE = Path(__file__).resolve().parent.parent / "docs" / "packs.md"


def test_the_trial_pack_validates_without_any_problem():
    pack, problems = check_pack(PACK)
    assert [p.format() for p in problems] == []
    assert pack is not None
    assert [t.key for t in pack.tasks] == ["docs_trial.service_config", "docs_trial.loan_payment"]
    assert pack.submission_root == "trial"
    assert [t.points for t in pack.tasks] == [10.0, 25.0]


def _model(tmp_path: Path, source: str) -> Path:
    """A model folder holding, under the pack's submission root, each task's reference
    files (``source="reference"``) or empty files of the same names (``"empty"``)."""
    model = tmp_path / "model"
    root = model / "trial"
    root.mkdir(parents=True)
    for task in ("service_config", "loan_payment"):
        for gold in (PACK / task / "reference").iterdir():
            target = root / gold.name
            if source == "reference":
                shutil.copyfile(gold, target)
            else:
                target.write_bytes(b"")
    return model


def _grade(model: Path):
    pack = load_pack(PACK)
    return {task.id: grade_task(task, model, test_data=default_test_data(), options=GradeOptions())
            for task in pack.tasks}


def test_the_references_grade_to_full_marks(tmp_path):
    results = _grade(_model(tmp_path, "reference"))
    for task_id, result in results.items():
        not_full = [(c.id, c.earned, c.points, c.rationale) for cat in result.categories
                    for c in cat.checks if c.status != "pass"]
        assert not_full == [], task_id
        assert result.error is None and result.passed, task_id
        assert result.score == result.max_score, task_id
    assert results["loan_payment"].prompt_id == "docs_trial.loan_payment"


def test_empty_files_earn_nothing(tmp_path):
    for task_id, result in _grade(_model(tmp_path, "empty")).items():
        assert result.score <= 0.15 * result.max_score, task_id


# (manifest, text replaced, replacement, the one error expected, as validate prints it with
# paths relative to the copy's parent folder)
MISTAKES = {
    "wrong_category": (
        "loan_payment/task.yaml",
        "category: quality,         points: 1, use: ast.good_naming",
        "category: readability,     points: 1, use: ast.good_naming",
        "docs_trial/loan_payment/task.yaml:43:36: checks/10/category: 'readability' is not one of "
        "['syntax', 'structure', 'execution', 'quality', 'security', 'performance', 'maintainability']"),
    "points_do_not_add_up": (
        "service_config/task.yaml", "points: 10\n", "points: 12\n",
        "docs_trial/service_config/task.yaml:5:9: points: checks add up to 10, the task's points "
        "are 12 (syntax 2, structure 2, execution 6)"),
    "unknown_check_type": (
        "loan_payment/task.yaml", "use: ast.good_naming", "use: ast.good_names",
        "docs_trial/loan_payment/task.yaml:43:69: checks/10/use: unknown check type 'ast.good_names'; "
        "closest: ast.good_naming, ast.defines, ast.signature; entry points seen in "
        "rubricbench.checks: none"),
    "with_parameter_of_the_wrong_type": (
        "loan_payment/task.yaml", "with: {limit: 8}", 'with: {limit: "8"}',
        "docs_trial/loan_payment/task.yaml:47:105: checks/14/with/limit: '8' is not of type 'integer'"),
    "answer_key_listed_in_fixtures": (
        "service_config/task.yaml", "answers: {service",
        "fixtures: [answers/service.json]\nanswers: {service",
        "docs_trial/service_config/task.yaml:9:12: fixtures/0: answers/service.json would stage the "
        "answer key answers/service.json: answer keys are read by the grader only and are never staged"),
    "duplicate_key": (
        "pack.yaml", "version: 1\ntitle:", "version: 1\nversion: 2\ntitle:",
        "docs_trial/pack.yaml:6:1: version: key 'version' repeats line 5"),
    "path_escaping_the_task_folder": (
        "service_config/task.yaml", "prompt: prompt.md", "prompt: ../loan_payment/prompt.md",
        "docs_trial/service_config/task.yaml:6:9: prompt: ../loan_payment/prompt.md: escapes the "
        "folder ('..')"),
    "submission_root_escaping_the_model_folder": (
        "pack.yaml", "submission_root: trial", "submission_root: ../trial",
        "docs_trial/pack.yaml:7:18: submission_root: '../trial' must be a relative path with "
        "forward slashes that stays inside its folder (no leading /, no .., no backslash)"),
}


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_one_mistake_is_reported_at_its_exact_place(name, tmp_path, monkeypatch):
    manifest, old, new, expected = MISTAKES[name]
    monkeypatch.setattr(registry, "plugin_names", lambda group: [])  # no installed plugin in the message
    copy = tmp_path / "docs_trial"
    shutil.copytree(PACK, copy)
    text = (copy / manifest).read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} must occur once in {manifest}"
    (copy / manifest).write_text(text.replace(old, new), encoding="utf-8")
    pack, problems = check_pack(copy)
    assert pack is None
    assert [p.format(relative_to=tmp_path) for p in problems] == [expected]


def test_the_guide_shows_each_mistakes_message():
    """The troubleshooting table quotes these messages; keep the two in step."""
    guide = GUIDE.read_text(encoding="utf-8")
    for fragment in ("is not one of ['syntax'", "checks add up to", "unknown check type",
                     "is not of type 'integer'", "would stage the answer key",
                     "key 'version' repeats line", "escapes the folder ('..')"):
        assert fragment in guide, fragment


def _blocks(text: str) -> list[str]:
    """The bodies of the guide's fenced code blocks, in order."""
    blocks, body, inside = [], [], False
    for line in text.splitlines():
        if line.startswith("```"):
            if inside:
                blocks.append("\n".join(body) + "\n")
            body, inside = [], not inside
        elif inside:
            body.append(line)
    return blocks


def _block(blocks: list[str], start: str) -> str:
    found = [b for b in blocks if b.startswith(start)]
    assert len(found) == 1, f"one block of the guide must start with {start!r}"
    return found[0]


def _walkthrough_pack(tmp_path: Path) -> Path:
    """The walkthrough's pack, every file taken from the guide's code blocks as printed."""
    blocks = _blocks(GUIDE.read_text(encoding="utf-8"))
    pack = tmp_path / "weather"
    files = {
        "pack.yaml": _block(blocks, "schema_version: 1\nid: weather\n"),
        "plugins.py": _block(blocks, '"""Local check types of the weather pack'),
        "temps/prompt.md": _block(blocks, "# Temperature summary\n"),
        "temps/data/readings.csv": _block(blocks, "station,celsius\n"),
        "temps/reference/temps.py": _block(blocks, '"""Summarise temperature readings'),
        "temps/task.yaml": _block(blocks, "schema_version: 1\nid: temps\n"),
        "temps/answers/expected.json": _block(blocks, "$ cd weather/temps").splitlines()[1] + "\n",
    }
    for name, text in files.items():
        (pack / name).parent.mkdir(parents=True, exist_ok=True)
        (pack / name).write_text(text, encoding="utf-8")
    return pack


# step 8's careless model: a debug line before the JSON, a bare except, an unrounded mean
CARELESS = '''"""Summarise temperature readings."""

import csv
import json
import sys


def summarise(path):
    values = []
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            try:
                values.append(float(row["celsius"]))
            except:
                pass
    print("debug: read", len(values), "values")
    if not values:
        return {"count": 0, "mean": None, "max": None}
    return {"count": len(values), "mean": sum(values) / len(values), "max": max(values)}


if __name__ == "__main__":
    print(json.dumps(summarise(sys.argv[1])))
'''


def test_the_guides_walkthrough_builds_a_pack_whose_reference_scores_full_marks(tmp_path, monkeypatch):
    """Every file of the walkthrough, taken from the guide's code blocks as printed."""
    monkeypatch.setattr(registry, "plugin_names", lambda group: [])
    pack = _walkthrough_pack(tmp_path)
    loaded, problems = check_pack(pack)
    assert [p.format() for p in problems] == []
    model = tmp_path / "gold"
    (model / "weather").mkdir(parents=True)
    shutil.copyfile(pack / "temps/reference/temps.py", model / "weather/temps.py")
    result = grade_task(loaded.task("temps"), model, test_data=default_test_data(), options=GradeOptions())
    assert result.prompt_id == "weather.temps"
    assert (result.score, result.max_score) == (10.0, 10.0)


def test_the_guides_walkthrough_pack_passes_the_behaviour_gates_and_grades_as_step_8_says(tmp_path, monkeypatch):
    """``rubricbench pack validate weather`` (with the gates) prints what step 7 shows, and
    the careless model of step 8 scores what the guide says."""
    monkeypatch.setattr(registry, "plugin_names", lambda group: [])
    loaded = load_pack(_walkthrough_pack(tmp_path))
    [gate] = run_gates(loaded)
    assert [p.format() for p in gate.problems] == []
    guide = GUIDE.read_text(encoding="utf-8")
    assert f"$ rubricbench pack validate weather\n{gate.summary()}\nweather: 0 error(s)" in guide
    model = tmp_path / "careless"
    (model / "weather").mkdir(parents=True)
    (model / "weather/temps.py").write_text(CARELESS, encoding="utf-8")
    result = grade_task(loaded.task("temps"), model, test_data=default_test_data(), options=GradeOptions())
    assert f"It scores {round(result.score, 2):g}/10:" in guide
    assert result.score < 1.5


def test_the_troubleshooting_text_on_a_failing_reference_is_what_grading_shows(tmp_path, monkeypatch):
    """A failing reference leaves the checks that need it ``error`` (not judged, 0 points),
    naming the task, the reference's file and why; the guide quotes that message."""
    monkeypatch.setattr(registry, "plugin_names", lambda group: [])
    pack = _walkthrough_pack(tmp_path)
    manifest = pack / "temps/task.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace(
        "answers: {fixture: answers/expected.json}\n", ""), encoding="utf-8")
    reference = pack / "temps/reference/temps.py"
    reference.write_text(reference.read_text(encoding="utf-8").replace(
        "def main() -> int:\n", "def main() -> int:\n    raise SystemExit(3)\n"), encoding="utf-8")
    model = tmp_path / "gold"
    (model / "weather").mkdir(parents=True)
    (model / "weather/temps.py").write_text(_block(_blocks(GUIDE.read_text(encoding="utf-8")),
                                                   '"""Summarise temperature readings'), encoding="utf-8")
    result = grade_task(load_pack(pack).task("temps"), model, test_data=default_test_data(),
                        options=GradeOptions())
    report = next(c for cat in result.categories for c in cat.checks if c.id == "report")
    assert result.status == "ok" and (report.status, report.earned) == ("error", 0)
    quoted = ("reference solution failed: task weather.temps\n(temps/reference/temps.py): exited with "
              "status 3 (on fixture,\nperturbed_1, perturbed_2, perturbed_3); the check was not judged")
    assert report.rationale.startswith(quoted.replace("\n", " "))
    assert quoted in GUIDE.read_text(encoding="utf-8")


def test_the_guides_validate_example_prints_what_the_command_prints(monkeypatch, capsys):
    """The "Validating" section showed only the count line; the command prints each task's
    behaviour gate first."""
    from benchmark import cli

    monkeypatch.chdir(GUIDE.parent.parent)
    command = "$ rubricbench pack validate tests/packs/docs_trial\n"
    assert cli.main(["pack", "validate", "tests/packs/docs_trial"]) == 0
    printed = capsys.readouterr().out
    block = _block(_blocks(GUIDE.read_text(encoding="utf-8")), command)
    assert block == command + printed


def test_the_walkthroughs_answer_key_command_runs_as_printed(tmp_path):
    """Step 5 ran ``... | tee answers/expected.json`` in a task folder that had no
    ``answers/`` yet (steps 1-4 make none): tee failed and no key was written."""
    import os
    import subprocess
    import sys

    blocks = _blocks(GUIDE.read_text(encoding="utf-8"))
    pack = _walkthrough_pack(tmp_path)
    shutil.rmtree(pack / "temps/answers")
    command, printed = _block(blocks, "$ cd weather/temps").splitlines()[:2]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command.removeprefix("$ ")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == printed
    assert (pack / "temps/answers/expected.json").read_text(encoding="utf-8").strip() == printed
