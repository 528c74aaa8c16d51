"""The causes of a run's exit code on stderr (exit_status.name_causes), on fake results."""

from __future__ import annotations

from dataclasses import replace

from benchmark import exit_status
from benchmark.rubric import RUBRIC
from result_fakes import make_prompt
from benchmark.scoring import score_model

SYNTAX = "prompt_1_solution.py: syntax error: invalid syntax (line 1)"


def _model(name, error=None, timed_out=False):
    prompts = [make_prompt(rubric, error=error if rubric.id == "prompt_1" else None) for rubric in RUBRIC]
    if timed_out:
        prompts[2] = replace(prompts[2], execution=({"timed_out": True, "wall_s": 30.04},))
    return score_model(name, "user_submissions", prompts)


def test_one_reason_on_many_prompts_is_one_line_naming_the_first_and_counting_the_rest(capsys):
    models = [_model(f"m{i:03d}", error=SYNTAX) for i in range(100)] + [_model("slow", timed_out=True)]
    exit_status.name_causes(models)
    assert capsys.readouterr().err.splitlines() == [
        f"error: model 'm000' prompt_1: {SYNTAX} (the same on 99 more: model 'm001' prompt_1, "
        "model 'm002' prompt_1, model 'm003' prompt_1 and 96 more)",
        "error: model 'slow' prompt_3: a child run hit the wall-clock time-out (killed after 30.0 s)"]


def test_over_the_cap_the_other_causes_are_counted_on_one_line(capsys):
    models = [_model(f"m{i:03d}", error=f"reason {i}") for i in range(exit_status.CAUSE_LINES + 5)]
    exit_status.name_causes(models)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == exit_status.CAUSE_LINES + 1
    assert lines[0] == "error: model 'm000' prompt_1: reason 0"
    assert lines[-1] == ("error: ... and 5 more prompts that could not be graded or timed out: "
                         "see summary_report.txt")


def test_an_untrusted_reason_is_escaped_on_stderr(capsys):
    exit_status.name_causes([_model("m", error="bad \x1b[2J name")])
    assert capsys.readouterr().err == "error: model 'm' prompt_1: bad \\x1b[2J name\n"
