"""``rubricbench import``: the corpus in ``tests/import_cases/`` (each case's replies and the
exact files a careful person cuts out of them), the guards on where files go, and a round
trip from chat replies to the grader's score."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmark import cli
from benchmark.importing import tasks as import_tasks
from benchmark.importing.markdown import blank_think, parse
from benchmark.prompts import p3_transform_judge, p4_api_sync_data

ROOT = Path(__file__).resolve().parent.parent
CASES = Path(__file__).resolve().parent / "import_cases"
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model"
MODEL = "imported_model"


def _replies(case: Path) -> Path:
    return next(p for p in (case / "replies", case / "replies.jsonl", case / "replies.md") if p.exists())


def _import(replies: Path, root: Path, *extra: str, model: str = MODEL) -> int:
    return cli.main(["import", str(replies), "--model", model, "--submissions-dir", str(root), *extra])


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir() if p.is_dir()))
def test_corpus_case_writes_exactly_the_expected_bytes(case, tmp_path):
    folder, spec = CASES / case, json.loads((CASES / case / "case.json").read_text())
    model = spec.get("model", MODEL)
    assert _import(_replies(folder), tmp_path, *spec["args"], model=model) == spec["exit"]
    out = tmp_path / "user_submissions" / model
    expected = {p.name: p.read_bytes() for p in (folder / "expected").iterdir()}
    assert sorted(p.name for p in out.iterdir()) == sorted([*expected, "import_report.json"])
    for name, data in expected.items():
        assert (out / name).read_bytes() == data, name
    report = {row["file"]: row for row in json.loads((out / "import_report.json").read_text())["files"]}
    for name, rule in spec["rules"].items():
        assert report[name]["rule"] == rule, name
        assert len(report[name]["source_sha256"]) == 64
    for name, warnings in spec["warnings"].items():
        assert report[name]["warnings"] == warnings, name


def test_a_prompt_without_a_reply_is_reported_missing(tmp_path):
    _import(_replies(CASES / "think"), tmp_path)
    report = json.loads((tmp_path / "user_submissions" / MODEL / "import_report.json").read_text())
    missing = [row["file"] for row in report["files"] if row["warnings"] == ["missing"]]
    assert missing == ["prompt_1_solution.py", "prompt_2_config_fixed.yaml", "prompt_2_config.json",
                       "prompt_3_transform.py"]


def test_jsonl_without_the_model_exits_2_naming_the_models_it_holds(tmp_path, capsys):
    assert _import(CASES / "jsonl_models" / "replies.jsonl", tmp_path, model="gamma") == 2
    assert "it holds: alpha, beta" in capsys.readouterr().err
    assert not (tmp_path / "user_submissions").exists()


def test_jsonl_with_several_models_says_which_it_holds(tmp_path, capsys):
    _import(CASES / "jsonl_models" / "replies.jsonl", tmp_path, model="beta")
    assert "holds models alpha, beta; imported: beta" in capsys.readouterr().out


def test_all_models_imports_every_model_of_a_jsonl_file_and_says_on_stderr_why_it_exits_3(tmp_path, capsys):
    replies = CASES / "jsonl_models" / "replies.jsonl"
    code = cli.main(["import", str(replies), "--all-models", "--submissions-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 3  # (neither model answers every prompt)
    assert "== model alpha ==" in out and "== model beta ==" in out
    for model, body in (("alpha", "# alpha"), ("beta", "[dict(u) for u in users]")):
        folder = tmp_path / "user_submissions" / model
        assert body in (folder / "prompt_3_transform.py").read_text(), model
        assert (folder / "import_report.json").is_file()
    assert "exit 3: model alpha: no reply gives prompt_1: prompt_1_solution.py" in err, err
    assert "exit 3: model beta: no reply gives prompt_1: prompt_1_solution.py" in err, err
    one = cli.main(["import", str(replies), "--model", "beta", "--model", "alpha", "--dry-run",
                    "--submissions-dir", str(tmp_path / "dry")])
    assert one == 3 and capsys.readouterr().out.index("== model beta ==") >= 0
    assert not (tmp_path / "dry").exists()


def test_all_models_needs_a_jsonl_file_whose_records_name_their_model(tmp_path, capsys):
    assert cli.main(["import", str(CASES / "think" / "replies"), "--all-models",
                     "--submissions-dir", str(tmp_path)]) == 2
    assert "--all-models takes a JSONL file" in capsys.readouterr().err
    anonymous = tmp_path / "anonymous.jsonl"
    anonymous.write_text('{"task": "prompt_3", "response": "x"}\n')
    assert cli.main(["import", str(anonymous), "--all-models", "--submissions-dir", str(tmp_path)]) == 2
    assert "a record without a 'model'" in capsys.readouterr().err
    assert not (tmp_path / "user_submissions").exists()


def test_strict_makes_an_ambiguous_choice_exit_3_and_writes_nothing(tmp_path):
    replies = tmp_path / "replies"
    replies.mkdir()
    (replies / "p3.md").write_bytes((CASES / "revisions" / "replies" / "p3.md").read_bytes())
    assert _import(replies, tmp_path / "subs", "--strict") == 3
    assert not (tmp_path / "subs").exists()


def test_dry_run_prints_the_plan_and_writes_nothing(tmp_path, capsys):
    assert _import(CASES / "one_file" / "replies.md", tmp_path, "--dry-run") == 0
    out = capsys.readouterr().out
    assert "prompt_2_config.json" in out and "name:before" in out and "dry run" in out
    assert not tmp_path.joinpath("user_submissions").exists()


def test_existing_files_are_kept_unless_force(tmp_path, capsys):
    replies = CASES / "one_file" / "replies.md"
    assert _import(replies, tmp_path) == 0
    target = tmp_path / "user_submissions" / MODEL / "prompt_3_transform.py"
    target.write_text("mine\n")
    assert _import(replies, tmp_path) == 1
    assert "--force" in capsys.readouterr().err and target.read_text() == "mine\n"
    assert _import(replies, tmp_path, "--force") == 0
    assert target.read_bytes() == (CASES / "one_file" / "expected" / target.name).read_bytes()


def test_a_file_no_reply_gives_that_is_already_there_is_named_as_kept(tmp_path, capsys):
    """Re-importing replies that lack prompt 3 over a model that has it said only "missing",
    though the old prompt_3_transform.py stayed and was graded as it was."""
    assert _import(CASES / "one_file" / "replies.md", tmp_path) == 0
    capsys.readouterr()
    assert _import(_replies(CASES / "think"), tmp_path, "--force", "--dry-run") == 3
    kept = ("kept: prompt_1_solution.py, prompt_2_config_fixed.yaml, prompt_2_config.json, "
            "prompt_3_transform.py: no reply gives them, and the model's folder already has them; "
            "they are graded as they are (remove them to have them graded as missing)")
    assert kept in capsys.readouterr().out
    assert _import(_replies(CASES / "think"), tmp_path, "--force") == 3
    assert kept in capsys.readouterr().out
    fresh = tmp_path / "fresh"
    assert _import(_replies(CASES / "think"), fresh) == 3
    assert "kept:" not in capsys.readouterr().out
    linked = fresh / "user_submissions" / MODEL / "prompt_3_transform.py"
    linked.symlink_to(REFERENCE / "prompt_3_transform.py")  # (the grader does not follow it)
    assert _import(_replies(CASES / "think"), fresh, "--dry-run") == 3
    assert "kept:" not in capsys.readouterr().out


def test_a_symlinked_model_folder_or_file_is_refused_even_with_force(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    tier = tmp_path / "subs" / "user_submissions"
    tier.mkdir(parents=True)
    (tier / MODEL).symlink_to(elsewhere)
    assert _import(CASES / "one_file" / "replies.md", tmp_path / "subs", "--force") == 1
    assert list(elsewhere.iterdir()) == []
    (tier / MODEL).unlink()
    (tier / MODEL).mkdir()
    (tier / MODEL / "prompt_1_solution.py").symlink_to(elsewhere / "victim.py")
    assert _import(CASES / "one_file" / "replies.md", tmp_path / "subs", "--force") == 1
    assert not (elsewhere / "victim.py").exists()


@pytest.mark.parametrize("name", ["../escape", "a/b", "bad\x1bname", ""])
def test_a_name_that_cannot_name_a_model_exits_2(tmp_path, name):
    assert _import(CASES / "one_file" / "replies.md", tmp_path / "subs", model=name) == 2
    assert not (tmp_path / "subs").exists() and not (tmp_path / "escape").exists()


def test_replies_that_do_not_exist_exit_5(tmp_path):
    assert _import(tmp_path / "nowhere", tmp_path) == 5


def test_reply_text_on_the_terminal_passes_the_untrusted_boundary(tmp_path, capsys):
    replies = tmp_path / "replies"
    replies.mkdir()
    (replies / "notes\x1b[31m.md").write_text("hi")
    _import(replies, tmp_path / "subs", "--dry-run")
    out = capsys.readouterr().out
    assert "\x1b" not in out and "notes\\x1b[31m.md" in out


def test_a_non_utf8_reply_is_refused_naming_it(tmp_path, capsys):
    replies = tmp_path / "replies"
    replies.mkdir()
    (replies / "p3.md").write_bytes(b"```python\nx = '\xff'\n```\n")
    assert _import(replies, tmp_path / "subs") == 1
    assert "not UTF-8" in capsys.readouterr().err


@pytest.mark.parametrize("kind", ["a FIFO", "a link to /dev/zero", "a JSONL export over the cap"])
def test_replies_that_are_not_a_bounded_regular_file_are_refused_at_once(tmp_path, capsys, monkeypatch, kind):
    """A device or a FIFO, even behind a link, would never end or never answer: refused
    before any read; a file over the size cap is refused too, naming the cap."""
    import os

    from benchmark.importing import sources

    if kind == "a FIFO":
        replies = tmp_path / "replies.md"
        os.mkfifo(replies)
    elif kind == "a link to /dev/zero":
        replies = tmp_path / "replies.md"
        replies.symlink_to("/dev/zero")
    else:
        monkeypatch.setattr(sources, "MAX_REPLIES_BYTES", 1024)
        replies = tmp_path / "replies.jsonl"
        replies.write_text(json.dumps({"task": "prompt_1", "response": "x" * 2000}) + "\n")
    assert _import(replies, tmp_path / "subs") == 1
    err = capsys.readouterr().err
    assert f"cannot read {replies}: " in err
    assert ("file too large (" if kind.startswith("a JSONL") else "not a regular file") in err
    assert not (tmp_path / "subs").exists()


@pytest.mark.parametrize("kind", ["a FIFO", "a link to /dev/zero", "a folder"])
def test_a_reply_in_the_folder_that_is_not_a_regular_file_is_refused_naming_it(tmp_path, capsys, kind):
    """``p3.md`` in REPLIES is prompt 3's reply whatever it is: a FIFO, a device behind a link
    or a folder is refused (exit 1, nothing written), not 'ignored: not a reply to a known
    prompt' with the prompt then reported missing (exit 3)."""
    import os

    replies = tmp_path / "replies"
    replies.mkdir()
    (replies / "p1.md").write_text("```python\nprint('[]')\n```\n")
    reply = replies / "p3.md"
    if kind == "a FIFO":
        os.mkfifo(reply)
    elif kind == "a link to /dev/zero":
        reply.symlink_to("/dev/zero")
    else:
        reply.mkdir()
    assert _import(replies, tmp_path / "subs") == 1
    out, err = capsys.readouterr()
    assert f"cannot read {reply}: not a regular file" in err and "ignored" not in out
    assert not (tmp_path / "subs").exists()


