"""Chat replies saved as files are named as such; code that merely quotes a fence is not."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest
import yaml

from benchmark.diagnosis import chat_reply, explained, looks_like_prose


def _python_error_line(text: str) -> int:
    with pytest.raises(SyntaxError) as caught:
        ast.parse(text)
    return caught.value.lineno


@pytest.mark.parametrize(("line", "prose"), [
    ("Here is the fixed script:", True), ("Sure! Here's the refactored code.", True),
    ("- The loop now uses a set for lookups", True), ("Hope this helps!", True),
    ("return total", False), ("key: value", False), ("import os, sys, json", False),
    ("x = 1  # set the thing", False), ("with open(p) as f:", False), ("else:", False),
])
def test_prose_lines(line, prose):
    assert looks_like_prose(line) is prose


def test_a_fenced_reply_names_the_block_lines():
    reply = "Here is the code:\n\n```python\nimport os\n\ndef main():\n    return 1\n```\n\nDone.\n"
    assert chat_reply(reply, _python_error_line(reply)) == (
        "the file is a chat reply: the code sits in a fenced block at lines 3-8; "
        "the grader scores files exactly as delivered")


def test_several_blocks_are_all_named():
    reply = "```python\nx = 1\n```\nand\n~~~\ny = 2\n~~~\n"
    assert "2 fenced blocks at lines 1-3, 5-7" in chat_reply(reply, _python_error_line(reply))


def test_a_fence_quoted_in_a_docstring_does_not_explain_an_unrelated_error():
    code = 'def f():\n    """Example:\n\n```python\nf()\n```\n"""\n    return (\n'
    assert chat_reply(code, _python_error_line(code)) is None


def test_a_plain_syntax_error_is_no_chat_reply():
    assert chat_reply("def f(:\n    return 1\n", 1) is None


def test_data_files_too():
    reply = 'Here is the JSON:\n```json\n{"a": 1}\n```\n'
    with pytest.raises(json.JSONDecodeError) as caught:
        json.loads(reply)
    assert "fenced block at lines 2-4" in explained(reply, caught.value.lineno, "the JSON parser",
                                                     caught.value.msg)
    fenced_yaml = "```yaml\na: 1\n```\n"
    with pytest.raises(yaml.YAMLError) as failed:
        yaml.safe_load(fenced_yaml)
    line = failed.value.problem_mark.line + 1
    assert "fenced block at lines 1-3" in chat_reply(fenced_yaml, line)


def test_a_run_does_not_import_markdown_it_until_a_file_needs_the_diagnosis():
    """markdown_it (~13 ms) is imported by ``chat_reply`` only: loading the CLI and the run's
    commands leaves it out, and the diagnosis still finds a chat reply's fences afterwards."""
    code = ("import sys, benchmark.cli, benchmark.commands, benchmark.submission\n"
            "assert 'markdown_it' not in sys.modules, 'imported eagerly'\n"
            "from benchmark.diagnosis import chat_reply\n"
            "text = 'Here it is:\\n```python\\nx = 1\\n```\\n'\n"
            "print(chat_reply(text, 1))\n"
            "assert 'markdown_it' in sys.modules\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("the file is a chat reply")
