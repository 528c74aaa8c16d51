"""The CLI contract: flags, environment aliases, exit codes, and nothing overwritten on errors."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmark import cli, commands
from benchmark.engine.options import default_test_data
from run_benchmark import parse_args

from trees import REFERENCE, ROOT, reference_tree


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A private submissions tree with the reference model, run from tmp_path, and an empty
    user tier and template folder."""
    reference_tree(tmp_path, monkeypatch)
    (tmp_path / "submissions" / "user_submissions").mkdir()
    (tmp_path / "submissions" / "templates" / "template").mkdir(parents=True)
    return tmp_path


def test_parse_args_matches_the_spec_example():
    args = parse_args(["--model", "example_model", "--mem", "768", "--quiet"])
    assert args.model == "example_model" and args.mem == 768 and args.quiet
    with pytest.raises(SystemExit):
        parse_args(["--mem", "300"])
    with pytest.raises(SystemExit):
        parse_args(["--model", "a", "--all-models"])


def test_every_spec_flag_exists():
    args = parse_args(["--all-models", "--workers", "2", "--submissions-dir", "s", "--results-dir", "r",
                       "--unsafe", "--allow-network", "--trusted-model", "--no-metadata", "-q"])
    config = cli.config_from_args(args)
    assert (config.workers, config.submissions_dir, config.results_dir) == (2, "s", "r")
    assert config.unsafe and config.allow_network and config.trusted_model and config.no_metadata


@pytest.mark.parametrize("argv, refused, mode", [
    (["--self-check", "--model", "x"], "argument --model", "--self-check"),
    (["--self-check", "--mod", "x"], "argument --model", "--self-check"),  # (an abbreviation)
    (["--self-check", "--all-models", "--workers", "2", "-q"], "arguments --all-models, --workers, --quiet",
     "--self-check"),
    (["--self-check", "--unsafe", "--trusted-model", "--debug"],
     "arguments --unsafe, --trusted-model, --debug", "--self-check"),
    (["--self-check", "--pack", "p", "--no-core", "--seed", "1"], "arguments --pack, --seed, --no-core",
     "--self-check"),
    (["--report-only", "r.json", "--results-dir", "out"], "argument --results-dir", "--report-only"),
    (["--report-only", "r.json", "--workers", "1", "--no-cache"], "arguments --workers, --no-cache",
     "--report-only"),
    (["--compare", "a", "b", "--submissions-dir", "s", "--mem", "256"],
     "arguments --submissions-dir, --mem", "--compare"),
    (["--compare", "a", "b", "--require-isolation", "--no-metadata"],
     "arguments --no-metadata, --require-isolation", "--compare"),
    (["--report-only", "r.json", "-v"], "argument --verbose", "--report-only"),
    (["--compare", "a", "b", "--verbose"], "argument --verbose", "--compare"),
])
def test_a_flag_a_no_grading_mode_would_ignore_is_a_usage_error_naming_it(argv, refused, mode, capsys):
    with pytest.raises(SystemExit) as exit_:
        parse_args(argv)
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"rubricbench: error: {refused}: not allowed with argument {mode} (it grades nothing)")


def test_self_check_with_a_grading_flag_runs_no_canary(monkeypatch, capsys):
    monkeypatch.setattr(commands, "self_check_command", lambda config: pytest.fail("self-check ran"))
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--self-check", "--model", "example_model"])
    assert exit_.value.code == 2 and "argument --model: not allowed" in capsys.readouterr().err


def test_the_flags_each_no_grading_mode_uses_are_kept(monkeypatch):
    assert parse_args(["--self-check", "--mem", "768"]).mem == 768
    assert parse_args(["--report-only", "r.json", "--quiet"]).quiet
    args = parse_args(["--compare", "a", "b", "--results-dir", "out", "-q", "--fail-on-regression", "2"])
    assert (args.results_dir, args.quiet, args.fail_on_regression) == ("out", True, 2.0)
    # a default from the environment is not a flag given
    monkeypatch.setenv("RUBRICBENCH_DEBUG", "1")
    monkeypatch.setenv("RUBRICBENCH_RESULTS_DIR", "elsewhere")
    assert parse_args(["--self-check"]).debug and parse_args(["--report-only", "r.json"]).debug
    # and grading runs take every flag as before
    assert parse_args(["--model", "m", "--workers", "2", "-q", "--seed", "3", "--debug"]).workers == 2


def test_spec_environment_aliases(monkeypatch):
    monkeypatch.setenv("AIBUGBENCH_RESULTS_DIR", "elsewhere")
    monkeypatch.setenv("AIBUGBENCH_TIMEOUT", "7")
    config = cli.config_from_args(parse_args([]))
    assert config.results_dir == "elsewhere" and config.timeout_s == 7.0
    monkeypatch.setenv("RUBRICBENCH_RESULTS_DIR", "ours")
    assert cli.config_from_args(parse_args([])).results_dir == "ours"


