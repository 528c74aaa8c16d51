"""The five states and the marks of a pass that is not clean, in the text reports
(summary_report.txt, summary.md, junit.xml): each distinct, with its reason, and the
denials and raised lines shown where the submission made them."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace

from result_fakes import make_model, make_run

from benchmark.reporting.junit import render_junit
from benchmark.reporting.markdown_summary import render_markdown_summary
from benchmark.reporting.results_json import run_to_dict
from benchmark.reporting.text_summary import render_summary

DENIAL = {"kind": "network", "event": "socket.connect", "target": "203.0.113.9:443", "count": 2,
          "where": "prompt_3.py:140"}


def _doc() -> dict:
    model = make_model("mixed", 1.0)
    p1, p2, p3, p4 = model.prompts
    prompts = (replace(p1, status="not_attempted", score=0.0, passed=False),
               replace(p2, execution=({"mode": "script", "label": "fixture", "timed_out": True, "wall_s": 30.0},)),
               replace(p3, denials=(DENIAL,)),
               replace(p4, execution=({"mode": "call", "label": "fixture", "stderr_tail": "Traceback ... KeyError: 'k'",
                                       "raised": {"type": "KeyError", "message": "'k'", "file": "prompt_4.py",
                                                  "line": 7}},)))
    return run_to_dict(make_run(replace(model, prompts=prompts)))


def test_the_text_summary_names_every_state_and_what_the_sandbox_denied():
    text = render_summary(_doc())
    assert ": NOT ATTEMPTED 0.0/25" in text and ": TIMED OUT 25.0/25" in text
    assert "! network socket.connect 203.0.113.9:443 at prompt_3.py:140 (x2)" in text
    assert "fixture run raised KeyError: 'k' at prompt_4.py:7" in text
    assert "stderr (end): Traceback ... KeyError: 'k'" in text


def test_summary_md_marks_each_state_and_lists_the_denials():
    text = render_markdown_summary(_doc())
    row = next(line for line in text.splitlines() if line.startswith("| mixed |"))
    assert row.split(" | ")[1:] == ["➖ 0.00", "⏱️ 25.00", "✅🚫 25.00", "✅ 25.00 |"]
    assert "| mixed | prompt_3 | network | socket.connect | 203.0.113.9:443 | prompt_3.py:140 | 2 |" in text
    assert "➖ not attempted" in text and "⏱️ timed out" in text


def test_junit_skips_a_task_not_attempted_and_fails_one_that_timed_out():
    root = ET.fromstring(render_junit(_doc()).encode("utf-8"))
    cases = {case.get("name").split(":")[0]: case for case in root.iter("testcase")}
    assert cases["prompt_1"].find("skipped") is not None
    assert cases["prompt_2"].find("failure").get("type") == "timed_out"
    out = cases["prompt_3"].find("system-out").text
    assert "not clean: the sandbox denied an attempt" in out
    assert "sandbox denied: network socket.connect 203.0.113.9:443 at prompt_3.py:140 (x2)" in out
    assert root.get("skipped") == "1" and root.find("testsuite").get("skipped") == "1"
