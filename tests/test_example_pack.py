"""The example pack (examples/data_pack) graded end to end beside the core pack."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from benchmark import cli

ROOT = Path(__file__).resolve().parent.parent
PACK = ROOT / "examples" / "data_pack"
EXAMPLE = ROOT / "submissions" / "reference_implementations" / "example_model"

# slugify that keeps accented letters out instead of folding them, and never cuts
WRONG_SLUG = '''"""Slugs, almost."""
import re


def slugify(title, max_length=None):
    """Hyphen-joined lower-case words."""
    if not isinstance(title, str):
        raise TypeError("title must be a str")
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
'''
CHATTY_REPORT = '''import json
print("Here is your report:")
print(json.dumps({"rows": 0}))
'''


def _model(subs: Path, name: str, pack_files: dict[str, str | Path], core: bool = True) -> None:
    folder = subs / "user_submissions" / name
    if core:
        shutil.copytree(EXAMPLE, folder)
    (folder / "data_pack").mkdir(parents=True, exist_ok=True)
    for file_name, content in pack_files.items():
        target = folder / "data_pack" / file_name
        if isinstance(content, Path):
            shutil.copyfile(content, target)
        else:
            target.write_text(content, encoding="utf-8")


def _grade(subs: Path, results: Path, *flags: str) -> tuple[int, dict]:
    code = cli.main(["--all-models", "--submissions-dir", str(subs), "--results-dir", str(results),
                     "--no-metadata", "-q", *flags])
    latest = results / "latest_results.json"
    return code, orjson.loads(latest.read_bytes()) if latest.exists() else {}


REFERENCE_FILES = {"sales_report.py": PACK / "sales_report" / "reference" / "sales_report.py",
                   "slug.py": PACK / "slugify" / "reference" / "slug.py"}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("example_pack")
    subs = root / "submissions"
    _model(subs, "reference", REFERENCE_FILES)
    _model(subs, "flawed", {"sales_report.py": CHATTY_REPORT, "slug.py": WRONG_SLUG})
    (subs / "user_submissions" / "core_only").mkdir(parents=True)
    shutil.copytree(EXAMPLE, subs / "user_submissions" / "core_only", dirs_exist_ok=True)
    code, doc = _grade(subs, root / "results", "--pack", str(PACK))
    return root, code, doc


def _checks(prompt: dict) -> dict[str, dict]:
    return {c["id"]: c for c in prompt["checks"]}


def test_the_reference_solutions_score_full_marks_on_all_six_tasks(graded):
    _, _, doc = graded
    model = doc["models"]["reference"]
    assert list(model["prompts"]) == ["prompt_1", "prompt_2", "prompt_3", "prompt_4",
                                      "data_pack.sales_report", "data_pack.slugify"]
    assert model["total_possible"] == 150 and model["overall_score"] == 150
    assert model["percentage"] == 100


def test_the_run_records_the_suite_it_graded(graded):
    _, _, doc = graded
    suite = doc["_metadata"]["suite"]
    assert [p["id"] for p in suite] == ["core", "data_pack"]
    assert suite[1]["tasks"] == ["data_pack.sales_report", "data_pack.slugify"]
    assert suite[1]["hash"].startswith("sha256:")
    assert doc["_metadata"]["config"]["packs"] == [str(PACK)]


def test_a_model_that_did_not_attempt_the_pack_is_not_marked_down_for_it(graded):
    _, code, doc = graded
    model = doc["models"]["core_only"]
    task = model["prompts"]["data_pack.slugify"]
    assert task["status"] == "not_attempted" and task["score"] == 0 and "error" not in task
    assert {c["status"] for c in task["checks"]} == {"skipped"}
    assert "no file of this task was submitted (expected slug.py)" in task["checks"][0]["rationale"]
    assert model["prompts"]["prompt_1"]["score"] == 25
    assert model["total_possible"] == 100 and model["percentage"] == 100  # (not 100 of 150)
    assert model["packs"]["data_pack"]["attempted"] is False
    board = [row["model"] for row in doc["comparison"]["pack_rankings"]["data_pack"]]
    assert "core_only" not in board and "reference" in board
    assert code == 0  # not attempted is a state of the results, not a problem of the run


def test_extra_text_on_stdout_costs_the_report_checks(graded):
    _, _, doc = graded
    report = _checks(doc["models"]["flawed"]["prompts"]["data_pack.sales_report"])
    assert report["report_matches"]["earned"] == 0
    assert report["json_only_stdout"]["earned"] == 0


def test_a_slug_that_drops_accents_instead_of_folding_them_loses_the_cases_it_gets_wrong(graded):
    _, _, doc = graded
    slug = _checks(doc["models"]["flawed"]["prompts"]["data_pack.slugify"])
    assert 0 < slug["fixed_cases"]["earned"] < slug["fixed_cases"]["points"]  # accents and cut fail
    assert slug["rejects_bad_input"]["earned"] < slug["rejects_bad_input"]["points"]  # max_length=0
    assert slug["generated_cases"]["earned"] < slug["generated_cases"]["points"]


def test_the_shown_and_the_hidden_cases_a_check_judged_are_reported_apart(graded):
    root, _, doc = graded
    flawed = _checks(doc["models"]["flawed"]["prompts"]["data_pack.slugify"])
    hidden = flawed["generated_cases"]["cases"]
    assert [g["group"] for g in hidden] == ["hidden"] and hidden[0]["of"] == 12 and hidden[0]["right"] < 12
    both = _checks(doc["models"]["reference"]["prompts"]["data_pack.slugify"])["no_mutation"]["cases"]
    assert both == [{"group": "shown", "right": 7, "of": 7}, {"group": "hidden", "right": 12, "of": 12}]
    assert "cases" not in flawed["fixed_cases"]  # (no generated case among its labels)
    page = (root / "results" / "latest" / "report.html").read_text(encoding="utf-8")
    assert f'<span class="group g-hidden short">hidden <b>{hidden[0]["right"]}/12</b></span>' in page


def test_a_second_run_comes_from_the_cache_with_the_same_results(graded):
    root, _, doc = graded
    _, again = _grade(root / "submissions", root / "results", "--pack", str(PACK))
    for name, model in doc["models"].items():
        assert again["models"][name].get("cached") is True
        assert again["models"][name]["prompts"] == model["prompts"]


def test_changing_one_fixture_byte_regrades(graded, tmp_path):
    root, _, _ = graded
    pack = tmp_path / "data_pack"
    shutil.copytree(PACK, pack)
    csv = pack / "sales_report" / "data" / "sales.csv"
    csv.write_bytes(csv.read_bytes().replace(b"north,gizmo,10", b"north,gizmo,11"))
    _, doc = _grade(root / "submissions", root / "results", "--pack", str(pack))
    assert not any(m.get("cached") for m in doc["models"].values())


def test_a_pack_that_does_not_validate_stops_the_run_before_grading(tmp_path, capsys):
    pack = tmp_path / "data_pack"
    shutil.copytree(PACK, pack)
    manifest = pack / "slugify" / "task.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace(
        "category: security,        points: 1, use: bandit", "category: safety,          points: 1, use: bandit"),
        encoding="utf-8")
    subs = tmp_path / "submissions"
    _model(subs, "reference", REFERENCE_FILES)
    code, doc = _grade(subs, tmp_path / "results", "--pack", str(pack))
    err = capsys.readouterr().err
    assert code == 3 and doc == {}
    line = next(n for n, text in enumerate(manifest.read_text().splitlines(), 1) if "safety" in text)
    assert f"slugify/task.yaml:{line}:" in err and "checks/9/category" in err and "'safety'" in err


def test_no_core_grades_only_the_packs_tasks_out_of_their_points(tmp_path):
    subs = tmp_path / "submissions"
    _model(subs, "reference", REFERENCE_FILES, core=False)
    code, doc = _grade(subs, tmp_path / "results", "--pack", str(PACK), "--no-core", "--workers", "2")
    model = doc["models"]["reference"]
    assert code == 0 and list(model["prompts"]) == ["data_pack.sales_report", "data_pack.slugify"]
    assert model["total_possible"] == 50 and model["percentage"] == 100


# Looks everywhere it can for the answer key and prints it as its own answer.
KEY_THIEF = '''import json, os
for top in ("/", os.getcwd(), os.path.expanduser("~")):
    for folder, dirs, files in os.walk(top):
        if "expected.json" in files:
            print(open(os.path.join(folder, "expected.json")).read())
            raise SystemExit(0)
print(json.dumps({"found": sorted(os.listdir("."))}))
'''


def test_the_answer_key_is_not_in_the_sandbox_for_a_model_to_copy(tmp_path):
    subs = tmp_path / "submissions"
    _model(subs, "thief", {"sales_report.py": KEY_THIEF, "slug.py": REFERENCE_FILES["slug.py"]},
           core=False)
    _, doc = _grade(subs, tmp_path / "results", "--pack", str(PACK), "--no-core")
    task = doc["models"]["thief"]["prompts"]["data_pack.sales_report"]
    checks = _checks(task)
    assert checks["report_matches"]["earned"] == 0
    assert checks["perturbed_matches"]["earned"] == 0


def test_a_record_that_cannot_be_written_becomes_an_error_on_every_task_of_the_suite(tmp_path, monkeypatch):
    from benchmark import scoring

    real = scoring.score_model

    def broken_for_victim(model, tier, prompts, **totals):  # a grader bug: a record the schema rejects
        return real(model, "" if model == "victim" else tier, prompts, **totals)

    monkeypatch.setattr(scoring, "score_model", broken_for_victim)
    subs = tmp_path / "submissions"
    _model(subs, "reference", REFERENCE_FILES)
    _model(subs, "victim", REFERENCE_FILES)
    code, doc = _grade(subs, tmp_path / "results", "--pack", str(PACK), "--no-cache")
    victim = doc["models"]["victim"]
    assert code == 1 and doc["models"]["reference"]["overall_score"] == 150
    assert list(victim["prompts"]) == list(doc["models"]["reference"]["prompts"])
    assert victim["total_possible"] == 150 and victim["overall_score"] == 0
    assert all(p["status"] == "error" for p in victim["prompts"].values())