def test_a_seed_the_results_cannot_hold_is_refused_before_grading(capsys):
    """The seed is written in the results (JSON integers are 64-bit here); a larger one used to
    grade every model and then fail with a traceback while the results were written."""
    for seed in (2**63, -2**63 - 1, 10**32):
        with pytest.raises(SystemExit) as exit_:
            parse_args(["--seed", str(seed)])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert "--seed takes an integer from -9223372036854775808 to 9223372036854775807" in err
    assert parse_args(["--seed", str(2**63 - 1)]).seed == 2**63 - 1
    assert parse_args(["--seed", "-1"]).seed == -1


@pytest.mark.parametrize("value", ["abc", "nan", "inf", "-1", "0", "1e400", "90000"])
def test_a_timeout_variable_that_is_not_a_usable_number_of_seconds_stops_the_run_before_it_grades(
        tree, monkeypatch, capsys, value):
    """Before: 'abc' was a traceback, nan and inf graded every model and then died writing the
    results, -1 timed every child run out at once (exit 4) and 0 quietly meant 30."""
    monkeypatch.setenv("RUBRICBENCH_TIMEOUT", value)
    assert cli.main(["--model", "example_model", "-q"]) == cli.EXIT_ERROR
    assert capsys.readouterr().err == (f"error: RUBRICBENCH_TIMEOUT={value!r}: the wall-clock time-out "
                                       "is a number of seconds over 0 and at most 86400\n")
    assert not (tree / "results").exists()


def test_the_timeout_variable_and_its_alias_take_seconds_and_empty_means_the_default(monkeypatch):
    monkeypatch.setenv("AIBUGBENCH_TIMEOUT", "2.5")
    assert cli.config_from_args(parse_args([])).timeout_s == 2.5
    monkeypatch.setenv("RUBRICBENCH_TIMEOUT", "")  # blank: unset, so the alias counts
    assert cli.config_from_args(parse_args([])).timeout_s == 2.5
    monkeypatch.delenv("AIBUGBENCH_TIMEOUT")
    assert cli.config_from_args(parse_args([])).timeout_s == 30.0
    monkeypatch.setenv("RUBRICBENCH_TIMEOUT", "86400")
    assert cli.config_from_args(parse_args([])).timeout_s == 86400.0


def test_an_empty_results_dir_variable_means_the_default_folder_not_the_working_folder(monkeypatch):
    """A CI job often sets a variable to an empty value; before, the run folder and
    latest_results.json were then written straight into the working folder."""
    monkeypatch.setenv("RUBRICBENCH_RESULTS_DIR", "")
    assert cli.config_from_args(parse_args([])).results_dir == "results"
    monkeypatch.setenv("RUBRICBENCH_RESULTS_DIR", "  ")
    assert cli.config_from_args(parse_args([])).results_dir == "results"


def test_the_test_data_variable_has_its_spec_alias_too(tree, monkeypatch, capsys):
    monkeypatch.delenv("RUBRICBENCH_TEST_DATA")
    monkeypatch.setenv("AIBUGBENCH_TEST_DATA", str(tree / "no_fixtures"))
    assert cli.main(["--model", "example_model", "-q"]) == cli.EXIT_NOT_FOUND
    assert f"test data folder not found: {tree / 'no_fixtures'}" in capsys.readouterr().err
    monkeypatch.setenv("RUBRICBENCH_TEST_DATA", str(ROOT / "test_data"))  # ours wins
    assert default_test_data() == ROOT / "test_data"


def test_a_submissions_dir_that_is_a_tier_or_a_model_folder_says_where_models_go(tree, capsys):
    """A common slip: --submissions-dir pointing one level too deep finds no model; the error
    says where model folders are looked for."""
    for folder in ("submissions/reference_implementations",
                   "submissions/reference_implementations/example_model"):
        assert cli.main(["--all-models", "-q", "--submissions-dir", folder]) == cli.EXIT_MISSING_MODEL
        assert capsys.readouterr().err == (
            f"error: no models found under {folder}: a model is a folder "
            f"{folder}/reference_implementations/MODEL or {folder}/user_submissions/MODEL\n")
    assert not (tree / "results").exists()


def test_unknown_model_exits_2_and_overwrites_nothing(tree, capsys):
    latest = tree / "results" / "latest_results.json"
    latest.parent.mkdir()
    latest.write_text('{"keep": true}')
    assert cli.main(["--model", "nope"]) == cli.EXIT_MISSING_MODEL
    assert "model 'nope' not found" in capsys.readouterr().err
    assert latest.read_text() == '{"keep": true}'
    assert sorted(p.name for p in latest.parent.iterdir()) == ["latest_results.json"]


def test_same_model_in_two_tiers_names_both_folders(tree, capsys):
    shutil.copytree(tree / "submissions/reference_implementations/example_model",
                    tree / "submissions/user_submissions/example_model")
    assert cli.main(["--all-models", "-q"]) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert "reference_implementations/example_model" in err and "user_submissions/example_model" in err


