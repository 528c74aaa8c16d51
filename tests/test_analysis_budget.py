"""Parent-side analysis is bounded: a hostile string costs its prompts' bandit checks, in
seconds, and nothing else (benchmark.analyzers.budget)."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from benchmark import cli

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model"
VOLATILE = {"wall_s", "cpu_s", "peak_rss_mb"}
# Each of these took about 75 s in bandit's B608 before the budget: minutes in all.
BANDIT_CHECKS = {"prompt_1": "no_security_issues", "prompt_3": "no_unsafe_constructs",
                 "prompt_4": "no_hardcoded_creds"}
FILES = {"prompt_1": "prompt_1_solution.py", "prompt_3": "prompt_3_transform.py",
         "prompt_4": "prompt_4_api_sync.py"}


def _stable(value):
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _grade(tree: Path) -> dict:
    code = cli.main(["--all-models", "--submissions-dir", str(tree / "submissions"),
                     "--results-dir", str(tree / "results"), "-q", "--no-metadata"])
    assert code == 0
    return json.loads((tree / "results" / "latest_results.json").read_text())["models"]


def _hostile(target: Path) -> None:
    shutil.copytree(REFERENCE, target)
    literal = "select " * 70_000  # 490 000 characters: the file stays under the 512 kB limit
    for name in FILES.values():
        path = target / name
        path.write_text(path.read_text() + f'\n\n_BLOB = "{literal}" + __name__\n')


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.setenv("RUBRICBENCH_TEST_DATA", str(ROOT / "test_data"))
    shutil.copytree(REFERENCE, tmp_path / "submissions" / "reference_implementations" / "clean_model")
    return tmp_path


def test_a_hostile_string_costs_seconds_and_only_its_own_bandit_checks(tree, tmp_path_factory):
    alone = tmp_path_factory.mktemp("alone")
    shutil.copytree(tree / "submissions", alone / "submissions")
    clean_alone = _grade(alone)["clean_model"]
    _hostile(tree / "submissions" / "reference_implementations" / "hostile_model")

    started = time.monotonic()
    models = _grade(tree)
    assert time.monotonic() - started < 60  # minutes before the budget

    assert _stable(models["clean_model"]) == _stable(clean_alone)
    for prompt_id, check_id in BANDIT_CHECKS.items():
        prompt = models["hostile_model"]["prompts"][prompt_id]
        check = next(c for c in prompt["checks"] if c["id"] == check_id)
        assert check["status"] == "error" and check["earned"] == 0, check
        assert check["rationale"] == (
            f"bandit could not scan {FILES[prompt_id]}: string expression of 490000 characters "
            f"(line {_line(tree, prompt_id)}) exceeds the analysis limit of 20000"), check
        others = [c for c in prompt["checks"] if c["id"] != check_id and c["status"] == "error"]
        assert others == [] and prompt["status"] == "ok"
        for execution in prompt["execution"]:
            assert not execution["timed_out"], execution


def _line(tree: Path, prompt_id: str) -> int:
    path = tree / "submissions" / "reference_implementations" / "hostile_model" / FILES[prompt_id]
    return len(path.read_text().splitlines())


def test_past_the_time_budget_the_check_is_the_submissions_error_and_is_cached(tmp_path, monkeypatch):
    """A shape the size budget misses (here: its limits lifted) costs the bandit deadline:
    the check is an error saying so, the submission's doing as over the size budget is (so
    it is cached, and not a grader failure), and only that check is affected."""
    from benchmark.sandbox import bandit_process
    from benchmark.analyzers import budget
    from benchmark.engine.grading import grade_model
    from benchmark.engine.options import cacheable

    monkeypatch.setattr(budget, "MAX_STRING_CHARS", 10**7)
    monkeypatch.setattr(budget, "MAX_TOTAL_CHARS", 10**8)
    monkeypatch.setattr(bandit_process, "DEADLINE_S", 1.0)
    model = tmp_path / "hostile_model"
    shutil.copytree(REFERENCE, model)
    target = model / FILES["prompt_4"]
    target.write_text(target.read_text() + '\n\n_BLOB = "' + "select " * 70_000 + '" + __name__\n')

    result = grade_model(model, "user_submissions", test_data=ROOT / "test_data")
    prompt = next(p for p in result.prompts if p.prompt_id == "prompt_4")
    checks = {c.id: c for cat in prompt.categories for c in cat.checks}
    assert checks["no_hardcoded_creds"].status == "error"
    assert checks["no_hardcoded_creds"].rationale == (
        f"bandit could not scan {FILES['prompt_4']}: analysis exceeded 1 s")
    assert [c for c in checks.values() if c.status == "error"] == [checks["no_hardcoded_creds"]]
    assert cacheable(result)
