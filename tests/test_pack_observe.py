"""The generic pack observe (script, call, http, parse), its generators and the reference memo,
against a real SecureRunner."""

from __future__ import annotations

import json
import random
import re
import textwrap
from pathlib import Path

import pytest

from benchmark.packs import reference
from benchmark.packs.generators import cases_grid, csv_rows, json_records
from benchmark.packs.observe import make_observe, task_seed
from benchmark.packs.outputs import parse_text
from benchmark.secure_runner import SecureRunner
from benchmark.submission import load_source

SEED = 20240611
SALES_CSV = "region,amount\nnorth,10\nsouth,20\nnorth,5\neast,7\nwest,3\n"

REPORT = """
import csv, json, sys
with open(sys.argv[2], newline="", encoding="utf-8") as handle:
    rows = list(csv.DictReader(handle))
print(json.dumps({"rows": len(rows), "total": sum(int(r["amount"]) for r in rows)}))
"""

ECHO = """
import json, os, sys
words = sys.stdin.read().split()
os.makedirs("out", exist_ok=True)
with open("out/result.json", "w", encoding="utf-8") as handle:
    json.dump({"words": words, "count": len(words)}, handle)
"""

PHONE = """
def normalize(number, *, country="US"):
    digits = "".join(c for c in number if c.isdigit())
    if len(digits) != 10:
        raise ValueError("need 10 digits")
    return ("+1" if country == "US" else "+44") + digits
"""


@pytest.fixture(scope="module")
def runner() -> SecureRunner:
    return SecureRunner("packs")


def _write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return folder


def _run_fn(runner: SecureRunner, model: dict[str, str], calls: list):
    """The engine's run, in small: the model's files staged unless it is the reference."""
    def run(request, stage, reference=False):
        calls.append(reference)
        staged = {} if reference else {name: textwrap.dedent(t).encode() for name, t in model.items()}
        staged.update(stage)
        return runner.run_harness(request, staged, timeout=request.get("timeout_s", 10))
    return run


def _observe(manifest, folder, runner, model, *, seed=SEED, files=None):
    calls: list[bool] = []
    facts = make_observe(manifest, folder, "acme")(files or {}, _run_fn(runner, model, calls), folder, seed)
    return facts, calls


# ---- script mode ------------------------------------------------------------------------------


def _sales_task(tmp_path: Path) -> tuple[dict, Path]:
    folder = _write(tmp_path / "sales", {
        "data/sales.csv": SALES_CSV, "answers/expected.json": '{"rows": 5, "total": 45}',
        "reference/report.py": REPORT})
    manifest = {
        "id": "sales", "files": [{"path": "report.py", "kind": "python"}],
        "fixtures": ["data/sales.csv"], "answers": {"fixture": "answers/expected.json"},
        "reference": "reference",
        "run": {"mode": "script", "entry": "report.py", "argv": ["--input", "sales.csv"],
                "stage": {"sales.csv": "data/sales.csv"}, "output": {"from": "stdout", "parse": "json"}},
        "perturb": {"count": 2, "seed": "run", "expected": "reference",
                    "inputs": {"sales.csv": {"generator": "builtin.csv_rows", "from": "data/sales.csv",
                                             "with": {"drop": 0.3, "duplicate": 0.3, "jitter": {"amount": 0.5}}}}},
    }
    return manifest, folder