def test_a_model_folder_that_is_a_symbolic_link_is_named_on_stderr_not_silently_left_out(tree, capsys):
    """The folder is not followed (no submission path is), and a user who linked a model in
    is told so: the other models are graded and the run exits 3, as for a folder whose name
    cannot name a model; asked for by name, it is not 'not found'."""
    outside = tree / "outside_model"
    shutil.copytree(REFERENCE, outside)
    (tree / "submissions" / "user_submissions" / "linked_model").symlink_to(outside)
    assert cli.main(["--all-models", "-q", "--no-metadata"]) == cli.EXIT_VALIDATION
    err = capsys.readouterr().err
    assert ("skipped model folder 'linked_model' in user_submissions: it is a symbolic link "
            "(not followed)") in err
    doc = json.loads((tree / "results" / "latest_results.json").read_text())
    assert list(doc["models"]) == ["example_model"]
    assert cli.main(["--model", "linked_model", "-q", "--no-metadata"]) == cli.EXIT_VALIDATION
    err = capsys.readouterr().err
    assert "symbolic link" in err and "not found" not in err


@pytest.mark.parametrize("where", ["a file", "under /proc"])
def test_a_results_folder_that_cannot_be_written_stops_the_run_before_it_grades(tree, capsys, monkeypatch, where):
    results = tree / "taken" if where == "a file" else Path("/proc/rubricbench-results")
    if where == "a file":
        results.write_text("not a folder")
    graded = []
    monkeypatch.setattr(commands, "_grade_and_write", lambda *args, **kwargs: graded.append(args) or 0)
    assert cli.main(["--model", "example_model", "--results-dir", str(results), "-q"]) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert f"error: results folder {results}" in err and "Traceback" not in err
    assert graded == []
    assert not (results.exists() and results.is_dir())


def test_missing_submissions_dir_exits_5(tree):
    assert cli.main(["--submissions-dir", "nowhere", "-q"]) == cli.EXIT_NOT_FOUND