def test_a_submissions_folder_that_cannot_be_written_is_refused_naming_it_not_a_traceback(tmp_path, capsys):
    replies = tmp_path / "replies"
    replies.mkdir()
    (replies / "p1.md").write_text("```python\nprint('[]')\n```\n")
    root = tmp_path / "taken"
    root.write_text("a file where the submissions folder should be")
    assert _import(replies, root) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: cannot write into {root / 'user_submissions' / MODEL}: ")
    assert err.count("\n") == 1 and root.read_text().startswith("a file")


@pytest.mark.parametrize("force", [False, True])
def test_a_model_name_the_other_tier_holds_is_refused_since_the_grader_would_refuse_the_tree(
        tmp_path, capsys, force):
    """The same name in two tiers stops every grading run (exit 1, whichever model is asked
    for); importing it is refused before anything is written, --force or not."""
    replies = tmp_path / "replies"
    replies.mkdir()
    (replies / "p1.md").write_text("```python\nprint('[]')\n```\n")
    (tmp_path / "subs" / "reference_implementations" / MODEL).mkdir(parents=True)
    assert _import(replies, tmp_path / "subs", *(["--force"] if force else [])) == 2
    other = tmp_path / "subs" / "reference_implementations" / MODEL
    assert capsys.readouterr().err == (f"error: model '{MODEL}' is already in {other}; the grader refuses "
                                       "a model name in two tiers\n")
    assert not (tmp_path / "subs" / "user_submissions").exists()


