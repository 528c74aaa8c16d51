"""The terminal's view after grading (reporting.terminal, reporting.terminal_losses) and the
progress lines without a terminal (reporting.progress), on hand-made results documents (of the
shape the schema gives them; their names and reasons may be hostile, as the terminal escapes
them again)."""

from __future__ import annotations

import io
import threading

import pytest

from benchmark.reporting import terminal, terminal_losses
from benchmark.reporting.common import CATEGORY_NAMES
from benchmark.reporting.progress import Progress, duration
from benchmark.reporting.terminal import format_model_line, format_table
from benchmark.reporting.terminal_losses import format_losses
from benchmark.reporting.view import run_view

SYNTAX = "prompt_1_solution.py: syntax error: invalid syntax (line 1)"


def check(cid, points, earned, status="pass", rationale="ok", category="execution"):
    return {"id": cid, "category": category, "points": points, "earned": earned, "status": status,
            "method": "exec", "rationale": rationale, "evidence": []}


def prompt(score, *, max_score=25.0, status="ok", passed=None, checks=None, execution=(), **extra):
    """A prompt whose checks carry its points: one check losing ``max_score - score`` unless given."""
    lost = max_score - score
    checks = checks if checks is not None else [
        check("work", max_score, score, "pass" if not lost else "partial", f"lost {lost:.2f}")]
    categories = {name: {"earned": 0.0, "max": 0.0, "factor": 1.0} for name in CATEGORY_NAMES}
    for item in checks:
        categories[item["category"]]["earned"] += item["earned"]
        categories[item["category"]]["max"] += item["points"]
    return {"title": "t", "score": score, "max_score": max_score, "status": status,
            "passed": score >= 0.6 * max_score if passed is None else passed, "feedback": [], "tests_passed": {},
            "detailed_scoring": categories, "checks": checks, "execution": list(execution), **extra}


def model(name, prompts, grade="C"):
    total = sum(p["score"] for p in prompts.values())
    most = sum(p["max_score"] for p in prompts.values())
    return {"model_name": name, "tier": "user_submissions", "prompts": prompts, "overall_score": total,
            "total_possible": most, "percentage": 100 * total / most, "grade": grade, "badge": "b",
            "cached": False}


def document(*models):
    return {"schema_version": "1.0", "run_id": "20250101_000000",
            "benchmark_run": {"timestamp": "2025-01-01T00:00:00", "total_models": len(models)},
            "models": {m["model_name"]: m for m in models},
            "comparison": {"ranking": [], "prompt_performance": {}, "summary_stats": {}},
            "_metadata": {"grader_version": "0.1.0", "rubric_hash": "0123456789abcdef"}}


def every_state_doc():
    security_lost = [check("work", 20, 20), check("safe_yaml", 5, 2, "partial", "unsafe load", "security")]
    denied = [{"kind": "network", "event": "socket.connect", "target": "10.0.0.1:80", "count": 3,
               "where": "prompt_4_api_sync.py:12"}]
    alpha = model("alpha", {"prompt_1": prompt(25), "prompt_2": prompt(10),
                            "prompt_3": prompt(0, status="error", checks=[check("c", 25, 0, "error", SYNTAX)]),
                            "prompt_4": prompt(20, denials=denied)})
    beta = model("beta", {"prompt_1": prompt(25), "prompt_2": prompt(10),
                          "prompt_3": prompt(0, status="error", checks=[check("c", 25, 0, "error", SYNTAX)]),
                          "prompt_4": prompt(20)})
    gamma = model("gamma", {"prompt_1": prompt(22, checks=security_lost),
                            "prompt_2": prompt(0, status="not_attempted"),
                            "prompt_3": prompt(5, execution=[{"mode": "call", "timed_out": True}]),
                            "prompt_4": prompt(3, checks=[check("work", 20, 3),  # a fail: no "!"
                                                          check("sec", 5, 0, "fail", "x", "security")])})
    return document(gamma, beta, alpha)


