"""The bandit process's lean node visitor finds exactly what bandit's own visitor finds."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from benchmark.analyzers import bandit_visit, security

ROOT = Path(__file__).resolve().parent.parent

TRIGGERS = textwrap.dedent('''
    """A module docstring."""
    import pickle, subprocess, hashlib, yaml, random
    from os import system as run
    import requests
    from xml.etree import ElementTree  # nosec
    password = "hunter2"  # nosec B105
    PASSWORD = "s3cr3t"

    class Store:
        token = "abc123"

        def load(self, data, *, key="xyz", password="pw"):
            assert data, "no data"
            try:
                obj = pickle.loads(data)
            except Exception:
                pass
            return eval(obj) if obj else [x for x in (yield) if x]

        async def fetch(self, url):
            async with self.session as s:
                return requests.get(url, verify=False)

    def main(argv, cmd="ls"):
        subprocess.Popen(cmd + argv[0], shell=True)
        run("rm -rf /tmp/x")
        hashlib.md5(b"x").hexdigest()
        yaml.load(open("c.yaml"))
        query = "SELECT * FROM t WHERE id = %s" % argv[1]
        match argv:
            case [first, *rest]:
                exec(first)
            case _:
                lambda: __import__("os").system("id")
        text = f"""multi
        line {random.random()}"""
        while True:
            with open("/tmp/file", "w") as handle:
                handle.write(text + query)
            break
        else:
            pass
        return b"\\x00" * 3
''')


def _corpus() -> list[tuple[str, str]]:
    files = sorted(p for folder in ("tests", "submissions", "examples")
                   for p in (ROOT / folder).rglob("*.py"))
    deep = "q = " + " + ".join(['"select x "'] * 900) + " + name\n"  # a plugin recurses too deep
    return [("triggers.py", TRIGGERS), ("deep.py", deep)] + [(p.name, p.read_text(encoding="utf-8", errors="replace"))
                                          for p in files]


def _scan(tmp_path: Path, name: str, text: str, ignore_nosec: bool):
    bandit_config, bandit_manager = security.bandit_modules()
    target = tmp_path / name
    target.write_text(text, encoding="utf-8")
    with security._captured_bandit_log() as log:
        mgr = bandit_manager.BanditManager(bandit_config.BanditConfig(), "file",
                                           ignore_nosec=ignore_nosec, quiet=True)
        mgr.discover_files([str(target)], recursive=False)
        mgr.run_tests()
    issues = [(i.as_dict(with_code=False), i.linerange, i.col_offset) for i in mgr.get_issue_list()]
    return issues, mgr.skipped, log.errors, mgr.metrics.data


def _install(monkeypatch) -> None:
    from bandit.core import manager

    monkeypatch.setattr(manager, "b_node_visitor", manager.b_node_visitor)  # restored after the test
    assert bandit_visit.install()
    assert manager.b_node_visitor.BanditNodeVisitor.__name__ == "LeanVisitor"


def _both_ways(folder: str, items: list[tuple[int, str, str]]) -> list[tuple]:
    """In a fresh interpreter: each of ``items`` scanned by bandit's own visitor, then (the lean
    visitor installed) again; (stock, lean) per item, each file at the same path both times."""
    stock = [_scan(Path(folder) / str(index), name, text, True) for index, name, text in items]
    assert bandit_visit.install()
    return list(zip(stock, [_scan(Path(folder) / str(index), name, text, True) for index, name, text in items]))


def test_lean_visitor_finds_what_bandits_own_visitor_finds(tmp_path, monkeypatch):
    """Every file of the test suite and the submissions, and one written to trip many of
    bandit's tests: the same findings (all fields, line ranges, columns), skips, errors and
    metrics. The repository's files are compared in a fresh interpreter per core (half of them
    each); the two written ones here, where both passes scan from the same stack depth (the
    deep file's errors depend on it)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    corpus = _corpus()
    files = [(index, name, text) for index, (name, text) in enumerate(corpus[2:])]
    for index, _, _ in files:
        (tmp_path / str(index)).mkdir()
    workers = max(1, min(2, os.cpu_count() or 1))
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        halves = list(pool.map(_both_ways, [str(tmp_path)] * workers, [files[i::workers] for i in range(workers)]))
    pairs = {item[0]: pair for half, items in zip(halves, [files[i::workers] for i in range(workers)])
             for item, pair in zip(items, half)}
    stock = [_scan(tmp_path, name, text, True) for name, text in corpus[:2]]
    _install(monkeypatch)
    lean = [_scan(tmp_path, name, text, True) for name, text in corpus[:2]]
    for (name, _), expected, found in zip(corpus, stock, lean):
        assert found == expected, name
    assert len(pairs) == len(files) > 300
    for index, name, _ in files:
        assert pairs[index][1] == pairs[index][0], name
    assert sum(len(pair[1][0]) for pair in pairs.values()) > 100 and len(lean[0][0]) >= 15  # tests do run
    assert lean[1][2] and not lean[1][0]  # the deep chain: plugin errors, as in bandit


def test_lean_visitor_honours_nosec_when_bandit_is_asked_to(tmp_path, monkeypatch):
    stock = _scan(tmp_path, "triggers.py", TRIGGERS, False)
    _install(monkeypatch)
    assert _scan(tmp_path, "triggers.py", TRIGGERS, False) == stock
    assert len(stock[0]) < len(_scan(tmp_path, "triggers.py", TRIGGERS, True)[0])


def test_other_bandit_versions_run_bandit_unchanged(monkeypatch):
    import bandit
    from bandit.core import manager

    monkeypatch.setattr(manager, "b_node_visitor", manager.b_node_visitor)
    monkeypatch.setattr(bandit, "__version__", "0.0.1")
    module = manager.b_node_visitor
    assert bandit_visit.install() is False and manager.b_node_visitor is module


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_the_bandit_process_answers_as_bandit_and_still_frees_its_cyclic_trees():
    """The bandit process (lean visitor, frozen start-up heap, rarer collections) answers a
    file as bandit's own visitor does, and the trees it scans (cyclic garbage: every node
    links to its parent) are still collected: 300 scans do not grow it by 300 trees."""
    import json
    import subprocess
    import sys

    from benchmark.sandbox import bandit_process

    text = TRIGGERS + (ROOT / "submissions" / "reference_implementations" / "example_model"
                       / "prompt_1_solution.py").read_text(encoding="utf-8")
    request = json.dumps({"text": text, "name": "p.py", "cpu_s": 60}).encode() + b"\n"
    proc = subprocess.Popen([sys.executable, "-I", str(bandit_process.SERVER)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        answers, sizes = [], []
        for count in range(300):
            proc.stdin.write(request)
            proc.stdin.flush()
            answers.append(proc.stdout.readline())
            if count in (30, 299):
                sizes.append(_rss_kb(proc.pid))
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert len(set(answers)) == 1
    expected = [list(issue.__dict__.values()) for issue in security._run_bandit(text, "p.py")]
    assert json.loads(answers[0]) == {"issues": expected} and expected
    assert sizes[1] - sizes[0] < 20_000  # kB; one uncollected tree per scan would be far more
