"""Source decoding: the grader reads each file as its consumer does, so what is graded is what runs."""

from __future__ import annotations

import ast
import codecs
import subprocess
import sys

import pytest

from benchmark import decoding
from benchmark.analyzers.security import bandit_issues
from benchmark.submission import load_source, read_text

LATIN1 = b"# -*- coding: latin-1 -*-\n# r\xe9sum\xe9\nS = 'caf\xe9'\n"
CP1252 = b"# coding: cp1252\nS = '\x93quoted\x94 \x80'\n"
SHEBANG_LINE2 = b"#!/usr/bin/env python3\n# vim: set fileencoding=iso-8859-15 :\nS = '\xa4'\n"
CR_ONLY = b"# first line\r# coding: latin-1\rS = '\xe9'\r"
BOM = codecs.BOM_UTF8 + "S = 'caf\u00e9'\n".encode("utf-8")
BOM_UTF8_COOKIE = codecs.BOM_UTF8 + b"# coding: utf-8\nS = 'x'\n"
ACCEPTED = {"latin1": LATIN1, "cp1252": CP1252, "line2": SHEBANG_LINE2, "cr_only": CR_ONLY,
            "bom": BOM, "bom_utf8_cookie": BOM_UTF8_COOKIE}
UTF7_FACADE = b"# coding: utf-7\nS = 'clean'\n# a comment +AAo-S = 'hidden'\n"


def _constant(text: str) -> str:
    """The value the source assigns to S last (as the analysers' syntax tree says)."""
    assigns = [n for n in ast.parse(text).body if isinstance(n, ast.Assign)]
    return assigns[-1].value.value