def test_the_table_ranks_best_first_with_shared_places_and_marks_every_state():
    lines = format_table(every_state_doc())
    header = lines[1].split()
    assert header == ["#", "Model", "prompt_1", "prompt_2", "prompt_3", "prompt_4", "Total", "Grade"]
    rows = [line.split() for line in lines[2:5]]
    assert [row[:2] for row in rows] == [["1", "alpha"], ["1", "beta"], ["3", "gamma"]]  # a tie, then 3
    assert rows[0][2:] == ["25.0", "✓", "10.0", "✗", "0.0", "E", "20.0", "✓D", "55.0%", "C"]
    assert rows[1][8:10] == ["20.0", "✓"]  # beta: no denial, no mark
    assert rows[2][2:10] == ["22.0", "✓!", "0.0", "-", "5.0", "T", "3.0", "✗"]
    legend = lines[5]
    for words in ("✓ passed", "✗ failed", "E could not be graded", "- not attempted", "T timed out",
                  "! passed with a failed security check", "D the sandbox denied"):
        assert words in legend
    assert len({len(line) for line in lines[1:5]}) <= 2  # aligned (rstrip may shorten the last cell)
    assert [line.index("prompt_2") for line in lines[1:2]] == [lines[2].index("10.0")]


def test_the_grading_line_names_ten_models_and_counts_the_rest():
    assert terminal.format_grading_line(["a", "b"]) == "🔍 Grading 2 model(s): a, b"
    names = [f"m{i:03d}" for i in range(300)]
    assert terminal.format_grading_line(names) == (
        "🔍 Grading 300 model(s): " + ", ".join(names[:10]) + " and 290 more")


def test_a_model_line_counts_its_states():
    gamma = every_state_doc()["models"]["gamma"]
    assert format_model_line(gamma) == ("graded gamma: 30.00/100 (30.0%), grade C; 1 passed, 1 failed, "
                                        "1 not attempted, 1 timed out")


def test_one_reason_on_26_checks_and_on_26_models_is_printed_once_with_its_count_and_where():
    broken = [check(f"check_{i:02d}", 1.0, 0.0, "error", SYNTAX) for i in range(26)]
    models = [model(f"m{i:02d}", {"prompt_1": prompt(0, max_score=26, status="error", checks=broken)})
              for i in range(26)]
    lines = format_losses(document(*models))
    text = "\n".join(lines)
    assert text.count(SYNTAX) == 1 and text.count("check_00") == 1
    line = next(line for line in lines if SYNTAX in line)
    assert line.strip().startswith("-26.00 26 checks (check_00, check_01, check_02, … 23 more) (error):")
    assert "[also on prompt_1 of 25 more models: m01, m02, m03 and 22 more]" in line
    assert [line for line in lines if line.startswith("m")] == ["m00"]  # nothing new on the others
    assert len(lines) == 5  # a blank line, the heading, the model, its prompt, the line


def test_losses_name_each_check_largest_first_and_the_gates_with_their_formula():
    gated = prompt(12.5, checks=[check("runs", 10, 5, "partial", "half the runs", "execution"),
                                 check("safe", 10, 10, category="security"),
                                 check("naming", 5, 4, "partial", "one bad name", "quality")])
    gated["detailed_scoring"]["security"].update(earned=5.0, factor=0.5)
    gated["detailed_scoring"]["quality"].update(earned=2.5, factor=0.625)  # 0.25 + 0.75 * 0.5
    doc = document(model("a", {"prompt_1": gated}))
    losses = run_view(doc).model("a").prompt("prompt_1").losses
    assert sum(loss.points for loss in losses) == pytest.approx(25 - 12.5)
    lines = format_losses(doc)
    assert lines[3] == "  prompt_1 12.50/25 ✗"
    assert lines[4] == ("    -6.50 gates, w = execution 5.00/10.00 = 0.50: × w = 0.50: security -5.00; "
                        "× (0.25 + 0.75·w) = 0.62: quality -1.50 (docs/scoring.md)")
    assert lines[5:] == ["    -5.00 runs (partial): half the runs", "    -1.00 naming (partial): one bad name"]


