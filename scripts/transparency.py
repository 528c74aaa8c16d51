#!/usr/bin/env python3
"""Transparency, proven on code nobody here wrote: other projects' own test suites run inside
the sandbox, exactly as a graded run executes code, and outside it; per-test outcomes compared.

Inside: ``SecureRunner.run_harness`` in ``script`` mode (the zygote, namespaces, private root,
seccomp, Landlock, rlimits and the guard, as for a graded answer) runs
``transparency_driver.py``, which runs pytest on the staged test files (made read-only) and
prints every test's outcome. Outside: the same interpreter, ``python -I -B``, the same
environment (the sandbox's allow-listed one, with HOME and TMPDIR in a temporary copy of the
same folder layout), the harness's own steps before ``runpy`` and the same driver and pytest
flags. Only the limits are larger than a graded answer's (``MEMORY_MB``, ``TIMEOUT_S``): a
suite is larger than an answer; every layer is the same.

    .venv/bin/python scripts/transparency.py                # every suite (docs/transparency.md)
    .venv/bin/python scripts/transparency.py toolz six      # some
    .venv/bin/python scripts/transparency.py --write-docs   # and rewrite docs/transparency.md

Exits 1 when a test differs that is not listed in ``transparency_suites`` (a sandbox bug) or
a suite could not run.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

import transparency_driver as driver  # noqa: E402
from transparency_suites import (BY_NAME, FAST, SUITES, Reason, Suite, fetch, fetch_all,  # noqa: E402
                                 staged_files)

from benchmark.secure_runner import SecureRunner  # noqa: E402

MEMORY_MB = 1024   # a graded answer gets --mem 512 by default
TIMEOUT_S = 300.0  # per suite and side
DRIVER = "transparency_driver.py"
# -W: the zygote has requests_mock imported (the harness's http mode), so pytest cannot
# rewrite the asserts of that distribution's plugin and says so in a warning, which a suite's
# ``filterwarnings = error`` turns into an error before any test runs (toolz, dateutil, Jinja2);
# it is ignored on both sides, by its exact text. No suite here uses that plugin.
COMMON_ARGS = ("-p", "no:cacheprovider", "-q", "--hypothesis-seed=0",
               "-W", "ignore:Module already imported so cannot be rewritten; requests_mock"
                     ":pytest.PytestAssertRewriteWarning")
# what the harness does before runpy in a script run (worker.worker, modes.mode_script)
LAUNCH = ("import os, runpy, sys; path = os.path.abspath(sys.argv[1]); "
          "sys.path.insert(0, os.getcwd()); sys.argv = [path, *sys.argv[2:]]; "
          "sys.path.insert(0, os.path.dirname(path)); runpy.run_path(path, run_name='__main__')")


class SuiteFailed(RuntimeError):
    """One side produced no result line (a crash, a time-out, a denied start)."""


@dataclass
class Side:
    tests: dict[str, list[str]]
    exit: int
    staged_changed: list[str]   # staged files changed or removed by the suite
    added: int                  # files the suite wrote into the staged folder
    wall_s: float
    blocked: dict[str, int] = field(default_factory=dict)  # the guard's evidence: "kind event" -> count
    subtests: dict[str, dict[str, int]] = field(default_factory=dict)  # test -> {outcome: count}

    def outcome(self, name: str) -> tuple[str, tuple]:
        """A test's outcome and the tally of its subtests' (a subtest that fails can leave
        its test passed)."""
        return (self.tests.get(name, ["absent", ""])[0],
                tuple(sorted(self.subtests.get(name, {}).items())))


def _blocked(events: tuple[dict, ...]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for event in events:
        key = f"{event.get('blocked')} {event.get('event')}"
        counts[key] = counts.get(key, 0) + 1
    return counts


def _spec(suite: Suite) -> str:
    return json.dumps({"args": [*COMMON_ARGS, *suite.run], "markers": list(suite.markers)})


def _parse(stdout: str, stderr: str, what: str) -> dict:
    for line in stdout.splitlines():
        if line.startswith(driver.MARKER):
            return json.loads(zlib.decompress(base64.b64decode(line[len(driver.MARKER):])))
    raise SuiteFailed(f"{what}: no result line; stderr ends: {stderr[-1500:]}")


def _files(suite: Suite) -> dict[str, bytes]:
    return {**staged_files(suite, fetch(suite)), DRIVER: (ROOT / "scripts" / DRIVER).read_bytes()}


def run_inside(suite: Suite, files: dict[str, bytes], runner: SecureRunner) -> Side:
    started = time.monotonic()
    result = runner.run_harness({"mode": "script", "module": DRIVER, "argv": [_spec(suite)]},
                                files, timeout=TIMEOUT_S)
    wall = time.monotonic() - started
    what = (f"{suite.package} inside (exit {result.returncode}, killed by {result.killed_by}, "
            f"blocked {list(result.blocked_events)[:5]})")
    data = _parse(result.stdout, result.stderr, what)
    return Side(data["tests"], data["exit"], data["staged_changed"], data["added"], wall,
                _blocked(result.blocked_events), data["subtests"])


def run_outside(suite: Suite, files: dict[str, bytes]) -> Side:
    with tempfile.TemporaryDirectory(prefix="rubricbench-transparency-") as temp:
        root = Path(temp)
        for sub in ("work", "home", "tmp"):
            (root / sub).mkdir()
        for name, data in files.items():
            (root / "work" / name).parent.mkdir(parents=True, exist_ok=True)
            (root / "work" / name).write_bytes(data)
        env = SecureRunner("transparency", unsafe=True).child_env(root)
        started = time.monotonic()
        try:
            done = subprocess.run([sys.executable, "-I", "-B", "-c", LAUNCH, DRIVER, _spec(suite)],
                                  cwd=root / "work", env=env, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=TIMEOUT_S,
                                  start_new_session=True)
        finally:
            _make_writable(root)
        wall = time.monotonic() - started
    data = _parse(done.stdout, done.stderr, f"{suite.package} outside (exit {done.returncode})")
    return Side(data["tests"], data["exit"], data["staged_changed"], data["added"], wall,
                subtests=data["subtests"])


def _make_writable(root: Path) -> None:
    """The driver made the staged files read-only: give the owner write access back so the
    temporary folder can be removed (root needs none; another user does)."""
    for folder, dirs, _ in os.walk(root):
        for name in dirs:
            os.chmod(os.path.join(folder, name), 0o755)
    os.chmod(root / "work", 0o755)


@dataclass
class Comparison:
    suite: Suite
    inside: Side
    outside: Side
    identical: list[str]
    by_design: dict[str, Reason]  # test -> why (listed, and differing)
    pending: dict[str, Reason]    # test -> the guard rule whose fix is pending
    unexplained: list[str]      # differing and listed nowhere: a sandbox bug
    stale: list[str]            # listed, yet identical
    other_detail: list[str] = field(default_factory=list)  # same outcome (not passed), another message

    @property
    def differing(self) -> int:
        return len(self.by_design) + len(self.pending) + len(self.unexplained)


def compare(suite: Suite, inside: Side, outside: Side) -> Comparison:
    names = sorted(set(inside.tests) | set(outside.tests))
    same = [n for n in names if inside.outcome(n) == outside.outcome(n)]
    differ = [n for n in names if inside.outcome(n) != outside.outcome(n)]
    listed = {**suite.by_design, **suite.pending}
    return Comparison(
        suite, inside, outside, same,
        by_design={n: suite.by_design[n] for n in differ if n in suite.by_design},
        pending={n: suite.pending[n] for n in differ if n in suite.pending},
        unexplained=[n for n in differ if n not in listed],
        stale=[n for n in listed if n in same or n not in names],
        other_detail=[n for n in same if inside.tests[n][0] != "passed"
                      and inside.tests[n][1] != outside.tests[n][1]])


def run_suite(suite: Suite, runner: SecureRunner) -> Comparison:
    files = _files(suite)
    return compare(suite, run_inside(suite, files, runner), run_outside(suite, files))


def _why(listed: dict[str, Reason], prefix: str) -> list[str]:
    counts: dict[str, int] = {}
    for reason in listed.values():
        counts[reason.short] = counts.get(reason.short, 0) + 1
    return [f"{prefix}{short} ({n})" for short, n in sorted(counts.items())]


def subtest_count(c: Comparison) -> int:
    return max(sum(sum(t.values()) for t in side.subtests.values()) for side in (c.inside, c.outside))


def _row(c: Comparison) -> str:
    reasons = (_why(c.by_design, "by design: ") + _why(c.pending, "pending guard fix: ")
               + ([f"UNEXPLAINED ({len(c.unexplained)})"] if c.unexplained else []))
    subtests = subtest_count(c)
    run = f"{len(c.identical) + c.differing}" + (f" (+{subtests} subtests)" if subtests else "")
    return (f"| {c.suite.package} | {c.suite.version} | {run} | {len(c.identical)} | "
            f"{c.differing} | {'; '.join(reasons) or '-'} | "
            f"{c.inside.wall_s:.0f} / {c.outside.wall_s:.0f} |")


def _describe(c: Comparison) -> list[str]:
    lines = []
    for title, names in (("by design", c.by_design), ("pending guard fix", c.pending),
                         ("UNEXPLAINED", {n: "" for n in c.unexplained})):
        for name in names:
            inside, outside = (s.tests.get(name, ["absent", ""]) for s in (c.inside, c.outside))
            tallies = [s.subtests.get(name) for s in (c.inside, c.outside)]
            lines.append(f"  {title}: {name}\n    inside:  {inside[0]} {inside[1][:200]}\n"
                         f"    outside: {outside[0]} {outside[1][:200]}"
                         + (f"\n    subtests inside {tallies[0]}, outside {tallies[1]}" if any(tallies) else ""))
    lines += [f"  STALE listing (identical now, or no such test): {name}" for name in c.stale]
    for side, label in ((c.inside, "inside"), (c.outside, "outside")):
        if side.staged_changed:
            lines.append(f"  STAGED FILES CHANGED {label}: {side.staged_changed[:10]}")
    for name in c.other_detail:
        lines.append(f"  same outcome, another message: {name}\n"
                     f"    inside:  {c.inside.tests[name][1][:200]}\n"
                     f"    outside: {c.outside.tests[name][1][:200]}")
    if c.inside.blocked:
        lines.append(f"  denied and reported inside: {c.inside.blocked}")
    return lines


def failures(c: Comparison) -> list[str]:
    """What makes a suite's comparison fail: an unexplained difference (a sandbox bug), a
    listing that no longer differs, a staged file changed."""
    return ([f"{c.suite.package}: differs, listed nowhere: {name}" for name in c.unexplained]
            + [f"{c.suite.package}: listed but identical now (or gone): {name}" for name in c.stale]
            + [f"{c.suite.package}: staged file changed: {name}"
               for side in (c.inside, c.outside) for name in side.staged_changed])


def summary(results: list[Comparison]) -> str:
    head = ["| package | version | tests run | identical | differing | why | s inside / outside |",
            "|---|---|---:|---:|---:|---|---:|"]
    return "\n".join(head + [_row(c) for c in results])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("packages", nargs="*", help="suites to run (default: all)")
    parser.add_argument("--write-docs", action="store_true", help="rewrite docs/transparency.md")
    args = parser.parse_args(argv)
    chosen = [BY_NAME[name] for name in args.packages] if args.packages else list(SUITES)
    fetch_all(chosen)
    runner = SecureRunner("transparency", memory_mb=MEMORY_MB, timeout_s=TIMEOUT_S)
    started = time.monotonic()
    results, bad = [], 0
    for suite in chosen:
        try:
            c = run_suite(suite, runner)
        except Exception as exc:  # one suite's failure is reported, the others still run
            print(f"{suite.package}: FAILED: {exc}", flush=True)
            bad += 1
            continue
        results.append(c)
        print(f"{suite.package} {suite.version}: {len(c.identical) + c.differing} tests, "
              f"{len(c.identical)} identical, {c.differing} differing "
              f"({len(c.by_design)} by design, {len(c.pending)} pending guard fix, "
              f"{len(c.unexplained)} unexplained); inside {c.inside.wall_s:.1f} s, "
              f"outside {c.outside.wall_s:.1f} s", flush=True)
        for line in _describe(c):
            print(line, flush=True)
        bad += bool(failures(c))
    total = time.monotonic() - started
    print(summary(results))
    print(f"total {total:.1f} s")
    if args.write_docs:
        from transparency_docs import write_docs

        if bad or len(results) != len(SUITES):
            print("docs/transparency.md not written: it needs every suite, each run to the end")
            return 1
        written = write_docs(results, runner.isolation_report(), total,
                             flags=" ".join(COMMON_ARGS), fast=", ".join(FAST),
                             when=time.strftime("%Y-%m-%d"), table=summary(results))
        print(f"wrote {written}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
