"""benchmark.untrusted: the one boundary every piece of submission-derived text goes through."""

from __future__ import annotations

import io
import json
import sys
import time

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmark import cli, untrusted
from benchmark.reporting.progress import Progress
from benchmark.types import RunConfig
from benchmark.untrusted import escape, for_stream, is_clean, text

HOSTILE = st.text(st.characters(exclude_categories=()), max_size=300) | st.text(
    st.sampled_from("\x1b\x00\n\r\t\x7f\x85\x9b\u202e\u2066\u2028\ud800\udfff\ufffe[]A1 \\"),
    max_size=300)


def test_control_characters_are_escaped_visibly():
    assert text("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert text("\x00\x7f\x9b") == "\\x00\\x7f\\x9b"
    assert text("line\nnext\r\t") == "line\\nnext\\r\\t"


def test_lone_surrogates_and_bidi_overrides_are_escaped_visibly():
    assert text("\ud800x\udfff") == "\\ud800x\\udfff"
    assert text("abc\u202edef\u2066") == "abc\\u202edef\\u2066"
    assert text("para\u2029") == "para\\u2029"


def test_clean_text_is_returned_unchanged_including_emoji_and_accents():
    for sample in ("", "plain", "⚠️ Quality (2.4/3.0): ✓a ✗b", "Ünïcödé 日本語 🎯", "back\\slash"):
        assert text(sample) is sample or text(sample) == sample


def test_long_text_is_cut_with_the_number_of_characters_left_out():
    out = text("x" * 5000, 100)
    assert len(out) <= 100
    assert out.endswith(" more characters)")
    shown = out.split("...")[0]
    assert out == f"{shown}... ({5000 - len(shown)} more characters)"


def test_a_cut_counts_original_characters_and_never_splits_an_escape():
    out = text("\x1b" * 1000, 60)
    assert len(out) <= 60 and out.startswith("\\x1b" * 8)
    assert out == "\\x1b" * 8 + "... (992 more characters)"


def test_the_limit_holds_even_when_it_is_tiny():
    assert text("abcdef", 3) == "abc"
    assert text("abc", 3) == "abc"
    assert text("\x1b\x1b", 3) == "\\x1"


def test_huge_hostile_text_costs_time_bounded_by_the_limit_not_its_size():
    started = time.perf_counter()
    for _ in range(20):
        out = text("\x1b\ud800" * 5_000_000, 2000)
    assert time.perf_counter() - started < 1.0
    assert out.endswith("(9999606 more characters)") and len(out) <= 2000


def test_bytes_are_decoded_with_replacement():
    assert text(b"ok \xff\xfe \x1b") == "ok \ufffd\ufffd \\x1b"
    assert text(b"caf\xc3\xa9") == "café"


def test_a_value_that_cannot_print_itself_is_shown_by_its_type():
    class Hostile:
        def __str__(self):
            raise RuntimeError("no")

    assert text(Hostile()) == "<unprintable Hostile>"


def test_data_cleans_every_string_key_and_value_and_keeps_numbers():
    cleaned = untrusted.data({"\x1bk": ["\ud800", 1, 2.5, None, True], "n": {"x": "\x9b"}})
    assert cleaned == {"\\x1bk": ["\\ud800", 1, 2.5, None, True], "n": {"x": "\\x9b"}}
    assert untrusted.all_clean(cleaned)
    assert not untrusted.all_clean({"a": ["ok", "\x1b"]})
    assert not untrusted.all_clean({"\ud800": 1})


def test_for_stream_never_raises_on_a_narrow_terminal():
    ascii_out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    ascii_out.write(for_stream("🎯 Final \ud800 Score", ascii_out.encoding))
    ascii_out.flush()
    assert ascii_out.buffer.getvalue() == b"\\U0001f3af Final \\ud800 Score"
    assert for_stream("\ud800", "utf-8") == "\\ud800"
    assert for_stream("ok", "no-such-codec") == "ok"
    assert for_stream("é", None) == "é"


@settings(max_examples=300, deadline=None)
@given(HOSTILE, st.integers(min_value=0, max_value=400))
def test_text_is_clean_bounded_idempotent_and_serialisable(value, limit):
    out = text(value, limit)
    assert len(out) <= limit
    assert is_clean(out, limit)
    assert text(out, limit) == out
    assert "\x1b" not in out
    assert json.loads(orjson.dumps(out)) == out
    out.encode("utf-8")


@settings(max_examples=200, deadline=None)
@given(HOSTILE)
def test_escape_keeps_every_safe_character_in_order(value):
    escaped = escape(value)
    assert is_clean(escaped)
    safe = "".join(ch for ch in value if not untrusted.UNSAFE.match(ch))
    it = iter(escaped)
    assert all(ch in it for ch in safe)  # a subsequence: nothing safe is dropped or reordered


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(HOSTILE, st.lists(HOSTILE, max_size=3), max_size=4))
def test_all_clean_agrees_with_is_clean_on_every_key_and_string(value):
    strings = list(value) + [item for items in value.values() for item in items]
    assert untrusted.all_clean(value) == all(is_clean(s) for s in strings)


def _ascii_terminal() -> io.TextIOWrapper:
    stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    stream.isatty = lambda: True
    return stream


@pytest.mark.parametrize("quiet_bar", [False, True], ids=["bar", "plain"])
def test_the_terminal_path_never_raises_on_what_it_cannot_encode(monkeypatch, quiet_bar):
    out, err = _ascii_terminal(), _ascii_terminal()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    progress = Progress(1, quiet=quiet_bar)
    assert progress.enabled is not quiet_bar
    progress.write("🎯 Final \ud800")
    progress.close()
    cli._say(RunConfig(), "📄 café")
    cli._error("folder 'evil\x1b[2J\ud800' 🎯")
    out.flush()
    err.flush()
    assert b"\\U0001f3af Final \\ud800\n" in out.buffer.getvalue()
    assert b"\\U0001f4c4 caf\\xe9\n" in out.buffer.getvalue()
    assert b"error: folder 'evil\\x1b[2J\\ud800' \\U0001f3af\n" in err.buffer.getvalue()