def _case_reply(case: str) -> str:
    """The one reply of a corpus case whose replies are a folder holding one file."""
    (reply,) = (CASES / case / "replies").iterdir()
    return reply.read_text()


def _case_expected(case: str) -> bytes:
    (expected,) = (CASES / case / "expected").iterdir()
    return expected.read_bytes()


def _jsonl(path: Path, *records: dict) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if not p.is_dir())


# Prompt 3 and prompt 4 replies from the corpus, each with the exact file it gives.
P3_CASES = ("nested_fence", "named_usage", "prose_bash_usage")
P4_CASES = ("comment_name", "think", "comment_name")
P3, P4 = "prompt_3_transform.py", "prompt_4_api_sync.py"


def test_jsonl_samples_are_written_each_as_its_own_submission_with_its_report(tmp_path, capsys):
    ids = ["s1", "s2", 3]  # an integer sample is its decimal string
    replies = _jsonl(tmp_path / "samples.jsonl",
                     *[{"model": MODEL, "task": "p3", "sample": i, "response": _case_reply(c)}
                       for i, c in zip(ids, P3_CASES)],
                     {"model": "other", "task": "p3", "response": "x"},
                     *[{"model": MODEL, "task": "prompt_4", "sample": i, "response": _case_reply(c)}
                       for i, c in zip(ids, P4_CASES)])
    assert _import(replies, tmp_path / "subs") == 3  # (prompts 1 and 2 have no reply)
    out, err = capsys.readouterr()
    model = tmp_path / "subs" / "user_submissions" / MODEL
    assert _tree(model) == sorted(f"samples/{i}/{name}" for i in ("s1", "s2", "3")
                                  for name in (P3, P4, "import_report.json"))
    assert out.index("== sample s1 ==") < out.index("== sample s2 ==") < out.index("== sample 3 ==")
    for number, (sample, p3_case, p4_case) in enumerate(zip(("s1", "s2", "3"), P3_CASES, P4_CASES)):
        folder = model / "samples" / sample
        assert (folder / P3).read_bytes() == _case_expected(p3_case), sample
        assert (folder / P4).read_bytes() == _case_expected(p4_case), sample
        report = json.loads((folder / "import_report.json").read_text())
        assert list(report)[:4] == ["format", "model", "sample", "tier"]
        assert (report["model"], report["sample"], report["input"]) == (MODEL, sample, "jsonl")
        files = {row["file"]: row for row in report["files"]}
        assert files[P3]["source"] == f"{replies}:{number + 1}"
        assert files[P4]["source"] == f"{replies}:{number + 5}"  # (line 4: the other model)
        for name in (P3, P4):
            assert files[name]["sha256"] == hashlib.sha256((folder / name).read_bytes()).hexdigest()
        assert files["prompt_1_solution.py"]["warnings"] == ["missing"]
        assert (f"exit 3: model {MODEL} sample {sample}: no reply gives prompt_1: prompt_1_solution.py; "
                "prompt_2: prompt_2_config_fixed.yaml; prompt_2: prompt_2_config.json\n") in err
    first = (model / "samples" / "s1" / P3).read_bytes()
    (model / "samples" / "s1" / P3).write_text("mine\n")
    assert _import(replies, tmp_path / "subs") == 1  # every sample's files are there: kept
    kept = f"{model / 'samples' / 's2'} already has {P3}, {P4}, import_report.json; use --force"
    assert kept in capsys.readouterr().err
    assert (model / "samples" / "s1" / P3).read_text() == "mine\n"
    assert _import(replies, tmp_path / "subs", "--force") == 3
    assert (model / "samples" / "s1" / P3).read_bytes() == first