def _run_by_cpython(tmp_path, data: bytes) -> str:
    """The value of S when CPython itself runs ``data`` as a script."""
    script = tmp_path / "sample.py"
    script.write_bytes(data + b"\nprint(ascii(S))\n")
    out = subprocess.run([sys.executable, "-I", "-B", str(script)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return ast.literal_eval(out.stdout.strip())


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_accepted_python_source_decodes_to_exactly_what_cpython_runs(tmp_path, case):
    text, error = decoding.decode_python(ACCEPTED[case])
    assert error is None
    assert _constant(text) == _run_by_cpython(tmp_path, ACCEPTED[case])


def test_latin1_and_cp1252_cookies_decode_non_ascii_characters():
    assert _constant(decoding.decode_python(LATIN1)[0]) == "caf\u00e9"
    assert _constant(decoding.decode_python(CP1252)[0]) == "\u201cquoted\u201d \u20ac"
    assert _constant(decoding.decode_python(SHEBANG_LINE2)[0]) == "\u20ac"  # iso-8859-15


def test_a_utf8_bom_is_removed_and_a_cookie_after_code_is_ignored():
    assert decoding.decode_python(BOM)[0] == "S = 'caf\u00e9'\n"
    text, error = decoding.decode_python(b"S = 1\n# coding: latin-1\nT = '\xe9'\n")
    assert text is None and error.startswith("not valid UTF-8 (byte 29): ")  # line 3 is not UTF-8
    assert "('\u00e9' on line 3)" in error


@pytest.mark.parametrize(("data", "named"), [
    (UTF7_FACADE, "utf-7"),
    (b"# coding: raw_unicode_escape\nS = 1 # \\u000aS = 2\n", "raw_unicode_escape"),
    (b"# coding: utf-16\nS = 1\n", "utf-16"),
    (b"# coding: hz\nS = 1\n", "hz"),
    (b"# coding: rot13\nS = 1\n", "rot13"),
])
def test_a_coding_declaration_that_is_not_ascii_compatible_is_refused_naming_the_codec(data, named):
    text, error = decoding.decode_python(data)
    assert text is None
    assert error == f"its coding declaration names {named}, which is not ASCII-compatible (refused)"


@pytest.mark.parametrize(("data", "error"), [
    (codecs.BOM_UTF8 + b"# coding: latin-1\nS = 1\n",
     "its coding declaration conflicts with its UTF-8 byte order mark"),
    ("S = 1\n".encode("utf-16"), "UTF-16 text (byte order mark): Python source must use an "
                                 "ASCII-compatible encoding"),
    ("S = 1\n".encode("utf-32"), "UTF-32 text (byte order mark): Python source must use an "
                                 "ASCII-compatible encoding"),
    (b"# coding: no-such-codec\nS = 1\n", "unknown source encoding (no-such-codec)"),
    (b"# coding: cp1252\nS = '\x81'\n", "not valid cp1252 (byte 22)"),
    (b"S = '\xe9'\n", "not valid UTF-8 (byte 5): it reads as Latin-1 (ISO-8859-1) or cp1252 text "
                     "('\u00e9' on line 1); save it as UTF-8"),
    (b"S = '\x93q\x94'\n", "not valid UTF-8 (byte 5): it reads as cp1252 (Windows-1252) text "
                           "('\u201c' on line 1); save it as UTF-8"),
    (b"S = '\xff\x00\x81\xfe'\n", "binary file (contains NUL bytes)"),
    ("S = 1\n".encode("utf-16-le"), "UTF-16-LE text (no byte order mark): Python source must use "
                                    "an ASCII-compatible encoding"),
    ("S = 1\n".encode("utf-32-be"), "UTF-32-BE text (no byte order mark): Python source must use "
                                    "an ASCII-compatible encoding"),
])
def test_python_source_cpython_would_not_decode_is_an_error_saying_why(data, error):
    assert decoding.decode_python(data) == (None, error)


@pytest.mark.parametrize(("encoding", "compatible"), [
    ("utf-8", True), ("iso-8859-1", True), ("cp1252", True), ("shift_jis", True), ("gb18030", True),
    ("utf-7", False), ("utf-16", False), ("utf-32-le", False), ("hz", False), ("iso2022_jp", False),
    ("raw_unicode_escape", False), ("unicode_escape", False), ("cp037", False), ("base64", False),
])
def test_ascii_compatibility_is_measured_on_the_codec(encoding, compatible):
    assert decoding.ascii_compatible(encoding) is compatible


def test_yaml_reads_utf16_with_a_bom_as_pyyaml_does_and_json_names_utf16():
    data = "name: caf\u00e9\n".encode("utf-16")
    assert decoding.decode_yaml(data) == ("name: caf\u00e9\n", None)
    assert decoding.decode_json('{"a": 1}'.encode("utf-16")) == (
        None, "UTF-16 text (byte order mark): JSON must be UTF-8 (RFC 8259)")
    assert decoding.decode_yaml("a: 1\n".encode("utf-32"))[1].startswith("UTF-32 text")
    assert decoding.decode_json(codecs.BOM_UTF8 + b'{"a": 1}') == ('{"a": 1}', None)


def test_utf16_without_a_byte_order_mark_is_named_not_called_binary():
    assert decoding.decode_json('{"a": "caf\u00e9"}\n'.encode("utf-16-le")) == (
        None, "UTF-16-LE text (no byte order mark): JSON must be UTF-8 (RFC 8259)")
    assert decoding.decode_yaml("a: 1\n".encode("utf-16-be")) == (
        None, "UTF-16-BE text (no byte order mark): YAML is read as UTF-8, or UTF-16 with a byte order mark")
    assert decoding.decode_utf8(b"\x00\x01\x02\x03")[1] == "binary file (contains NUL bytes)"


def test_load_source_keeps_the_exact_bytes_it_decoded(tmp_path):
    path = tmp_path / "prompt_3_transform.py"
    path.write_bytes(CP1252)
    source = load_source(path, python=True)
    assert source.usable and source.parsed and source.data == CP1252
    assert read_text(path) == (source.text, None, source.sha256)
    (tmp_path / "config.yaml").write_bytes("a: 1\n".encode("utf-16"))
    assert load_source(tmp_path / "config.yaml", python=False).text == "a: 1\n"


def test_bandit_reads_a_cp1252_source_as_the_interpreter_does():
    text = decoding.decode_python(b"# coding: cp1252\nimport pickle\nS = '\x94'\npickle.loads(S)\n")[0]
    issues = bandit_issues(text, "prompt_1_solution.py")
    assert [issue.line for issue in issues if issue.test_id == "B301"] == [4]
    assert decoding.source_bytes(text).startswith(b"# coding: cp1252\n")


def test_python_files_are_exactly_the_py_files_so_excerpts_decode_as_grading_did():
    from benchmark.prompts import PROMPT_MODULES

    for module in PROMPT_MODULES:
        assert {n for n in module.FILES if n.endswith(".py")} == set(module.PYTHON_FILES)