def test_unsafe_without_trusted_model_refuses_without_a_terminal(tree, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", open("/dev/null"))
    assert cli.main(["--model", "example_model", "--unsafe", "-q"]) == cli.EXIT_ERROR
    assert "--trusted-model" in capsys.readouterr().err
    assert not (tree / "results").exists()


def test_all_models_run_writes_results_and_skips_the_template(tree):
    broken = tree / "submissions/user_submissions/broken_model"
    shutil.copytree(REFERENCE, broken)
    (broken / "prompt_3_transform.py").write_bytes(b"def transform_and_enrich_users(:\n")
    (tree / "submissions/templates/template/prompt_1_solution.py").write_text("print('[]')\n")
    code = cli.main(["--all-models", "-q"])
    assert code == cli.EXIT_VALIDATION
    doc = json.loads((tree / "results/latest_results.json").read_text())
    assert sorted(doc["models"]) == ["broken_model", "example_model"]
    p3 = doc["models"]["broken_model"]["prompts"]["prompt_3"]
    assert p3["status"] == "error" and "syntax error" in p3["error"]
    run_dir = tree / "results" / doc["run_id"]
    assert sorted(p.name for p in run_dir.iterdir()) == [
        "comparison_chart.txt", "junit.xml", "report.html", "results.json", "summary.md", "summary_report.txt"]
    assert json.loads((run_dir / "results.json").read_text()) == doc
    assert doc["comparison"]["ranking"][0]["model"] == "example_model"


HANG = ("import time\n\n\ndef transform_and_enrich_users(users):\n"
        "    end = time.monotonic() + 10  # bounded: the time-out ends it first\n"
        "    while time.monotonic() < end:\n        pass\n    return users\n")


def test_exit_3_and_4_name_each_prompt_behind_them_on_stderr_even_with_q(tree, monkeypatch, capsys):
    """A CI job runs with -q and gates on the exit code: the code's causes are on stderr (as
    --fail-under names its models), not only in the results files."""
    hang = tree / "submissions/user_submissions/hang_model"
    shutil.copytree(REFERENCE, hang)
    (hang / "prompt_3_transform.py").write_text(HANG)
    monkeypatch.setenv("RUBRICBENCH_TIMEOUT", "1.5")
    assert cli.main(["--model", "hang_model", "-q", "--no-metadata"]) == cli.EXIT_TIMEOUT
    out, err = capsys.readouterr()
    assert out == ""
    timed_out = (r"error: model 'hang_model' prompt_3: a child run hit the wall-clock time-out "
                 r"\(killed after \d+\.\d s\)")
    assert re.fullmatch(timed_out + "\n", err), err
    (hang / "prompt_1_solution.py").write_bytes(b"")
    assert cli.main(["--all-models", "-q", "--no-metadata"]) == cli.EXIT_VALIDATION
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert lines[0] == "error: model 'hang_model' prompt_1: prompt_1_solution.py: file is empty"
    assert re.fullmatch(timed_out, lines[1]) and len(lines) == 2, err


def test_console_script_and_shim_agree(tree):
    exe = Path(sys.executable).parent / "rubricbench"
    assert exe.exists(), "pip install must provide the rubricbench command"
    for cmd in ([str(exe)], [sys.executable, str(ROOT / "run_benchmark.py")]):
        out = subprocess.run([*cmd, "--model", "nope", "-q"], capture_output=True, text=True,
                             cwd=tree, timeout=60)
        assert out.returncode == 2 and "not found" in out.stderr


def test_a_run_served_from_the_cache_never_loads_the_grading_engine(tree):
    command = [sys.executable, "-X", "importtime", str(ROOT / "run_benchmark.py"), "--model",
               "example_model", "-q"]
    first = subprocess.run(command, cwd=tree, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    assert "benchmark.engine.grading" in first.stderr  # the importtime log does list what is loaded
    second = subprocess.run(command, cwd=tree, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0, second.stderr
    loaded = {line.rsplit("|", 1)[-1].strip() for line in second.stderr.splitlines() if "|" in line}
    assert json.loads((tree / "results/latest_results.json").read_text())["models"]["example_model"]["cached"]
    assert not {"benchmark.engine.grading", "benchmark.prompts", "radon", "yaml", "psutil",
                "benchmark.sandbox.self_check"} & loaded


def test_rubric_and_prompt_modules_name_the_same_files():
    from benchmark.prompts import PROMPT_MODULES
    from benchmark.rubric import RUBRIC

    assert [tuple(m.FILES) for m in PROMPT_MODULES] == [p.files for p in RUBRIC]


def test_second_run_comes_from_the_cache_and_says_so(tree):
    assert cli.main(["--model", "example_model", "-q"]) == 0
    first = json.loads((tree / "results/latest_results.json").read_text())
    assert first["models"]["example_model"]["cached"] is False
    assert cli.main(["--model", "example_model", "-q"]) == 0
    second = json.loads((tree / "results/latest_results.json").read_text())
    assert second["models"]["example_model"]["cached"] is True
    assert second["models"]["example_model"]["overall_score"] == first["models"]["example_model"]["overall_score"]
    assert cli.main(["--model", "example_model", "-q", "--no-cache"]) == 0
    third = json.loads((tree / "results/latest_results.json").read_text())
    assert third["models"]["example_model"]["cached"] is False


def test_no_cache_grades_again_and_refreshes_the_cache_for_the_next_run(tree):
    assert cli.main(["--model", "example_model", "-q"]) == 0
    graded = json.loads((tree / "results/latest_results.json").read_text())["models"]["example_model"]
    [entry] = (tree / "results/.cache/models").iterdir()
    stale = json.loads(entry.read_text())
    stale = stale.get("record", stale)  # (a tagged entry; rewritten bare, it is checked in full)
    stale["prompts"]["prompt_1"]["checks"][0]["rationale"] = "stale entry"  # a well-formed marker
    entry.write_text(json.dumps(stale, ensure_ascii=False))  # what a normal run replays

    def first_rationale() -> tuple[bool, str]:
        model = json.loads((tree / "results/latest_results.json").read_text())["models"]["example_model"]
        return model["cached"], model["prompts"]["prompt_1"]["checks"][0]["rationale"]

    assert cli.main(["--model", "example_model", "-q"]) == 0
    assert first_rationale() == (True, "stale entry")
    assert cli.main(["--model", "example_model", "-q", "--no-cache"]) == 0
    fresh = first_rationale()
    assert fresh[0] is False and fresh[1] == graded["prompts"]["prompt_1"]["checks"][0]["rationale"]
    assert cli.main(["--model", "example_model", "-q"]) == 0
    assert first_rationale() == (True, fresh[1])


@pytest.mark.parametrize("second_run", [False, True], ids=["graded", "from-the-cache"])
def test_banner_comes_first_then_the_grading_line_then_each_model(tree, capsys, second_run):
    """The banner waits for the isolation probe, which runs beside grading: it must still be
    printed once, before the "Grading" line and before any model's results (without a
    terminal, a line per model graded as it finishes; none for one served from the cache),
    and the table after them."""
    if second_run:
        assert cli.main(["--model", "example_model", "-q"]) == 0
        capsys.readouterr()
    assert cli.main(["--model", "example_model"]) == 0
    out = capsys.readouterr().out
    banner, grading, table = (out.find("RubricBench isolation status"), out.find("🔍 Grading 1 model(s)"),
                              out.find("🏆 1 model(s) × 4 task(s)"))
    line = out.find("graded example_model: ")
    assert 0 <= banner < grading < table, out[:600]
    assert out.count("RubricBench isolation status") == 1 and out.count("🔍 Grading") == 1
    if second_run:
        assert line == -1
    else:
        assert grading < line < table and out[line:].splitlines()[0].endswith("4 passed")


def test_verbose_prints_each_models_block_as_before_and_quiet_only_what_is_essential(tree, capsys):
    """By default a table and the lost points, no block; -v the blocks of before (every
    prompt, its breakdown and lost checks) and the table, no folded list; -q neither."""
    assert cli.main(["--model", "example_model", "-q"]) == 0  # (fills the cache: the runs below are fast)
    assert capsys.readouterr().out == ""
    assert cli.main(["--model", "example_model"]) == 0
    default = capsys.readouterr().out
    assert cli.main(["--model", "example_model", "-v"]) == 0
    verbose = capsys.readouterr().out
    for out in (default, verbose):
        assert "1  example_model" in out and "📄 results:" in out
    assert "Model: example_model (reference_implementations) [cached]" not in default
    assert "📝 prompt_1:" not in default and "🎯 Final Score:" not in default
    block = verbose.find("Model: example_model (reference_implementations) [cached]")
    assert 0 <= block < verbose.find("🎯 Final Score:") < verbose.find("🏆 1 model(s)")
    assert verbose.count("📝 prompt_") == 4 and "└─ Syntax:" in verbose
    assert "Lost points" not in verbose and "graded example_model:" not in verbose


def test_quiet_and_verbose_cannot_be_combined(capsys):
    with pytest.raises(SystemExit) as exit_:
        parse_args(["-q", "-v"])
    assert exit_.value.code == 2 and "not allowed with argument" in capsys.readouterr().err
    assert parse_args(["--verbose"]).verbose and not parse_args([]).verbose


def test_model_flag_repeats_to_grade_several(tree, capsys):
    args = parse_args(["--model", "a", "--model", "b", "--model", "a"])
    assert args.model == "a" and args.models == ["a", "b"]  # the spec's field: the last name
    assert cli.config_from_args(args).models == ("a", "b")
    assert cli.config_from_args(parse_args(["--model", "solo"])).models == ("solo",)
    assert cli.config_from_args(parse_args([])).models == ()
    with pytest.raises(SystemExit):
        parse_args(["--model", "a", "--all-models"])
    shutil.copytree(REFERENCE, tree / "submissions/user_submissions/copy_model")
    shutil.copytree(REFERENCE, tree / "submissions/user_submissions/left_out")
    import signal

    before = signal.getsignal(signal.SIGINT)
    assert cli.main(["--model", "example_model", "--model", "copy_model", "-q"]) == cli.EXIT_OK
    assert signal.getsignal(signal.SIGINT) is before  # the run's Ctrl-C handler is its own
    doc = json.loads((tree / "results/latest_results.json").read_text())
    assert sorted(doc["models"]) == ["copy_model", "example_model"]
    assert cli.main(["--model", "copy_model", "--model", "nope", "-q"]) == cli.EXIT_MISSING_MODEL
    assert "model 'nope' not found" in capsys.readouterr().err


def test_reader_of_stdout_leaving_does_not_stop_the_run(tree):
    """``rubricbench ... | head -1``: the run still grades, writes its results and exits as
    usual, with no BrokenPipeError traceback."""
    proc = subprocess.Popen([sys.executable, str(ROOT / "run_benchmark.py"), "--model", "example_model"],
                            cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()  # the reader leaves after one line
    _, stderr = proc.communicate(timeout=300)
    assert first and proc.returncode == cli.EXIT_OK, stderr.decode(errors="replace")[-2000:]
    assert b"BrokenPipeError" not in stderr and b"Traceback" not in stderr
    doc = json.loads((tree / "results/latest_results.json").read_text())
    assert list(doc["models"]) == ["example_model"]


def test_pipe_safe_stream_drops_writes_once_the_reader_left():
    read_fd, write_fd = __import__("os").pipe()
    stream = open(write_fd, "w", buffering=1)
    __import__("os").close(read_fd)
    safe = cli.PipeSafe(stream)
    assert safe.write("lost\n") == 5 and safe.gone  # the broken pipe is absorbed once...
    assert safe.write("more\n") == 5
    safe.flush()  # ...and nothing raises afterwards, the close's own flush included
    stream.close()


def test_results_that_cannot_be_written_after_grading_are_an_error_not_a_traceback(tree, capsys):
    """The folder passed the check before grading, then a write failed (here latest_results.json
    is a folder; a disk that filled up does the same): exit 1 naming the folder, the file (not
    the temporary file it was written as) and the reason."""
    (tree / "results" / "latest_results.json").mkdir(parents=True)
    assert cli.main(["--model", "example_model", "-q", "--no-metadata"]) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert err == "error: cannot write the results into results: results/latest_results.json: Is a directory\n"


@pytest.mark.parametrize("stdout", ["closed", "a full device"])
def test_a_stdout_that_cannot_be_written_does_not_stop_the_run(tree, stdout):
    """``rubricbench ... >&-`` (cron, a daemon) or a log on a full disk: the run still grades,
    writes its results and exits as usual (before: a traceback and exit 1, nothing written)."""
    redirect = ">&-" if stdout == "closed" else ">/dev/full"
    proc = subprocess.run(["sh", "-c", f'exec "$0" "$1" --model example_model {redirect}', sys.executable,
                           str(ROOT / "run_benchmark.py")], cwd=tree, stderr=subprocess.PIPE, timeout=300)
    assert proc.returncode == cli.EXIT_OK, proc.stderr.decode(errors="replace")[-2000:]
    assert b"Traceback" not in proc.stderr
    doc = json.loads((tree / "results/latest_results.json").read_text())
    assert list(doc["models"]) == ["example_model"]


def test_pipe_safe_stream_drops_writes_once_the_stream_fails():
    stream = open("/dev/full", "w", buffering=1)
    safe = cli.PipeSafe(stream)
    assert safe.write("lost\n") == 5 and safe.gone  # ENOSPC is absorbed once...
    assert safe.write("more\n") == 5
    safe.flush()
    stream.close()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_while_the_results_are_written_lets_them_be_written_in_full(tree, capsys, monkeypatch, signum):
    """Ctrl-C or SIGTERM once grading is over: the results files are still written in full
    (nothing half-written, latest_results.json names the complete run), the run says so and
    exits 1, and the signal handlers of before are back."""
    import os

    write = commands._write

    def stopped_midway(config, doc):
        os.kill(os.getpid(), signum)  # as if it came from outside, in the middle of the writing
        return write(config, doc)

    monkeypatch.setattr(commands, "_write", stopped_midway)
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    assert cli.main(["--model", "example_model", "-q"]) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert f"{signal.Signals(signum).name} while the results were being written: they were written in full first" in err
    assert "nothing of this run was written" not in err and "Traceback" not in err
    latest = json.loads((tree / "results" / "latest_results.json").read_text())
    run = tree / "results" / latest["run_id"]
    assert sorted(p.name for p in run.iterdir()) == sorted(
        ["results.json", "summary_report.txt", "comparison_chart.txt", "report.html", "junit.xml", "summary.md"])
    assert {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)} == before


def _spinning_model(tree: Path) -> None:
    """A copy of the reference model whose prompt-1 script spins for ever once it starts."""
    slow = tree / "submissions/user_submissions/spinning_model"
    shutil.copytree(REFERENCE, slow)
    script = slow / "prompt_1_solution.py"
    script.write_text(script.read_text(encoding="utf-8").replace(
        'if __name__ == "__main__":', 'if __name__ == "__main__":\n    while True:\n        pass\n', 1),
        encoding="utf-8")


def _init_prefix() -> list[str]:
    """The command that runs a program as pid 1 of a new pid namespace (as in a container,
    where the kernel drops a signal pid 1 has no handler for), or [] where that is not allowed."""
    command = ["unshare", "--pid", "--fork", "--mount-proc"]
    try:
        ok = subprocess.run([*command, "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    return command if ok else []


@pytest.mark.parametrize("signum, workers, as_init", [(signal.SIGINT, 1, False), (signal.SIGINT, 2, False),
                                                      (signal.SIGTERM, 2, True)])
def test_ctrl_c_or_sigterm_stops_the_sandboxes_at_once_and_leaves_nothing_behind(tree, signum, workers, as_init):
    """SIGINT (Ctrl-C) or SIGTERM (a cancelled CI job, ``docker stop``) sent to the grader's
    process alone while a model's script spins: the run ends long before that child's deadline
    (120 s here), exits 1 saying why, writes no results, keeps the finished model's cache
    entry, and leaves no process and no sandbox folder of its own behind. The SIGTERM case runs
    the grader as pid 1 of its own pid namespace, as in a container."""
    import os
    import tempfile
    import threading
    import time

    import psutil

    _spinning_model(tree)
    folders = [Path(tempfile.gettempdir()), Path("/dev/shm")]

    def ours(pids: set[int] | None = None) -> set[str]:
        """Sandbox folders of these models (``rubricbench-<model>-p<pid>-...``), of the given
        processes only when named: another suite on the machine makes folders of its own."""
        return {p.name for top in folders if top.is_dir() for p in top.iterdir()
                if p.name.startswith(("rubricbench-spinning_model", "rubricbench-example_model"))
                and (pids is None or int(p.name.split("-p", 1)[1].split("-", 1)[0].split("n")[0]) in pids)}

    before = ours()
    env = {**os.environ, "RUBRICBENCH_TIMEOUT": "120", "PYTHONUNBUFFERED": "1"}
    prefix = _init_prefix() if as_init else []
    if as_init and not prefix:
        pytest.skip("this machine does not let the test make a pid namespace (unshare --pid)")
    proc = subprocess.Popen([*prefix, sys.executable, str(ROOT / "run_benchmark.py"), "--all-models", "--no-cache",
                             "--workers", str(workers)], cwd=tree, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    finished = threading.Event()

    def read() -> None:
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("graded example_model: "):  # (stdout is a pipe: a line per model)
                finished.set()
    threading.Thread(target=read, daemon=True).start()
    errors: list[str] = []
    error_reader = threading.Thread(target=lambda: errors.append(proc.stderr.read()), daemon=True)
    error_reader.start()
    try:
        assert finished.wait(120), "".join(lines)[-2000:]  # example_model is done; the other spins
        grader = psutil.Process(proc.pid)
        if prefix:  # (unshare's one child is the grader, pid 1 in its namespace)
            (grader,) = grader.children()
            assert open(f"/proc/{grader.pid}/status").read().split("NSpid:")[1].split("\n")[0].split()[-1] == "1"
        deadline = time.monotonic() + 60
        def spinning(child: psutil.Process) -> bool:
            try:  # short-lived children (probes, finished runs) may exit while we look
                return "zygote" in " ".join(child.cmdline()) and child.cpu_times().user > 0.5
            except psutil.NoSuchProcess:
                return False

        while time.monotonic() < deadline:  # the spinning script is running
            if any(spinning(p) for p in grader.children(recursive=True)):
                break
            time.sleep(0.1)
        family = grader.children(recursive=True)
        assert family
        grader.send_signal(signum)  # (to the grader alone, not its process group)
        code = proc.wait(timeout=60)  # raises if the run waits for the spinning child's deadline
        error_reader.join(10)
        stderr = "".join(errors)
        assert code == cli.EXIT_ERROR, stderr[-2000:]
    finally:
        if proc.poll() is None:
            proc.kill()
    assert f"{cli.STOPPED_BY[signum]}: nothing of this run was written" in stderr and "Traceback" not in stderr
    results = tree / "results"
    assert not (results / "latest_results.json").exists()
    assert results.is_dir(), (stderr[-3000:], "".join(lines)[-3000:])
    assert [p.name for p in results.iterdir() if not p.name.startswith(".")] == []  # no run folder
    assert len(list((results / ".cache" / "models").iterdir())) == 1  # the finished model's
    gone, alive = psutil.wait_procs(family, timeout=10)
    assert not alive, [p.cmdline() for p in alive]
    assert ours({proc.pid, grader.pid, *(p.pid for p in family)}) <= before


def _command(process) -> str:
    """A process's command line, or '' once it has ended (a sandboxed run may end between the
    listing of the tree and this read)."""
    import psutil

    try:
        return " ".join(process.cmdline())
    except psutil.NoSuchProcess:
        return ""


def test_a_grader_killed_outright_leaves_no_pool_process_behind_and_its_output_ends(tree):
    """SIGKILL of a ``--workers 2`` grader (a CI runner's hard kill, the OOM killer) while a
    model's script spins: it cannot clean up, but its pool workers, their forkserver, bandit
    processes and sandboxes all end within seconds, so its stdout and stderr reach end of file
    (a CI step reading them does not hang) and nothing keeps running."""
    import threading

    import psutil

    _spinning_model(tree)
    env = {**os.environ, "RUBRICBENCH_TIMEOUT": "120"}
    proc = subprocess.Popen([sys.executable, str(ROOT / "run_benchmark.py"), "--all-models", "--no-cache",
                             "-q", "--workers", "2"], cwd=tree, env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    ended = threading.Event()
    threading.Thread(target=lambda: (proc.stdout.read(), ended.set()), daemon=True).start()
    family: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not family:  # the spinning script is running
            try:
                tree_now = psutil.Process(proc.pid).children(recursive=True)
                if any("zygote" in " ".join(p.cmdline()) and p.cpu_times().user > 0.5 for p in tree_now):
                    family = tree_now
            except psutil.NoSuchProcess:
                pass
            time.sleep(0.1)
        assert family, "the spinning model never ran"
        family = list({*family, *(p for p in psutil.process_iter() if _in_session(p, proc.pid))})
        assert any("forkserver" in _command(p) for p in family)
        proc.kill()
        proc.wait(timeout=10)
        _, alive = psutil.wait_procs(family, timeout=15)
        assert not alive, [_command(p)[:120] for p in alive]
        assert ended.wait(5), "the grader's output never reached end of file"
    finally:
        for leftover in [p for p in psutil.process_iter() if _in_session(p, proc.pid)]:
            leftover.kill()


def test_a_pool_worker_killed_from_outside_stops_the_run_with_a_message_not_a_traceback(tree):
    """SIGKILL of one ``--workers 2`` pool worker (the OOM killer on a small CI runner) while
    a model's script spins: the pool is broken, so the run stops as a Ctrl-C does (the other
    worker, told to stop mid-grading, exits instead of being waited for forever): exit 1, one
    line saying why, no results file, nothing left running."""
    import psutil

    _spinning_model(tree)
    env = {**os.environ, "RUBRICBENCH_TIMEOUT": "120"}
    proc = subprocess.Popen([sys.executable, str(ROOT / "run_benchmark.py"), "--all-models", "--no-cache",
                             "-q", "--workers", "2"], cwd=tree, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline, worker = time.monotonic() + 120, None
        while time.monotonic() < deadline and worker is None:  # the worker whose script spins
            for process in psutil.Process(proc.pid).children(recursive=True):
                try:
                    if "zygote" in " ".join(process.cmdline()) and process.cpu_times().user > 0.5:
                        worker = next(p for p in psutil.Process(proc.pid).children(recursive=True)
                                      if "forkserver" in " ".join(p.cmdline())
                                      and "forkserver" in " ".join(p.parent().cmdline())
                                      and p.children())
                        break
                except (psutil.NoSuchProcess, StopIteration):
                    continue
            time.sleep(0.1)
        assert worker is not None, "the spinning model never ran"
        for candidate in psutil.Process(proc.pid).children(recursive=True):
            if "forkserver" in " ".join(candidate.cmdline()) and candidate.ppid() != proc.pid:
                candidate.kill()  # every pool worker: the one grading example_model may not be done
                break
        _, stderr = proc.communicate(timeout=60)
        family = [p for p in psutil.process_iter() if _in_session(p, proc.pid)]
        _, alive = psutil.wait_procs(family, timeout=15)
        assert not alive, [" ".join(p.cmdline())[:120] for p in alive]
    finally:
        for leftover in [p for p in psutil.process_iter() if _in_session(p, proc.pid)]:
            leftover.kill()
    assert proc.returncode == cli.EXIT_ERROR, stderr[-2000:]
    assert "Traceback" not in stderr, stderr[-2000:]
    assert "a grading worker process died" in stderr and "nothing of this run was written" in stderr
    assert not (tree / "results" / "latest_results.json").exists()


def _in_session(process, session: int) -> bool:
    try:
        return os.getsid(process.pid) == session
    except OSError:
        return False


@pytest.mark.parametrize("argv", [["--self-check"], ["--report-only", "results.json"],
                                  ["--compare", "a.json", "b.json"]])
def test_the_scheduler_variable_is_a_default_for_grading_runs_only(monkeypatch, argv):
    """RUBRICBENCH_SCHEDULER set for grading does not stop the modes that grade nothing."""
    monkeypatch.setenv("RUBRICBENCH_SCHEDULER", "tcp://127.0.0.1:1")
    assert cli.parse_args(argv).scheduler is None
    assert cli.parse_args([]).scheduler == "tcp://127.0.0.1:1"
    with pytest.raises(SystemExit):  # (typed, it is still refused there)
        cli.parse_args([*argv, "--scheduler", "tcp://127.0.0.1:1"])


def test_several_grading_problems_exit_with_1_over_3_over_4_and_any_of_them_over_7():
    """README "Exit codes": a grader failure, then a file that could not be graded, then a
    time-out; ``--fail-under``'s 7 only when none of them happened."""
    from benchmark.reporting.results_json import run_to_dict
    from benchmark.types import INTERNAL_ERROR, Category, CategoryScore, Check, ModelResult, PromptResult
    from result_fakes import make_run

    def model(name, *, status="ok", error=None, timed_out=False, cause=None):
        checks = (Check("c", Category.SYNTAX, 5.0, 0.0, "error", "parse", error or "", (), cause),) if error else ()
        prompt = PromptResult("prompt_1", "t", 0.0, 25.0, False, status,
                              (CategoryScore(Category.SYNTAX, 0.0, 5.0, 1.0, checks),),
                              ({"timed_out": timed_out},), error)
        return ModelResult(name, "user_submissions", (prompt,), 0.0, 25.0, 0.0, "F", "Participant")

    # (the grader's failure is the checks' typed cause, as the engine records it)
    crashed = model("a", status="error", error=f"{INTERNAL_ERROR}: observing failed: X", cause="internal")
    unreadable = model("b", status="error", error="prompt_1_solution.py: file is empty")
    late = model("c", timed_out=True)
    assert commands._exit_code([late, unreadable, crashed]) == cli.EXIT_ERROR
    assert commands._exit_code([late, unreadable]) == cli.EXIT_VALIDATION
    assert commands._exit_code([late]) == cli.EXIT_TIMEOUT
    assert commands._exit_code([model("d")], unwritable=True) == cli.EXIT_ERROR
    assert commands._exit_code([late], skipped=True) == cli.EXIT_VALIDATION
    doc = run_to_dict(make_run(late))  # (c: 0 %)
    assert commands._gate(cli.EXIT_TIMEOUT, doc, 50.0) == cli.EXIT_TIMEOUT
    assert commands._gate(cli.EXIT_OK, doc, 50.0) == cli.EXIT_FAIL_UNDER
