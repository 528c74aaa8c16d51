"""A task's reference solution that fails is the pack's fault, not the model's: the checks
that need it are ``error`` (0 points, a message naming the task, the reference's file and
why), everything else is graded, the run says so once per task and exits 3, and a model
graded while the reference did not finish is not cached."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson

from benchmark import cli
from benchmark.packs.scaffold import scaffold

BROKEN = "def main() -> int:\n    raise ValueError('no \\x1b[31mcolour\\x1b[0m here')\n"
SLOW = "def solve(a, b):\n    import time\n    time.sleep(30)\n"


def _pack(folder: Path) -> Path:
    """A pack of two scaffolded tasks: ``tally`` (a script, its expected output from the
    reference: the answer key is removed) and ``calc`` (calls, generated cases expected from
    the reference). Both references earn full marks as they are."""
    scaffold(folder, "tally", "script", "demo")
    scaffold(folder, "calc", "call", "demo")
    manifest = folder / "tally" / "task.yaml"
    text = manifest.read_text(encoding="utf-8")
    start = text.index("answers: ")
    manifest.write_text(text[:start] + text[text.index("\n", start) + 1:], encoding="utf-8")
    return folder


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _models(subs: Path, pack: Path, names=("gold", "twin")) -> None:
    """Models whose answers are the pack's working references."""
    for name in names:
        folder = subs / "user_submissions" / name / "demo"
        folder.mkdir(parents=True)
        for task, file in (("tally", "tally.py"), ("calc", "calc.py")):
            shutil.copyfile(pack / task / "reference" / file, folder / file)


def _grade(subs: Path, results: Path, pack: Path) -> tuple[int, dict]:
    code = cli.main(["--all-models", "--submissions-dir", str(subs), "--results-dir", str(results),
                     "--no-metadata", "-q", "--no-core", "--pack", str(pack)])
    return code, orjson.loads((results / "latest_results.json").read_bytes())


def _checks(doc: dict, model: str, task: str) -> dict[str, dict]:
    return {c["id"]: c for c in doc["models"][model]["prompts"][f"demo.{task}"]["checks"]}


def _run_folder(results: Path, doc: dict) -> Path:
    return results / doc["run_id"]


def test_a_reference_that_raises_leaves_only_its_checks_unjudged_named_once(tmp_path, capsys):
    good = _pack(tmp_path / "good")
    subs = tmp_path / "submissions"
    _models(subs, good)
    code, fine = _grade(subs, tmp_path / "results-good", good)
    assert code == 0 and fine["models"]["gold"]["overall_score"] == 50
    capsys.readouterr()

    broken = shutil.copytree(good, tmp_path / "broken")
    _edit(broken / "tally" / "reference" / "tally.py", "def main() -> int:\n", BROKEN)
    code, doc = _grade(subs, tmp_path / "results", broken)
    err = capsys.readouterr().err
    assert code == 3  # the pack's fault, as a pack that does not validate; nothing else failed
    for model in ("gold", "twin"):
        checks = _checks(doc, model, "tally")
        unjudged = checks["output_matches"]
        assert (unjudged["status"], unjudged["earned"]) == ("error", 0)
        assert unjudged["rationale"] == (
            "reference solution failed: task demo.tally (tally/reference/tally.py): raised "
            "ValueError: no \\x1b[31mcolour\\x1b[0m here (on fixture); the check was not judged "
            "(the pack's fault, not the model's)")  # the reference's text, escaped like any
        before = _checks(fine, model, "tally")
        assert {k: (c["status"], c["earned"]) for k, c in checks.items() if k != "output_matches"} == \
               {k: (c["status"], c["earned"]) for k, c in before.items() if k != "output_matches"}
        assert doc["models"][model]["prompts"]["demo.tally"]["status"] == "ok"
        assert doc["models"][model]["prompts"]["demo.tally"]["detailed_scoring"]["execution"]["earned"] == 1
        calc, fine_calc = doc["models"][model]["prompts"]["demo.calc"], fine["models"][model]["prompts"]["demo.calc"]
        assert (calc["checks"], calc["score"]) == (fine_calc["checks"], 25)
    # said once per task, not once per model: on stderr, in the text summary and the HTML report
    lines = [line for line in err.splitlines() if "reference solution failed" in line]
    assert lines == ["error: " + unjudged["rationale"] + " (checks of 2 model(s) not judged)"]
    summary = (_run_folder(tmp_path / "results", doc) / "summary_report.txt").read_text(encoding="utf-8")
    assert "Reference solutions that failed (1): the pack's fault, not the models'" in summary
    assert summary.count(f"  ! {unjudged['rationale']} [checks output_matches; 2 model(s)]") == 1
    html = (_run_folder(tmp_path / "results", doc) / "report.html").read_text(encoding="utf-8")
    assert html.count('<section id="references">') == 1 and "\x1b" not in html
    markdown = (_run_folder(tmp_path / "results", doc) / "summary.md").read_text(encoding="utf-8")
    assert markdown.count("### ⚠️ Reference solutions that failed (1)") == 1
    assert markdown.count("| demo.tally | reference solution failed: task demo.tally") == 1