def test_script_runs_parse_stdout_and_expected_values_come_from_answers_and_the_reference(tmp_path, runner):
    reference.clear()
    manifest, folder = _sales_task(tmp_path)
    facts, calls = _observe(manifest, folder, runner, {"report.py": REPORT})
    assert facts["mode"] == "script" and facts["problem"] == ""
    assert facts["seed"] == task_seed({"seed": "run"}, SEED, "acme", "sales")
    assert set(facts["runs"]) == {"fixture", "perturbed_1", "perturbed_2"}
    fixture = facts["runs"]["fixture"]
    assert fixture["exit_code"] == 0 and fixture["output"] == {"rows": 5, "total": 45}
    assert fixture["output_error"] is None and fixture["problem"] is None and not fixture["timed_out"]
    assert facts["expected"]["fixture"] == {"rows": 5, "total": 45}  # the answer key
    for label in ("perturbed_1", "perturbed_2"):  # the reference's output, same program
        assert facts["expected"][label] == facts["runs"][label]["output"]
        assert facts["inputs"][label]["sales.csv"] != facts["inputs"]["fixture"]["sales.csv"]
    assert facts["expected_problem"] == {}
    assert calls.count(True) == 2 and calls.count(False) == 3

    # a second model: the reference is not run again (memo), and its crash is data
    facts2, calls2 = _observe(manifest, folder, runner, {"report.py": "import sys\nsys.exit(3)\n"})
    assert calls2.count(True) == 0 and reference.STATS["hits"] == 2
    assert facts2["expected"] == facts["expected"]
    crashed = facts2["runs"]["fixture"]
    assert crashed["exit_code"] == 3 and crashed["output"] is None and "does not parse" in crashed["output_error"]


def test_perturbed_inputs_are_deterministic_per_seed(tmp_path, runner):
    reference.clear()
    manifest, folder = _sales_task(tmp_path)
    manifest = {**manifest, "answers": {}, "reference": None, "perturb": {**manifest["perturb"], "expected": None}}
    model = {"report.py": "raise RuntimeError('boom')\n"}
    one, _ = _observe(manifest, folder, runner, model)
    again, _ = _observe(manifest, folder, runner, model)
    other, _ = _observe(manifest, folder, runner, model, seed=SEED + 1)
    assert one["inputs"] == again["inputs"]
    assert one["inputs"]["perturbed_1"] != other["inputs"]["perturbed_1"]
    assert one["inputs"]["fixture"] == other["inputs"]["fixture"]
    run = one["runs"]["fixture"]
    assert run["exception"]["type"] == "RuntimeError" and run["exit_code"] == 1
    assert "no answer key" in one["expected_problem"]["perturbed_1"]


def test_stdin_and_output_file_and_a_symlinked_output_is_refused(tmp_path, runner):
    reference.clear()
    folder = _write(tmp_path / "echo", {"data/words.txt": "alpha beta\ngamma\n"})
    manifest = {"id": "echo", "files": [{"path": "echo.py", "kind": "python"}], "fixtures": ["data/words.txt"],
                "run": {"mode": "script", "entry": "echo.py", "stdin": "data/words.txt",
                        "output": {"from": "file", "path": "out/result.json", "parse": "json"}}}
    facts, _ = _observe(manifest, folder, runner, {"echo.py": ECHO})
    run = facts["runs"]["fixture"]
    assert run["output"] == {"words": ["alpha", "beta", "gamma"], "count": 3}
    assert json.loads(run["output_text"]) == run["output"]
    # a link inside the sandbox to a file of valid output (one to /etc/hostname is refused
    # by the guard before the grader could refuse to follow it)
    link = ("import os\nos.makedirs('out')\nopen('out/real.json', 'w').write('{\"count\": 1}')\n"
            "os.symlink('real.json', 'out/result.json')\n")
    facts, _ = _observe(manifest, folder, runner, {"echo.py": link})
    run = facts["runs"]["fixture"]
    assert run["output"] is None and "symbolic link" in run["output_error"]
    facts, _ = _observe(manifest, folder, runner, {"echo.py": "print('nothing written')\n"})
    assert "no such file" in facts["runs"]["fixture"]["output_error"]


def test_a_failing_reference_is_the_packs_fault_per_label(tmp_path, runner):
    reference.clear()
    manifest, folder = _sales_task(tmp_path)
    (folder / "reference" / "report.py").write_text("import sys\nsys.exit(2)\n")
    facts, _ = _observe(manifest, folder, runner, {"report.py": REPORT})
    assert facts["expected"]["fixture"] == {"rows": 5, "total": 45}
    assert facts["expected_problem"]["perturbed_1"] == "reference solution: exited with status 2"
    # the reference's own doing (not the machine's): the same on every run of this pack
    assert facts["reference_problem"] == {label: {"reason": "reference solution: exited with status 2",
                                                  "transient": False} for label in ("perturbed_1", "perturbed_2")}


