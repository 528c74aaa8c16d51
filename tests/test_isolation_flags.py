"""Flags that do what they say: --unsafe, --allow-network, --require-isolation, --self-check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmark import cli
from benchmark.sandbox import isolation
from benchmark.engine.grading import GradeOptions, grade_model
from benchmark.sandbox.sandbox_report import probe_network
from benchmark.secure_runner import SecureRunner

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "submissions" / "reference_implementations" / "example_model"
MODELS = Path(__file__).parent / "models"


def _scores(model_dir: Path, options: GradeOptions) -> dict:
    result = grade_model(model_dir, "user_submissions", test_data=ROOT / "test_data", options=options)
    return {p.prompt_id: [(c.id, c.earned, c.status) for cat in p.categories for c in cat.checks]
            for p in result.prompts}


@pytest.mark.parametrize("model", [REFERENCE, MODELS / "decent_model"])
def test_unsafe_gives_identical_scores_for_benign_submissions(model):
    assert _scores(model, GradeOptions()) == _scores(model, GradeOptions(unsafe=True))


def test_allow_network_lifts_only_the_network_layer(tmp_path):
    open_net = SecureRunner("t", allow_network=True)
    assert probe_network(open_net) == {"kernel_layer": "reachable", "with_guard": "reachable"}
    closed = probe_network(SecureRunner("t"))
    assert all(outcome.startswith("blocked") for outcome in closed.values())
    code = f"open({str(tmp_path / 'x.txt')!r}, 'w').write('x')\n".encode()
    res = open_net.run_harness({"mode": "script", "module": "w.py"}, {"w.py": code})
    assert not (tmp_path / "x.txt").exists() and res.blocked_events


def test_require_isolation_fails_when_a_layer_is_missing(monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RUBRICBENCH_TEST_DATA", str(ROOT / "test_data"))
    missing = isolation.KernelSupport(False, False, False, 0, False, {"all": "simulated"})
    monkeypatch.setattr(isolation, "_SUPPORT", missing)
    code = cli.main(["--submissions-dir", str(ROOT / "submissions"), "--model", "example_model",
                     "--require-isolation", "-q"])
    assert code == cli.EXIT_ERROR
    assert "kernel layer" in capsys.readouterr().err
    assert not (tmp_path / "results").exists()


def test_manifest_records_the_measured_layers(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RUBRICBENCH_TEST_DATA", str(ROOT / "test_data"))
    assert cli.main(["--submissions-dir", str(ROOT / "submissions"), "--model", "example_model", "-q"]) == 0
    doc = json.loads((tmp_path / "results" / "latest_results.json").read_text())
    layers = doc["_metadata"]["isolation"]
    support = isolation.detect()
    assert layers["kernel"]["status"] == ("applied" if support.any else "unavailable")
    assert layers["network_probe"]["with_guard"].startswith("blocked")


def test_self_check_passes_on_this_machine(capsys):
    assert cli.main(["--self-check"]) == cli.EXIT_OK
    out = capsys.readouterr().out
    assert "write outside the sandbox" in out and " 0 failed" in out
    # the kernel layer's own canaries: each must be contained by the kernel layer alone
    for name in ("io_uring", "socketpair datagram", "SysV shared memory", "disk past the sandbox",
                 "tasks past the pids limit", "start a process"):
        row = next(line for line in out.splitlines() if line.startswith(name) or name in line[:34])
        assert "PASS (must hold: kernel" in row, row
    # the guard's newer refusals: each canary is a real attack (open without isolation) and held
    for name, promise in (("load a native module the run wrote", "guard + all"),
                          ("write through a folder descriptor", "kernel, guard + all"),
                          ("list the grader's folders", "kernel, guard + all")):
        row = next(line for line in out.splitlines() if line.startswith(name))
        assert row.split()[len(name.split())] == "open" and f"PASS (must hold: {promise})" in row, row


def test_read_paths_looked_up_once_are_those_a_fresh_lookup_gives(tmp_path):
    """``default_paths`` caches which interpreter and system paths exist; the answer, order
    included, is what checking every path on each call gives, wherever the sandbox is."""
    import os
    import sys

    harness = Path(isolation.__file__).resolve().parents[1] / "harness"

    def fresh(sandbox):
        interpreter, system, execs = isolation._interpreter_paths()
        reads = [*interpreter, str(harness), str(sandbox), *system]
        return tuple(p for p in dict.fromkeys(reads) if os.path.exists(p)), execs

    for sandbox in (tmp_path, tmp_path / "missing", Path("/usr"), Path("/lib"), harness,
                    Path(os.path.realpath(sys.prefix))):
        assert isolation.default_paths(sandbox, harness) == fresh(sandbox), sandbox


def test_the_policy_as_sent_to_the_zygote_keeps_every_field():
    import dataclasses

    policy = isolation.KernelPolicy(read_paths=("/a", "/b"), write_paths=("/w",), pids_cgroup="/g")
    expected = {name: list(value) if isinstance(value, tuple) else value
                for name, value in dataclasses.asdict(policy).items()}
    assert policy.as_dict() == expected