def test_a_line_met_on_other_tasks_names_each_model_and_task():
    shared = check("naming", 5, 4, "partial", "one bad name", "quality")
    doc = document(model("a", {"prompt_1": prompt(24, checks=[check("w", 20, 20), shared]),
                               "prompt_2": prompt(24, checks=[check("w", 20, 20), shared])}),
                   model("b", {"prompt_3": prompt(24, checks=[check("w", 20, 20), shared])}))
    lines = format_losses(doc)
    assert lines[2:] == ["a", "  prompt_1 24.00/25 ✓",
                         "    -1.00 naming (partial): one bad name [also on 2 more prompts: a prompt_2, b prompt_3]"]


def test_a_prompt_shows_at_most_its_cap_of_lines_and_counts_the_rest():
    many = [check(f"c{i}", 1.0, 0.0, "fail", f"reason {i}") for i in range(10)]
    lines = format_losses(document(model("a", {"prompt_1": prompt(15, checks=many + [check("x", 15, 15)])})))
    shown = [line for line in lines if line.startswith("    -")]
    assert len(shown) == terminal_losses.PROMPT_LINES
    assert lines[-1] == f"    … and {10 - terminal_losses.PROMPT_LINES} smaller, -4.00"


def test_denials_and_what_a_run_raised_are_listed_under_their_prompt():
    raised = {"type": "ValueError", "message": "bad date", "file": "prompt_1_solution.py", "line": 43}
    doc = every_state_doc()
    doc["models"]["alpha"]["prompts"]["prompt_4"]["execution"] = [{"label": "fixture", "raised": raised}]
    text = "\n".join(format_losses(doc))
    assert ("sandbox denied: network socket.connect 10.0.0.1:80 ×3 at prompt_4_api_sync.py:12" in text)
    assert "raised ValueError: bad date at prompt_1_solution.py:43 (run fixture)" in text


def test_300_models_keep_the_table_and_the_losses_within_their_caps():
    models = [model(f"model_{i:03d}", {"prompt_1": prompt(i / 12, checks=[
        check("work", 25, i / 12, "partial", f"distinct reason {i}")])}) for i in range(300)]
    doc = document(*models)
    table = format_table(doc)
    rows = [line for line in table if line.split()[0].isdigit()]
    assert len(rows) == terminal.TABLE_HEAD + terminal.TABLE_TAIL
    assert rows[0].split()[1] == "model_299" and rows[-1].split()[1] == "model_000"
    assert (f"   … 250 more models (places 41-290): see summary_report.txt / report.html"
            == table[2 + terminal.TABLE_HEAD])
    losses = format_losses(doc)
    assert len(losses) == 2 + terminal_losses.LOSS_LINES + 1
    assert losses[-1] == (f"… {900 - terminal_losses.LOSS_LINES} more lines, of {300 - terminal_losses.LOSS_LINES // 3}"
                          " more model(s): see summary_report.txt / report.html")  # 3 lines a model
    few = format_table(document(*models[:terminal.TABLE_ROWS]))
    assert sum(line.split()[0].isdigit() for line in few) == terminal.TABLE_ROWS  # no cap at 50


def test_long_task_keys_are_numbered_and_named_under_the_table():
    doc = document(model("a", {"pack_with_a_long_name/task_one": prompt(20)}))
    lines = format_table(doc)
    assert lines[1].split() == ["#", "Model", "t1", "Total", "Grade"]
    assert lines[-1] == "  t1 = pack_with_a_long_name/task_one"


def test_untrusted_names_reasons_and_denials_reach_the_terminal_escaped_and_aligned():
    evil = "evil\x1b[2J\u202e\x07name"
    hostile = check("work", 25, 1, "partial", "raised \x1b]0;pwned\x07 \ud800 here")
    doc = document(model(evil, {"prompt_1": prompt(1, checks=[hostile], denials=[
        {"kind": "file", "event": "open", "target": "/etc/\x1b[31mpasswd", "count": 1, "where": ""}], execution=[
        {"label": "x\x1b", "raised": {"type": "E\x1b", "message": "m\x9b", "file": "f\x1b", "line": 1}}])}),
        model("宽宽宽宽_wide", {"prompt_1": prompt(20)}))
    out = "\n".join(format_table(doc) + format_losses(doc) + [format_model_line(doc["models"][evil])])
    assert not any(char in out for char in "\x1b\x07\x9b\u202e\ud800")
    assert "evil\\x1b[2J\\u202e\\x07name" in out and "/etc/\\x1b[31mpasswd" in out
    rows = format_table(doc)[2:4]
    at = [terminal.width(row[:row.index("%")]) for row in rows]  # the Total column, in terminal columns
    assert at[0] == at[1], rows