# ---- call and http mode -----------------------------------------------------------------------


def _phone_task(tmp_path: Path) -> tuple[dict, Path]:
    folder = _write(tmp_path / "phone", {
        "reference/phone.py": PHONE,
        "data/cases.json": json.dumps([{"label": "uk", "args": ["20 7946 0958"], "kwargs": {"country": "UK"},
                                        "expect": "+442079460958"}])})
    manifest = {
        "id": "phone", "files": [{"path": "phone.py", "kind": "python"}], "reference": "reference",
        "run": {"mode": "call", "module": "phone.py", "function": "normalize", "cases_file": "data/cases.json",
                "cases": [{"label": "us_plain", "args": ["(415) 555-2671"], "expect": "+14155552671"},
                          {"label": "garbage", "args": ["call me"], "raises": "ValueError"}]},
        "perturb": {"count": 3, "seed": 7, "generator": "builtin.cases_grid", "expected": "reference",
                    "with": {"args": [["415-555-2671", "555 2671", "x"]], "kwargs": {"country": ["US", "UK"]}}},
    }
    return manifest, folder


def test_call_cases_with_kwargs_raises_cases_file_and_reference_expectations(tmp_path, runner):
    reference.clear()
    manifest, folder = _phone_task(tmp_path)
    facts, calls = _observe(manifest, folder, runner, {"phone.py": PHONE})
    assert facts["seed"] == 7 and facts["problem"] == "" and calls == [False, True]
    assert facts["import_error"] is None and facts["function_found"] is True
    assert facts["signature"]["params"][1] == {"name": "country", "kind": "KEYWORD_ONLY", "has_default": True}
    uk = facts["cases"]["uk"]
    assert uk["value"] == "+442079460958" and uk["kwargs"] == {"country": "UK"} and uk["mutated"] is False
    assert facts["cases"]["garbage"]["exception"]["type"] == "ValueError"
    assert facts["expect"]["us_plain"] == {"value": "+14155552671"}
    assert facts["expect"]["garbage"] == {"raises": ["ValueError"]}
    perturbed = [label for label in facts["cases"] if label.startswith("perturbed_")]
    assert len(perturbed) == 3 and facts["expected_problem"] == {}
    for label in perturbed:  # the model is the reference: its outcome is the expectation
        case, expect = facts["cases"][label], facts["expect"][label]
        assert expect == ({"value": case["value"]} if case["returned"] else {"raises": [case["exception"]["type"]]})

    _, calls2 = _observe(manifest, folder, runner, {"phone.py": "def normalize(n, *, country='US'):\n    return n\n"})
    assert calls2 == [False]  # the reference's answers come from the memo


def test_a_model_that_kills_its_worker_gives_a_problem_not_an_exception(tmp_path, runner):
    reference.clear()
    manifest, folder = _phone_task(tmp_path)
    facts, _ = _observe(manifest, folder, runner, {"phone.py": "import os\nos._exit(9)\n"})
    assert "ended the worker" in facts["problem"] and facts["cases"] == {}
    assert facts["expect"]["us_plain"] == {"value": "+14155552671"}
    facts, _ = _observe(manifest, folder, runner, {"phone.py": "raise ImportError('nope')\n"})
    assert facts["import_error"] == {"type": "ImportError", "message": "nope"} and facts["cases"] == {}


