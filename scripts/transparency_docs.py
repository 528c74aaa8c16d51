"""docs/transparency.md, written from a run of ``scripts/transparency.py --write-docs``: the
per-package table, every test that differs with its reason, and the layers and limits the
run had (from ``SecureRunner.isolation_report()``, as measured)."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "transparency.md"

INTRO = """\
# Transparency: other projects' own test suites, inside the sandbox and outside

*Written by `scripts/transparency.py --write-docs`; do not edit by hand.*

Honest code runs unchanged in the sandbox. To show it on code nobody here wrote,
`scripts/transparency.py` runs the own test suites of {count} widely used pure-Python packages
twice and compares the outcome of every test (passed, failed, skipped, xfailed, xpassed,
error):

- **inside**: `SecureRunner.run_harness` in `script` mode, the path a graded answer takes: a
  child forked by the zygote, its namespaces (user, network, pid, IPC, mount with a private
  root), the pids cgroup, Landlock, seccomp, the resource limits, the worker's no-new-process
  filter and the guard's audit hook. The script is `scripts/transparency_driver.py`, which
  runs `pytest.main` with a plugin that collects each test's outcome and prints them as one
  line (JSON, zlib, base64) on stdout;
- **outside**: the same interpreter (`python -I -B`) in a plain subprocess, with the same
  allow-listed environment (HOME and TMPDIR in a temporary folder laid out as the sandbox's
  `work/`, `home/`, `tmp/`), the harness's own steps before `runpy` (the working folder and
  the script's folder first on `sys.path`), the same driver, files and pytest flags.

Each package is installed pinned in the venv (the `transparency` extra of `pyproject.toml`,
which `make setup` installs, with the packages its tests import), so the sandbox reads it
from the interpreter's prefix like any library. Its tests come from its sdist, downloaded by
`pip download --no-binary :all:` into `.cache/transparency/` (git-ignored) and checked
against the sha256 pinned in `scripts/transparency_suites.py`. Only the test folders and the
file with the suite's pytest configuration are staged, never the package's source.

**Staged read-only.** `run_harness` copies staged files into the run's tmpfs as the run's
own; the driver makes every staged file and folder read-only (`chmod a-w`) before pytest
starts, on both sides. The run's uid is 0 in its user namespace (mapped to the grader's uid:
root on this machine), so the bits do not stop root's own writes; what holds is checked: the
driver hashes the staged files before and after, and a changed or removed one fails the
comparison. pytest writes no cache (`-p no:cacheprovider`) and no bytecode (`-B`, which the
zygote has). Suites may still write new files beside them (pyparsing's diagrams,
hypothesis's example database): counted, not compared.

**Flags, both sides:** `{flags}`. The `-W` filter: the zygote has `requests_mock` imported
(the harness's `http` mode), so pytest cannot rewrite the asserts of that distribution's
pytest plugin and says so in a warning, which a suite's `filterwarnings = error` (toolz,
dateutil, Jinja2) turns into an error before any test runs; it is ignored, by its exact text.
`--hypothesis-seed=0` makes property tests draw the same examples on both sides.

**Limits** (a suite is larger than a graded answer; the layers are the same):
`SecureRunner(memory_mb={memory}, timeout_s={timeout:.0f})`, so RLIMIT_AS {address_space} MB
(a graded answer: `--mem 512`), CPU {timeout:.0f} s + 1, open files {open_files}, file size
{file_size} MB, {pids}, sandbox tmpfs {tmpfs} MB.

## Results

Measured on {machine}, {when}; the whole script took {total:.0f} s (each suite inside,
then outside, one after the other). *Tests run* is the number of test ids either side
reported; a test is identical when its outcome, and the tally of its subtests' outcomes
(unittest's `subTest`), are the same on both sides.

{table}

"""

REASONS = """\
## Every test that differs, and why

{differences}

By design means the sandbox denies what the test needs, on purpose: starting a process,
the network (loopback TCP included), more tasks than a run may have. *Pending guard fix*
means a guard rule denies honest code that stays inside the run folder; the guard
(`benchmark/harness/guard.py`) is not changed here, and the needed change is:

- **pathlib paths given to shutil.** `shutil.copyfile`, `copy`, `copy2`, `copytree`
  (through `copystat`), `move`, `rmtree` and `unpack_archive` raise their audit events in
  Python with the caller's own objects; given a `pathlib.Path`, the guard's path check finds
  an argument that is not an exact `str` or `bytes` and denies it as "a path argument of an
  unexpected type", even when the path is inside the run folder (`os.*` and `open` are not
  affected: they convert the path before their event). The guard needs to resolve an
  argument whose type is exactly one of pathlib's concrete classes (read through a slot or
  function bound when the guard loads, never a method the submission could replace), or let
  those shutil events through for such an argument, since every file operation shutil then
  makes raises its own event with a `str`.