def test_a_model_name_longer_than_the_column_is_cut_in_the_table_only():
    long = "m" * 60
    doc = document(model(long, {"prompt_1": prompt(5)}))
    assert "m" * (terminal.NAME_WIDTH - 1) + "…" in format_table(doc)[2]
    assert format_losses(doc)[2] == long


# ---- progress without a terminal -------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_without_a_terminal_a_progress_line_comes_every_interval_and_at_the_end():
    clock, err = Clock(), io.StringIO()
    progress = Progress(300, quiet=False, clock=clock, stream=err, tty=False, ticking=False)
    assert progress.lines and not progress.enabled and progress.bar is None
    for _ in range(100):
        progress.done("cached", cached=True)  # served from the cache: no time, no pace
    clock.now += 4
    progress.tick()
    assert err.getvalue() == ""  # less than 10 s
    clock.now += 6
    progress.done("m", cached=False)
    assert err.getvalue() == "graded 101/300 models (33 %), 10 s elapsed, ~33 min left\n"  # 199 x 10 s
    clock.now += 5
    progress.tick()
    assert err.getvalue().count("\n") == 1
    for _ in range(199):
        progress.done("m")
    assert err.getvalue().splitlines()[-1] == "graded 300/300 models (100 %), 15 s elapsed"
    progress.note("2 worker(s) admitted")
    assert progress.line().endswith("; 2 worker(s) admitted")


def test_the_progress_thread_writes_lines_while_no_model_finishes():
    clock, err = Clock(), io.StringIO()
    progress = Progress(2, quiet=False, clock=clock, stream=err, tty=False, interval=0.02)
    try:
        clock.now += 30
        deadline = threading.Event()
        for _ in range(200):
            if err.getvalue():
                break
            deadline.wait(0.01)
        assert err.getvalue().startswith("graded 0/2 models (0 %), 30 s elapsed\n")
    finally:
        progress.close()


@pytest.mark.parametrize("quiet, tty", [(True, False), (True, True), (False, True)])
def test_no_progress_line_with_quiet_or_on_a_terminal(quiet, tty, monkeypatch):
    clock, err = Clock(), io.StringIO()
    monkeypatch.setattr("sys.stderr", io.StringIO())  # (the bar, when tty, draws here)
    progress = Progress(1, quiet=quiet, clock=clock, stream=err, tty=tty, ticking=False)
    clock.now += 60
    progress.done("m")
    progress.close()
    assert err.getvalue() == "" and not progress.lines
    assert progress.enabled is (tty and not quiet)


def test_durations_read_in_whole_units():
    assert [duration(s) for s in (0, 35.4, 119, 130, 780, 7199, 7500)] == [
        "0 s", "35 s", "119 s", "2 min", "13 min", "2 h 00 min", "2 h 05 min"]


def test_a_record_of_the_wrong_shape_is_refused_not_shown_as_something():
    """The terminal reads the validated document only (``reporting.view``): a record of the
    wrong shape, which only a grader bug could leave, raises instead of being shown as zeros
    (the CLI then says the table, or that model's results, cannot be shown)."""
    for name, record in (("odd", {"model_name": "odd", "prompts": ["not", "a", "mapping"], "percentage": "x"}),
                         ("half", {"model_name": "half", "prompts": {"prompt_1": {"score": None, "checks": [7]}}}),
                         ("gone", None)):
        doc = document(model("fine", {"prompt_1": prompt(20)}))
        doc["models"][name] = record
        for render in (format_table, format_losses):
            with pytest.raises((KeyError, TypeError)):
                render(doc)