def test_http_scenarios_pass_kwargs_and_record_requests(tmp_path, runner):
    folder = _write(tmp_path / "client", {})
    client = """
    import requests
    def fetch(url, *, retries=1):
        for _ in range(retries):
            try:
                return requests.get(url, timeout=5).json()
            except requests.ConnectionError:
                pass
        return None
    """
    manifest = {"id": "client", "files": [{"path": "client.py", "kind": "python"}],
                "run": {"mode": "http", "module": "client.py", "function": "fetch", "scenarios": [
                    {"label": "retry", "args": ["https://x.test/a"], "kwargs": {"retries": 2},
                     "responses": [{"exc": "ConnectionError"}, {"status": 200, "json": {"ok": True}}],
                     "expect": {"ok": True}}]}}
    facts, _ = _observe(manifest, folder, runner, {"client.py": client})
    case = facts["cases"]["retry"]
    assert case["value"] == {"ok": True} and len(case["requests"]) == 2 and case["sleep_total"] == 0.0


# ---- parse mode -------------------------------------------------------------------------------


def test_parse_mode_loads_documents_safely_with_lines_and_answers(tmp_path):
    folder = _write(tmp_path / "cfg", {"answers/config.json": '{"port": 80}'})
    model = _write(tmp_path / "model", {"config.yaml": "port: 80\n", "bad.json": '{\n  "a": 1,\n}\n',
                                        "evil.yaml": "x: !!python/object/apply:os.system ['true']\n",
                                        "two.yaml": "port: 80\n---\nport: 81\n"})
    manifest = {"id": "cfg", "answers": {"config": "answers/config.json"}, "run": {"mode": "parse"},
                "files": [{"path": "config.yaml", "kind": "yaml"}, {"path": "bad.json", "kind": "json"},
                          {"path": "evil.yaml", "kind": "yaml"}, {"path": "gone.yaml", "kind": "yaml"},
                          {"path": "two.yaml", "kind": "yaml"}]}
    files = {name: load_source(model / name, python=False)
             for name in ("config.yaml", "bad.json", "evil.yaml", "gone.yaml", "two.yaml")}
    facts = make_observe(manifest, folder, "acme")(files, None, folder, SEED)
    docs = facts["documents"]
    assert docs["config.yaml"] == {"kind": "yaml", "value": {"port": 80}, "error": None, "line": None,
                                   "documents": 1}
    assert docs["bad.json"]["value"] is None and docs["bad.json"]["line"] == 3
    assert docs["evil.yaml"]["value"] is None and docs["evil.yaml"]["error"]
    assert docs["gone.yaml"]["value"] is None and docs["gone.yaml"]["error"]
    assert docs["two.yaml"]["value"] == {"port": 80} and docs["two.yaml"]["documents"] == 2  # the first is read
    assert docs["bad.json"]["documents"] == 0
    assert facts["expected"] == {"config": {"port": 80}}


# ---- generators and parsing -------------------------------------------------------------------


def test_generators_are_deterministic_and_keep_their_promises():
    source = SALES_CSV.encode()
    a = csv_rows(random.Random(1), source=source, jitter={"amount": 0.2})
    assert a == csv_rows(random.Random(1), source=source, jitter={"amount": 0.2})
    assert a.decode().splitlines()[0] == "region,amount"
    assert all(row["amount"].isdigit() for row in parse_text(a.decode(), "csv")[0])
    records = json.dumps([{"id": "42", "n": 1.5}, {"id": 7, "n": 2}]).encode()
    out = json.loads(json_records(random.Random(3), source=records, drop=0, duplicate=0,
                                  retype=["id"], retype_fraction=1.0))
    assert sorted(map(repr, (r["id"] for r in out))) == ["'7'", "42"]
    grid = cases_grid(random.Random(5), count=4, args=[[1, 2, 3]], kwargs={"k": ["a", "b"]})
    assert len(grid) == 4 and len({json.dumps(c, sort_keys=True) for c in grid}) == 4
    assert grid == cases_grid(random.Random(5), count=4, args=[[1, 2, 3]], kwargs={"k": ["a", "b"]})
    assert len(cases_grid(random.Random(5), count=50, args=[[1, 2]])) == 2


def test_output_parsing_reports_lines():
    assert parse_text("a,b\n1,2\n", "csv") == ([{"a": "1", "b": "2"}], None)
    assert parse_text("a,b\n1,2,3\n", "csv")[1].startswith("line 2")
    assert "line 2" in parse_text("key: [1\n  2: x\n", "yaml")[1]
    assert parse_text("NaN", "json")[0] is None