def test_repeated_records_without_a_sample_are_samples_by_position(tmp_path, capsys):
    replies = _jsonl(tmp_path / "r.jsonl",
                     {"model": MODEL, "task": "p3", "response": _case_reply("nested_fence")},
                     {"model": "other", "task": "p3", "response": "x"},  # (not counted)
                     {"model": MODEL, "task": "p4", "response": _case_reply("think")},
                     {"model": MODEL, "task": "3", "response": _case_reply("named_usage")})
    assert _import(replies, tmp_path) == 3
    model = tmp_path / "user_submissions" / MODEL
    assert _tree(model) == ["samples/1/import_report.json", f"samples/1/{P3}", f"samples/1/{P4}",
                            "samples/2/import_report.json", f"samples/2/{P3}"]
    assert (model / "samples" / "1" / P3).read_bytes() == _case_expected("nested_fence")
    assert (model / "samples" / "1" / P4).read_bytes() == _case_expected("think")
    assert (model / "samples" / "2" / P3).read_bytes() == _case_expected("named_usage")
    report = json.loads((model / "samples" / "2" / "import_report.json").read_text())
    assert report["sample"] == "2"
    assert {row["file"]: row["warnings"] for row in report["files"]}[P4] == ["missing"]
    err = capsys.readouterr().err
    assert f"exit 3: model {MODEL} sample 2: no reply gives prompt_1: prompt_1_solution.py; " in err
    assert f"sample 2: no reply gives prompt_1: prompt_1_solution.py; prompt_2: prompt_2_config_fixed.yaml; " \
           f"prompt_2: prompt_2_config.json; prompt_4: {P4}\n" in err


