"""Hostile text and names beside a clean model, through the real CLI (``benchmark.cli.main``).

The submissions tree holds a copy of the reference model (``clean_model``) and:

- ``surrogate_stdout``: its P1 program prints JSON whose strings are ``"\\ud800"`` escapes;
- ``surrogate_yaml``: its P2 YAML file (data only) has a key ``"\\ud800\\e[31m"``;
- ``ansi_class``: its P3 module raises, at import, an exception whose class name is ANSI escape
  codes drawing a fake score, thousands of characters long;
- three folders whose names cannot name a model: 200 characters, an escape code, and bytes
  that are not UTF-8.

With default flags (on a terminal, so the progress bar draws), ``-q``, ``--workers 2`` and a
cached re-run, the clean model's results are those of a run alone, the hostile models are
graded and written, the three folders are reported (escaped) and skipped with exit code 3, and
no escape character reaches the terminal.
"""

from __future__ import annotations

import dataclasses

import json
import os
import shutil
import sys
from pathlib import Path

import orjson
import pytest

from benchmark import cli

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model"
VOLATILE = {"timestamp", "wall_s", "cpu_s", "peak_rss_mb", "run_id", "finished_at",
            "timestamp_utc", "started_at", "cached"}
P1_LINE = 'sys.stdout.write(json.dumps(result, indent=2) + "\\n")'
P1_HOSTILE = ('result = [{**r, **{k: "\\ud800\\x1b[2J" for k in r if k != "id"}} for r in result]; '
              + P1_LINE)
P3_HOSTILE = ('\nEvil = type("\\x1b[2J\\x1b[H\\U0001f3af Final Score: 100.00/100 A+ Gold" + "\\x1b[8m" * 3000,'
              ' (Exception,), {})\nraise Evil("\\x1b[31mboom\\ud800")\n')
LONG_NAME = "m" * 200
ESCAPE_NAME = "evil\x1b[2J\x1b[Hmodel"
BYTES_NAME = os.fsdecode(b"latin1_caf\xe9")  # not UTF-8: a lone surrogate in Python
GRADED = ("ansi_class", "clean_model", "surrogate_stdout", "surrogate_yaml")


def _normalise(value):
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    return value


def _copy(name: str, tier: Path) -> Path:
    target = tier / name
    shutil.copytree(REFERENCE, target)
    return target


def _edit(path: Path, change) -> None:
    path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")


def _hostile_tree(root: Path) -> Path:
    subs = root / "submissions"
    _copy("clean_model", subs / "reference_implementations")
    users = subs / "user_submissions"
    p1 = _copy("surrogate_stdout", users) / "prompt_1_solution.py"
    assert P1_LINE in p1.read_text(encoding="utf-8")
    _edit(p1, lambda text: text.replace(P1_LINE, P1_HOSTILE))
    _edit(_copy("surrogate_yaml", users) / "prompt_2_config_fixed.yaml",
          lambda text: text + '"\\ud800\\e[31m": 1\n')
    _edit(_copy("ansi_class", users) / "prompt_3_transform.py", lambda text: text + P3_HOSTILE)
    for name in (LONG_NAME, ESCAPE_NAME, BYTES_NAME):
        _copy(name, users)
    return subs


def _grade(subs: Path, results: Path, *flags: str) -> tuple[int, dict]:
    code = cli.main(["--all-models", "--submissions-dir", str(subs), "--results-dir", str(results),
                     "--no-metadata", *flags])
    return code, orjson.loads((results / "latest_results.json").read_bytes())


@pytest.fixture(scope="module")
def clean_alone(tmp_path_factory):
    root = tmp_path_factory.mktemp("alone")
    _copy("clean_model", root / "submissions" / "reference_implementations")
    code, doc = _grade(root / "submissions", root / "results", "-q")
    assert code == 0
    return _normalise(doc["models"]["clean_model"])


@pytest.fixture(scope="module")
def hostile_subs(tmp_path_factory):
    return _hostile_tree(tmp_path_factory.mktemp("hostile"))


@pytest.fixture
def environment(monkeypatch):
    monkeypatch.setenv("RUBRICBENCH_TEST_DATA", str(ROOT / "test_data"))
    monkeypatch.setenv("RUBRICBENCH_TIMEOUT", "10")


def _check_terminal(out: bytes, err: bytes) -> None:
    assert b"\x1b" not in out and b"\x1b" not in err
    out.decode("utf-8"), err.decode("utf-8")  # strict: nothing undecodable was written
    for shown in ("m" * 200, "evil\\x1b[2J\\x1b[Hmodel", "latin1_caf\\udce9"):
        assert f"skipped model folder '{shown}'".encode() in err


def _check_doc(doc: dict, clean_alone: dict) -> None:
    assert sorted(doc["models"]) == list(GRADED)
    assert _normalise(doc["models"]["clean_model"]) == clean_alone
    ansi = doc["models"]["ansi_class"]["prompts"]["prompt_3"]
    rationales = " ".join(c["rationale"] for c in ansi["checks"])
    assert "failed: \\x1b[2J\\x1b[H" in rationales and "more characters)" in rationales
    yaml_notes = json.dumps(doc["models"]["surrogate_yaml"]["prompts"]["prompt_2"])
    assert "\\\\ud800\\\\x1b[31m" in yaml_notes  # the key, escaped visibly
    stdout_notes = json.dumps(doc["models"]["surrogate_stdout"]["prompts"]["prompt_1"])
    assert "\\\\ud800\\\\x1b[2J" in stdout_notes