## What the guard denied and reported, per suite (inside)

{blocked}

## Environment differences fixed on our side

- glibc gives every thread that allocates a malloc arena of its own (up to 8 per core), each
  a 64 MB reservation of address space. Under RLIMIT_AS these reservations, not memory in
  use, stopped a graded answer at its 9th thread with the default `--mem 512` (15 threads with
  1024 MB): more-itertools' `TestSynchronized::test_concurrent_calls` (50 threads) failed and
  the session ended in pytest's internal error. The zygote's environment now has
  `MALLOC_ARENA_MAX=2` (`benchmark/sandbox/zygote_connection.py`): with 512 MB a run starts 55
  threads (then each thread's 8 MB stack is what counts), with 1024 MB 62 (the pids limit).

## Running it

    make setup                                            # installs the transparency extra
    .venv/bin/python scripts/transparency.py              # every suite, prints this table
    .venv/bin/python scripts/transparency.py toolz six    # some suites
    .venv/bin/python scripts/transparency.py --write-docs # and rewrites this file

It exits 1 when a test differs that is listed nowhere (a sandbox bug), when a listed test no
longer differs, when a staged file changed, or when a suite could not run. `make test` runs
the fast subset ({fast}) in `tests/test_transparency.py`, with the same checks.
"""


def _differences(results: list[Any]) -> str:
    lines = []
    for c in results:
        for title, listed in (("by design", c.by_design), ("pending guard fix", c.pending)):
            for name, reason in listed.items():
                inside, outside = (s.tests.get(name, ["absent", ""]) for s in (c.inside, c.outside))
                lines.append(f"- `{name}` ({c.suite.package}), {title}: {reason.text}. Inside: "
                             f"{inside[0]} (`{inside[1][:160]}`); outside: {outside[0]}.")
        lines += [f"- `{name}` ({c.suite.package}): **UNEXPLAINED**, a sandbox bug."
                  for name in c.unexplained]
    return "\n".join(lines) or "None."


def _blocked(results: list[Any]) -> str:
    lines = [f"- {c.suite.package}: " + ", ".join(f"{key} x{n}" for key, n in sorted(c.inside.blocked.items()))
             for c in results if c.inside.blocked]
    note = ("\n\nIn every suite, hypothesis's pytest plugin loads, and hypothesis loads trio "
            "(trio registers a hypothesis entry point; trio is installed for Jinja2's async "
            "tests): trio's thread cache loads libc with ctypes to name its threads and looks "
            "for libpthread with `ctypes.util.find_library`, which runs `ldconfig -p`, `gcc` "
            "and `ld`; each is denied, and trio goes on without thread names. In boltons, "
            "`ecoutils.get_profile` calls `socket.getfqdn`, whose `gethostbyaddr` is denied; "
            "it falls back to the host name. The other denials are the tests listed above.")
    return ("\n".join(lines) + note) if lines else "None."


def _machine() -> str:
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                                capture_output=True, timeout=10).stdout.strip()
    except OSError:
        commit = "?"
    return (f"Linux {platform.release()}, Python {platform.python_version()}, "
            f"{os.cpu_count()} cores, commit {commit or '?'}")


def write_docs(results: list[Any], isolation: dict[str, Any], total: float, *, flags: str,
               fast: str, when: str, table: str) -> Path:
    limits = isolation["process"]["rlimits"]
    kernel = isolation["kernel"]
    text = INTRO.format(
        count=len(results), flags=flags, memory=limits["memory_mb"],
        timeout=isolation["process"]["timeout_s"], address_space=limits["address_space_mb"],
        open_files=limits["open_files"], file_size=limits["file_size_mb"],
        pids=kernel.get("pids_limit", "no pids limit"), tmpfs=kernel.get("sandbox_tmpfs_mb", 0),
        machine=_machine(), when=when, total=total, table=table)
    text += REASONS.format(differences=_differences(results), blocked=_blocked(results), fast=fast)
    DOCS.write_text(text, encoding="utf-8")
    return DOCS