def test_one_record_per_task_without_a_sample_is_one_submission_as_before(tmp_path, capsys):
    replies = _jsonl(tmp_path / "r.jsonl",
                     {"model": MODEL, "task": "p3", "response": _case_reply("nested_fence")},
                     {"model": MODEL, "task": "p4", "response": _case_reply("think")})
    assert _import(replies, tmp_path) == 3
    model = tmp_path / "user_submissions" / MODEL
    assert _tree(model) == ["import_report.json", P3, P4]
    assert (model / P3).read_bytes() == _case_expected("nested_fence")
    assert "sample" not in json.loads((model / "import_report.json").read_text())
    assert "== sample" not in capsys.readouterr().out


@pytest.mark.parametrize("sample, said", [
    ("a/b", "sample 'a/b' cannot name a sample: it is not a model name the results schema accepts"),
    ("a\x1bb", "sample 'a\\x1bb' cannot name a sample: it contains control, bidirectional or "
               "non-UTF-8 characters"),
    ("_hidden", "sample '_hidden' cannot name a sample: it starts with '.' or '_' (the grader skips "
                "such folders)"),
    ("..", "sample '..' cannot name a sample: it starts with '.' or '_'"),
    (1.5, "'sample' is a number with a fraction or exponent; a sample is a string or an integer"),
    (None, "'sample' is null; a sample is a string or an integer"),
    (True, "'sample' is a boolean; a sample is a string or an integer"),
])
def test_a_sample_that_cannot_name_a_folder_exits_2_naming_its_line(tmp_path, capsys, sample, said):
    replies = _jsonl(tmp_path / "r.jsonl",
                     {"model": MODEL, "task": "p3", "sample": "1", "response": _case_reply("nested_fence")},
                     {"model": MODEL, "task": "p4", "sample": sample, "response": _case_reply("think")})
    assert _import(replies, tmp_path / "subs") == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {replies}:2: {said}") and "\x1b" not in err, err
    assert not (tmp_path / "subs").exists()


def test_two_records_of_one_task_and_sample_exit_2_naming_both_lines(tmp_path, capsys):
    replies = _jsonl(tmp_path / "r.jsonl",
                     {"model": MODEL, "task": "p3", "sample": 1, "response": _case_reply("nested_fence")},
                     {"model": MODEL, "task": "p4", "sample": 1, "response": _case_reply("think")},
                     {"model": MODEL, "task": "prompt_3", "sample": "1", "response": _case_reply("named_usage")})
    assert _import(replies, tmp_path / "subs") == 2
    assert capsys.readouterr().err == (f"error: two replies for prompt_3 sample '1' of model '{MODEL}': "
                                       f"{replies}:1 and {replies}:3\n")
    assert not (tmp_path / "subs").exists()


def test_two_sample_ids_that_read_alike_exit_2(tmp_path, capsys):
    """"A" and "a" would be one folder on a case-insensitive file system."""
    replies = _jsonl(tmp_path / "r.jsonl",
                     {"model": MODEL, "task": "p3", "sample": "A", "response": _case_reply("nested_fence")},
                     {"model": MODEL, "task": "p4", "sample": "a", "response": _case_reply("think")})
    assert _import(replies, tmp_path / "subs") == 2
    assert capsys.readouterr().err == (f"error: {replies}:2: sample 'a' of model '{MODEL}' reads as sample "
                                       f"'A' ({replies}:1); sample ids must differ by more than case or "
                                       "Unicode form\n")
    assert not (tmp_path / "subs").exists()


@pytest.mark.parametrize("first_named", [True, False])
def test_named_and_positional_samples_in_one_model_exit_2(tmp_path, capsys, first_named):
    named = {"model": MODEL, "task": "p3", "sample": "a", "response": _case_reply("nested_fence")}
    positional = {"model": MODEL, "task": "p4", "response": _case_reply("think")}
    records = (named, positional) if first_named else (positional, named)
    replies = _jsonl(tmp_path / "r.jsonl", {"model": "other", "task": "p1", "response": "x"}, *records)
    assert _import(replies, tmp_path / "subs") == 2
    said = (f"without a 'sample', though {replies}:2 has one" if first_named
            else f"with a 'sample', though {replies}:2 has none")
    assert capsys.readouterr().err == (f"error: {replies}:3: a record of model '{MODEL}' {said}; a model's "
                                       "records either all name their sample or none does\n")
    assert not (tmp_path / "subs").exists()