@pytest.mark.parametrize("flags", [(), ("-q",), ("--workers", "2")], ids=["default", "quiet", "workers2"])
def test_hostile_text_and_names_never_cost_the_clean_model(flags, environment, hostile_subs, clean_alone,
                                                         tmp_path, capfdbinary, monkeypatch):
    if not flags:  # the default, on a terminal: the progress bar draws and model blocks print above it
        monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, doc = _grade(hostile_subs, tmp_path / "results", *flags)
    out, err = capfdbinary.readouterr()
    assert code == 3, err.decode("utf-8", "replace")
    _check_doc(doc, clean_alone)
    _check_terminal(out, err)
    if "-q" not in flags:  # the table after grading; without a terminal, a line per model before it
        assert b"surrogate_stdout" in out and b"best first:" in out
        assert (b"graded surrogate_stdout: " in out) is bool(flags)
    if not flags:
        assert b"4/4 models |" in err  # the progress bar did draw


def test_a_cached_rerun_of_hostile_models_is_served_from_the_cache_unchanged(environment, hostile_subs,
                                                                             clean_alone, tmp_path,
                                                                             capfdbinary):
    code, first = _grade(hostile_subs, tmp_path / "results")
    assert code == 3
    capfdbinary.readouterr()
    code, again = _grade(hostile_subs, tmp_path / "results")
    out, err = capfdbinary.readouterr()
    assert code == 3
    assert all(again["models"][name]["cached"] is True for name in GRADED)
    assert _normalise(again["models"]) == _normalise(first["models"])
    _check_doc(again, clean_alone)
    _check_terminal(out, err)


def test_only_a_rejected_folder_named_with_model_exits_3_and_records_it_escaped(environment, hostile_subs,
                                                                                tmp_path, capfdbinary):
    """Nothing is graded; the run still writes that the folder was skipped (its name escaped)."""
    code = cli.main(["--model", ESCAPE_NAME, "--submissions-dir", str(hostile_subs),
                     "--results-dir", str(tmp_path / "results"), "--no-metadata"])
    out, err = capfdbinary.readouterr()
    assert code == 3
    assert b"skipped model folder 'evil\\x1b[2J\\x1b[Hmodel'" in err and b"\x1b" not in out + err
    latest = (tmp_path / "results" / "latest_results.json").read_bytes()
    doc = json.loads(latest)
    assert doc["models"] == {} and [s["folder"] for s in doc["skipped_models"]] == ["evil\\x1b[2J\\x1b[Hmodel"]
    run_dir = tmp_path / "results" / doc["run_id"]
    assert all(b"\x1b" not in path.read_bytes() for path in run_dir.iterdir()) and b"\x1b" not in latest


def test_a_model_whose_record_cannot_be_written_exits_1_and_costs_no_one_else(environment, tmp_path,
                                                                              clean_alone, capfdbinary,
                                                                              monkeypatch):
    from benchmark import scoring

    real = scoring.score_model

    def broken_for_victim(model, tier, prompts, **totals):  # a grader bug: a record the schema rejects
        return real(model, "" if model == "victim" else tier, prompts, **totals)

    monkeypatch.setattr(scoring, "score_model", broken_for_victim)
    subs = tmp_path / "submissions"
    _copy("clean_model", subs / "reference_implementations")
    _copy("victim", subs / "user_submissions")
    code, doc = _grade(subs, tmp_path / "results", "-q", "--no-cache")
    err = capfdbinary.readouterr().err.decode("utf-8")
    assert code == 1
    assert "model 'victim' is recorded as an error" in err and "does not match the results schema" in err
    assert _normalise(doc["models"]["clean_model"]) == clean_alone
    victim = doc["models"]["victim"]
    assert victim["overall_score"] == 0 and victim["tier"] == "unknown"
    assert all(p["status"] == "error" for p in victim["prompts"].values())


def test_a_record_that_is_not_json_exits_1_and_costs_no_one_else(environment, tmp_path, clean_alone,
                                                                  capfdbinary, monkeypatch):
    """A grader bug that puts a value JSON cannot hold into one model's record: the terminal,
    the cache and the writer each cope, so every other model is written as usual."""
    from benchmark import scoring
    from benchmark.types import Evidence

    real = scoring.score_model

    def unserialisable_for_victim(model, tier, prompts):
        result = real(model, tier, prompts)
        if model != "victim":
            return result
        check = result.prompts[0].categories[0].checks[0]
        broken = dataclasses.replace(check, evidence=(Evidence(object(), None, "x"),))
        category = dataclasses.replace(result.prompts[0].categories[0], checks=(broken,))
        prompt = dataclasses.replace(result.prompts[0], categories=(category,))
        return dataclasses.replace(result, prompts=(prompt, *result.prompts[1:]))

    monkeypatch.setattr(scoring, "score_model", unserialisable_for_victim)
    subs = tmp_path / "submissions"
    _copy("clean_model", subs / "reference_implementations")
    _copy("victim", subs / "user_submissions")
    code, doc = _grade(subs, tmp_path / "results", "--no-cache")
    err = capfdbinary.readouterr().err.decode("utf-8")
    assert code == 1 and "model 'victim' is recorded as an error" in err
    assert _normalise(doc["models"]["clean_model"]) == clean_alone
    assert all(p["status"] == "error" for p in doc["models"]["victim"]["prompts"].values())