def test_a_deterministic_reference_failure_is_cached_under_the_packs_hash_and_fixing_it_regrades(tmp_path):
    pack = _pack(tmp_path / "first")
    subs = tmp_path / "submissions"
    _models(subs, pack, ("gold",))
    reference = pack / "tally" / "reference" / "tally.py"
    working = reference.read_text(encoding="utf-8")
    _edit(reference, "def main() -> int:\n", BROKEN)
    results = tmp_path / "results"
    assert _grade(subs, results, pack)[0] == 3
    # the same pack bytes in another folder: the same key, the stored verdict (it raised: not load)
    same = shutil.copytree(pack, tmp_path / "same")
    code, again = _grade(subs, results, same)
    assert code == 3 and again["models"]["gold"].get("cached") is True
    assert _checks(again, "gold", "tally")["output_matches"]["status"] == "error"
    # the reference fixed: the pack's content hash changes, so the model is graded again
    fixed = shutil.copytree(pack, tmp_path / "fixed")
    (fixed / "tally" / "reference" / "tally.py").write_text(working, encoding="utf-8")
    code, after = _grade(subs, results, fixed)
    assert code == 0 and after["models"]["gold"].get("cached") is not True
    assert _checks(after, "gold", "tally")["output_matches"]["status"] == "pass"
    assert after["models"]["gold"]["overall_score"] == 50


def test_a_reference_that_times_out_is_an_error_and_the_model_is_graded_again_next_run(tmp_path, capsys):
    pack = _pack(tmp_path / "pack")
    subs = tmp_path / "submissions"
    _models(subs, pack, ("gold",))
    _edit(pack / "calc" / "task.yaml", "timeout_s: 5", "timeout_s: 2")
    _edit(pack / "calc" / "reference" / "calc.py", "def solve(a, b):\n", SLOW)
    results = tmp_path / "results"
    for run in range(2):
        code, doc = _grade(subs, results, pack)
        assert code == 3 and doc["models"]["gold"].get("cached") is not True, f"run {run + 1}"
        checks = _checks(doc, "gold", "calc")
        generated = checks["generated_cases"]
        assert (generated["status"], generated["earned"]) == ("error", 0)
        assert generated["rationale"].startswith(
            "reference solution did not finish: task demo.calc (calc/reference/calc.py): "
            "the child was killed at the wall-clock timeout (on perturbed_1, perturbed_2, "
            "perturbed_3, perturbed_4 and 2 more)")
        # the model's own runs and the manifest's cases are judged as usual
        assert {k: c["status"] for k, c in checks.items() if k != "generated_cases"} == dict.fromkeys(
            ["compiles", "defines_solve", "signature", "docstrings", "fixed_cases", "rejects_bad_input",
             "no_mutation", "specific_excepts", "bandit_clean", "sandbox_clean", "no_nested_loops"], "pass")
        assert not any(e.get("timed_out") for e in doc["models"]["gold"]["prompts"]["demo.calc"]["execution"])
        assert _checks(doc, "gold", "tally")["output_matches"]["status"] == "pass"
        assert "error: reference solution did not finish: task demo.calc" in capsys.readouterr().err
    assert not list((results / ".cache" / "models").glob("*.json"))  # nothing stored