def test_an_output_file_over_the_cap_is_not_parsed(tmp_path, runner):
    folder = _write(tmp_path / "big", {})
    manifest = {"id": "big", "files": [{"path": "big.py", "kind": "python"}],
                "run": {"mode": "script", "entry": "big.py",
                        "output": {"from": "file", "path": "big.txt", "parse": "text"}}}
    facts, _ = _observe(manifest, folder, runner, {"big.py": "open('big.txt', 'w').write('x' * 70000)\n"})
    run = facts["runs"]["fixture"]
    assert run["output"] is None and "cap" in run["output_error"] and run["exit_code"] == 0


def test_the_parent_accepts_only_the_two_output_file_shapes():
    from benchmark.sandbox.result_record import _output_file_ok

    assert _output_file_ok({"error": "no such file"})
    assert _output_file_ok({"text": "x", "truncated": False, "decode_error": None})
    assert not _output_file_ok({"text": "x", "truncated": 0, "decode_error": None})
    assert not _output_file_ok({"text": "x", "truncated": False, "decode_error": None, "more": 1})
    assert not _output_file_ok({"error": 3}) and not _output_file_ok(["text"])


LOG = "time level message\n" + "".join(f"2026-12-0{1 + i % 9} INFO request {i} took {10 + i}.5 ms\n" for i in range(200))


def test_log_lines_keeps_the_header_reshapes_the_lines_and_adds_the_lines_a_parser_must_survive():
    from benchmark.packs.generators import MALFORMED, log_lines

    out = log_lines(random.Random(7), source=LOG.encode(), keep_first=1, malformed=0.2, blank=0.1, jitter=0.5)
    assert out == log_lines(random.Random(7), source=LOG.encode(), keep_first=1, malformed=0.2, blank=0.1,
                            jitter=0.5)  # the same seed, the same bytes
    lines = out.decode().split("\n")
    assert lines[0] == "time level message" and lines[-1] == ""
    body = lines[1:-1]
    shape = re.compile(r"2026-12-0[1-9] INFO request [0-9]+ took -?[0-9]+\.[0-9] ms")  # decimals kept
    good = [line for line in body if shape.fullmatch(line)]
    broken = [line for line in body if not shape.fullmatch(line)]
    assert 140 < len(good) < 230 and 20 < len(broken) < 80  # drops, duplicates, blanks, garbage
    assert all(line in MALFORMED or (line.startswith("2026-12-0") and not line.endswith(" ms")) for line in broken)
    assert [line for line in good if line not in LOG] and all(line[:10] in LOG for line in good)  # dates kept
    plain = log_lines(random.Random(1), source=LOG.encode(), drop=0, duplicate=0, blank=0, malformed=0)
    assert plain == LOG.encode()  # nothing asked, nothing changed; order kept unless shuffle
    crlf = LOG.replace("\n", "\r\n").encode()
    assert log_lines(random.Random(2), source=crlf).count(b"\r\n") == log_lines(random.Random(2), source=crlf).count(b"\n")


def test_text_words_changes_the_surface_of_the_words_and_keeps_the_words_and_lines():
    from benchmark.packs.generators import text_words

    text = "The quick brown fox jumps over the lazy dog.\nIt was not amused, said the fox!\n" * 20
    out = text_words(random.Random(4), source=text.encode(), case=0.3, whitespace=0.3, punctuation=0.2)
    assert out == text_words(random.Random(4), source=text.encode(), case=0.3, whitespace=0.3, punctuation=0.2)
    assert out != text.encode() and out.decode().count("\n") == text.count("\n")
    words = lambda value: [w.strip(",.!?").lower() for w in value.split()]  # noqa: E731
    assert words(out.decode()) == words(text)
    assert text_words(random.Random(4), source=text.encode(), case=0, whitespace=0, punctuation=0) == text.encode()
