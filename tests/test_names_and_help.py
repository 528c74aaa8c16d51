"""What a newcomer types wrong, answered: exit codes in --help, the nearest flag, sub-command,
model name or submission file, a model pattern, a Python without the grader's dependencies,
and a browser install that fails (issue 30's naming and install items)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark import cli
from benchmark.console import EXIT_MEANINGS
from benchmark.suggest import nearest

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model"


def _run(*args: str, python: tuple[str, ...] = (sys.executable,), cwd: Path = ROOT, env=None):
    return subprocess.run([*python, str(ROOT / "run_benchmark.py"), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env=env)


def _models(root: Path, *names: str) -> Path:
    for name in names:
        shutil.copytree(REFERENCE, root / "user_submissions" / name)
    return root


def test_help_lists_every_exit_code_with_its_meaning(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0
    listed = " ".join(out[out.index("exit codes"):].split())  # (the wrapping undone)
    assert [code for code, _ in EXIT_MEANINGS] == list(range(8))
    for code, meaning in EXIT_MEANINGS:
        assert f" {code} {' '.join(meaning.split())}" in listed, (code, listed)


@pytest.mark.parametrize("argv, suggestion", [
    (["--moddel", "x"], "unrecognized arguments: --moddel x; did you mean --model?"),
    (["--quite"], "did you mean --quiet?"),
    (["--no-cahce"], "did you mean --no-cache?"),
    (["pack", "valdate"], "invalid choice: 'valdate' (choose from 'validate', 'list', 'new', 'docs', "
                          "'catalogue'); did you mean validate?"),
    (["import", "replies", "--model", "m", "--dry-rnu"], "did you mean --dry-run?"),
])
def test_a_mistyped_flag_or_sub_command_names_the_nearest(argv, suggestion, capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(argv)
    assert done.value.code == 2
    assert suggestion in capsys.readouterr().err


def test_a_flag_far_from_every_flag_gets_no_guess(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--zzzzzzzz"])
    assert "did you mean" not in capsys.readouterr().err


def test_nearest_prefers_a_case_or_dash_variant_and_stays_quiet_when_nothing_is_close():
    assert nearest("Example-Model", ["example_model", "other"])[0] == "example_model"
    assert nearest("gpt4o", ["gpt-4o", "claude"]) == ["gpt-4o"]
    assert nearest("qwerty", ["example_model", "strong_model"]) == []


def test_a_mistyped_model_names_the_nearest_and_lists_ten_of_the_rest(tmp_path):
    subs = _models(tmp_path / "submissions", *(f"model_{i:02d}" for i in range(12)), "example_model")
    out = _run("-q", "--model", "exmaple_model", "--submissions-dir", str(subs),
               "--results-dir", str(tmp_path / "results"))
    assert out.returncode == 2, out.stderr
    assert "model 'exmaple_model' not found" in out.stderr and "did you mean example_model?" in out.stderr
    assert "example_model, model_00" in out.stderr and ", and 3 more)" in out.stderr, out.stderr
    assert not (tmp_path / "results").exists()


def test_a_model_pattern_grades_the_models_it_matches_and_one_matching_nothing_is_an_error(tmp_path):
    subs = _models(tmp_path / "submissions", "copy_a", "copy_b", "other")
    out = _run("-q", "--model", "copy_*", "--submissions-dir", str(subs), "--results-dir", str(tmp_path / "r"))
    assert out.returncode == 0, out.stderr
    doc = json.loads((tmp_path / "r" / "latest_results.json").read_text())
    assert sorted(doc["models"]) == ["copy_a", "copy_b"]
    none = _run("-q", "--model", "gpt-*", "--submissions-dir", str(subs), "--results-dir", str(tmp_path / "n"))
    assert none.returncode == 2 and "--model gpt-*: the pattern matches no model" in none.stderr
    assert not (tmp_path / "n").exists()


def test_a_missing_file_beside_a_near_name_says_which(tmp_path):
    subs = _models(tmp_path / "submissions", "misnamed")
    folder = subs / "user_submissions" / "misnamed"
    (folder / "prompt_1_solution.py").rename(folder / "prompt1_solution.py")
    out = _run("-q", "--model", "misnamed", "--submissions-dir", str(subs), "--results-dir", str(tmp_path / "r"))
    assert out.returncode == 3, out.stderr
    doc = json.loads((tmp_path / "r" / "latest_results.json").read_text())
    prompt = doc["models"]["misnamed"]["prompts"]["prompt_1"]
    assert prompt["status"] == "error"
    assert "prompt_1_solution.py: file not found; did you mean prompt1_solution.py?" in prompt["error"]
    assert doc["models"]["misnamed"]["prompts"]["prompt_2"]["status"] == "ok"  # (the others graded)


def test_a_python_without_the_dependencies_says_what_to_run_in_one_line(tmp_path):
    """``-S``: no site-packages, so the grader's dependencies are missing, as for a system
    Python on a fresh machine; the command line names one and says what to run."""
    for args in (("-q", "--model", "example_model", "--results-dir", str(tmp_path / "r")),
                 ("pack", "list")):
        out = _run(*args, python=(sys.executable, "-S"))
        assert out.returncode == 1, (args, out.stderr[-2000:])
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr[-2000:]
        assert lines[0].startswith("error: the grader's dependency '") and "make setup" in lines[0]
    assert not (tmp_path / "r" / "latest_results.json").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="the installer installs only as root")
def test_the_browser_installer_waits_for_the_package_lock_and_fails_loudly(tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    calls = tmp_path / "calls"
    (fake / "apt-get").write_text(f"#!/bin/sh\necho \"$@\" >> {calls}\n"
                                  "echo 'E: Could not get lock /var/lib/dpkg/lock-frontend' >&2\nexit 100\n")
    (fake / "apt-get").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}", "RB_CHROMIUM": str(tmp_path / "no-chromium")}
    out = subprocess.run(["bash", str(ROOT / "scripts" / "install_browser.sh")], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert "ERROR: apt-get could not install chromium" in out.stderr
    assert "Could not get lock" in out.stderr  # (apt-get's own words are shown)
    assert "DPkg::Lock::Timeout=600" in calls.read_text()