def test_a_symlinked_samples_folder_is_refused_even_with_force(tmp_path, capsys):
    """Every folder from the tier down to the sample's is checked: the model's, samples/ and
    the sample's own."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    model = tmp_path / "subs" / "user_submissions" / MODEL
    model.parent.mkdir(parents=True)
    model.symlink_to(elsewhere)
    replies = _jsonl(tmp_path / "r.jsonl",
                     *[{"model": MODEL, "task": "p3", "sample": i, "response": _case_reply("nested_fence")}
                       for i in ("a", "b")])
    assert _import(replies, tmp_path / "subs", "--force") == 1
    assert capsys.readouterr().err.count(f"{model} is a symbolic link; refusing to write through it") == 2
    assert list(elsewhere.iterdir()) == []
    model.unlink()
    model.mkdir()
    (model / "samples").symlink_to(elsewhere)
    assert _import(replies, tmp_path / "subs", "--force") == 1
    err = capsys.readouterr().err
    assert err.count(f"{model / 'samples'} is a symbolic link; refusing to write through it") == 2, err
    assert list(elsewhere.iterdir()) == []
    (model / "samples").unlink()
    (model / "samples").mkdir()
    (model / "samples" / "b").symlink_to(elsewhere)  # one sample's folder: that sample refused
    assert _import(replies, tmp_path / "subs", "--force") == 1
    assert f"{model / 'samples' / 'b'} is a symbolic link" in capsys.readouterr().err
    assert list(elsewhere.iterdir()) == [] and _tree(model / "samples" / "a") == ["import_report.json", P3]


def test_all_models_writes_a_samples_model_and_a_single_model(tmp_path, capsys):
    replies = _jsonl(tmp_path / "r.jsonl",
                     {"model": "multi", "task": "p3", "sample": "x", "response": _case_reply("nested_fence")},
                     {"model": "single", "task": "p4", "response": _case_reply("think")},
                     {"model": "multi", "task": "p3", "sample": "y", "response": _case_reply("named_usage")})
    code = cli.main(["import", str(replies), "--all-models", "--submissions-dir", str(tmp_path)])
    assert code == 3
    out = capsys.readouterr().out
    assert out.index("== model multi ==") < out.index("== sample x ==") < out.index("== sample y ==") \
        < out.index("== model single ==")
    tier = tmp_path / "user_submissions"
    assert _tree(tier / "multi") == ["samples/x/import_report.json", f"samples/x/{P3}",
                                     "samples/y/import_report.json", f"samples/y/{P3}"]
    assert (tier / "multi" / "samples" / "y" / P3).read_bytes() == _case_expected("named_usage")
    assert _tree(tier / "single") == ["import_report.json", P4]
    assert (tier / "single" / P4).read_bytes() == _case_expected("think")


def test_samples_and_top_level_files_in_one_model_folder_are_refused_unless_force(tmp_path, capsys):
    single = _jsonl(tmp_path / "single.jsonl", {"model": MODEL, "task": "p4", "response": _case_reply("think")})
    several = _jsonl(tmp_path / "several.jsonl",
                     *[{"model": MODEL, "task": "p3", "sample": i, "response": _case_reply("nested_fence")}
                       for i in ("a", "b")])
    model = tmp_path / "user_submissions" / MODEL
    assert _import(single, tmp_path) == 3
    capsys.readouterr()
    grades = "the grader grades only the samples when samples/ exists"
    top = (f"{model} holds submission files at its top level ({P4}) and this import writes samples "
           f"into {model / 'samples'}")
    assert _import(several, tmp_path) == 1
    assert capsys.readouterr().err == f"error: {top}; {grades}; use --force to write all the same\n"
    assert not (model / "samples").exists()
    assert _import(several, tmp_path, "--dry-run") == 3
    assert f"warning: {top}; {grades} (without --force this import is refused)\n" in capsys.readouterr().err
    assert _import(several, tmp_path, "--force") == 3
    assert capsys.readouterr().err.count(f"warning: {top}; {grades}\n") == 1
    assert _tree(model) == ["import_report.json", P4, "samples/a/import_report.json", f"samples/a/{P3}",
                            "samples/b/import_report.json", f"samples/b/{P3}"]
    (model / P4).unlink()
    (model / "import_report.json").unlink()
    assert _import(single, tmp_path) == 1  # the other way: samples/ there, top-level files asked for
    assert capsys.readouterr().err == (f"error: {model} holds samples/ and this import writes submission "
                                       f"files at its top level; {grades}; use --force to write all the same\n")
    assert not (model / P4).exists()


def test_strict_and_dry_run_work_per_sample(tmp_path, capsys):
    """Sample ``ok`` answers every prompt plainly; ``vague`` the same but for prompt 3, whose
    reply holds two revisions that both parse and define the entry point."""
    records = []
    for sample in ("ok", "vague"):
        for task in import_tasks.builtin_tasks():
            reply = "\n".join(_chat_reply(spec.name, (REFERENCE / spec.name).read_bytes())
                              for spec in task.files)
            if sample == "vague" and task.id == "prompt_3":
                reply = (CASES / "revisions" / "replies" / "p3.md").read_text()
            records.append({"model": MODEL, "task": task.id, "sample": sample, "response": reply})
    replies = _jsonl(tmp_path / "r.jsonl", *records)
    assert _import(replies, tmp_path, "--dry-run") == 0
    assert capsys.readouterr().out.count("dry run: nothing written") == 2
    assert not (tmp_path / "user_submissions").exists()
    assert _import(replies, tmp_path, "--strict") == 3
    out, err = capsys.readouterr()
    assert out.count("--strict: nothing written") == 1 and out.count("wrote 5 files and import_report.json") == 1
    assert err == f"exit 3: model {MODEL} sample vague: --strict: more than one block could be prompt_3: {P3}\n"
    model = tmp_path / "user_submissions" / MODEL
    written = [*(p.name for p in REFERENCE.iterdir()), "import_report.json"]
    assert _tree(model) == sorted(f"samples/ok/{name}" for name in written)
    assert (model / "samples" / "ok" / P3).read_bytes() == (REFERENCE / P3).read_bytes()
    assert _import(replies, tmp_path, "--force") == 0  # (without --strict an ambiguous choice is written)
    assert (model / "samples" / "vague" / P3).read_bytes() == _case_expected("revisions")


def test_think_sections_are_blanked_line_for_line():
    text = "a\n<think>\n```py\nx\n```\n</think>\n```py\ny\n```\n"
    assert blank_think(text).count("\n") == text.count("\n")
    assert [b.content for b in parse(text).blocks] == ["y\n"]
    assert parse("draft\n```py\nx\n```\n</think>\nok\n").blocks == ()


def test_entry_points_match_the_prompt_modules():
    entries = {task.id: task.entry for task in import_tasks.builtin_tasks()}
    assert entries == {"prompt_1": import_tasks.MAIN_GUARD, "prompt_2": None,
                       "prompt_3": p3_transform_judge.FUNCTION, "prompt_4": p4_api_sync_data.FUNCTION}
    assert [t.files for t in import_tasks.builtin_tasks()][1][0].kind == "yaml"


def test_import_tasks_are_read_from_task_manifests():
    """The files (with their declared kinds) and the entry point come from the manifest's
    ``files`` and ``run``, whatever the mode, so a pack's task imports as a core prompt does."""
    manifests = [
        {"id": "cli", "files": [{"path": "tool.py", "kind": "python"}, {"path": "notes.txt", "kind": "text"}],
         "run": {"mode": "script", "entry": "tool.py"}},
        {"id": "fn", "files": [{"path": "lib.py", "kind": "python"}],
         "run": {"mode": "http", "module": "lib.py", "function": "fetch"}},
        {"id": "conf", "files": [{"path": "settings.cfg", "kind": "yaml"}], "run": {"mode": "parse"}},
    ]
    tasks = import_tasks.tasks_of(manifests)
    assert [(t.id, t.entry) for t in tasks] == [("cli", import_tasks.MAIN_GUARD), ("fn", "fetch"), ("conf", None)]
    assert [[(f.name, f.kind) for f in t.files] for t in tasks] == [
        [("tool.py", "python"), ("notes.txt", "text")], [("lib.py", "python")], [("settings.cfg", "yaml")]]


