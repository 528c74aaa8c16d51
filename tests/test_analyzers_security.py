"""Tests for benchmark.analyzers.security (bandit through its Python API)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import pytest

from benchmark.analyzers import security as S
from benchmark.analyzers.security import BanditIssue

UNSAFE = '''\
import subprocess
import yaml


def run(cmd, path):
    subprocess.call(cmd, shell=True)
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle)
'''

SAFE = '''\
import json


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)
'''


def ids(issues):
    return [issue.test_id for issue in issues]


def test_bandit_finds_unsafe_calls_and_not_safe_code():
    issues = S.bandit_issues(UNSAFE)
    assert {"B602", "B506"} <= set(ids(issues))
    shell = next(i for i in issues if i.test_id == "B602")
    assert (shell.line, shell.severity, shell.confidence) == (6, "HIGH", "HIGH")
    assert shell.test_name == "subprocess_popen_with_shell_equals_true" and shell.text
    assert S.bandit_issues(SAFE) == ()


def test_issues_sorted_and_frozen():
    issues = S.bandit_issues(UNSAFE)
    assert list(issues) == sorted(issues, key=lambda i: (i.line, i.test_id))
    with pytest.raises(Exception):
        issues[0].line = 1


@pytest.mark.parametrize("comment", ["  # nosec", "  # nosec B602", "  # nosec: B602,B506"])
def test_nosec_comment_never_hides_a_finding(comment):
    lines = UNSAFE.splitlines()
    lines[5] += comment  # the shell=True line
    lines[7] += comment  # the yaml.load line
    hidden = "\n".join(lines) + "\n"
    assert ids(S.bandit_issues(hidden)) == ids(S.bandit_issues(UNSAFE))


def test_comments_and_docstrings_do_not_change_findings():
    documented = UNSAFE.replace(
        "def run(cmd, path):\n",
        'def run(cmd, path):  # yaml.safe_load logging pathlib type hints\n'
        '    """Never uses eval(); shell=False; yaml.safe_load only."""\n',
    )
    before = [(i.test_id, i.severity, i.confidence) for i in S.bandit_issues(UNSAFE)]
    after = [(i.test_id, i.severity, i.confidence) for i in S.bandit_issues(documented)]
    assert before == after


def test_syntax_error_raises_clear_error():
    with pytest.raises(S.BanditError, match="syntax error"):
        S.bandit_issues("def broken(:\n    pass\n")


def test_cached_by_content_and_bounded(monkeypatch):
    monkeypatch.setattr(S, "CACHE_SIZE", 2)
    first = S.bandit_issues(UNSAFE + "\n# cache 1\n")
    assert S.bandit_issues(UNSAFE + "\n# cache 1\n") is first
    calls = []
    real = S._run_bounded
    def counting(text, name):
        calls.append(text)
        return real(text, name)

    monkeypatch.setattr(S, "_run_bounded", counting)
    S.bandit_issues(UNSAFE + "\n# cache 1\n")
    assert calls == []
    for n in range(3):
        S.bandit_issues(f"x = {n}\n")
    assert len(S._cache) <= 2


def test_never_prints_and_leaves_no_temp_files(capfd):
    before = set(Path(tempfile.gettempdir()).glob("rubricbench-bandit-*"))
    S.bandit_issues(UNSAFE + "\nimport pickle  # unique text for no cache\n")
    with pytest.raises(S.BanditError):
        S.bandit_issues("x = (\n")
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    assert set(Path(tempfile.gettempdir()).glob("rubricbench-bandit-*")) == before


def test_name_is_sanitized_to_a_private_file():
    issues = S.bandit_issues("import pickle\npickle.loads(b'')\n", name="../../etc/evil")
    assert "B301" in ids(issues) or "B403" in ids(issues)


def issue(test_id, severity, confidence):
    return BanditIssue(test_id, "t", severity, confidence, 1, "x")


def test_penalty_weights_and_fraction():
    assert S.SEVERITY_WEIGHT == {"HIGH": 1.0, "MEDIUM": 0.5, "LOW": 0.15}
    assert S.CONFIDENCE_WEIGHT == {"HIGH": 1.0, "MEDIUM": 0.75, "LOW": 0.5}
    assert S.penalty([]) == 0.0 and S.security_fraction([]) == 1.0
    issues = [issue("B602", "MEDIUM", "HIGH"), issue("B105", "LOW", "MEDIUM")]
    assert S.penalty(issues) == pytest.approx(0.5 + 0.15 * 0.75)
    assert S.security_fraction(issues) == pytest.approx(1 - 0.6125)
    assert S.security_fraction([issue("B602", "HIGH", "HIGH")] * 2) == 0.0


def test_assert_is_reported_but_not_penalised():
    issues = S.bandit_issues("def f(x):\n    assert x > 0\n    return x\n")
    assert ids(issues) == ["B101"]
    assert S.penalty(issues) == 0.0 and S.security_fraction(issues) == 1.0


# ---- the analysis budget (benchmark.analyzers.budget) ------------------------------------


def _refusing_bandit(monkeypatch):
    """Make any real bandit run fail the test: over budget, bandit must never start."""
    def never(text, name):
        raise AssertionError("bandit ran on text over the analysis budget")

    monkeypatch.setattr(S, "_run_bounded", never)


def test_a_huge_string_in_an_expression_is_refused_before_bandit_runs(monkeypatch):
    # 74 s of backtracking in bandit's B608 regular expression before the budget existed
    text = 'def query(name):\n    return "' + "select " * 70_000 + '" + name\n'
    _refusing_bandit(monkeypatch)
    with pytest.raises(S.AnalysisLimitError, match=r"string expression of 490000 characters "
                       r"\(line 2\) exceeds the analysis limit of 20000"):
        S.bandit_issues(text)


@pytest.mark.parametrize("shape", ['f"{0}{{name}}"', '"{0}".format(name)', '"{0}" % name'])
def test_f_strings_format_and_percent_count_like_concatenation(monkeypatch, shape):
    text = "name = 'x'\nq = " + shape.format("select " * 3_000) + "\n"
    _refusing_bandit(monkeypatch)
    with pytest.raises(S.AnalysisLimitError, match="exceeds the analysis limit"):
        S.bandit_issues(text)


def test_a_long_chain_of_short_literals_is_refused_by_the_total(monkeypatch):
    # bandit joins the whole chain once per literal in it: 400 parts took 0.7 s, 900 minutes
    chain = " + ".join(['"select x "'] * 400)
    _refusing_bandit(monkeypatch)
    with pytest.raises(S.AnalysisLimitError, match="total 1599600 characters, over the analysis "
                       "limit of 500000"):
        S.bandit_issues(f"q = {chain} + name\n")


def test_plain_literals_are_never_searched_so_never_count():
    text = 'BLOB = "' + "select " * 70_000 + '"\n"""' + "x" * 100_000 + '"""\n'
    assert S.bandit_issues(text) == ()


def test_under_the_budget_bandit_still_reports_sql_built_by_concatenation():
    text = 'def q(cur, name):\n    cur.execute("SELECT * FROM t WHERE n = \'" + name + "\'")\n'
    assert "B608" in ids(S.bandit_issues(text))


def test_bandit_past_its_deadline_is_stopped_and_the_next_scan_starts_afresh(monkeypatch):
    """The time budget: a shape the size budget does not know (here: the limits lifted) costs
    the deadline, not bandit's 74 s, and the grader's own thread never runs bandit."""
    import psutil

    from benchmark.sandbox import bandit_process
    from benchmark.analyzers import budget

    monkeypatch.setattr(budget, "MAX_STRING_CHARS", 10**7)
    monkeypatch.setattr(budget, "MAX_TOTAL_CHARS", 10**8)
    monkeypatch.setattr(bandit_process, "DEADLINE_S", 1.0)
    S.bandit_issues(SAFE + "\n# a live bandit process first\n")
    stuck = bandit_process.pid()
    started = time.monotonic()
    with pytest.raises(S.AnalysisLimitError, match=r"^analysis exceeded 1 s$"):
        S.bandit_issues('def q(name):\n    return "' + "select " * 70_000 + '" + name\n')
    assert time.monotonic() - started < 30  # minutes without the deadline
    assert not psutil.pid_exists(stuck) or psutil.Process(stuck).status() == psutil.STATUS_ZOMBIE
    assert "B602" in ids(S.bandit_issues(UNSAFE + "\n# after a time-out\n"))
    assert bandit_process.pid() not in (None, stuck)


def test_a_plugin_failure_is_reported_once_without_the_temporary_folder(monkeypatch):
    from benchmark.analyzers import budget

    monkeypatch.setattr(budget, "MAX_TOTAL_CHARS", 10**9)  # a chain deep enough to break B608
    chain = " + ".join(['"select x "'] * 900)
    with pytest.raises(S.BanditError) as raised:
        S.bandit_issues(f"q = {chain} + name\n", "deep.py")
    message = str(raised.value)
    assert message.count("hardcoded_sql_expressions") == 1 and "rubricbench-bandit-" not in message
    assert message.startswith("bandit could not analyse deep.py: ") and "on file deep.py" in message


def test_a_scan_killed_at_its_deadline_leaves_no_file(tmp_path, monkeypatch):
    """The bandit process is killed mid-scan at the deadline; the file it was scanning (a
    submission's text) is removed by the grader's side, which made the folder it sits in."""
    from benchmark.sandbox import bandit_process

    monkeypatch.setenv("TMPDIR", str(tmp_path))  # where the process would otherwise write
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    bandit_process.shutdown()  # a process of our own, started with these settings
    try:
        slow = "import subprocess\n" + 'subprocess.call("ls", shell=True)\n' * 20_000
        with pytest.raises(bandit_process.AnalysisTimeout):
            bandit_process.scan(slow, "slow.py", deadline_s=0.5)
        assert list(tmp_path.iterdir()) == []
        assert bandit_process.scan("import pickle\n", "ok.py")["issues"]  # a new process answers
    finally:
        bandit_process.shutdown()
    assert list(tmp_path.iterdir()) == []


def test_scan_folders_of_processes_killed_before_their_clean_up_are_swept(tmp_path, monkeypatch):
    """A pool or cluster worker killed with SIGKILL never removes its bandit folder: the next
    process that starts a bandit process removes the folders of dead owners, this user's
    only, and never one whose owner is alive."""
    import os
    import subprocess
    import sys

    from benchmark.sandbox import bandit_process

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead = tmp_path / f"{bandit_process.SCANS_HEAD}{gone.pid}-abc"
    alive = tmp_path / f"{bandit_process.SCANS_HEAD}{os.getppid()}-def"
    unnamed = tmp_path / "rubricbench-scans-xyz"  # the old naming: no pid, left alone
    for folder in (dead, alive, unnamed):
        folder.mkdir()
        (folder / "scan.py").write_text("secret = 1\n")
    bandit_process.shutdown()
    try:
        assert bandit_process.scan("import pickle\n", "ok.py")["issues"]
        names = sorted(p.name for p in tmp_path.iterdir())
        ours = [n for n in names if n.startswith(bandit_process.owned_name(bandit_process.SCANS_HEAD))]
        assert len(ours) == 1 and sorted(set(names) - set(ours)) == sorted([alive.name, unnamed.name])
    finally:
        bandit_process.shutdown()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([alive.name, unnamed.name])
