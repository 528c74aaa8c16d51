"""A raised exception names the submission's own line: the harness finds the innermost
traceback frame in the run's folder, the record keeps it, a run's summary lists it (with its
excerpt once written) and a capped stderr tail without the run's folder in its paths."""

from __future__ import annotations

from benchmark.engine.grading import _exec_summary, _first_raised
from benchmark.harness import child
from benchmark.prompts.base import raised
from benchmark.reporting.excerpts import attach_excerpts
from benchmark.sandbox.result_record import RECORD_TYPES, _typed
from benchmark.secure_runner import _relative_stderr
from benchmark.types import ExecResult

modes = child._load_by_path("modes")  # (as the harness loads it)


def test_the_harness_names_the_innermost_line_of_the_runs_own_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = "def inner(d):\n    return d['k']\n\ndef outer():\n    return inner({})\n"
    scope: dict = {}
    exec(compile(source, str(tmp_path / "answer.py"), "exec"), scope)
    try:
        scope["outer"]()
    except KeyError as exc:
        info = modes._raised(exc)
    assert info["where"] == "answer.py:2" and info["type"] == "KeyError"
    try:
        exec(compile("{}['k']\n", "/usr/lib/elsewhere.py", "exec"))
    except KeyError as exc:
        assert "where" not in modes._raised(exc)  # (no frame in the run's folder)


def test_the_record_accepts_where_and_the_rationale_shows_it():
    kinds = RECORD_TYPES["exception"]
    assert _typed({"type": "KeyError", "message": "'k'", "builtin": [], "where": "a.py:2"}, kinds)
    assert not _typed({"type": "KeyError", "message": "'k'", "where": ""}, kinds)
    assert not _typed({"type": "KeyError", "message": "'k'", "where": 2}, kinds)
    assert not _typed({"type": "KeyError", "message": "'k'", "other": "x"}, kinds)
    assert raised({"type": "KeyError", "message": "'k'", "where": "a.py:2"}) == "KeyError: 'k' (at a.py:2)"
    assert raised({"type": "KeyError", "message": "'k'"}) == "KeyError: 'k'"


def test_a_runs_summary_lists_what_it_raised_and_its_stderr_tail(tmp_path):
    work = tmp_path / "work"
    import sys

    from benchmark import secure_runner

    stderr = (f'Traceback (most recent call last):\n  File "{secure_runner._INSTALL}/benchmark/harness/modes.py"'
              f', line 9\n  File "{sys.base_prefix}/lib/json/x.py", line 3\n'
              f'  File "{work}/answer.py", line 2\n\x1b[31m' + "x" * 5000 + "\nKeyError: 'k'\n")
    shown = _relative_stderr(ExecResult(1, "", stderr, False, None, 0.1, 0.1, 1.0), work).stderr
    assert 'File "benchmark/harness/modes.py"' in shown and 'File "<python>/lib/json/x.py"' in shown
    assert 'File "answer.py", line 2' in shown and str(work) not in shown
    result = ExecResult(returncode=1, stdout="", stderr=stderr, timed_out=False, killed_by=None,
                        wall_s=0.1, cpu_s=0.1, peak_rss_mb=10.0,
                        observation={"exception": None, "results": [
                            {"exception": {"type": "TypeError", "message": "no"}},
                            {"exception": {"type": "KeyError", "message": "'k'", "where": "answer.py:2"}}]})
    summary = _exec_summary({"mode": "call", "label": "fixture"}, _relative_stderr(result, work))
    assert summary["raised"] == {"type": "KeyError", "message": "'k'", "file": "answer.py", "line": 2}
    tail = summary["stderr_tail"]
    assert tail.endswith("KeyError: 'k'") and str(work) not in tail and "\x1b" not in tail
    assert len(tail) <= 2000 + 10 and "\n" not in tail  # (the last 2000 characters, on one line)
    assert _first_raised({"results": [{"exception": {"type": "E", "message": ""}}]})["line"] is None
    assert _first_raised(None) is None and _first_raised({"results": []}) is None


def test_the_written_results_show_the_raising_line_as_an_excerpt(tmp_path):
    (tmp_path / "answer.py").write_text("a = 1\nb = {}['k']\nc = 3\n", encoding="utf-8")
    import hashlib
    digest = hashlib.sha256((tmp_path / "answer.py").read_bytes()).hexdigest()
    raised_entry = {"type": "KeyError", "message": "'k'", "file": "answer.py", "line": 2}
    doc = {"models": {"m": {"prompts": {"prompt_3": {"files": {"answer.py": digest}, "checks": [],
                                                      "execution": [{"raised": raised_entry}]}}}}}
    out = attach_excerpts(doc, {"m": tmp_path})
    shown = out["models"]["m"]["prompts"]["prompt_3"]["execution"][0]["raised"]["excerpt"]
    assert shown == {"start": 1, "lines": ["a = 1", "b = {}['k']", "c = 3", ""]}
    assert "excerpt" not in raised_entry  # (the document itself is left as it was)