def _chat_reply(name: str, data: bytes) -> str:
    language = {"py": "python", "yaml": "yaml", "json": "json"}[name.rsplit(".", 1)[1]]
    return (f"Sure! First install the dependencies:\n\n```bash\npip install pyyaml requests\n```\n\n"
            f"Here is the complete `{name}`:\n\n````{language}\n{data.decode()}````\n\n"
            f"Example usage:\n\n```python\nimport subprocess\nsubprocess.run(['python', '{name}'])\n```\n")


def test_round_trip_reference_replies_import_and_grade_to_the_original_score(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RUBRICBENCH_TEST_DATA", str(ROOT / "test_data"))
    replies = tmp_path / "replies"
    replies.mkdir()
    for task in import_tasks.builtin_tasks():
        number = task.id.rsplit("_", 1)[1]
        text = "\n".join(_chat_reply(spec.name, (REFERENCE / spec.name).read_bytes()) for spec in task.files)
        (replies / f"prompt_{number}.md").write_text(f"<think>\nplan\n</think>\n{text}")
    assert _import(replies, tmp_path / "subs", model="round_trip") == 0
    out = tmp_path / "subs" / "user_submissions" / "round_trip"
    for path in REFERENCE.iterdir():
        assert (out / path.name).read_bytes() == path.read_bytes(), path.name
    assert cli.main(["--model", "round_trip", "--submissions-dir", str(tmp_path / "subs"),
                     "--results-dir", str(tmp_path / "results"), "--no-cache", "-q"]) == 0
    results = json.loads((tmp_path / "results" / "latest_results.json").read_text())
    assert results["models"]["round_trip"]["percentage"] == 100.0


def test_the_subcommand_is_reachable_from_the_shim_and_the_console_script(tmp_path):
    import subprocess
    import sys

    replies = CASES / "one_file" / "replies.md"
    for command in ([sys.executable, str(ROOT / "run_benchmark.py")], [str(Path(sys.executable).with_name("rubricbench"))]):
        done = subprocess.run([*command, "import", str(replies), "--model", "m", "--dry-run",
                               "--submissions-dir", str(tmp_path)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert "prompt_4_api_sync.py" in done.stdout and not any(tmp_path.iterdir())


def test_grading_flags_are_unchanged_by_the_subcommand():
    args = cli.parse_args(["--model", "import"])
    assert args.model == "import" and args.workers == 1


_LINE = st.text(alphabet=st.sampled_from(list("ab `~\t#>-*\x0c\u2028\x00\u00e9")), max_size=12)


def _longer_fence(content: str, char: str) -> str:
    run = longest = 0
    for c in content:
        run = run + 1 if c == char else 0
        longest = max(longest, run)
    return char * max(3, longest + 1)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=8), st.sampled_from(["\n", "\r\n"]), st.sampled_from("`~"))
def test_any_content_in_a_longer_fence_comes_back_exactly(lines, end, char):
    content = "".join(line + end for line in lines)
    fence = _longer_fence(content, char)
    reply = f"Here:{end}{end}{fence}python{end}{content}{fence}{end}{end}Done.{end}"
    blocks = parse(reply).blocks
    assert len(blocks) == 1 and blocks[0].content == content and blocks[0].closed


def test_round_trip_samples_from_jsonl_import_and_grade_as_the_models_samples(tmp_path, monkeypatch):
    """Two answers per task in a JSONL export, one the reference's and one the weak model's,
    become two samples that grade to those two scores, and the model to their mean."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RUBRICBENCH_TEST_DATA", str(ROOT / "test_data"))
    weak = ROOT / "tests" / "models" / "weak_model"
    records = []
    for sample, folder in (("ref", REFERENCE), ("weak", weak)):
        for task in import_tasks.builtin_tasks():
            text = "\n".join(_chat_reply(spec.name, (folder / spec.name).read_bytes()) for spec in task.files)
            records.append({"model": "sampled", "task": task.id, "sample": sample, "response": text})
    assert _import(_jsonl(tmp_path / "export.jsonl", *records), tmp_path / "subs", model="sampled") == 0
    out = tmp_path / "subs" / "user_submissions" / "sampled"
    for path in weak.iterdir():
        assert (out / "samples" / "weak" / path.name).read_bytes() == path.read_bytes(), path.name
    assert cli.main(["--model", "sampled", "--submissions-dir", str(tmp_path / "subs"),
                     "--results-dir", str(tmp_path / "results"), "-q"]) == 0
    model = json.loads((tmp_path / "results" / "latest_results.json").read_text())["models"]["sampled"]
    ref, low = model["samples"]["ref"]["percentage"], model["samples"]["weak"]["percentage"]
    assert ref == 100.0 and low < 60 and model["percentage"] == pytest.approx((ref + low) / 2, abs=1e-3)
